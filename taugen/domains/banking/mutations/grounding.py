"""Banking's own grounding operators (see :mod:`taugen.mutation.model` for the contract).

Kinds planted here: K2 (a gold action breaks a tool precondition), K4 (an assertion or communicate_info
disagrees with the gold), K5 (gold arguments contradict the database), K14 (the gold path cannot be
carried out) and K15 (the wrong record for a superlative). Each operator is one slip a task author
really makes, applied to the first task (by id) of a banking problem, so it works on every tier.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from taugen.mutation.edits import (add_assertion, communicate_sibling_amount, first_task, fresh_id, gold_call,
                                   known_ids, task_record, task_rows, typo)
from taugen.mutation.model import MutableBundle, agent_patch, gold, instructions, mutation


# ------------------------------------------------------------------------------------------ helpers


def _duplicate_pair(task: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """The billing dispute's gold call, the disputed (later) charge and its earlier twin."""
    call = gold_call(task, "open_dispute")
    if call is None:
        return None
    patch = agent_patch(task).get("transactions") or {}
    later = patch.get(call["arguments"]["transaction_id"])
    if later is None:
        return None
    twin = next((tid for tid, row in sorted(patch.items()) if tid != later["transaction_id"]
                 and row.get("description") == later["description"] and row.get("amount") == later["amount"]), None)
    return (call, later["transaction_id"], twin) if twin else None


# ------------------------------------------------------------------------------------------ K2


@mutation("K2", "refund_targets_the_purchase",
          "the gold refunds the hotel purchase next to the foreign fee instead of the fee (a non-fee refund)")
def refund_targets_the_purchase(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "platinum_foreign_fee_refund", "refund_fee")
    if task is None:
        return None
    for call in gold(task):
        if call["name"] != "refund_fee":
            continue
        fee = task_record(bundle, task, "transactions", call["arguments"]["transaction_id"])
        if fee.get("fee_type") != "foreign_transaction":
            continue
        purchase = next((tid for tid, row in task_rows(bundle, task, "transactions").items()
                         if row.get("account_id") == fee.get("account_id") and row.get("kind") == "purchase"
                         and row.get("posted_on") == fee.get("posted_on")), None)
        if purchase is None:
            return None
        call["arguments"]["transaction_id"] = purchase
        return task["id"]
    return None


@mutation("K2", "same_fee_refunded_twice",
          "the second ATM rebate repeats the first one's transaction id (copy-paste), refunding one fee twice")
def same_fee_refunded_twice(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "atm_fee_rebate", "refund_fee")
    if task is None:
        return None
    rebates = [a for a in gold(task) if a["name"] == "refund_fee" and a["arguments"].get("reason") == "atm_rebate"]
    if len(rebates) < 2:
        return None
    rebates[1]["arguments"]["transaction_id"] = rebates[0]["arguments"]["transaction_id"]
    return task["id"]


@mutation("K2", "lost_card_already_blocked",
          "the initial state already has the lost card blocked, but the gold still reports it lost")
def lost_card_already_blocked(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "lost_card_replacement", "report_card_lost")
    if task is None:
        return None
    card_id = gold_call(task, "report_card_lost")["arguments"]["card_id"]
    agent_patch(task).setdefault("cards", {}).setdefault(card_id, {})["status"] = "lost"
    return task["id"]


@mutation("K2", "wire_balance_forgets_the_fee",
          "the account's starting balance is set to the wire amount, forgetting the wire fee")
def wire_balance_forgets_the_fee(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "domestic_wire", "send_wire")
    if task is None:
        return None
    wire = gold_call(task, "send_wire")["arguments"]
    if not wire.get("fee"):
        return None
    agent_patch(task).setdefault("accounts", {}).setdefault(wire["account_id"], {})["balance"] = wire["amount"]
    return task["id"]


@mutation("K2", "account_closed_before_closing",
          "the account the customer wants to close is already closed in the initial state")
def account_closed_before_closing(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "early_account_closure", "close_account")
    if task is None:
        return None
    account_id = gold_call(task, "close_account")["arguments"]["account_id"]
    row = agent_patch(task).setdefault("accounts", {}).setdefault(account_id, {})
    row["status"] = "closed"
    return task["id"]


# ------------------------------------------------------------------------------------------ K4


