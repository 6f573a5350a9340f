"""The retail domain's own mutation operators: defects only a retail desk's problems, tools and facts carry.

:func:`taugen.mutation.model.operators` imports this package for a bundle whose ``environment`` is
``taugen.domains.retail`` (importing it registers every operator below); the generic operators apply to
every domain.
"""
