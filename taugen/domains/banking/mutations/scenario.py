"""Banking's own scenario operators (see :mod:`taugen.mutation.model` for the contract): K6 missing
information, K7 ambiguity, K8 contradictions, K10 no fallback, K11 omitted writes and K16 unknown tool or
field names, each on the first task (by id) of a banking problem.
"""

from __future__ import annotations

import re
from typing import Any

from taugen.mutation.edits import append_instruction, drop_gold, known_info, replace_known, without_transfer
from taugen.mutation.model import MutableBundle, agent_patch, gold, instructions, mutation


def _gold_target(bundle: MutableBundle, task: dict[str, Any], tool: str, key: str) -> tuple[str, dict[str, Any]] | None:
    """``(id, record)`` of the first ``tool`` call's ``key`` argument, the task's patch applied."""
    call = next((a for a in gold(task) if a["name"] == tool), None)
    if call is None:
        return None
    identifier = call["arguments"][key]
    table = {"transaction_id": "transactions", "account_id": "accounts"}[key]
    record = {**bundle.db[table].get(identifier, {}), **agent_patch(task).get(table, {}).get(identifier, {})}
    return identifier, record


# ------------------------------------------------------------------------------------------ K6


@mutation("K6", "wire_beneficiary_account_dropped",
          "the wire task's known_info no longer gives the beneficiary's account number the gold wires to")
def wire_beneficiary_account_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("domestic_wire")
    if task is None or not replace_known(task, r",? account number \d+", ""):
        return None
    return task["id"]


@mutation("K6", "check_number_dropped",
          "the stop-payment task says 'you wrote a check' without the check number the gold stops")
def check_number_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("stop_payment")
    if task is None or not replace_known(task, r"\bcheck number \d+", "a check"):
        return None
    return task["id"]


@mutation("K6", "date_of_birth_dropped",
          "the caller's date of birth is left out of known_info, though the gold verifies identity with it")
def date_of_birth_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("courtesy_overdraft_refund")
    if task is None or not replace_known(task, r"Your date of birth is [\d-]+\.\s*", ""):
        return None
    return task["id"]


# ------------------------------------------------------------------------------------------ K7


@mutation("K7", "duplicate_charge_order_dropped",
          "the billing dispute no longer says the later of the two identical charges is the duplicate")
def duplicate_charge_order_dropped(bundle: MutableBundle) -> str | None:
    task = bundle.task("credit_card_billing_dispute")
    if task is None or not replace_known(task, r"\s*The later charge is the duplicate\.", ""):
        return None
    steps = instructions(task)
    steps["task_instructions"] = steps["task_instructions"].replace(" (later)", "")
    return task["id"]


@mutation("K7", "twin_overdraft_fee",
          "a second overdraft fee with the same amount and date is added to the account the refund task names")
def twin_overdraft_fee(bundle: MutableBundle) -> str | None:
    task = bundle.task("courtesy_overdraft_refund")
    found = task and _gold_target(bundle, task, "refund_fee", "transaction_id")
    if not found:
        return None
    identifier, record = found
    twin_id = identifier[:-1] + ("0" if identifier[-1] != "0" else "1")
    agent_patch(task).setdefault("transactions", {})[twin_id] = {**record, "transaction_id": twin_id}
    return task["id"]


@mutation("K7", "second_savings_account_unnamed",
          "the closure task names the account only by product and opening date, and the customer has a second "
          "account of that product opened the same day")
def second_savings_account_unnamed(bundle: MutableBundle) -> str | None:
    task = bundle.task("early_account_closure")
    found = task and _gold_target(bundle, task, "close_account", "account_id")
    if not found:
        return None
    identifier, record = found
    customer_id = record["customer_id"]
    if not replace_known(task, rf"(\baccount) {re.escape(identifier)}\b", r"\1"):
        return None
    twin_id = identifier[:-1] + ("0" if identifier[-1] != "0" else "1")
    patch = agent_patch(task)
    patch.setdefault("accounts", {})[twin_id] = {**record, "account_id": twin_id}
    customer = bundle.db["customers"][customer_id]
    owned = list(patch.get("customers", {}).get(customer_id, {}).get("account_ids") or customer["account_ids"])
    patch.setdefault("customers", {}).setdefault(customer_id, {})["account_ids"] = owned + [twin_id]
    return task["id"]


# ------------------------------------------------------------------------------------------ K8


@mutation("K8", "fee_amount_contradicts_db",
          "the refund task's known_info states the overdraft fee as $10 more than the charge on record")
def fee_amount_contradicts_db(bundle: MutableBundle) -> str | None:
    task = bundle.task("courtesy_overdraft_refund")
    found = task and _gold_target(bundle, task, "refund_fee", "transaction_id")
    if not found:
        return None
    amount = abs(found[1]["amount"])
    if not replace_known(task, re.escape(f"${amount:,.2f}"), f"${amount + 10:,.2f}"):
        return None
    return task["id"]


@mutation("K8", "charge_date_contradicts_db",
          "the unauthorized-charge task says the charge posted three days later than the record shows")
def charge_date_contradicts_db(bundle: MutableBundle) -> str | None:
    import datetime as dt

    task = bundle.task("unauthorized_debit_dispute")
    found = task and _gold_target(bundle, task, "open_dispute", "transaction_id")
    if not found:
        return None
    posted = dt.date.fromisoformat(found[1]["posted_on"])
    written = f"{posted:%B} {posted.day}"
    moved = posted + dt.timedelta(days=3)
    if not replace_known(task, rf"\b{written}\b", f"{moved:%B} {moved.day}"):
        return None
    return task["id"]


