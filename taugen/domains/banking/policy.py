"""Cedar Ridge Bank's policy as code: rules computed from the pack's typed fact values.

Each rule names the facts it implements and reads every amount, window and limit from them (fees by
product from the fee schedule, the courtesy refund limit and window, the Premier ATM rebate allowance,
the expedited replacement fee and its Premier waiver, stop payment, early closure and wire fees, the
wire daily limit, the Regulation E notice window counted from the statement date, the provisional
credit deadline in business days, the Regulation Z window, the replacement-card address hold and the
Platinum foreign transaction rate). Tools do not enforce any of this (see ``tools.py``); validators
replay gold writes through :data:`RULES` (``taugen.validators.defects.policy``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from taugen.domains.banking.db import Account, BankDB, Transaction, statement_cycle_close
from taugen.domains.banking.families import steps_on_file
from taugen.generators.families import family_rules, routed_by_facts
from taugen.generators.policy import (
    PolicyContext, PolicyRule, Violation, business_days_between, duration_days, fact_in_force, money,
)

WRITE_TOOLS = ("refund_fee", "report_card_lost", "order_replacement_card", "place_stop_payment", "open_dispute",
               "issue_provisional_credit", "set_statement_delivery", "close_account", "send_wire",
               "charge_service_fee", "submit_service_request", "record_quote")
ACCOUNT_READS = ("get_customer", "get_account", "list_transactions", "list_cards", "list_fee_refunds", "get_dispute",
                 "list_disputes")
REFUND_REASONS = ("courtesy", "atm_rebate", "bank_error", "fee_waiver")
DEPARTMENTS = ("disputes", "fraud", "wire_desk", "general")
_AMOUNT = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)")
GAP = "error"
"""Severity of obligations that once were gaps between the facts and taugen's own problem functions
(ATM rebate timing, the Regulation Z temporary credit, the new-beneficiary wire callback, the small-claim
and paper-statement refunds). The problems follow the facts now, so these are errors like any rule."""


# ------------------------------------------------------------------------------------------ lookups
def _db(context: PolicyContext) -> BankDB:
    return context.state  # type: ignore[return-value]


def _date(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text[:10]) if text else None


def account_of(db: BankDB, tool: str, arguments: dict[str, Any]) -> Account | None:
    """The account a call acts on (None when the ids do not resolve: the tool will refuse)."""
    if "account_id" in arguments:
        return db.accounts.get(arguments["account_id"])
    if "transaction_id" in arguments:
        transaction = db.transactions.get(arguments["transaction_id"])
        return db.accounts.get(transaction.account_id) if transaction else None
    if "card_id" in arguments:
        card = db.cards.get(arguments["card_id"])
        return db.accounts.get(card.account_id) if card else None
    if "dispute_id" in arguments:
        dispute = db.disputes.get(arguments["dispute_id"])
        return db.accounts.get(dispute.account_id) if dispute else None
    return None


def customer_of(db: BankDB, tool: str, arguments: dict[str, Any]) -> str | None:
    """The customer a call concerns: named, or the owner of the account it acts on."""
    if "customer_id" in arguments:
        return arguments["customer_id"]
    account = account_of(db, tool, arguments)
    if account is not None:
        return account.customer_id
    verified = sorted({v.customer_id for v in db.verifications.values()})
    return verified[0] if len(verified) == 1 else None


def _customer_accounts(db: BankDB, customer_id: str) -> list[Account]:
    return [a for a in db.accounts.values() if a.customer_id == customer_id]


def _fee_fact(context: PolicyContext, product: str, fee_type: str, on: dt.date) -> str | None:
    return fact_in_force(context.facts, f"fee_{product}_{fee_type}", on)


def _verified(db: BankDB, customer_id: str | None) -> bool:
    return customer_id is not None and any(v.customer_id == customer_id for v in db.verifications.values())


# ------------------------------------------------------------------------------------------ identity
def _identity(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    if tool not in WRITE_TOOLS + ACCOUNT_READS:
        return []
    customer_id = customer_of(_db(context), tool, arguments)
    if customer_id is None or _verified(_db(context), customer_id):
        return []
    return [Violation("identity_before_account_access", ("identity_verification_required",),
                      f"{tool} acts on customer {customer_id}'s accounts before the caller's identity was verified")]


IDENTITY = PolicyRule(
    name="identity_before_account_access", facts=("identity_verification_required", "identity_verification_factors"),
    tools=WRITE_TOOLS + ACCOUNT_READS, check=_identity,
    description="No account is read or changed before verify_identity succeeded for its customer.")


# ------------------------------------------------------------------------------------------ refunds
def _courtesy_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    if tool != "refund_fee" or arguments.get("reason") != "courtesy":
        return None
    db = _db(context)
    fee = db.transactions.get(arguments.get("transaction_id", ""))
    account = db.accounts.get(fee.account_id) if fee else None
    if fee is None or account is None:
        return None
    window = duration_days(context.value("courtesy_refund_window"), context.today)
    since = context.today - dt.timedelta(days=window) if window is not None else dt.date.min
    accounts = {a.account_id for a in _customer_accounts(db, account.customer_id)}
    prior = sum(1 for r in db.fee_refunds.values()
                if r.reason == "courtesy" and r.account_id in accounts and _date(r.refunded_on) > since)
    limit = money(context.value("courtesy_refund_limit"))
    age_limit = duration_days(context.value("courtesy_refund_fee_age"), context.today)
    return {"fee_type": fee.fee_type, "limit_reached": limit is not None and prior >= limit,
            "good_standing": account.status == "open" and account.balance >= 0,
            "fee_recent": age_limit is None or (context.today - _date(fee.posted_on)).days <= age_limit}


def _courtesy(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _courtesy_inputs(context, tool, arguments)
    if inputs is None:
        return []
    found = []
    if inputs["fee_type"] != "overdraft":
        found.append(Violation("courtesy_refund", ("courtesy_refund_scope",),
                               f"a courtesy refund covers only an overdraft fee, not a {inputs['fee_type']} fee"))
    if inputs["limit_reached"]:
        found.append(Violation("courtesy_refund", ("courtesy_refund_limit", "courtesy_refund_window"),
                               "the customer already had the allowed courtesy refunds in the rolling window"))
    if not inputs["good_standing"]:
        found.append(Violation("courtesy_refund", ("courtesy_refund_good_standing",),
                               "the account is not in good standing (closed, frozen or overdrawn)"))
    if not inputs["fee_recent"]:
        found.append(Violation("courtesy_refund", ("courtesy_refund_fee_age",),
                               "the overdraft fee is older than the courtesy refund allows"))
    return found


COURTESY = PolicyRule(
    name="courtesy_refund", tools=("refund_fee",), check=_courtesy, inputs=_courtesy_inputs,
    facts=("courtesy_refund_limit", "courtesy_refund_window", "courtesy_refund_scope", "courtesy_refund_good_standing",
           "courtesy_refund_fee_age"),
    description="A courtesy refund reverses one recent overdraft fee, at most the limit per rolling window, "
                "on an account in good standing.")


def _rebate_fact(product: str) -> str:
    return f"{product.removesuffix('_checking')}_atm_rebates_per_cycle"


def _atm_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    if tool != "refund_fee" or arguments.get("reason") != "atm_rebate":
        return None
    db = _db(context)
    fee = db.transactions.get(arguments.get("transaction_id", ""))
    account = db.accounts.get(fee.account_id) if fee else None
    if fee is None or account is None:
        return None
    allowance = money(context.value(_rebate_fact(account.product)))
    # The allowance counts rebates of fees posted in the fee's own statement cycle (monthly cycles).
    cycle = statement_cycle_close(_date(fee.posted_on))
    used = sum(1 for r in db.fee_refunds.values() if r.account_id == account.account_id and r.reason == "atm_rebate"
               and r.transaction_id in db.transactions
               and statement_cycle_close(_date(db.transactions[r.transaction_id].posted_on)) == cycle)
    return {"product": account.product, "fee_type": fee.fee_type, "has_allowance": allowance is not None,
            "allowance_left": allowance is not None and used < allowance}


def _atm(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _atm_inputs(context, tool, arguments)
    if inputs is None:
        return []
    fact = _rebate_fact(inputs["product"])
    if not inputs["has_allowance"]:
        return [Violation("atm_rebate", ("premier_atm_rebates_per_cycle",),
                          f"{inputs['product']} has no ATM fee rebate allowance")]
    found = []
    if inputs["fee_type"] != "out_of_network_atm":
        found.append(Violation("atm_rebate", ("premier_atm_rebate_scope",),
                               f"an ATM rebate covers out-of-network ATM fees, not a {inputs['fee_type']} fee"))
    if not inputs["allowance_left"]:
        found.append(Violation("atm_rebate", (fact,), "the ATM rebate allowance of this statement cycle is used up"))
    return found


def _atm_timing(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    """A rebate posts at the close of the fee's statement cycle: crediting it earlier breaks the timing fact;
    crediting a rebate the cycle close missed (the cycle has closed) is the agent's job."""
    if tool != "refund_fee" or arguments.get("reason") != "atm_rebate" \
            or context.value("premier_atm_rebate_timing") is None:
        return []
    fee = _db(context).transactions.get(arguments.get("transaction_id", ""))
    if fee is None:
        return []
    close = statement_cycle_close(_date(fee.posted_on))
    if context.today >= close:
        return []
    return [Violation("atm_rebate_timing", ("premier_atm_rebate_timing",),
                      f"the rebate of ATM fee {fee.transaction_id} (posted {fee.posted_on}) is credited on the "
                      f"cycle's last business day ({close}), not on {context.today}")]


