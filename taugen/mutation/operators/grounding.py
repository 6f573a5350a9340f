"""Mutation operators (see :mod:`taugen.mutation.model` for the contract).

Kinds planted here: K2 (a gold action breaks a tool precondition), K4 (an assertion or communicate_info
disagrees with the gold), K5 (gold arguments contradict the database), K14 (the gold path cannot be
carried out) and K15 (the wrong record for a superlative). Each operator is one slip a task author
really makes, applied to the first task (by id) of a banking problem, so it works on every tier.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import re
from decimal import Decimal
from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.grounding import quotable
from taugen.validators.defects.sources import taskset_for_view
from taugen.mutation.model import MutableBundle, agent_patch, gold, instructions, mutation


# ------------------------------------------------------------------------------------------ helpers


def _call(task: dict[str, Any], name: str, after: int = 0) -> dict[str, Any] | None:
    """The first gold action of ``task`` named ``name`` at or after position ``after``."""
    return next((a for a in gold(task)[after:] if a["name"] == name), None)


def _first(bundle: MutableBundle, problem: str, *tools: str) -> dict[str, Any] | None:
    """The first task (by id) composing ``problem`` whose gold calls every tool of ``tools``."""
    return next((task for task in bundle.tasks_of(problem)
                 if all(_call(task, tool) is not None for tool in tools)), None)


def _record(bundle: MutableBundle, task: dict[str, Any], table: str, record_id: str) -> dict[str, Any]:
    """A database record as the task starts from it: the shared row with the task's patch laid over."""
    base = copy.deepcopy(bundle.db.get(table, {}).get(record_id) or {})
    patch = (agent_patch(task).get(table) or {}).get(record_id) or {}
    return {**base, **patch}


def _rows(bundle: MutableBundle, task: dict[str, Any], table: str) -> dict[str, dict[str, Any]]:
    """Every record of ``table`` as the task starts from it (shared rows plus the task's patch)."""
    ids = set(bundle.db.get(table, {})) | set(agent_patch(task).get(table) or {})
    return {record_id: _record(bundle, task, table, record_id) for record_id in sorted(ids)}


def _known_ids(bundle: MutableBundle) -> set[str]:
    """Every id key of the database and of every task's patch (a typo must land on none of them)."""
    found = {key for table in bundle.db.values() if isinstance(table, dict) for key in table}
    for task in bundle.tasks:
        for table in agent_patch(task).values():
            if isinstance(table, dict):
                found |= set(table)
    return found


def _typo(value: str, taken: set[str]) -> str:
    """``value`` with its last character replaced (the first replacement that names no existing id)."""
    alphabet = "0123456789ABCDEF" if re.fullmatch(r"[0-9A-Z-]+", value) else "0123456789abcdef"
    for position in range(len(value) - 1, -1, -1):
        for char in alphabet:
            candidate = value[:position] + char + value[position + 1:]
            if candidate != value and candidate not in taken and value[position].isalnum():
                return candidate
    raise LookupError(f"no free one-character variant of {value}")


def _fresh_id(prefix: str, seed: str, taken: set[str]) -> str:
    """A new ``PREFIX-XXXXXXXX`` id (sha256 of ``seed``) that names no existing record."""
    for salt in range(100):
        candidate = f"{prefix}-{hashlib.sha256(f'{seed}|{salt}'.encode()).hexdigest()[:8].upper()}"
        if candidate not in taken:
            return candidate
    raise LookupError(f"no free id for {seed}")


def _assert(task: dict[str, Any], text: str, basis: str) -> None:
    """Add an nl_assertion or communicate_info entry and grade it (as the author would)."""
    criteria = task["evaluation_criteria"]
    key = "nl_assertions" if basis == "NL_ASSERTION" else "communicate_info"
    criteria[key] = [*(criteria.get(key) or []), text]
    if basis not in criteria["reward_basis"]:
        criteria["reward_basis"].append(basis)


def _money(amount: float) -> str:
    return f"{abs(amount):.2f}"


