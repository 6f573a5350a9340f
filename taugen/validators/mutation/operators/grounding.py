"""Mutation operators (see :mod:`taugen.validators.mutation.model` for the contract)."""

from __future__ import annotations

from taugen.validators.mutation.model import MutableBundle, gold, instructions, mutation  # noqa: F401