ATM_REBATE_TIMING = PolicyRule(name="atm_rebate_timing", tools=("refund_fee",), check=_atm_timing,
                               facts=("premier_atm_rebate_timing",),
                               description="Premier ATM rebates post on the last business day of the fee's cycle; one the cycle close "
                                           "missed is credited on request.")


ATM_REBATE = PolicyRule(
    name="atm_rebate", tools=("refund_fee",), check=_atm, inputs=_atm_inputs,
    facts=("premier_atm_rebates_per_cycle", "fee_premier_checking_out_of_network_atm", "premier_atm_rebate_scope"),
    description="Out-of-network ATM fees are rebated only on products with an allowance, up to the allowance per "
                "monthly statement cycle.")


def scheduled_fee(context: PolicyContext, fee: Transaction) -> tuple[float, tuple[str, ...]] | None:
    """What the fee schedule in force on the fee's posting date charges for ``fee`` and the fact ids
    it comes from; None when the facts do not decide it."""
    db = _db(context)
    account = db.accounts.get(fee.account_id)
    if account is None or fee.fee_type is None:
        return None
    posted = _date(fee.posted_on)
    if fee.fee_type in ("overdraft", "out_of_network_atm", "stop_payment"):
        fact = _fee_fact(context, account.product, fee.fee_type, posted)
        return (money(context.value(fact)), (fact,)) if fact else None
    if fee.fee_type == "foreign_transaction":
        fact = _fee_fact(context, account.product, "foreign_transaction", posted)
        rate = getattr(context.value(fact), "value", None) if fact else None
        purchases = [t for t in db.transactions.values() if t.account_id == fee.account_id and t.posted_on == fee.posted_on
                     and t.country != "US" and t.kind == "purchase"]
        if rate is None or len(purchases) != 1:
            return None
        return round(-purchases[0].amount * float(rate) / 100, 2), (fact,)
    if fee.fee_type == "paper_statement":
        fact = fact_in_force(context.facts, "fee_paper_statement", posted)
        exempt = context.facts.applies_to("paper_statement_exempt_products")
        exemption = context.value("paper_statement_exempt_products")
        if fact is None or exempt is None:
            return None
        if getattr(exemption, "value", False) and account.product in exempt:
            return 0.0, (fact, "paper_statement_exempt_products")
        return money(context.value(fact)), (fact,)
    if fee.fee_type == "wire":
        fact = fact_in_force(context.facts, "fee_domestic_wire_outgoing", posted)
        return (money(context.value(fact)), (fact,)) if fact else None
    if fee.fee_type == "early_closure":
        fact = fact_in_force(context.facts, "fee_early_account_closure", posted)
        return (money(context.value(fact)), (fact,)) if fact else None
    return None


