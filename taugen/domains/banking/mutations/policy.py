"""Banking's own policy operators (see :mod:`taugen.mutation.model` for the contract).

* K1 — the gold makes a write the bank's policy forbids: the tempting write a forbidden problem refuses
  (a second courtesy refund, a card mailed to a just-changed address, a late Regulation E dispute, a wire
  over the daily limit, provisional credit before it is due);
* K3 — an amount in a gold argument differs from what the facts compute (stop payment, wire, card
  replacement and early closure fees);
* K9 — the scenario no longer pins one option, so several policy-compliant end states exist (shipping
  speed, which of two eligible fees);
* K17 — two tasks with equal rule inputs end in opposite decisions (a persona twin refused, a refund or
  credit dropped from one task of a problem whose siblings grant it).

Operators read amounts from the bundle's own facts (``author/manifest.json``) so they stay correct when a
domain expert edits the fee schedule, and pick tasks and records by problem name and sorted ids.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from typing import Any

from taugen.domains.banking.tools import derived_id
from taugen.mutation.edits import drop_writes
from taugen.mutation.model import (MutableBundle, NotApplicable, agent_patch, call_index, drop_call, fact_amount, gold,
                                   initial_records, insert_call, instructions, mutation, replace_call, tool_call)


# ------------------------------------------------------------------------------------------ K1
@mutation("K1", "second_courtesy_refund",
          "a task whose customer already had this year's courtesy refund gets the new overdraft fee refunded as "
          "courtesy anyway")
def second_courtesy_refund(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("courtesy_refund_already_used"):
        index = call_index(task, "list_fee_refunds")
        if index is None:
            continue
        account = gold(task)[index]["arguments"]["account_id"]
        refunded = {r["transaction_id"] for r in initial_records(bundle, task, "fee_refunds").values()}
        fees = sorted((t["posted_on"], key) for key, t in initial_records(bundle, task, "transactions").items()
                      if t["account_id"] == account and t.get("fee_type") == "overdraft" and key not in refunded)
        if fees:
            insert_call(task, index + 1, tool_call("refund_fee", {"reason": "courtesy", "transaction_id": fees[-1][1]}))
            return task["id"]
    return None


@mutation("K1", "card_mailed_to_new_address",
          "instead of the transfer to the fraud team, the gold mails the replacement card to an address changed "
          "inside the hold period (standard shipping, scheduled fee)")
def card_mailed_to_new_address(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("address_change_card_hold"):
        index = call_index(task, "transfer_to_human_agents", department="fraud")
        customer = gold(task)[1]["arguments"].get("customer_id")
        cards = sorted(key for key, card in initial_records(bundle, task, "cards").items()
                       if card.get("customer_id") == customer and card.get("status") in ("lost", "stolen")
                       and not card.get("replaced_by"))
        if index is None or not cards:
            continue
        card = initial_records(bundle, task, "cards")[cards[0]]
        fee = fact_amount(bundle, "credit_card_replacement_fee" if card.get("kind") == "credit"
                           else "fee_debit_card_standard_replacement")
        if fee is None:
            continue
        replace_call(task, index, tool_call("order_replacement_card", {"card_id": cards[0], "fee": fee,
                                                               "shipping": "standard"}))
        return task["id"]
    return None


@mutation("K1", "late_reg_e_dispute_opened",
          "instead of the transfer to a disputes specialist, the gold opens a Regulation E dispute on a charge "
          "whose statement is older than the notice window")
def late_reg_e_dispute_opened(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("late_reg_e_claim"):
        index = call_index(task, "transfer_to_human_agents", department="disputes")
        if index is None:
            continue
        text = instructions(task)["known_info"]
        accounts = {c["arguments"].get("account_id") for c in gold(task) if c["name"] == "list_transactions"}
        charges = sorted((t["statement_date"], key) for key, t in initial_records(bundle, task, "transactions").items()
                         if t["account_id"] in accounts and t.get("kind") == "purchase" and t.get("statement_date")
                         and f"${-t['amount']:,.2f}" in text)
        if charges:
            replace_call(task, index, tool_call("open_dispute", {"reason": "unauthorized", "transaction_id": charges[0][1]}))
            return task["id"]
    return None


_WIRE = re.compile(r"Send \$([\d,]+\.\d\d) from checking account (\w+) to (.+?), routing number (\d{9}), "
                   r"account number (\d+)")


@mutation("K1", "wire_over_limit_sent",
          "instead of the transfer to the wire desk, the gold sends the wire the caller asks for although it is "
          "above the online daily limit (with the scheduled fee)")
def wire_over_limit_sent(bundle: MutableBundle) -> str | None:
    fee = fact_amount(bundle, "fee_domestic_wire_outgoing")
    for task in bundle.tasks_of("wire_over_limit"):
        index = call_index(task, "transfer_to_human_agents", department="wire_desk")
        limit = fact_amount(bundle, "wire_online_daily_limit")
        wires = [m for m in _WIRE.finditer(instructions(task)["known_info"])
                 if limit is not None and float(m.group(1).replace(",", "")) > limit]
        if index is None or not wires or fee is None:
            continue
        amount, account, name, routing, beneficiary = wires[0].groups()
        replace_call(task, index, tool_call("send_wire", {
            "account_id": account, "amount": float(amount.replace(",", "")), "beneficiary_account": beneficiary,
            "beneficiary_name": name, "fee": fee, "routing_number": routing}))
        return task["id"]
    return None


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


# ------------------------------------------------------------------------------------------ K3
@mutation("K3", "stop_payment_fee_off", "the gold stop-payment fee is $10.00 instead of the fee the facts give")
def stop_payment_fee_off(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("stop_payment"):
        index = call_index(task, "place_stop_payment")
        if index is not None and gold(task)[index]["arguments"]["fee"] != 10.0:
            gold(task)[index]["arguments"]["fee"] = 10.0
            return task["id"]
    return None


@mutation("K3", "wire_fee_from_incoming_row",
          "the gold charges the incoming-wire fee on an outgoing wire (the author read the wrong fee-schedule row)")
def wire_fee_from_incoming_row(bundle: MutableBundle) -> str | None:
    incoming = fact_amount(bundle, "fee_domestic_wire_incoming")
    for task in bundle.tasks_of("domestic_wire"):
        index = call_index(task, "send_wire")
        if index is not None and incoming is not None and gold(task)[index]["arguments"]["fee"] != incoming:
            gold(task)[index]["arguments"]["fee"] = incoming
            return task["id"]
    return None


@mutation("K3", "replacement_waiver_misapplied",
          "the expedited replacement fee is charged although the Premier waiver applies, or waived although it "
          "does not (the first lost-card task)")
def replacement_waiver_misapplied(bundle: MutableBundle) -> str | None:
    expedited = fact_amount(bundle, "fee_debit_card_expedited_replacement")
    for task in bundle.tasks_of("lost_card_replacement"):
        index = call_index(task, "order_replacement_card", shipping="expedited")
        if index is None or not expedited:
            continue
        arguments = gold(task)[index]["arguments"]
        arguments["fee"] = expedited if arguments["fee"] == 0 else 0.0
        return task["id"]
    return None


@mutation("K3", "early_closure_fee_skipped",
          "an account closed inside the early-closure window is closed with no closure fee (the author counted "
          "the window from the wrong date)")
def early_closure_fee_skipped(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("early_account_closure"):
        index = call_index(task, "close_account")
        if index is not None and gold(task)[index]["arguments"]["closure_fee"] > 0:
            gold(task)[index]["arguments"]["closure_fee"] = 0.0
            return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K9
_SPEED = re.compile(r"\s*(?:by|with|for) expedited shipping", re.IGNORECASE)


@mutation("K9", "replacement_speed_unstated",
          "the user instructions ask for 'a replacement' without the shipping speed, so standard and expedited "
          "replacements both comply")
def replacement_speed_unstated(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("lost_card_replacement"):
        text = instructions(task)["task_instructions"]
        if _SPEED.search(text):
            instructions(task)["task_instructions"] = _SPEED.sub("", text)
            return task["id"]
    return None


@mutation("K9", "two_overdraft_fees_one_refund",
          "the setup seeds a second recent overdraft fee and the scenario says 'two overdraft fees' but still "
          "asks for one courtesy refund without saying which")
def two_overdraft_fees_one_refund(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("courtesy_overdraft_refund"):
        index = call_index(task, "refund_fee", reason="courtesy")
        if index is None:
            continue
        fee_id = gold(task)[index]["arguments"]["transaction_id"]
        fee = initial_records(bundle, task, "transactions")[fee_id]
        text = instructions(task)["known_info"]
        sentence = next((s for s in re.split(r"(?<=\.)\s+", text) if "overdraft fee" in s.lower()), None)
        if sentence is None:
            continue
        copy_id = f"{fee_id[:-2]}{'00' if fee_id[-2:] != '00' else '01'}"
        posted = dt.date.fromisoformat(fee["posted_on"]) - dt.timedelta(days=3)
        agent_patch(task).setdefault("transactions", {})[copy_id] = {
            **fee, "transaction_id": copy_id, "posted_on": posted.isoformat()}
        instructions(task)["known_info"] = text.replace(
            sentence, f"Two overdraft fees of ${-fee['amount']:,.2f} were charged this month to account "
                      f"{fee['account_id']}.")
        return task["id"]
    return None


@mutation("K9", "extra_atm_fee_row",
          "the setup of an ATM rebate task holds one more out-of-network ATM fee than the cycle's remaining "
          "allowance covers (a copied row), and the scenario does not say which fees to rebate")
def extra_atm_fee_row(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("atm_fee_rebate"):
        refunds = [c["arguments"]["transaction_id"] for c in gold(task)
                   if c["name"] == "refund_fee" and c["arguments"].get("reason") == "atm_rebate"]
        if not refunds:
            continue
        transactions = initial_records(bundle, task, "transactions")
        fee = transactions[refunds[-1]]
        account = initial_records(bundle, task, "accounts").get(fee["account_id"], {})
        allowance = fact_amount(bundle, f"{account.get('product', '').removesuffix('_checking')}"
                                         "_atm_rebates_per_cycle")
        cycle = fee["posted_on"][:7]  # monthly statement cycles: the allowance counts the fee's own cycle
        used = sum(1 for r in initial_records(bundle, task, "fee_refunds").values()
                   if r["account_id"] == fee["account_id"] and r["reason"] == "atm_rebate"
                   and transactions.get(r["transaction_id"], {}).get("posted_on", "")[:7] == cycle)
        if allowance is None or used + len(refunds) != allowance:
            continue  # the allowance must bind, or the right gold would rebate the copy too
        copy_id = f"{refunds[-1][:-2]}{'00' if refunds[-1][-2:] != '00' else '01'}"
        fee_day = dt.date.fromisoformat(fee["posted_on"])
        posted = max(fee_day.replace(day=1), fee_day - dt.timedelta(days=1))
        agent_patch(task).setdefault("transactions", {})[copy_id] = {
            **fee, "transaction_id": copy_id, "posted_on": posted.isoformat()}
        return task["id"]
    return None


# ------------------------------------------------------------------------------------------ K17
@mutation("K17", "persona_twin_refused_courtesy",
          "a persona variant of a courtesy refund task (same customer, same fee) is added whose gold refuses the "
          "refund its twin grants")
def persona_twin_refused_courtesy(bundle: MutableBundle) -> str | None:
    for task in bundle.tasks_of("courtesy_overdraft_refund"):
        index = call_index(task, "refund_fee", reason="courtesy")
        if index is None or "[PERSONA:" not in task["id"]:
            continue
        twin = copy.deepcopy(task)
        twin["id"] = re.sub(r"\[PERSONA:[^\]]*\]", "[PERSONA:Impatient]", task["id"])
        if twin["id"] == task["id"] or any(t["id"] == twin["id"] for t in bundle.tasks):
            twin["id"] = re.sub(r"\[PERSONA:[^\]]*\]", "[PERSONA:Impatient2]", task["id"])
        twin["user_scenario"]["persona"] = ("You are short on time and impatient; you want the call over quickly "
                                            "and answer in as few words as possible.")
        drop_call(twin, index)
        bundle.tasks.append(twin)
        for ids in bundle.splits.values():
            if task["id"] in ids:
                ids.append(twin["id"])
        return twin["id"]
    return None


@mutation("K17", "overdue_credit_withheld",
          "one overdue-provisional-credit task ends after reading the claim (the author miscounted the business "
          "days) while its siblings with the same rule inputs issue the credit")
def overdue_credit_withheld(bundle: MutableBundle) -> str | None:
    """Withhold the credit in a task only when another task of the problem issues it on a claim with the
    same rule inputs (same regulation, same side of the instant-credit amount; every overdue claim is
    past its deadline). Without such a twin the withheld credit is an omission (K11), not two tasks
    deciding equal inputs differently (K17): the operator does not apply."""
    tasks = bundle.tasks_of("provisional_credit_overdue")
    inputs = {task["id"]: _credit_claim(bundle, task) for task in tasks}
    for task in tasks[1:] + tasks[:1]:  # keep the first as the twin that acts
        twins = [other for other in tasks if other is not task and inputs[other["id"]] == inputs[task["id"]]]
        if inputs[task["id"]] is not None and twins and drop_writes(task, "issue_provisional_credit"):
            return task["id"]
    raise NotApplicable("no two provisional_credit_overdue tasks credit claims with the same rule inputs")


def _credit_claim(bundle: MutableBundle, task: dict[str, Any]) -> tuple[str, bool] | None:
    """The provisional-credit rule's inputs that differ between overdue claims: the claim's regulation,
    and whether the disputed charge is at or under the instant-credit amount (None without a credit)."""
    index = call_index(task, "issue_provisional_credit")
    if index is None:
        return None
    dispute = initial_records(bundle, task, "disputes").get(gold(task)[index]["arguments"]["dispute_id"]) or {}
    charge = initial_records(bundle, task, "transactions").get(dispute.get("transaction_id", ""))
    small = fact_amount(bundle, "reg_e_small_claim_instant_credit")
    if charge is None or small is None:
        return None
    return dispute.get("regulation", ""), round(-float(charge["amount"]), 2) <= small


@mutation("K17", "atm_rebates_refused",
          "one ATM-rebate task refuses both rebates (the author thought rebates only post at cycle end) while its "
          "siblings with the same allowance left grant them")
def atm_rebates_refused(bundle: MutableBundle) -> str | None:
    tasks = bundle.tasks_of("atm_fee_rebate")
    for task in tasks[1:] + tasks[:1]:
        if drop_writes(task, "refund_fee", reason="atm_rebate"):
            return task["id"]
    return None


@mutation("K17", "foreign_fee_refund_refused",
          "one Platinum foreign-fee task explains the fee instead of refunding it as a bank error, while its "
          "siblings refund the same kind of fee charged at the old rate")
def foreign_fee_refund_refused(bundle: MutableBundle) -> str | None:
    tasks = bundle.tasks_of("platinum_foreign_fee_refund")
    for task in tasks[1:] + tasks[:1]:
        if drop_writes(task, "refund_fee", reason="bank_error"):
            return task["id"]
    return None