@mutation("K8", "caller_name_from_sibling_task",
          "the caller's name in known_info is copied from another customer's task")
def caller_name_from_sibling_task(bundle: MutableBundle) -> str | None:
    task = bundle.task("stop_payment")
    if task is None:
        return None
    mine = re.match(r"You are ([^.]+)\.", known_info(task))
    others = sorted({m.group(1) for t in bundle.tasks for m in [re.match(r"You are ([^.]+)\.", known_info(t))]
                     if m and mine and m.group(1) != mine.group(1)})
    if not mine or not others or not replace_known(task, rf"You are {re.escape(mine.group(1))}\.",
                                                    f"You are {others[0]}."):
        return None
    return task["id"]


@mutation("K8", "only_if_fee_waived",
          "the stop-payment user agrees only if the fee is waived, while the gold charges the fee")
def only_if_fee_waived(bundle: MutableBundle) -> str | None:
    task = bundle.task("stop_payment")
    if task is None:
        return None
    steps = instructions(task)
    old = "and agree to the stop payment fee"
    if old not in steps.get("task_instructions", ""):
        return None
    steps["task_instructions"] = steps["task_instructions"].replace(
        old, "and agree to it only if the stop payment fee is waived")
    return task["id"]


# ------------------------------------------------------------------------------------------ K10

_COURTESY_REACTION = r"If the agent explains that policy allows no further courtesy refund yet, accept it and do not insist\."


def _edit_reaction(bundle: MutableBundle, replacement: str) -> str | None:
    task = without_transfer(bundle, "courtesy_refund_already_used")
    if task is None:
        return None
    steps = instructions(task)
    edited, count = re.subn(r"\s*" + _COURTESY_REACTION, replacement, steps.get("task_instructions", ""), count=1)
    if not count:
        return None
    steps["task_instructions"] = edited
    return task["id"]


@mutation("K10", "refusal_reaction_removed",
          "the refusal task no longer tells the user what to do when the courtesy refund is declined")
def refusal_reaction_removed(bundle: MutableBundle) -> str | None:
    return _edit_reaction(bundle, "")


@mutation("K10", "refusal_reaction_without_end",
          "the user's reaction to the declined refund is to ask again, with no end condition")
def refusal_reaction_without_end(bundle: MutableBundle) -> str | None:
    return _edit_reaction(bundle, " If the agent explains that policy allows no further courtesy refund yet, "
                                  "ask the agent to check again.")


@mutation("K10", "refusal_reaction_from_sibling_problem",
          "the refusal reaction is copied from the wire-limit task and never speaks of the declined refund")
def refusal_reaction_from_sibling_problem(bundle: MutableBundle) -> str | None:
    return _edit_reaction(bundle, " If the agent says it cannot send that amount and offers a transfer to the "
                                  "team that can, accept the transfer.")


# ------------------------------------------------------------------------------------------ K11


@mutation("K11", "second_atm_rebate_dropped",
          "the user asks for both ATM fees to be rebated but the gold rebates only the first")
def second_atm_rebate_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "atm_fee_rebate", "refund_fee", last=True)


@mutation("K11", "wire_send_dropped",
          "the wire task's gold looks the account up but never sends the wire the user asks for")
def wire_send_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "domestic_wire", "send_wire")


@mutation("K11", "statement_switch_dropped",
          "the user agrees to switch to online statements, but the gold only refunds the paper fees")
def statement_switch_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "paper_statement_switch", "set_statement_delivery")


@mutation("K11", "provisional_credit_dropped",
          "the unauthorized-charge gold opens the claim but leaves out the provisional credit the user accepts")
def provisional_credit_dropped(bundle: MutableBundle) -> str | None:
    return drop_gold(bundle, "unauthorized_debit_dispute", "issue_provisional_credit")


# ------------------------------------------------------------------------------------------ K16


@mutation("K16", "old_tool_name_in_instructions",
          "the user is told the agent will find the fee with `get_transactions` (the tool is list_transactions)")
def old_tool_name_in_instructions(bundle: MutableBundle) -> str | None:
    task = bundle.task("courtesy_overdraft_refund")
    if task is None:
        return None
    append_instruction(task, "If the agent cannot find the fee, suggest it look with `get_transactions`.")
    return task["id"]


@mutation("K16", "missing_field_in_known_info",
          "known_info says the account_balance field shows the money, a field no record has (it is balance)")
def missing_field_in_known_info(bundle: MutableBundle) -> str | None:
    task = bundle.task("domestic_wire")
    if task is None:
        return None
    steps = instructions(task)
    steps["known_info"] = (steps.get("known_info") or "") + \
        " The account_balance field in your app shows enough money for the wire and its fee."
    return task["id"]


@mutation("K16", "tool_name_misspelled",
          "the end condition names transfer_to_human_agent, one letter off the real transfer tool")
def tool_name_misspelled(bundle: MutableBundle) -> str | None:
    task = bundle.task("wire_over_limit")
    if task is None:
        return None
    steps = instructions(task)
    old = "If you are transferred to a human team"
    if old not in steps.get("task_instructions", ""):
        return None
    steps["task_instructions"] = steps["task_instructions"].replace(
        old, "If the agent calls transfer_to_human_agent", 1)
    return task["id"]
