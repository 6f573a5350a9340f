"""Banking's own mutation operators: defects that only a bank's problems can carry.

:func:`taugen.mutation.model.operators` imports this module for a bundle whose ``environment`` is
``taugen.domains.banking``; the generic operators (:mod:`taugen.mutation.operators`) apply to every
domain. The contract is :mod:`taugen.mutation.model`'s.
"""

from __future__ import annotations

from taugen.domains.banking.tools import derived_id
from taugen.mutation.model import (MutableBundle, call_index, fact_amount, gold, initial_records, insert_call,
                                   mutation, tool_call)


@mutation("K1", "provisional_credit_too_early",
          "a new Regulation E claim above the instant-credit amount gets provisional credit on the day it is "
          "opened, before the investigation deadline")
def provisional_credit_too_early(bundle: MutableBundle) -> str | None:
    small = fact_amount(bundle, "reg_e_small_claim_instant_credit")
    for task in [*bundle.tasks_of("unauthorized_debit_dispute_over_threshold"), *bundle.tasks_of("unauthorized_debit_dispute")]:
        index = call_index(task, "open_dispute", reason="unauthorized")
        if index is None or small is None:
            continue
        transaction = gold(task)[index]["arguments"]["transaction_id"]
        dispute = derived_id("DSP", transaction)
        amount = -initial_records(bundle, task, "transactions")[transaction]["amount"]
        if amount > small and call_index(task, "issue_provisional_credit", dispute_id=dispute) is None:
            insert_call(task, index + 1, tool_call("issue_provisional_credit", {"dispute_id": dispute}))
            return task["id"]
    return None