@mutation("K4", "assertion_names_a_neighbour_transaction",
          "an nl_assertion names the refunded overdraft fee with one character of its id wrong")
def assertion_names_a_neighbour_transaction(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "courtesy_overdraft_refund", "refund_fee")
    if task is None:
        return None
    fee_id = next(a["arguments"]["transaction_id"] for a in gold(task)
                  if a["name"] == "refund_fee" and a["arguments"].get("reason") == "courtesy")
    wrong = typo(fee_id, known_ids(bundle))
    add_assertion(task, f"The agent refunds the overdraft fee {wrong} as a one-time courtesy.", "NL_ASSERTION")
    return task["id"]


_AMOUNT_ARGUMENTS = (("send_wire", "amount"), ("charge_service_fee", "fee"))
"""Gold writes whose amount a task may be graded on, with the argument that holds it."""


@mutation("K4", "communicate_amount_from_a_sibling_task",
          "communicate_info gives the amount of the next task's wire or service fee, not this task's")
def communicate_amount_from_a_sibling_task(bundle: MutableBundle) -> str | None:
    """The generic edit (:func:`taugen.mutation.edits.communicate_sibling_amount`) on the bank's amount-
    carrying writes, wires first."""
    return communicate_sibling_amount(bundle, _AMOUNT_ARGUMENTS)


@mutation("K4", "assertion_date_one_day_off",
          "an nl_assertion dates the disputed charge one day off the transaction's posting date")
def assertion_date_one_day_off(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "unauthorized_debit_dispute", "open_dispute")
    if task is None:
        return None
    target = task_record(bundle, task, "transactions", gold_call(task, "open_dispute")["arguments"]["transaction_id"])
    posted = dt.date.fromisoformat(target["posted_on"])
    taken = {row.get("posted_on") for row in task_rows(bundle, task, "transactions").values()
             if row.get("account_id") == target.get("account_id")}
    for shift in (1, -1, 10, -10):
        wrong = posted + dt.timedelta(days=shift)
        if wrong.month == posted.month and wrong.isoformat() not in taken:
            add_assertion(task, f"The agent opens an unauthorized-transaction dispute for the {target['description']} "
                          f"charge posted on {wrong.strftime('%B')} {wrong.day}.", "NL_ASSERTION")
            return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K5


@mutation("K5", "refund_transaction_id_typo",
          "the gold refunds a transaction id with its last character mistyped (no such transaction)")
def refund_transaction_id_typo(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "platinum_foreign_fee_refund", "refund_fee")
    if task is None:
        return None
    call = next(a for a in gold(task) if a["name"] == "refund_fee" and a["arguments"].get("reason") == "bank_error")
    call["arguments"]["transaction_id"] = typo(call["arguments"]["transaction_id"], known_ids(bundle))
    return task["id"]


@mutation("K5", "verification_birth_date_mistyped",
          "verify_identity passes a date of birth one day off the customer's profile (and the user text)")
def verification_birth_date_mistyped(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "stop_payment", "verify_identity")
    if task is None:
        return None
    arguments = gold_call(task, "verify_identity")["arguments"]
    born = dt.date.fromisoformat(arguments["date_of_birth"])
    wrong = born + dt.timedelta(days=1 if born.day < 28 else -1)
    arguments["date_of_birth"] = wrong.isoformat()
    fields = instructions(task)
    fields["known_info"] = fields["known_info"].replace(born.isoformat(), wrong.isoformat())
    return task["id"]


@mutation("K5", "stop_payment_on_another_customers_account",
          "the stop payment names a checking account of another customer (an id copied from the wrong profile)")
def stop_payment_on_another_customers_account(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "stop_payment", "place_stop_payment")
    if task is None:
        return None
    call = gold_call(task, "place_stop_payment")["arguments"]
    own = task_record(bundle, task, "accounts", call["account_id"])
    other = next((aid for aid, row in sorted(bundle.db["accounts"].items())
                  if row.get("kind") == "checking" and row.get("status") == "open"
                  and row.get("customer_id") != own.get("customer_id")), None)
    if other is None:
        return None
    call["account_id"] = other
    return task["id"]


# ------------------------------------------------------------------------------------------ K14


@mutation("K14", "user_asked_to_block_the_card",
          "the gold gives report_card_lost to the user (who has no tools) instead of the agent")
