"""Mutation operators (see :mod:`taugen.validators.mutation.model` for the contract)."""

from __future__ import annotations

from taugen.validators.mutation.model import MutableBundle, gold, instructions, mutation  # noqa: F401


@mutation("K3", "stop_payment_fee_off", "the gold stop-payment fee is $10.00 instead of the fee the facts give")
def stop_payment_fee_off(bundle: MutableBundle) -> str | None:
    task = bundle.task("stop_payment")
    if task is None:
        return None
    call = next(a for a in gold(task) if a["name"] == "place_stop_payment")
    call["arguments"]["fee"] = 10.0
    return task["id"]