def _duplicate_pair(task: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """The billing dispute's gold call, the disputed (later) charge and its earlier twin."""
    call = _call(task, "open_dispute")
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
    task = _first(bundle, "platinum_foreign_fee_refund", "refund_fee")
    if task is None:
        return None
    for call in gold(task):
        if call["name"] != "refund_fee":
            continue
        fee = _record(bundle, task, "transactions", call["arguments"]["transaction_id"])
        if fee.get("fee_type") != "foreign_transaction":
            continue
        purchase = next((tid for tid, row in _rows(bundle, task, "transactions").items()
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
    task = _first(bundle, "atm_fee_rebate", "refund_fee")
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
    task = _first(bundle, "lost_card_replacement", "report_card_lost")
    if task is None:
        return None
    card_id = _call(task, "report_card_lost")["arguments"]["card_id"]
    agent_patch(task).setdefault("cards", {}).setdefault(card_id, {})["status"] = "lost"
    return task["id"]


@mutation("K2", "wire_balance_forgets_the_fee",
          "the account's starting balance is set to the wire amount, forgetting the wire fee")
def wire_balance_forgets_the_fee(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "domestic_wire", "send_wire")
    if task is None:
        return None
    wire = _call(task, "send_wire")["arguments"]
    if not wire.get("fee"):
        return None
    agent_patch(task).setdefault("accounts", {}).setdefault(wire["account_id"], {})["balance"] = wire["amount"]
    return task["id"]


@mutation("K2", "account_closed_before_closing",
          "the account the customer wants to close is already closed in the initial state")
def account_closed_before_closing(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "early_account_closure", "close_account")
    if task is None:
        return None
    account_id = _call(task, "close_account")["arguments"]["account_id"]
    row = agent_patch(task).setdefault("accounts", {}).setdefault(account_id, {})
    row["status"] = "closed"
    return task["id"]


# ------------------------------------------------------------------------------------------ K4


@mutation("K4", "assertion_names_a_neighbour_transaction",
          "an nl_assertion names the refunded overdraft fee with one character of its id wrong")
def assertion_names_a_neighbour_transaction(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "courtesy_overdraft_refund", "refund_fee")
    if task is None:
        return None
    fee_id = next(a["arguments"]["transaction_id"] for a in gold(task)
                  if a["name"] == "refund_fee" and a["arguments"].get("reason") == "courtesy")
    _assert(task, f"The agent refunds the overdraft fee {_typo(fee_id, _known_ids(bundle))} as a one-time courtesy.",
            "NL_ASSERTION")
    return task["id"]


_AMOUNT_ARGUMENTS = (("send_wire", "amount"), ("charge_service_fee", "fee"))
"""Gold writes whose amount a task may be graded on, with the argument that holds it."""


@mutation("K4", "communicate_amount_from_a_sibling_task",
          "communicate_info gives the amount of the next task's wire or service fee, not this task's")
def communicate_amount_from_a_sibling_task(bundle: MutableBundle) -> str | None:
    """The sibling's amount must be foreign to the task: an amount the task's own values give (one of its
    amounts, a multiple, a sum or a difference of them: $12.00 when the task holds four $3.00 ATM fees)
    could be what the task tells the user, so communicating it plants no defect; such a pair is skipped.
    "The task's own values give" is K4's own definition (:func:`taugen.validators.defects.grounding.quotable`),
    read on the unedited bundle."""
    taskset = None
    for tool, argument in _AMOUNT_ARGUMENTS:
        tasks = sorted((t for t in bundle.tasks if _call(t, tool) is not None), key=lambda t: t["id"])
        for task, sibling in zip(tasks, tasks[1:] + tasks[:1]):
            own = _call(task, tool)["arguments"][argument]
            other = _call(sibling, tool)["arguments"][argument]
            if round(float(other), 2) == round(float(own), 2):
                continue
            taskset = taskset or taskset_for_view(BundleView(bundle.files, "<mutant>"))
            universe = quotable(taskset, next(t for t in taskset.tasks if t["id"] == task["id"]))
            wanted = Decimal(_money(other).strip("$").replace(",", ""))
            if wanted not in universe.derived and wanted.normalize() not in universe.derived:
                _assert(task, _money(other), "COMMUNICATE")
                return task["id"]
    return None


@mutation("K4", "assertion_date_one_day_off",
          "an nl_assertion dates the disputed charge one day off the transaction's posting date")
def assertion_date_one_day_off(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "unauthorized_debit_dispute", "open_dispute")
    if task is None:
        return None
    target = _record(bundle, task, "transactions", _call(task, "open_dispute")["arguments"]["transaction_id"])
    posted = dt.date.fromisoformat(target["posted_on"])
    taken = {row.get("posted_on") for row in _rows(bundle, task, "transactions").values()
             if row.get("account_id") == target.get("account_id")}
    for shift in (1, -1, 10, -10):
        wrong = posted + dt.timedelta(days=shift)
        if wrong.month == posted.month and wrong.isoformat() not in taken:
            _assert(task, f"The agent opens an unauthorized-transaction dispute for the {target['description']} "
                          f"charge posted on {wrong.strftime('%B')} {wrong.day}.", "NL_ASSERTION")
            return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K5


@mutation("K5", "refund_transaction_id_typo",
          "the gold refunds a transaction id with its last character mistyped (no such transaction)")
def refund_transaction_id_typo(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "platinum_foreign_fee_refund", "refund_fee")
    if task is None:
        return None
    call = next(a for a in gold(task) if a["name"] == "refund_fee" and a["arguments"].get("reason") == "bank_error")
    call["arguments"]["transaction_id"] = _typo(call["arguments"]["transaction_id"], _known_ids(bundle))
    return task["id"]


@mutation("K5", "verification_birth_date_mistyped",
          "verify_identity passes a date of birth one day off the customer's profile (and the user text)")
def verification_birth_date_mistyped(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "stop_payment", "verify_identity")
    if task is None:
        return None
    arguments = _call(task, "verify_identity")["arguments"]
    born = dt.date.fromisoformat(arguments["date_of_birth"])
    wrong = born + dt.timedelta(days=1 if born.day < 28 else -1)
    arguments["date_of_birth"] = wrong.isoformat()
    fields = instructions(task)
    fields["known_info"] = fields["known_info"].replace(born.isoformat(), wrong.isoformat())
    return task["id"]


@mutation("K5", "stop_payment_on_another_customers_account",
          "the stop payment names a checking account of another customer (an id copied from the wrong profile)")
def stop_payment_on_another_customers_account(bundle: MutableBundle) -> str | None:
    task = _first(bundle, "stop_payment", "place_stop_payment")
    if task is None:
        return None
    call = _call(task, "place_stop_payment")["arguments"]
    own = _record(bundle, task, "accounts", call["account_id"])
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
    task = _first(bundle, "lost_card_replacement", "report_card_lost")
    if task is None:
        return None
    _call(task, "report_card_lost")["requestor"] = "user"
    return task["id"]


@mutation("K14", "provisional_credit_without_its_dispute",
          "the open_dispute step is dropped, so the provisional credit names a dispute no step creates")
def provisional_credit_without_its_dispute(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("unauthorized_debit_dispute"):
        actions = gold(task)
        for position, action in enumerate(actions):
            if action["name"] != "open_dispute":
                continue
            credit = _call(task, "issue_provisional_credit", position + 1)
            if credit is not None and credit["arguments"]["dispute_id"] not in _known_ids(bundle):
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
    task = _first(bundle, "paper_statement_switch", "refund_fee")
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
    task = _first(bundle, "unauthorized_debit_dispute", "open_dispute")
    if task is None:
        return None
    target_id = _call(task, "open_dispute")["arguments"]["transaction_id"]
    patch = agent_patch(task).setdefault("transactions", {})
    target = patch.get(target_id)
    if target is None:
        return None
    fields = instructions(task)
    sentence = re.search(r"The charge is .*?" + re.escape(target["description"]) + r".*?\.(?=\s|$)",
                         fields["known_info"])
    if sentence is None:
        return None
    distractor_id = _fresh_id(target_id.split("-")[0], target_id, _known_ids(bundle))
    posted = dt.date.fromisoformat(target["posted_on"]) - dt.timedelta(days=3)
    patch[distractor_id] = {**target, "transaction_id": distractor_id, "posted_on": posted.isoformat(),
                            "amount": round(target["amount"] - 40.0, 2)}
    fields["known_info"] = fields["known_info"].replace(
        sentence.group(0), f"Two {target['description']} charges posted recently; the larger charge is not yours.")
    return task["id"]
