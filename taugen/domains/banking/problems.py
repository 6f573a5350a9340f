"""Banking problem functions.

Every amount, window and limit comes from the pack's typed fact values, so when a domain expert edits
a fee in YAML the tasks follow. Each problem sets up one customer's accounts (new transactions,
refund history, disputes), states what the simulated user knows, gives the gold tool calls, and
checks the end state.
"""

from __future__ import annotations

import datetime as dt

from taugen.domains.banking.db import (
    Account, BankDB, Dispute, FeeRefund, Transaction, statement_cycle_close,
)
from taugen.domains.banking.tools import derived_id
from taugen.generators.policy import business_days_before
from taugen.generators.problems import GoldCall, Problem, ProblemContext, ScenarioFragment


# ---------------------------------------------------------------------------- helpers
def _db(context: ProblemContext) -> BankDB:
    return context.toolkit.db  # type: ignore[return-value]


def _today(context: ProblemContext) -> dt.date:
    return context.toolkit.now.date()


def _accounts(db: BankDB, customer_id: str, product: str | None = None, kind: str | None = None) -> list[Account]:
    return [a for a in db.accounts.values() if a.customer_id == customer_id and a.status == "open"
            and (product is None or a.product == product) and (kind is None or a.kind == kind)]


def _account(context: ProblemContext, product: str | None = None, kind: str | None = None) -> Account:
    found = _accounts(_db(context), context.customer_id, product, kind)
    if not found:
        raise LookupError(f"customer {context.customer_id} has no open {product or kind} account")
    return found[0]


def _money(context: ProblemContext, fact_id: str) -> float:
    return float(context.value(fact_id).amount)  # type: ignore[attr-defined]


def _add_transaction(context: ProblemContext, account: Account, days_ago: int, description: str, amount: float,
                     kind: str, purpose: str, fee_type: str | None = None, statement_days_ago: int | None = None,
                     country: str = "US") -> Transaction:
    day = _today(context) - dt.timedelta(days=days_ago)
    transaction = Transaction(
        transaction_id=derived_id("TX", context.customer_id, account.account_id, purpose),
        account_id=account.account_id, posted_on=day.isoformat(), description=description, amount=round(amount, 2),
        kind=kind, fee_type=fee_type, country=country,
        statement_date=(_today(context) - dt.timedelta(days=statement_days_ago)).isoformat()
        if statement_days_ago is not None else None)
    _db(context).transactions[transaction.transaction_id] = transaction
    sign = -1 if account.kind == "credit_card" else 1
    account.balance = round(account.balance + sign * amount, 2)
    return transaction


def _fmt(amount: float) -> str:
    return f"${amount:,.2f}"


def _spoken_date(day: dt.date, year: bool = False) -> str:
    """A date as a caller says it: "March 2" (or "March 2, 2025"), never the zero-padded "March 02"."""
    return f"{day:%B} {day.day}" + (f", {day.year}" if year else "")


def _refunded(context: ProblemContext, transaction_id: str, reason: str | None = None) -> bool:
    return any(r.transaction_id == transaction_id and (reason is None or r.reason == reason)
               for r in _db(context).fee_refunds.values())


def _transferred(context: ProblemContext, department: str) -> bool:
    return any(t.department == department for t in _db(context).human_transfers.values())


def _has_product(toolkit, customer_id: str, product: str) -> bool:
    return bool(_accounts(toolkit.db, customer_id, product=product))


def _has_kind(toolkit, customer_id: str, kind: str) -> bool:
    return bool(_accounts(toolkit.db, customer_id, kind=kind))


def _address_recently_changed(toolkit, customer_id: str, days: int = 30) -> bool:
    changed = toolkit.db.customers[customer_id].address_changed_on
    return changed is not None and (toolkit.now.date() - dt.date.fromisoformat(changed)).days < days