def user_asked_to_block_the_card(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "lost_card_replacement", "report_card_lost")
    if task is None:
        return None
    gold_call(task, "report_card_lost")["requestor"] = "user"
    return task["id"]


@mutation("K14", "provisional_credit_without_its_dispute",
          "the open_dispute step is dropped, so the provisional credit names a dispute no step creates")
def provisional_credit_without_its_dispute(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("unauthorized_debit_dispute"):
        actions = gold(task)
        for position, action in enumerate(actions):
            if action["name"] != "open_dispute":
                continue
            credit = gold_call(task, "issue_provisional_credit", position + 1)
            if credit is not None and credit["arguments"]["dispute_id"] not in known_ids(bundle):
                del actions[position]
                return task["id"]
    return None


@mutation("K14", "card_status_outside_the_schema",
          "the initial state marks the card 'locked', a status the database does not have")
def card_status_outside_the_schema(bundle: MutableBundle) -> str | None:
    task = bundle.task("address_change_card_hold")
    if task is None:
        return None
    cards = agent_patch(task).get("cards") or {}
    card_id = next((cid for cid, row in sorted(cards.items()) if row.get("status") == "lost"), None)
    if card_id is None:
        return None
    cards[card_id]["status"] = "locked"
    return task["id"]


@mutation("K14", "duplicate_charges_on_one_day",
          "both duplicate charges are posted on the same day, so 'the later charge' picks neither")
def duplicate_charges_on_one_day(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("credit_card_billing_dispute"):
        pair = _duplicate_pair(task)
        if pair is not None:
            _, later, earlier = pair
            patch = agent_patch(task)["transactions"]
            patch[earlier]["posted_on"] = patch[later]["posted_on"]
            return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K15


@mutation("K15", "duplicate_dispute_picks_the_earlier_charge",
          "the scenario says the later charge is the duplicate, but the gold disputes the earlier one")
def duplicate_dispute_picks_the_earlier_charge(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("credit_card_billing_dispute"):
        pair = _duplicate_pair(task)
        if pair is not None:
            call, _, earlier = pair
            call["arguments"]["transaction_id"] = earlier
            return task["id"]
    return None


@mutation("K15", "paper_fee_request_says_oldest",
          "the user asks for the oldest paper statement fee back while the gold refunds the recent ones")
def paper_fee_request_says_oldest(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "paper_statement_switch", "refund_fee")
    if task is None:
        return None
    refunded = {a["arguments"]["transaction_id"] for a in gold(task)
                if a["name"] == "refund_fee" and a["arguments"].get("reason") == "fee_waiver"}
    fees = [row for row in (agent_patch(task).get("transactions") or {}).values()
            if row.get("fee_type") == "paper_statement"]
    if not refunded or len(fees) <= len(refunded):
        return None  # the oldest fee must be one the gold leaves alone
    fields = instructions(task)
    fields["task_instructions"] = (fields["task_instructions"] or "") + (
        " Ask the agent to refund the oldest paper statement fee on the account.")
    return task["id"]


@mutation("K15", "dispute_the_larger_charge_but_gold_takes_the_smaller",
          "a second, larger charge from the same merchant is added and the user says the larger charge is not "
          "theirs, but the gold still disputes the original, smaller one")
def dispute_the_larger_charge_but_gold_takes_the_smaller(bundle: MutableBundle) -> str | None:
    task = first_task(bundle, "unauthorized_debit_dispute", "open_dispute")
    if task is None:
        return None
    target_id = gold_call(task, "open_dispute")["arguments"]["transaction_id"]
    patch = agent_patch(task).setdefault("transactions", {})
    target = patch.get(target_id)
    if target is None:
        return None
    fields = instructions(task)
    sentence = re.search(r"The charge is .*?" + re.escape(target["description"]) + r".*?\.(?=\s|$)",
                         fields["known_info"])
    if sentence is None:
        return None
    distractor_id = fresh_id(target_id.split("-")[0], target_id, known_ids(bundle))
    posted = dt.date.fromisoformat(target["posted_on"]) - dt.timedelta(days=3)
    patch[distractor_id] = {**target, "transaction_id": distractor_id, "posted_on": posted.isoformat(),
                            "amount": round(target["amount"] - 40.0, 2)}
    fields["known_info"] = fields["known_info"].replace(
        sentence.group(0), f"Two {target['description']} charges posted recently; the larger charge is not yours.")
    return task["id"]