def _bank_error_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    if tool != "refund_fee" or arguments.get("reason") != "bank_error":
        return None
    fee = _db(context).transactions.get(arguments.get("transaction_id", ""))
    if fee is None or fee.kind != "fee":
        return None
    expected = scheduled_fee(context, fee)
    if expected is None:
        return None
    return {"fee_type": fee.fee_type, "charged_as_scheduled": round(-fee.amount, 2) == expected[0]}


def _bank_error(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _bank_error_inputs(context, tool, arguments)
    if inputs is None or not inputs["charged_as_scheduled"]:
        return []
    fee = _db(context).transactions[arguments["transaction_id"]]
    expected, facts = scheduled_fee(context, fee)  # type: ignore[misc]
    return [Violation("bank_error_refund", facts,
                      f"the {fee.fee_type} fee of {-fee.amount:.2f} is what the fee schedule charges ({expected:.2f}), "
                      "so refunding it as a bank error is not allowed")]


BANK_ERROR = PolicyRule(
    name="bank_error_refund", tools=("refund_fee",), check=_bank_error, inputs=_bank_error_inputs,
    facts=("fee_platinum_credit_card_foreign_transaction", "fee_everyday_checking_overdraft",
           "fee_domestic_wire_outgoing", "fee_early_account_closure"),
    description="A fee is refunded as a bank error only when it differs from the fee schedule in force when it "
                "posted (for example a foreign fee on the Platinum card after its rate became 0%).")


def _waiver_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    if tool != "refund_fee" or arguments.get("reason") != "fee_waiver":
        return None
    db = _db(context)
    fee = db.transactions.get(arguments.get("transaction_id", ""))
    account = db.accounts.get(fee.account_id) if fee else None
    if fee is None or account is None:
        return None
    customer = db.customers.get(account.customer_id)
    born = _date(customer.date_of_birth) if customer else None
    age = context.value("paper_statement_senior_waiver")
    senior = getattr(age, "value", getattr(age, "amount", None))
    window = duration_days(context.value("paper_statement_refund_on_enrollment"), context.today)
    enrolled = any(name == "set_statement_delivery" and call.get("account_id") == account.account_id
                   and call.get("delivery") == "electronic" for name, call in context.calls)
    return {"fee_type": fee.fee_type,
            "enrolled_on_call": enrolled,
            "within_window": window is not None and (context.today - _date(fee.posted_on)).days <= window,
            "senior": senior is not None and born is not None
            and (context.today - born).days // 365 >= int(senior)}


_WAIVABLE = {"paper_statement": ("paper_statement_refund_on_enrollment", "paper_statement_senior_waiver"),
             "monthly_maintenance": ("fee_maintenance_near_miss_refund",)}
"""Fee types a fact lets the agent waive, with those facts."""


def _fee_waiver(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _waiver_inputs(context, tool, arguments)
    if inputs is None:
        return []
    if inputs["fee_type"] not in _WAIVABLE:
        return [Violation("fee_waiver", tuple(f for facts in _WAIVABLE.values() for f in facts),
                          f"no fact lets the agent waive a {inputs['fee_type']} fee")]
    if inputs["fee_type"] != "paper_statement" or inputs["senior"]:
        return []  # the maintenance near-miss refund needs balances the database does not keep
    if not inputs["enrolled_on_call"]:
        return [Violation("fee_waiver", ("paper_statement_refund_on_enrollment", "paper_statement_senior_waiver"),
                          "a paper statement fee is waived although the account did not enroll in electronic "
                          "statements on this call and the customer is under the senior waiver age")]
    if not inputs["within_window"]:
        return [Violation("fee_waiver", ("paper_statement_refund_on_enrollment",),
                          "the paper statement fee is older than the refund window of an e-statement enrollment")]
    return []


FEE_WAIVER = PolicyRule(
    name="fee_waiver", tools=("refund_fee",), check=_fee_waiver, inputs=_waiver_inputs,
    facts=("paper_statement_refund_on_enrollment", "paper_statement_senior_waiver"),
    description="Paper statement fees are waived when the account enrolls in e-statements on the call (those of "
                "the refund window only) or for customers of the senior waiver age.")


def _reversal_authority(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    if tool != "refund_fee":
        return []
    db = _db(context)
    fee = db.transactions.get(arguments.get("transaction_id", ""))
    cap = money(context.value("fee_reversal_agent_authority"))
    if fee is None or cap is None:
        return []
    account = db.accounts.get(fee.account_id)
    accounts = {a.account_id for a in _customer_accounts(db, account.customer_id)} if account else set()
    earlier = sum(r.amount for r in db.fee_refunds.values() if r.account_id in accounts
                  and r.refunded_on == context.today.isoformat())
    if earlier - fee.amount > cap + 1e-9:
        return [Violation("fee_reversal_authority", ("fee_reversal_agent_authority",),
                          f"fee refunds on this call would total {earlier - fee.amount:.2f}, above the agent's "
                          f"{cap:.2f} authority (a supervisor must approve)")]
    return []


FEE_REVERSAL_AUTHORITY = PolicyRule(
    name="fee_reversal_authority", tools=("refund_fee",), check=_reversal_authority,
    facts=("fee_reversal_agent_authority",),
    description="An agent reverses at most the authority cap in fees per customer on one call.")


# ------------------------------------------------------------------------------------------ cards
def expected_replacement_fee(context: PolicyContext, card_id: str, shipping: str) -> tuple[float, tuple[str, ...]] | None:
    """The replacement fee the facts charge for ``card_id`` sent by ``shipping``, with its fact ids."""
    db = _db(context)
    card = db.cards.get(card_id)
    if card is None:
        return None
    if card.kind == "credit":
        return money(context.value("credit_card_replacement_fee")), ("credit_card_replacement_fee",)
    fact = fact_in_force(context.facts, f"fee_debit_card_{shipping}_replacement", context.today)
    if fact is None:
        return None
    account = db.accounts.get(card.account_id)
    waiver = context.value("premier_expedited_replacement_waiver")
    if shipping == "expedited" and account is not None and account.product == "premier_checking" \
            and getattr(waiver, "value", False):
        return 0.0, (fact, "premier_expedited_replacement_waiver")
    return money(context.value(fact)), (fact,)


def _amount_violation(rule: str, argument: str, actual: Any, expected: tuple[float, tuple[str, ...]] | None,
                      what: str) -> list[Violation]:
    if expected is None or expected[0] is None:
        return []
    try:
        charged = round(float(actual), 2)
    except (TypeError, ValueError):
        return []
    if charged == expected[0]:
        return []
    return [Violation(rule, expected[1], f"{what} is {charged:.2f} but the facts give {expected[0]:.2f}",
                      kind="amount", argument=argument, expected=expected[0])]


def _replacement_fee(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    expected = expected_replacement_fee(context, arguments.get("card_id", ""), arguments.get("shipping", ""))
    return _amount_violation("card_replacement_fee", "fee", arguments.get("fee"), expected, "the replacement fee")


def _shipping_options(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    options = []
    for shipping in ("standard", "expedited"):
        expected = expected_replacement_fee(context, arguments.get("card_id", ""), shipping)
        if expected is not None:
            options.append({**arguments, "shipping": shipping, "fee": expected[0]})
    return options


CARD_REPLACEMENT_FEE = PolicyRule(
    name="card_replacement_fee", tools=("order_replacement_card",), check=_replacement_fee,
    alternatives=_shipping_options,
    facts=("fee_debit_card_expedited_replacement", "fee_debit_card_standard_replacement",
           "premier_expedited_replacement_waiver", "credit_card_replacement_fee"),
    description="The replacement fee follows the fee schedule for the shipping chosen, waived for Premier "
                "Checking on expedited debit cards.")


def _hold_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    db = _db(context)
    card = db.cards.get(arguments.get("card_id", ""))
    customer = db.customers.get(card.customer_id) if card else None
    if customer is None:
        return None
    hold = duration_days(context.value("replacement_card_address_hold"), context.today)
    changed = _date(customer.address_changed_on)
    return {"address_changed_within_hold": hold is not None and changed is not None
            and (context.today - changed).days < hold}


def _address_hold(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _hold_inputs(context, tool, arguments)
    if not inputs or not inputs["address_changed_within_hold"]:
        return []
    return [Violation("replacement_address_hold", ("replacement_card_address_hold",),
                      "a replacement card is mailed to an address changed within the hold period; policy sends the "
                      "caller to the fraud team instead")]


def _replacement_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for card in sorted(_db(context).cards.values(), key=lambda c: c.card_id):
        if card.customer_id == customer_id and card.status in ("lost", "stolen") and not card.replaced_by:
            for shipping in ("standard", "expedited"):
                expected = expected_replacement_fee(context, card.card_id, shipping)
                if expected is not None:
                    found.append(("order_replacement_card", {"card_id": card.card_id, "shipping": shipping,
                                                             "fee": expected[0]}))
    return found


ADDRESS_HOLD = PolicyRule(
    name="replacement_address_hold", tools=("order_replacement_card",), check=_address_hold, inputs=_hold_inputs,
    candidates=_replacement_candidates, facts=("replacement_card_address_hold",),
    description="No replacement card is mailed while the customer's address changed within the hold period.")


# ------------------------------------------------------------------------------------------ checks, closing, wires
def _stop_fee(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    account = _db(context).accounts.get(arguments.get("account_id", ""))
    if account is None:
        return []
    fact = _fee_fact(context, account.product, "stop_payment", context.today)
    expected = (money(context.value(fact)), (fact,)) if fact else None
    return _amount_violation("stop_payment_fee", "fee", arguments.get("fee"), expected, "the stop payment fee")


STOP_PAYMENT_FEE = PolicyRule(
    name="stop_payment_fee", tools=("place_stop_payment",), check=_stop_fee,
    facts=("fee_everyday_checking_stop_payment", "fee_premier_checking_stop_payment",
           "fee_student_checking_stop_payment"),
    description="The stop payment fee is the account product's scheduled fee.")


def expected_closure_fee(context: PolicyContext, account_id: str) -> tuple[float, tuple[str, ...]] | None:
    """The early closure fee when the account is closed inside the early-closure window, else 0."""
    account = _db(context).accounts.get(account_id)
    window = context.value("early_closure_window")
    if account is None or window is None:
        return None
    days = duration_days(window, context.today)
    if days is None:
        return None
    if (context.today - _date(account.opened_on)).days <= days:
        return money(context.value("fee_early_account_closure")), ("early_closure_window", "fee_early_account_closure")
    return 0.0, ("early_closure_window",)


def _closure_fee(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    expected = expected_closure_fee(context, arguments.get("account_id", ""))
    return _amount_violation("early_closure_fee", "closure_fee", arguments.get("closure_fee"), expected,
                             "the closure fee")


EARLY_CLOSURE_FEE = PolicyRule(
    name="early_closure_fee", tools=("close_account",), check=_closure_fee,
    facts=("early_closure_window", "fee_early_account_closure"),
    description="An account closed within the early-closure window pays the early closure fee, later none.")


def _wire_fee(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    fact = fact_in_force(context.facts, "fee_domestic_wire_outgoing", context.today)
    expected = (money(context.value(fact)), (fact,)) if fact else None
    return _amount_violation("wire_fee", "fee", arguments.get("fee"), expected, "the wire fee")


WIRE_FEE = PolicyRule(name="wire_fee", tools=("send_wire",), check=_wire_fee, facts=("fee_domestic_wire_outgoing",),
                      description="An outgoing domestic wire pays the scheduled wire fee.")


def _wire_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    db = _db(context)
    account = db.accounts.get(arguments.get("account_id", ""))
    limit = money(context.value("wire_online_daily_limit"))
    if account is None or limit is None:
        return None
    accounts = {a.account_id for a in _customer_accounts(db, account.customer_id)}
    sent_today = sum(w.amount for w in db.wires.values() if w.account_id in accounts
                     and w.sent_on == context.today.isoformat())
    try:
        amount = float(arguments.get("amount", 0))
    except (TypeError, ValueError):
        return None
    return {"within_limit": sent_today + amount <= limit}


def _wire_limit(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _wire_inputs(context, tool, arguments)
    if inputs is None or inputs["within_limit"]:
        return []
    return [Violation("wire_daily_limit", ("wire_online_daily_limit", "wire_over_limit_transfer"),
                      "the wire takes the customer's wires today above the daily limit; policy sends the caller to "
                      "the wire desk")]


WIRE_LIMIT = PolicyRule(
    name="wire_daily_limit", tools=("send_wire",), check=_wire_limit, inputs=_wire_inputs,
    facts=("wire_online_daily_limit", "wire_over_limit_transfer"),
    description="The agent sends wires only up to the daily limit per customer; larger ones go to the wire desk.")


def _wire_callback(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    db = _db(context)
    threshold = money(context.value("wire_callback_new_beneficiary"))
    account = db.accounts.get(arguments.get("account_id", ""))
    try:
        amount = float(arguments.get("amount", 0))
    except (TypeError, ValueError):
        return []
    if threshold is None or account is None or amount <= threshold:
        return []
    accounts = {a.account_id for a in _customer_accounts(db, account.customer_id)}
    known = any(w.account_id in accounts and w.beneficiary_account == arguments.get("beneficiary_account")
                for w in db.wires.values())
    if known:
        return []
    return [Violation("wire_callback_new_beneficiary", ("wire_callback_new_beneficiary",),
                      f"a wire of {amount:.2f} to a new beneficiary is above {threshold:.2f}, which the wire desk "
                      "releases only after calling the customer back", severity=GAP)]


WIRE_CALLBACK = PolicyRule(
    name="wire_callback_new_beneficiary", tools=("send_wire",), check=_wire_callback,
    facts=("wire_callback_new_beneficiary",),
    description="A wire above the callback threshold to a beneficiary never paid before needs the wire desk's "
                "callback, so the agent does not release it.")


# ------------------------------------------------------------------------------------------ disputes
def _dispute_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    db = _db(context)
    transaction = db.transactions.get(arguments.get("transaction_id", ""))
    account = db.accounts.get(transaction.account_id) if transaction else None
    if transaction is None or account is None:
        return None
    regulation = "reg_z" if account.kind == "credit_card" else "reg_e"
    window_fact = "reg_z_billing_error_window" if regulation == "reg_z" else "reg_e_notice_window"
    window = duration_days(context.value(window_fact), context.today)
    statement = _date(transaction.statement_date)
    within = window is None or statement is None or (context.today - statement).days <= window
    return {"regulation": regulation, "within_window": within}


def _dispute_window(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _dispute_inputs(context, tool, arguments)
    if inputs is None or inputs["within_window"]:
        return []
    if inputs["regulation"] == "reg_z":
        return [Violation("dispute_window", ("reg_z_billing_error_window",),
                          "the billing error is reported after the Regulation Z window counted from the statement date")]
    return [Violation("dispute_window", ("reg_e_notice_window", "reg_e_late_notice_escalation"),
                      "the error is reported after the Regulation E notice window counted from the statement date; "
                      "policy sends the caller to a disputes specialist instead")]


def _dispute_reason(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _dispute_inputs(context, tool, arguments)
    reason = arguments.get("reason")
    if inputs is None or reason not in ("unauthorized", "billing_error"):
        return []
    wanted = "billing_error" if inputs["regulation"] == "reg_z" else "unauthorized"
    if reason == wanted:
        return []
    return [Violation("dispute_reason", ("reg_e_covered_transfers", "reg_z_billing_error_window"),
                      f"open_dispute reason {reason!r} on a {inputs['regulation']} account; the tool's contract is "
                      f"{wanted!r} there", kind="precondition")]


def _dispute_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    db = _db(context)
    accounts = {a.account_id: a for a in _customer_accounts(db, customer_id)}
    disputed = {d.transaction_id for d in db.disputes.values()}
    found = []
    for transaction in sorted(db.transactions.values(), key=lambda t: t.transaction_id):
        account = accounts.get(transaction.account_id)
        if account is None or transaction.statement_date is None or transaction.amount >= 0 \
                or transaction.transaction_id in disputed or transaction.kind != "purchase":
            continue
        reason = "billing_error" if account.kind == "credit_card" else "unauthorized"
        found.append(("open_dispute", {"transaction_id": transaction.transaction_id, "reason": reason}))
    return found


def _reason_options(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    choices = {"open_dispute": ("unauthorized", "billing_error"), "refund_fee": REFUND_REASONS}
    return [{**arguments, "reason": reason} for reason in choices.get(tool, ())]


DISPUTE_WINDOW = PolicyRule(
    name="dispute_window", tools=("open_dispute",), check=_dispute_window, inputs=_dispute_inputs,
    candidates=_dispute_candidates, facts=("reg_e_notice_window", "reg_z_billing_error_window",
                                           "reg_e_late_notice_escalation"),
    description="A dispute is opened only inside the notice window counted from the statement that showed it.")

DISPUTE_REASON = PolicyRule(
    name="dispute_reason", tools=("open_dispute",), check=_dispute_reason,
    facts=("reg_e_covered_transfers", "reg_z_billing_error_window"),
    description="Unauthorized (Regulation E) on deposit accounts, billing_error (Regulation Z) on credit cards.")

REASON_CHOICES = PolicyRule(name="reason_choices", facts=(), tools=("open_dispute", "refund_fee"),
                            alternatives=_reason_options,
                            description="The reasons a refund or a dispute may give (for the search of K9).")


def _credit_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    db = _db(context)
    dispute = db.disputes.get(arguments.get("dispute_id", ""))
    transaction = db.transactions.get(dispute.transaction_id) if dispute else None
    account = db.accounts.get(dispute.account_id) if dispute else None
    if dispute is None or transaction is None or account is None:
        return None
    if dispute.regulation == "reg_z":
        return {"regulation": "reg_z", "credit_due": True}
    first_deposit = min((_date(t.posted_on) for t in db.transactions.values()
                         if t.account_id == account.account_id and t.kind == "deposit"), default=_date(account.opened_on))
    new_days = duration_days(context.value("reg_e_new_account_definition"), context.today)
    is_new = new_days is not None and (_date(dispute.opened_on) - first_deposit).days <= new_days
    deadline_fact = "reg_e_new_account_provisional_deadline" if is_new else "reg_e_provisional_credit_deadline"
    deadline = getattr(context.value(deadline_fact), "amount", None)
    small = money(context.value("reg_e_small_claim_instant_credit"))
    elapsed = business_days_between(_date(dispute.opened_on), context.today)
    return {"regulation": "reg_e", "deadline_passed": deadline is not None and elapsed >= deadline,
            "small_claim": small is not None and -transaction.amount <= small}


def _provisional_credit(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _credit_inputs(context, tool, arguments)
    if inputs is None or inputs["regulation"] == "reg_z" or inputs["deadline_passed"] or inputs["small_claim"]:
        return []
    return [Violation("provisional_credit", ("reg_e_provisional_credit_deadline", "reg_e_small_claim_instant_credit"),
                      "provisional credit is issued before the investigation deadline (in business days) passed, "
                      "on a claim above the instant-credit amount")]


def _credit_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    db = _db(context)
    accounts = {a.account_id for a in _customer_accounts(db, customer_id)}
    return [("issue_provisional_credit", {"dispute_id": d.dispute_id}) for d in sorted(db.disputes.values(),
            key=lambda d: d.dispute_id) if d.account_id in accounts and d.status == "open" and not d.provisional_credit]


def _small_claim_credit(context: PolicyContext) -> list[Violation]:
    """A Regulation E claim at or under the instant-credit amount is credited on the day it is filed."""
    db = _db(context)
    small = money(context.value("reg_e_small_claim_instant_credit"))
    if small is None:
        return []
    found = []
    for tool, arguments in context.calls:
        if tool != "open_dispute":
            continue
        dispute = next((d for d in db.disputes.values() if d.transaction_id == arguments.get("transaction_id")), None)
        transaction = db.transactions.get(arguments.get("transaction_id", ""))
        if dispute is None or transaction is None or dispute.regulation != "reg_e":
            continue
        if -transaction.amount <= small and not dispute.provisional_credit:
            found.append(Violation("provisional_credit", ("reg_e_small_claim_instant_credit",),
                                   f"claim {dispute.dispute_id} for {-transaction.amount:.2f} is at most "
                                   f"{small:.2f} but gets no provisional credit on the day it is filed",
                                   kind="omission", severity=GAP))
    return found


def _reg_z_temporary_credit(context: PolicyContext) -> list[Violation]:
    """A billing dispute gets a temporary credit for the disputed amount when it is opened."""
    if context.value("reg_z_temporary_credit") is None:
        return []
    db = _db(context)
    found = []
    for tool, arguments in context.calls:
        dispute = next((d for d in db.disputes.values() if d.transaction_id == arguments.get("transaction_id")), None)
        if tool == "open_dispute" and dispute is not None and dispute.regulation == "reg_z" \
                and not dispute.provisional_credit:
            found.append(Violation("reg_z_temporary_credit", ("reg_z_temporary_credit",),
                                   f"billing dispute {dispute.dispute_id} was opened without its temporary credit",
                                   kind="omission", severity=GAP))
    return found


def _credit_obligations(context: PolicyContext) -> list[Violation]:
    return _small_claim_credit(context) + _reg_z_temporary_credit(context)


PROVISIONAL_CREDIT = PolicyRule(
    name="provisional_credit", tools=("issue_provisional_credit",), check=_provisional_credit, inputs=_credit_inputs,
    candidates=_credit_candidates, settle=_credit_obligations,
    facts=("reg_e_provisional_credit_deadline", "reg_e_new_account_provisional_deadline",
           "reg_e_new_account_definition", "reg_e_small_claim_instant_credit", "reg_z_temporary_credit"),
    description="Regulation E provisional credit is due once the investigation deadline (business days from the "
                "notice; longer on new accounts) passed, and at once for small claims.")


# ------------------------------------------------------------------------------------------ refunds (candidates)
def _refund_candidates(context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    db = _db(context)
    accounts = {a.account_id for a in _customer_accounts(db, customer_id)}
    refunded = {r.transaction_id for r in db.fee_refunds.values()}
    reasons = {"overdraft": "courtesy", "out_of_network_atm": "atm_rebate", "foreign_transaction": "bank_error"}
    found = []
    for fee in sorted(db.transactions.values(), key=lambda t: t.transaction_id):
        if fee.account_id in accounts and fee.kind == "fee" and fee.transaction_id not in refunded \
                and fee.fee_type in reasons:
            found.append(("refund_fee", {"transaction_id": fee.transaction_id, "reason": reasons[fee.fee_type]}))
    return found


REFUND_CANDIDATES = PolicyRule(name="refund_candidates", facts=(), tools=("refund_fee",),
                               candidates=_refund_candidates,
                               description="Unrefunded fees a caller may ask about (for cross-task comparison).")


# ------------------------------------------------------------------------------------------ transfers
def _mentioned_amounts(text: str) -> list[float]:
    return [float(match.replace(",", "")) for match in _AMOUNT.findall(text)]


def _transfer_inputs(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    if tool != "transfer_to_human_agents":
        return None
    db = _db(context)
    verified = sorted({v.customer_id for v in db.verifications.values()})
    customer = db.customers.get(verified[0]) if verified else None
    triggers = {"fraud": False, "disputes": False, "wire_desk": False}
    if customer is not None:
        hold = duration_days(context.value("replacement_card_address_hold"), context.today)
        changed = _date(customer.address_changed_on)
        triggers["fraud"] = hold is not None and changed is not None and (context.today - changed).days < hold
        window = duration_days(context.value("reg_e_notice_window"), context.today)
        disputed = {d.transaction_id for d in db.disputes.values()}
        accounts = {a.account_id for a in _customer_accounts(db, customer.customer_id) if a.kind != "credit_card"}
        triggers["disputes"] = window is not None and any(
            t.account_id in accounts and t.statement_date and t.amount < 0 and t.transaction_id not in disputed
            and (context.today - _date(t.statement_date)).days > window for t in db.transactions.values())
    limit = money(context.value("wire_online_daily_limit"))
    # Over the wire limit only when the caller asks about a wire at all (a large deposit is no wire).
    triggers["wire_desk"] = limit is not None and bool(re.search(r"\bwire\b", context.scenario, re.I)) and any(
        amount > limit for amount in _mentioned_amounts(context.scenario))
    routed = routed_by_facts(context.facts, context.scenario)  # routing facts (the route family) name a team too
    for department in routed:
        triggers[department] = True
    return {"department": arguments.get("department"), **triggers, "routed": routed}


_TRANSFER_FACTS = {"fraud": ("replacement_card_address_hold",),
                   "disputes": ("reg_e_late_notice_escalation", "reg_e_notice_window"),
                   "wire_desk": ("wire_over_limit_transfer", "wire_online_daily_limit")}


def _transfer(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[Violation]:
    inputs = _transfer_inputs(context, tool, arguments)
    if inputs is None:
        return []
    department, routed = inputs["department"], inputs["routed"]
    routing = tuple(f for facts in routed.values() for f in facts)
    if department not in _TRANSFER_FACTS and department not in routed:
        return [Violation("transfer_department", tuple(f for facts in _TRANSFER_FACTS.values() for f in facts)
                          + routing, f"no fact sends callers to the {department!r} team")]
    if inputs.get(department):
        return []
    return [Violation("transfer_department", _TRANSFER_FACTS.get(department, ()) + routing,
                      f"the caller is transferred to {department!r} but the case the policy sends there is absent")]


def _department_options(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**arguments, "department": department} for department in DEPARTMENTS]


TRANSFER_DEPARTMENT = PolicyRule(
    name="transfer_department", tools=("transfer_to_human_agents",), check=_transfer, inputs=_transfer_inputs,
    alternatives=_department_options,
    facts=("replacement_card_address_hold", "reg_e_late_notice_escalation", "wire_over_limit_transfer"),
    description="A transfer goes to the team a fact names, and only when that fact's case is present.")


def _delivery_options(context: PolicyContext, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**arguments, "delivery": delivery} for delivery in ("paper", "electronic")]


STATEMENT_DELIVERY = PolicyRule(name="statement_delivery_choice", facts=("estatement_waives_paper_fee",),
                                tools=("set_statement_delivery",), alternatives=_delivery_options,
                                description="Statements are delivered on paper or electronically.")


def _paper_refund_on_enrollment(context: PolicyContext) -> list[Violation]:
    """Enrolling in electronic statements during the call refunds the recent paper statement fees."""
    window = context.value("paper_statement_refund_on_enrollment")
    days = duration_days(window, context.today)
    if days is None:
        return []
    db = _db(context)
    refunded = {r.transaction_id for r in db.fee_refunds.values()}
    found = []
    for tool, arguments in context.calls:
        if tool != "set_statement_delivery" or arguments.get("delivery") != "electronic":
            continue
        for fee in db.transactions.values():
            if fee.account_id == arguments.get("account_id") and fee.fee_type == "paper_statement" \
                    and fee.transaction_id not in refunded and (context.today - _date(fee.posted_on)).days <= days:
                found.append(Violation("paper_refund_on_enrollment", ("paper_statement_refund_on_enrollment",),
                                       f"the account enrolled in electronic statements on this call but paper "
                                       f"statement fee {fee.transaction_id} of the last {window.canonical()} was not "
                                       f"refunded", kind="omission", severity=GAP))
    return found


PAPER_REFUND = PolicyRule(name="paper_refund_on_enrollment", facts=("paper_statement_refund_on_enrollment",),
                          tools=("set_statement_delivery",), settle=_paper_refund_on_enrollment,
                          description="Enrolling in e-statements during a call refunds recent paper statement fees.")


def _account_product(state: BankDB, account_id: Any) -> str | None:
    account = state.accounts.get(account_id) if isinstance(account_id, str) else None
    return account.product if account is not None else None


def _normalise_quote(text: str) -> str:
    from taugen.domains.banking.tools import normalise_quote

    return normalise_quote(text)


FAMILY_RULES = family_rules(_account_product, _normalise_quote, steps_on_file)
"""The generic family rules (service fees by product, request limits, quotes) bound to the bank's accounts."""

RULES: tuple[PolicyRule, ...] = (
    IDENTITY, COURTESY, ATM_REBATE, ATM_REBATE_TIMING, BANK_ERROR, FEE_WAIVER, FEE_REVERSAL_AUTHORITY, CARD_REPLACEMENT_FEE, ADDRESS_HOLD,
    STOP_PAYMENT_FEE, EARLY_CLOSURE_FEE, WIRE_FEE, WIRE_LIMIT, WIRE_CALLBACK, DISPUTE_WINDOW, DISPUTE_REASON, REASON_CHOICES,
    PROVISIONAL_CREDIT, REFUND_CANDIDATES, TRANSFER_DEPARTMENT, STATEMENT_DELIVERY, PAPER_REFUND, *FAMILY_RULES,
)
"""Every banking rule, in the order findings report them."""