# ---------------------------------------------------------------------------- identity
class IdentityVerification(Problem):
    """Every task opens with it: the caller must be verified before anything changes."""

    name = "identity_verification"
    slot = "identity"
    facts = ()
    context_facts = ("identity_verification_required", "identity_verification_factors")
    summary = "Verify the caller with date of birth and the last four SSN digits before any change."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        customer = _db(context).customers[context.customer_id]
        context.state.update(phone=customer.phone, dob=customer.date_of_birth, ssn=customer.ssn_last4)
        return ScenarioFragment(
            reason_for_call="",
            known_info=[f"You are {customer.first_name} {customer.last_name}.",
                        f"Your phone number is {customer.phone}.",
                        f"Your date of birth is {customer.date_of_birth}.",
                        f"The last four digits of your Social Security number are {customer.ssn_last4}."],
            task_instructions=["Give your phone number, date of birth and the last four digits of your Social "
                               "Security number when the agent asks for them, and not before."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        return [GoldCall("find_customer_by_phone", {"phone": context.state["phone"]}),
                GoldCall("verify_identity", {"customer_id": context.customer_id, "date_of_birth": context.state["dob"],
                                             "ssn_last4": context.state["ssn"]})]

    def check(self, context: ProblemContext) -> list[str]:
        if any(v.customer_id == context.customer_id for v in _db(context).verifications.values()):
            return []
        return ["the caller's identity was not verified"]


# ---------------------------------------------------------------------------- overdraft
class CourtesyOverdraftRefund(Problem):
    name = "courtesy_overdraft_refund"
    slot = "overdraft"
    facts = ("fee_everyday_checking_overdraft",)
    # Read in setup only, or decisive only in some worlds: not proven to decide the gold, so context.
    context_facts = ("courtesy_refund_good_standing", "courtesy_refund_limit", "courtesy_refund_window")
    summary = "First overdraft fee in 12 months: refund it as a courtesy."

    def applicable(self, toolkit, customer_id):
        return _has_product(toolkit, customer_id, "everyday_checking")

    def setup(self, context):
        account = _account(context, "everyday_checking")
        fee = _money(context, "fee_everyday_checking_overdraft")
        days = context.rng.randint(2, 9)
        _add_transaction(context, account, days, "ComEd Bill Pay", -round(context.rng.uniform(60, 180), 2), "purchase",
                         "overdraft-trigger")
        fee_tx = _add_transaction(context, account, days, "Overdraft item fee", -fee, "fee", "overdraft-fee",
                                  fee_type="overdraft")
        if account.balance < 0:  # a deposit since brought the account back: it is in good standing, as the
            # courtesy refund requires (courtesy_refund_good_standing), whatever balance the world drew
            _add_transaction(context, account, days - 1, "Payroll deposit",
                             round(-account.balance + context.rng.uniform(150, 600), 2), "deposit", "overdraft-cure")
        context.state.update(account_id=account.account_id, fee_id=fee_tx.transaction_id)
        posted = dt.date.fromisoformat(fee_tx.posted_on)
        return ScenarioFragment(
            reason_for_call="You were charged an overdraft fee and want it refunded.",
            known_info=[f"An overdraft fee of {_fmt(fee)} was charged on {_spoken_date(posted)} to your Everyday Checking "
                        f"account {account.account_id}.",
                        "You have never had a fee refunded before."],
            task_instructions=["Ask for the overdraft fee to be refunded. Accept a refund of that one fee."])

    def solve(self, context):
        return [GoldCall("list_transactions", {"account_id": context.state["account_id"]}),
                GoldCall("list_fee_refunds", {"account_id": context.state["account_id"]}),
                GoldCall("refund_fee", {"transaction_id": context.state["fee_id"], "reason": "courtesy"})]

    def check(self, context):
        return [] if _refunded(context, context.state["fee_id"], "courtesy") else ["the overdraft fee was not refunded"]


class CourtesyRefundAlreadyUsed(Problem):
    name = "courtesy_refund_already_used"
    slot = "overdraft"
    facts = ("fee_everyday_checking_overdraft",)
    # Read in setup only, or decisive only in some worlds: not proven to decide the gold, so context.
    context_facts = ("courtesy_refund_limit", "courtesy_refund_window")
    outcome = "refuse"
    kinds = ("unusual",)  # the edge of a rule (a limit already used, a window passed)
    summary = "A courtesy refund was already given in the last 12 months: refuse a second one."

    def applicable(self, toolkit, customer_id):
        return _has_product(toolkit, customer_id, "everyday_checking")

    def setup(self, context):
        account = _account(context, "everyday_checking")
        fee = _money(context, "fee_everyday_checking_overdraft")
        window_months = context.value("courtesy_refund_window").amount  # type: ignore[attr-defined]
        earlier_days = context.rng.randint(40, int(window_months * 30) - 60)
        old = _add_transaction(context, account, earlier_days, "Overdraft item fee", -fee, "fee", "old-overdraft-fee",
                               fee_type="overdraft")
        refund_id = derived_id("RF", old.transaction_id)
        refunded_on = dt.date.fromisoformat(old.posted_on) + dt.timedelta(days=2)
        _db(context).fee_refunds[refund_id] = FeeRefund(refund_id=refund_id, account_id=account.account_id,
                                                        transaction_id=old.transaction_id, amount=fee,
                                                        reason="courtesy", refunded_on=refunded_on.isoformat())
        _add_transaction(context, account, earlier_days - 2, f"Fee refund: {old.description}", fee, "credit",
                         "old-overdraft-refund")
        new = _add_transaction(context, account, context.rng.randint(1, 6), "Overdraft item fee", -fee, "fee",
                               "overdraft-fee", fee_type="overdraft")
        context.state.update(account_id=account.account_id, fee_id=new.transaction_id)
        return ScenarioFragment(
            reason_for_call="You were charged another overdraft fee and want it waived.",
            known_info=[f"A {_fmt(fee)} overdraft fee was just charged to account {account.account_id}.",
                        f"The bank refunded an overdraft fee for you on {_spoken_date(refunded_on, year=True)}."],
            task_instructions=["Ask for the new overdraft fee to be refunded. If the agent explains that policy "
                               "allows no further courtesy refund yet, accept it and do not insist."])

    def solve(self, context):
        return [GoldCall("list_fee_refunds", {"account_id": context.state["account_id"]})]

    def forbidden_calls(self, context) -> list[GoldCall]:
        """The tempting wrong write the certificate tries: refunding the fee anyway."""
        return [GoldCall("refund_fee", {"transaction_id": context.state["fee_id"], "reason": "courtesy"})]

    def check(self, context):
        return ["a second courtesy refund was given"] if _refunded(context, context.state["fee_id"]) else []


# ---------------------------------------------------------------------------- ATM rebates
class AtmFeeRebate(Problem):
    name = "atm_fee_rebate"
    slot = "atm"
    facts = ("fee_premier_checking_out_of_network_atm", "premier_atm_rebates_per_cycle")
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("premier_atm_rebate_timing",)
    summary = ("Premier Checking: last cycle's close missed two ATM fee rebates; credit them, within that cycle's "
               "allowance.")

    def applicable(self, toolkit, customer_id):
        return _has_product(toolkit, customer_id, "premier_checking")

    def setup(self, context):
        account = _account(context, "premier_checking")
        fee = _money(context, "fee_premier_checking_out_of_network_atm")
        allowance = int(context.value("premier_atm_rebates_per_cycle").amount)  # type: ignore[attr-defined]
        today = _today(context)
        last_cycle_day = today.replace(day=1) - dt.timedelta(days=1)
        closed_on = statement_cycle_close(last_cycle_day)  # the cycle-end posting that missed two rebates

        def days_ago(day_of_month: int) -> int:
            return (today - last_cycle_day.replace(day=day_of_month)).days

        already = max(0, allowance - 2)
        for number in range(already):
            posted = days_ago(3 + number)
            old = _add_transaction(context, account, posted, "Out-of-network ATM fee", -fee, "fee",
                                   f"atm-old-{number}", fee_type="out_of_network_atm")
            refund_id = derived_id("RF", old.transaction_id)
            _db(context).fee_refunds[refund_id] = FeeRefund(
                refund_id=refund_id, account_id=account.account_id, transaction_id=old.transaction_id, amount=fee,
                reason="atm_rebate", refunded_on=closed_on.isoformat())
            _add_transaction(context, account, (today - closed_on).days, "Fee refund: Out-of-network ATM fee", fee,
                             "credit", f"atm-old-refund-{number}")
        fee_ids = []
        for number, day in enumerate(sorted(context.rng.sample(range(10, 21), 2))):
            _add_transaction(context, account, days_ago(day), "ATM withdrawal - Lakeshore Mini Mart", -80.0,
                             "atm_withdrawal", f"atm-withdrawal-{number}")
            fee_ids.append(_add_transaction(context, account, days_ago(day), "Out-of-network ATM fee", -fee, "fee",
                                            f"atm-fee-{number}", fee_type="out_of_network_atm").transaction_id)
        context.state.update(account_id=account.account_id, fee_ids=fee_ids)
        month = last_cycle_day.strftime("%B")
        return ScenarioFragment(
            reason_for_call="Two out-of-network ATM fees on your Premier Checking account were never rebated.",
            known_info=[f"Two {_fmt(fee)} ATM fees were charged in {month} on account {account.account_id} after "
                        "you used a non-network ATM.",
                        f"At the end of the {month} statement cycle the bank rebated {already} other ATM fees, "
                        "but not these two."],
            task_instructions=[f"Ask whether the two {month} ATM fees can still be rebated under your Premier "
                               "Checking benefits. Accept whatever the agent can rebate."])

    def solve(self, context):
        return [GoldCall("list_transactions", {"account_id": context.state["account_id"]}),
                *[GoldCall("refund_fee", {"transaction_id": fee_id, "reason": "atm_rebate"})
                  for fee_id in context.state["fee_ids"]]]

    def check(self, context):
        return [f"ATM fee {fee_id} was not rebated" for fee_id in context.state["fee_ids"]
                if not _refunded(context, fee_id, "atm_rebate")]


# ---------------------------------------------------------------------------- cards
class LostCardReplacement(Problem):
    name = "lost_card_replacement"
    slot = "card"
    facts = ()
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("premier_expedited_replacement_waiver", "fee_debit_card_expedited_replacement")
    summary = "Lost debit card: block it and send an expedited replacement, charging the fee unless waived."

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking") and not _address_recently_changed(toolkit, customer_id)

    def setup(self, context):
        account = _account(context, kind="checking")
        card = next(c for c in _db(context).cards.values() if c.account_id == account.account_id and c.status == "active")
        waived = (account.product == "premier_checking"
                  and bool(context.value("premier_expedited_replacement_waiver").value))  # type: ignore[attr-defined]
        fee = 0.0 if waived else _money(context, "fee_debit_card_expedited_replacement")
        context.state.update(card_id=card.card_id, fee=fee)
        return ScenarioFragment(
            reason_for_call="You lost your debit card and need a new one quickly.",
            known_info=[f"Your lost debit card ends in {card.last4}.",
                        "You last used it two days ago and have not seen it since."],
            task_instructions=["Ask the agent to block the lost card and send a replacement by expedited shipping. "
                               "Agree to any fee the agent states for expedited shipping."])

    def solve(self, context):
        return [GoldCall("list_cards", {"customer_id": context.customer_id}),
                GoldCall("report_card_lost", {"card_id": context.state["card_id"]}),
                GoldCall("order_replacement_card", {"card_id": context.state["card_id"], "shipping": "expedited",
                                                    "fee": context.state["fee"]})]

    def check(self, context):
        card = _db(context).cards[context.state["card_id"]]
        unmet = []
        if card.status != "lost":
            unmet.append("the lost card was not blocked")
        replacement = _db(context).cards.get(card.replaced_by or "")
        if replacement is None or replacement.shipping != "expedited":
            unmet.append("no expedited replacement was ordered")
        fees = [t for t in _db(context).transactions.values()
                if t.account_id == card.account_id and t.fee_type == "card_replacement"]
        charged = round(-sum(t.amount for t in fees), 2)
        if charged != context.state["fee"]:
            unmet.append(f"replacement fee charged {charged} instead of {context.state['fee']}")
        return unmet


class AddressChangeCardHold(Problem):
    name = "address_change_card_hold"
    slot = "card"
    facts = ()
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("replacement_card_address_hold",)
    outcome = "transfer"
    kinds = ("unusual",)  # the edge of a rule (a limit already used, a window passed)
    summary = "Replacement card to an address changed in the hold window: transfer to the fraud team."

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking")

    def setup(self, context):
        hold_days = context.value("replacement_card_address_hold").amount  # type: ignore[attr-defined]
        changed = _today(context) - dt.timedelta(days=context.rng.randint(3, hold_days - 5))
        customer = _db(context).customers[context.customer_id]
        customer.address_changed_on = changed.isoformat()
        account = _account(context, kind="checking")
        card = next(c for c in _db(context).cards.values() if c.account_id == account.account_id and c.status == "active")
        card.status = "lost"
        context.state.update(card_id=card.card_id)
        return ScenarioFragment(
            reason_for_call="Your debit card is lost and you want a replacement mailed to your new address.",
            known_info=[f"You moved and updated your address with the bank on {_spoken_date(changed)}.",
                        f"You already locked the card ending in {card.last4} in the mobile app."],
            task_instructions=["Ask for a replacement card mailed to your new address. If the agent says it cannot "
                               "be mailed yet and offers to transfer you to the team that can help, accept the "
                               "transfer."])

    def solve(self, context):
        return [GoldCall("get_customer", {"customer_id": context.customer_id}),
                GoldCall("transfer_to_human_agents", {"department": "fraud",
                                                      "summary": "Replacement card requested after a recent "
                                                                 "address change."})]

    def forbidden_calls(self, context):
        return [GoldCall("order_replacement_card", {"card_id": context.state["card_id"], "shipping": "standard",
                                                    "fee": 0.0})]

    def check(self, context):
        unmet = [] if _transferred(context, "fraud") else ["the caller was not transferred to the fraud team"]
        if _db(context).cards[context.state["card_id"]].replaced_by:
            unmet.append("a replacement card was ordered during the address-change hold")
        return unmet


# ---------------------------------------------------------------------------- checks
class StopPayment(Problem):
    name = "stop_payment"
    slot = "stop_payment"
    facts = ("fee_everyday_checking_stop_payment",)
    summary = "Place a stop payment on an uncashed check and charge the stop payment fee."

    def applicable(self, toolkit, customer_id):
        return _has_product(toolkit, customer_id, "everyday_checking")

    def setup(self, context):
        account = _account(context, "everyday_checking")
        number = str(context.rng.randint(1012, 1399))
        amount = float(context.rng.choice([275, 412.5, 960, 1340, 185.25]))
        context.state.update(account_id=account.account_id, check_number=number, amount=amount,
                             fee=_money(context, "fee_everyday_checking_stop_payment"))
        return ScenarioFragment(
            reason_for_call="You want to stop payment on a check you wrote.",
            known_info=[f"You wrote check number {number} for {_fmt(amount)} from Everyday Checking account "
                        f"{account.account_id}; it has not been cashed and the payee never received it."],
            task_instructions=["Ask the agent to stop payment on the check and agree to the stop payment fee."])

    def solve(self, context):
        state = context.state
        return [GoldCall("list_transactions", {"account_id": state["account_id"]}),
                GoldCall("place_stop_payment", {"account_id": state["account_id"], "check_number": state["check_number"],
                                                "amount": state["amount"], "fee": state["fee"]})]

    def check(self, context):
        state = context.state
        stops = [s for s in _db(context).stop_payments.values()
                 if s.account_id == state["account_id"] and s.check_number == state["check_number"]]
        if not stops:
            return ["no stop payment was placed"]
        if stops[0].fee != state["fee"] or stops[0].amount != state["amount"]:
            return [f"stop payment recorded fee {stops[0].fee} and amount {stops[0].amount}"]
        return []


# ---------------------------------------------------------------------------- Regulation E
class UnauthorizedDebitDispute(Problem):
    name = "unauthorized_debit_dispute"
    slot = "dispute"
    facts = ("reg_e_small_claim_instant_credit",)
    # Read in setup only, or decisive only in some worlds: not proven to decide the gold, so context.
    context_facts = ("reg_e_notice_window",)
    summary = ("Unauthorized debit card charge at or under the small-claim threshold, reported inside the notice "
               "window: open a Regulation E claim with same-day provisional credit.")
    small_claim = True
    """Which side of ``reg_e_small_claim_instant_credit`` the charge is drawn on (the subclass below takes the
    other): each side is its own problem, so every build has both outcomes of the threshold."""

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking")

    def setup(self, context):
        account = _account(context, kind="checking")
        window = context.value("reg_e_notice_window").days()  # type: ignore[attr-defined]
        threshold = _money(context, "reg_e_small_claim_instant_credit")
        statement_days = context.rng.randint(5, max(6, window - 25))
        if self.small_claim:  # small claims sit above older thresholds, so the current one decides
            amount = round(context.rng.uniform(threshold * 0.6, threshold), 2)
        else:
            amount = round(context.rng.uniform(threshold + 15, threshold + 380), 2)
        merchant = context.rng.choice(["WWW.GADGETHUB-EU.COM", "SQ *RIVERTOWN VAPE", "PAYPAL *DIGIMARKET",
                                       "APLPAY LUXE OUTLET"])
        transaction = _add_transaction(context, account, statement_days + 6, merchant, -amount, "purchase",
                                       "unauthorized", statement_days_ago=statement_days)
        context.state.update(account_id=account.account_id, transaction_id=transaction.transaction_id,
                             same_day_credit=amount <= threshold, amount=amount)
        return ScenarioFragment(
            reason_for_call="There is a debit card charge on your checking account that you did not make.",
            known_info=[f"The charge is {_fmt(amount)} from {merchant}, posted on "
                        f"{_spoken_date(dt.date.fromisoformat(transaction.posted_on))}.",
                        "You still have your card and never shared it."],
            task_instructions=["Report the charge as unauthorized and ask the bank to dispute it. Accept any "
                               "credit the agent offers while the claim is investigated."])

    def solve(self, context):
        calls = [GoldCall("list_transactions", {"account_id": context.state["account_id"]}),
                 GoldCall("open_dispute", {"transaction_id": context.state["transaction_id"], "reason": "unauthorized"})]
        if context.state["same_day_credit"]:
            dispute_id = derived_id("DSP", context.state["transaction_id"])
            calls.append(GoldCall("issue_provisional_credit", {"dispute_id": dispute_id}))
        return calls

    def check(self, context):
        found = [d for d in _db(context).disputes.values() if d.transaction_id == context.state["transaction_id"]]
        if not found:
            return ["no dispute was opened"]
        unmet = [] if found[0].reason == "unauthorized" else ["the dispute has the wrong reason"]
        credited = found[0].provisional_credit
        if context.state["same_day_credit"] and credited != context.state["amount"]:
            unmet.append("no same-day provisional credit on a small claim")
        if not context.state["same_day_credit"] and credited:
            unmet.append("provisional credit issued before the investigation deadline required it")
        return unmet


class UnauthorizedDebitDisputeOverThreshold(UnauthorizedDebitDispute):
    name = "unauthorized_debit_dispute_over_threshold"
    summary = ("Unauthorized debit card charge above the small-claim threshold, reported inside the notice window: "
               "open a Regulation E claim; no provisional credit is due yet.")
    small_claim = False


class ProvisionalCreditOverdue(Problem):
    name = "provisional_credit_overdue"
    slot = "dispute"
    facts = ("reg_e_provisional_credit_deadline",)
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("reg_e_investigation_period",)
    kinds = ("unusual",)  # the edge of a rule (a limit already used, a window passed)
    summary = "An open Regulation E claim is past the provisional-credit deadline: credit the account now."

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking")

    def setup(self, context):
        account = _account(context, kind="checking")
        deadline = context.value("reg_e_provisional_credit_deadline").amount  # type: ignore[attr-defined]
        opened = business_days_before(_today(context), deadline + context.rng.randint(2, 5))
        amount = round(context.rng.uniform(60, 390), 2)
        days_ago = (_today(context) - opened).days + 4
        transaction = _add_transaction(context, account, days_ago, "POS DEBIT METRO ELECTRONICS", -amount, "purchase",
                                       "disputed", statement_days_ago=days_ago - 2)
        dispute_id = derived_id("DSP", transaction.transaction_id)
        _db(context).disputes[dispute_id] = Dispute(dispute_id=dispute_id, account_id=account.account_id,
                                                    transaction_id=transaction.transaction_id, regulation="reg_e",
                                                    reason="unauthorized", opened_on=opened.isoformat())
        context.state.update(dispute_id=dispute_id, amount=amount)
        return ScenarioFragment(
            reason_for_call="You filed a claim about an unauthorized charge weeks ago and have not been credited.",
            known_info=[f"Your claim number is {dispute_id}, opened on {_spoken_date(opened)}, for {_fmt(amount)}."],
            task_instructions=["Ask when you will get your money back while the claim is investigated. Accept a "
                               "provisional credit."])

    def solve(self, context):
        return [GoldCall("get_dispute", {"dispute_id": context.state["dispute_id"]}),
                GoldCall("issue_provisional_credit", {"dispute_id": context.state["dispute_id"]})]

    def check(self, context):
        dispute = _db(context).disputes[context.state["dispute_id"]]
        return [] if dispute.provisional_credit == context.state["amount"] else ["no provisional credit was issued"]


class LateRegEClaim(Problem):
    name = "late_reg_e_claim"
    slot = "dispute"
    facts = ("reg_e_notice_window",)
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("reg_e_late_notice_escalation",)
    outcome = "transfer"
    kinds = ("unusual",)  # the edge of a rule (a limit already used, a window passed)
    summary = "Unauthorized charge reported after the notice window: transfer to a disputes specialist."

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking")

    def setup(self, context):
        account = _account(context, kind="checking")
        window = context.value("reg_e_notice_window").days()  # type: ignore[attr-defined]
        statement_days = window + context.rng.randint(12, 40)
        amount = round(context.rng.uniform(40, 260), 2)
        transaction = _add_transaction(context, account, statement_days + 8, "RECURRING FITCLUB PREMIUM", -amount,
                                       "purchase", "late-unauthorized", statement_days_ago=statement_days)
        context.state.update(account_id=account.account_id, transaction_id=transaction.transaction_id)
        return ScenarioFragment(
            reason_for_call="You found an old charge you never authorized and want your money back.",
            known_info=[f"The charge is {_fmt(amount)} from RECURRING FITCLUB PREMIUM, posted on "
                        f"{_spoken_date(dt.date.fromisoformat(transaction.posted_on), year=True)}.",
                        "You only noticed it this week while reviewing old statements."],
            task_instructions=["Ask the bank to dispute the charge. If the agent says it is too late for a standard "
                               "claim and offers a transfer to a specialist, accept the transfer."])

    def solve(self, context):
        return [GoldCall("list_transactions", {"account_id": context.state["account_id"]}),
                GoldCall("transfer_to_human_agents", {"department": "disputes",
                                                      "summary": "Unauthorized charge reported after the notice "
                                                                 "window."})]

    def forbidden_calls(self, context):
        return [GoldCall("open_dispute", {"transaction_id": context.state["transaction_id"], "reason": "unauthorized"})]

    def check(self, context):
        unmet = [] if _transferred(context, "disputes") else ["the caller was not transferred to disputes"]
        if any(d.transaction_id == context.state["transaction_id"] for d in _db(context).disputes.values()):
            unmet.append("a standard claim was opened after the notice window")
        return unmet


# ---------------------------------------------------------------------------- statements
class PaperStatementSwitch(Problem):
    name = "paper_statement_switch"
    slot = "statements"
    facts = ("fee_paper_statement", "paper_statement_refund_on_enrollment")
    # Read in setup only, or decisive only in some worlds: not proven to decide the gold, so context.
    context_facts = ("estatement_waives_paper_fee", "paper_statement_exempt_products")
    summary = ("Paper statement fee complaint: switch to electronic statements and refund the paper fees of the "
               "last 3 months, none older.")

    def applicable(self, toolkit, customer_id):
        # Customers of 65 or more may have the fee waived on request instead (a second compliant end state).
        born = dt.date.fromisoformat(toolkit.db.customers[customer_id].date_of_birth)
        age = (toolkit.now.date() - born).days // 365
        return _has_kind(toolkit, customer_id, "checking") and age < 60

    def setup(self, context):
        account = _account(context, kind="checking")
        if account.product in context.pack.fact("paper_statement_exempt_products").applies_to:
            # exempt products pay no paper fee: charging one would make the fee a bank error (a second
            # compliant refund reason, defect kind K9)
            raise LookupError(f"{account.product} is exempt from the paper statement fee")
        account.statement_delivery = "paper"
        fee = _money(context, "fee_paper_statement")
        window = context.value("paper_statement_refund_on_enrollment")  # type: ignore[assignment]
        window_days = int(window.amount) * 30  # type: ignore[attr-defined]
        recent = [_add_transaction(context, account, days, "Paper statement fee", -fee, "fee", f"paper-fee-{days}",
                                   fee_type="paper_statement").transaction_id
                  for days in (context.rng.randint(3, 12), context.rng.randint(33, 45))]
        _add_transaction(context, account, window_days + context.rng.randint(15, 40), "Paper statement fee", -fee,
                         "fee", "paper-fee-old", fee_type="paper_statement")
        context.state.update(account_id=account.account_id, fee_ids=recent)
        return ScenarioFragment(
            reason_for_call="You noticed paper statement fees and want to stop paying them.",
            known_info=[f"{_fmt(fee)} paper statement fees appear every month on account {account.account_id}.",
                        "You are happy to read statements online."],
            task_instructions=["Ask how to stop the paper statement fee. Agree to switch to online statements, and "
                               "accept any refund the agent offers."])

    def solve(self, context):
        account_id = context.state["account_id"]
        return [GoldCall("list_transactions", {"account_id": account_id}),
                GoldCall("set_statement_delivery", {"account_id": account_id, "delivery": "electronic"}),
                *[GoldCall("refund_fee", {"transaction_id": fee_id, "reason": "fee_waiver"})
                  for fee_id in context.state["fee_ids"]]]

    def check(self, context):
        account = _db(context).accounts[context.state["account_id"]]
        unmet = [] if account.statement_delivery == "electronic" else ["statements are still on paper"]
        unmet += [f"paper fee {fee_id} was not refunded" for fee_id in context.state["fee_ids"]
                  if not _refunded(context, fee_id, "fee_waiver")]
        old = [r for r in _db(context).fee_refunds.values() if r.account_id == account.account_id
               and r.reason == "fee_waiver" and r.transaction_id not in context.state["fee_ids"]]
        if old:
            unmet.append("a paper fee older than the refund window was refunded")
        return unmet


# ---------------------------------------------------------------------------- credit cards
class CreditCardBillingDispute(Problem):
    name = "credit_card_billing_dispute"
    slot = "credit_card"
    facts = ()
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("reg_z_billing_error_window", "reg_z_temporary_credit")
    summary = ("Duplicate credit card charge inside the billing-error window: open a Regulation Z dispute and post "
               "the temporary credit.")

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "credit_card")

    def setup(self, context):
        account = _account(context, kind="credit_card")
        window = context.value("reg_z_billing_error_window").days()  # type: ignore[attr-defined]
        statement_days = context.rng.randint(4, max(5, window - 20))
        amount = round(context.rng.uniform(80, 640), 2)
        merchant = context.rng.choice(["NORTHSHORE FURNITURE", "BRIGHTLINE DENTAL", "LAKEVIEW AUTO CARE"])
        _add_transaction(context, account, statement_days + 9, merchant, -amount, "purchase", "billed-once",
                         statement_days_ago=statement_days)
        duplicate = _add_transaction(context, account, statement_days + 8, merchant, -amount, "purchase",
                                     "billed-twice", statement_days_ago=statement_days)
        context.state.update(transaction_id=duplicate.transaction_id, account_id=account.account_id)
        return ScenarioFragment(
            reason_for_call="Your credit card was charged twice for one purchase.",
            known_info=[f"{merchant} charged your credit card {_fmt(amount)} twice on consecutive days; you made "
                        "one purchase. The later charge is the duplicate."],
            task_instructions=["Ask the bank to dispute the duplicate (later) charge."])

    def solve(self, context):
        return [GoldCall("list_transactions", {"account_id": context.state["account_id"]}),
                GoldCall("open_dispute", {"transaction_id": context.state["transaction_id"], "reason": "billing_error"}),
                GoldCall("issue_provisional_credit", {"dispute_id": derived_id("DSP", context.state["transaction_id"])})]

    def check(self, context):
        found = [d for d in _db(context).disputes.values() if d.transaction_id == context.state["transaction_id"]]
        if not found:
            return ["no billing dispute was opened"]
        problems = [] if found[0].reason == "billing_error" else ["the dispute has the wrong reason"]
        if not found[0].provisional_credit:
            problems.append("the disputed amount got no temporary credit")
        return problems


class PlatinumForeignFeeRefund(Problem):
    name = "platinum_foreign_fee_refund"
    slot = "credit_card"
    facts = ("fee_platinum_credit_card_foreign_transaction",)
    summary = "Platinum card charged a foreign transaction fee it no longer carries: refund it as a bank error."

    def applicable(self, toolkit, customer_id):
        return _has_product(toolkit, customer_id, "platinum_credit_card")

    def setup(self, context):
        account = _account(context, "platinum_credit_card")
        rate = context.value("fee_platinum_credit_card_foreign_transaction").value  # type: ignore[attr-defined]
        if rate != 0:
            raise LookupError("platinum foreign fee refund needs a 0% current rate")
        # Kept small: fee reversals on one call stay under the frontline limit, even with other refunds.
        amount = round(context.rng.uniform(120, 480), 2)
        wrong_fee = round(amount * 0.01, 2)
        days = context.rng.randint(3, 15)
        _add_transaction(context, account, days, "HOTEL DU PARC LYON FR", -amount, "purchase", "foreign-purchase",
                         country="FR")
        fee = _add_transaction(context, account, days, "Foreign transaction fee", -wrong_fee, "fee", "foreign-fee",
                               fee_type="foreign_transaction")
        context.state.update(account_id=account.account_id, fee_id=fee.transaction_id)
        return ScenarioFragment(
            reason_for_call="You were charged a foreign transaction fee on your Platinum card.",
            known_info=[f"A {_fmt(wrong_fee)} foreign transaction fee followed a hotel charge in France on your "
                        f"Platinum card account {account.account_id}."],
            task_instructions=["Ask why you were charged a foreign fee on your Platinum card and ask for it back."])

    def solve(self, context):
        return [GoldCall("list_transactions", {"account_id": context.state["account_id"]}),
                GoldCall("refund_fee", {"transaction_id": context.state["fee_id"], "reason": "bank_error"})]

    def check(self, context):
        return [] if _refunded(context, context.state["fee_id"], "bank_error") else ["the foreign fee was not refunded"]


# ---------------------------------------------------------------------------- closing
class EarlyAccountClosure(Problem):
    name = "early_account_closure"
    slot = "closure"
    facts = ("fee_early_account_closure",)
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("early_closure_window",)
    summary = "Close a savings account opened inside the early-closure window, charging the closure fee."

    def setup(self, context):
        window = context.value("early_closure_window").days()  # type: ignore[attr-defined]
        opened = _today(context) - dt.timedelta(days=context.rng.randint(20, window - 10))
        customer = _db(context).customers[context.customer_id]
        account_id = "A" + derived_id("X", context.customer_id, "early-savings")[2:10].translate(
            str.maketrans("ABCDEF", "123456"))
        deposit = float(context.rng.choice([300, 500, 750, 1200]))
        account = Account(account_id=account_id, customer_id=context.customer_id, product="basic_savings",
                          kind="savings", opened_on=opened.isoformat(), balance=0.0)
        _db(context).accounts[account_id] = account
        customer.account_ids = [*customer.account_ids, account_id]
        _add_transaction(context, account, (_today(context) - opened).days, "Opening deposit", deposit, "deposit",
                         "early-savings-deposit")
        context.state.update(account_id=account_id, fee=_money(context, "fee_early_account_closure"))
        return ScenarioFragment(
            reason_for_call="You want to close a savings account you opened recently.",
            known_info=[f"You opened Basic Savings account {account_id} on {_spoken_date(opened)} and no longer need it."],
            task_instructions=["Ask to close the savings account and have the balance mailed to you. Accept any "
                               "closing fee the agent explains."])

    def solve(self, context):
        return [GoldCall("get_account", {"account_id": context.state["account_id"]}),
                GoldCall("close_account", {"account_id": context.state["account_id"],
                                           "closure_fee": context.state["fee"]})]

    def check(self, context):
        account = _db(context).accounts[context.state["account_id"]]
        if account.status != "closed":
            return ["the savings account is still open"]
        if account.closure_fee_charged != context.state["fee"]:
            return [f"closure fee {account.closure_fee_charged} instead of {context.state['fee']}"]
        return []


# ---------------------------------------------------------------------------- wires
_BENEFICIARIES = (("Prairie Title & Escrow LLC", "071000013"), ("Hartwell Builders Inc", "071904779"),
                  ("Lindqvist Family Trust", "074000010"), ("Oakmont Property Management", "071925444"))


def _fund_for_wire(context: ProblemContext, account: Account, amount: float) -> None:
    if account.balance < amount + 500:
        _add_transaction(context, account, 3, "Payroll deposit - ACME LOGISTICS", round(amount + 1500 - account.balance, 2),
                         "deposit", "wire-funding")


class DomesticWire(Problem):
    name = "domestic_wire"
    slot = "wire"
    facts = ("fee_domestic_wire_outgoing",)
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("wire_callback_new_beneficiary", "wire_online_daily_limit")
    summary = ("Send an outgoing domestic wire under the daily limit and the new-beneficiary callback threshold, "
               "and charge the wire fee.")

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking")

    def setup(self, context):
        account = _account(context, kind="checking")
        limit = float(context.value("wire_online_daily_limit").amount)  # type: ignore[attr-defined]
        # Above the callback threshold a wire to a new beneficiary waits for the wire desk's call-back.
        callback = float(context.value("wire_callback_new_beneficiary").amount)  # type: ignore[attr-defined]
        amounts = [a for a in (1850, 2400, 3675.5, 4200, 6100) if a <= min(limit, callback)]
        if not amounts:
            raise LookupError("every wire amount is above the daily limit or the callback threshold")
        amount = float(context.rng.choice(amounts))
        _fund_for_wire(context, account, amount)
        name, routing = context.rng.choice(_BENEFICIARIES)
        beneficiary_account = str(context.rng.randint(10_000_000, 99_999_999))
        context.state.update(account_id=account.account_id, amount=amount, name=name, routing=routing,
                             beneficiary_account=beneficiary_account, fee=_money(context, "fee_domestic_wire_outgoing"))
        return ScenarioFragment(
            reason_for_call="You need to send a domestic wire today.",
            known_info=[f"Send {_fmt(amount)} from checking account {account.account_id} to {name}, routing number "
                        f"{routing}, account number {beneficiary_account}."],
            task_instructions=["Ask the agent to send the wire and agree to the wire fee."])

    def solve(self, context):
        state = context.state
        return [GoldCall("get_account", {"account_id": state["account_id"]}),
                GoldCall("send_wire", {"account_id": state["account_id"], "beneficiary_name": state["name"],
                                       "routing_number": state["routing"], "beneficiary_account":
                                       state["beneficiary_account"], "amount": state["amount"], "fee": state["fee"]})]

    def check(self, context):
        state = context.state
        wires = [w for w in _db(context).wires.values() if w.account_id == state["account_id"]
                 and w.beneficiary_account == state["beneficiary_account"]]
        if not wires:
            return ["the wire was not sent"]
        if wires[0].amount != state["amount"] or wires[0].fee != state["fee"]:
            return [f"wire sent for {wires[0].amount} with fee {wires[0].fee}"]
        return []


class WireOverLimit(Problem):
    name = "wire_over_limit"
    slot = "wire"
    facts = ("wire_online_daily_limit",)
    # Read in setup only (a seeded draw inside the window): not proven to decide the gold, so context.
    context_facts = ("wire_over_limit_transfer",)
    outcome = "transfer"
    summary = "A wire above the daily limit: transfer to the wire desk instead of sending it."

    def applicable(self, toolkit, customer_id):
        return _has_kind(toolkit, customer_id, "checking")

    def setup(self, context):
        account = _account(context, kind="checking")
        limit = float(context.value("wire_online_daily_limit").amount)  # type: ignore[attr-defined]
        amount = float(round(limit * context.rng.choice([1.2, 1.45, 1.8, 2.5]), -2))
        _fund_for_wire(context, account, amount)
        name, routing = context.rng.choice(_BENEFICIARIES)
        beneficiary_account = str(context.rng.randint(10_000_000, 99_999_999))
        context.state.update(account_id=account.account_id, amount=amount, name=name, routing=routing,
                             beneficiary_account=beneficiary_account)
        return ScenarioFragment(
            reason_for_call="You need to wire a large down payment today.",
            known_info=[f"Send {_fmt(amount)} from checking account {account.account_id} to {name}, routing number "
                        f"{routing}, account number {beneficiary_account}."],
            task_instructions=["Ask the agent to send the wire. If the agent says it cannot send that amount and "
                               "offers a transfer to the team that can, accept the transfer."])

    def solve(self, context):
        return [GoldCall("get_account", {"account_id": context.state["account_id"]}),
                GoldCall("transfer_to_human_agents", {"department": "wire_desk",
                                                      "summary": "Outgoing wire above the daily limit."})]

    def forbidden_calls(self, context):
        state = context.state
        return [GoldCall("send_wire", {"account_id": state["account_id"], "beneficiary_name": state["name"],
                                       "routing_number": state["routing"],
                                       "beneficiary_account": state["beneficiary_account"],
                                       "amount": state["amount"], "fee": 25.0})]

    def check(self, context):
        unmet = [] if _transferred(context, "wire_desk") else ["the caller was not transferred to the wire desk"]
        if any(w.beneficiary_account == context.state["beneficiary_account"] for w in _db(context).wires.values()):
            unmet.append("a wire above the daily limit was sent")
        return unmet


PROBLEMS: tuple[type[Problem], ...] = (
    CourtesyOverdraftRefund, CourtesyRefundAlreadyUsed, AtmFeeRebate, LostCardReplacement, AddressChangeCardHold,
    StopPayment, UnauthorizedDebitDispute, UnauthorizedDebitDisputeOverThreshold, ProvisionalCreditOverdue,
    LateRegEClaim, PaperStatementSwitch, CreditCardBillingDispute, PlatinumForeignFeeRefund, EarlyAccountClosure, DomesticWire, WireOverLimit,
)
"""Every banking problem; identity verification opens every task and is not listed here."""
