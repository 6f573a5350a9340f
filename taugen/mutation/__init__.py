"""Mutation testing of the validators (``taugen mutate``): plant realistic defects of every kind K1–K20
into a good bundle and check that the validator for each kind catches them.

* :mod:`.model` — :class:`~.model.Mutant`, :class:`~.model.MutableBundle` and the ``@mutation`` registry;
* :mod:`.operators` — the built-in operators, at least three per kind;
* :mod:`.runner` — validation of each mutant, kill attribution and the per-kind kill rate.
"""
