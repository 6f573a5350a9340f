"""Seed the banking world: customers with accounts, cards and a few months of transactions.

Everything is drawn from a Faker and a ``random.Random`` seeded from the build seed, and ids are
sequential in draw order, so the same seed gives the same world. Dates run up to the world's ``now``.
"""

from __future__ import annotations

import datetime as dt
import random

from faker import Faker

from taugen.authoring.models import DomainConfig
from taugen.generators.corpus.genre import birth_date
from taugen.hashing import stable_seed
from taugen.domains.banking.db import Account, Address, BankDB, Card, Customer, Transaction

CHECKING_PRODUCTS = ("everyday_checking", "premier_checking", "student_checking")
SAVINGS_PRODUCTS = ("basic_savings", "high_yield_savings", "money_market")
CARD_PRODUCTS = ("rewards_credit_card", "platinum_credit_card")
MERCHANTS = ("Hy-Vee #1182", "Shell Oil 5521", "Target T-0231", "Walgreens #0934", "Amazon Mktp US",
             "Jewel-Osco 3308", "Costco Whse #0388", "Starbucks Store 12006", "Home Depot #1921", "Comcast Cable",
             "Menards Naperville", "Chipotle 2217", "Netflix.com", "ComEd Bill Pay", "Uber Trip")


def build_world(config: DomainConfig, seed: int, customers: int = 40) -> BankDB:
    """Create the initial bank database.

    Args:
        config: the pack's domain card (its ``now`` ends every history).
        seed: the build seed.
        customers: how many customers to create (each gets 1–3 accounts and a debit card).

    Returns:
        a :class:`BankDB` with customers ``C10001``…, accounts ``A2000…``, cards and transactions.
    """
    rng = random.Random(stable_seed(seed, config.domain, "world"))
    fake = Faker(config.locale)
    fake.seed_instance(stable_seed(seed, config.domain, "world-faker"))
    today = config.now.date()
    db = BankDB()
    account_number = 20_000_000
    for index in range(customers):
        customer_id = f"C{10001 + index}"
        first, last = fake.first_name(), fake.last_name()
        born = birth_date(fake, today, minimum_age=19, maximum_age=82)
        since = today - dt.timedelta(days=rng.randint(400, 4000))
        customer = Customer(
            customer_id=customer_id, first_name=first, last_name=last, date_of_birth=born.isoformat(),
            ssn_last4=f"{rng.randint(0, 9999):04d}", email=f"{first}.{last}{rng.randint(1, 99)}@example.com".lower(),
            phone=f"{rng.choice(['312', '773', '630', '847', '708'])}-555-{rng.randint(100, 9999):04d}",
            address=Address(street=fake.street_address(), city=rng.choice(
                ["Chicago", "Evanston", "Naperville", "Oak Park", "Aurora", "Joliet", "Schaumburg"]),
                state="IL", zip_code=f"60{rng.randint(100, 699)}"),
            customer_since=since.isoformat())
        db.customers[customer_id] = customer
        products = [rng.choice(CHECKING_PRODUCTS)]
        if rng.random() < 0.6:
            products.append(rng.choice(SAVINGS_PRODUCTS))
        if rng.random() < 0.55:
            products.append(rng.choice(CARD_PRODUCTS))
        for product in products:
            account_number += rng.randint(7, 97)
            account_id = f"A{account_number}"
            kind = "checking" if product in CHECKING_PRODUCTS else "credit_card" if product in CARD_PRODUCTS else "savings"
            opened = since + dt.timedelta(days=rng.randint(0, max(1, (today - since).days - 200)))
            account = Account(account_id=account_id, customer_id=customer_id, product=product, kind=kind,
                              opened_on=opened.isoformat(), balance=0.0,
                              statement_delivery=rng.choice(["electronic", "electronic", "paper"]))
            db.accounts[account_id] = account
            customer.account_ids.append(account_id)
            if kind != "savings":
                card_id = f"CRD-{account_id[1:]}"
                db.cards[card_id] = Card(card_id=card_id, account_id=account_id, customer_id=customer_id,
                                         kind="debit" if kind == "checking" else "credit",
                                         last4=f"{rng.randint(0, 9999):04d}", issued_on=opened.isoformat())
            _history(db, account, rng, today)
    return db


def _history(db: BankDB, account: Account, rng: random.Random, today: dt.date) -> None:
    """A few months of ordinary activity so lookups return realistic lists."""
    balance = round(rng.uniform(800, 9000), 2) if account.kind != "credit_card" else 0.0
    start = today - dt.timedelta(days=75)
    if account.kind != "credit_card":
        deposit_day = start + dt.timedelta(days=rng.randint(0, 5))
        _add(db, account, deposit_day, "Opening balance carried forward", balance, "deposit")
    for number in range(rng.randint(3, 7)):
        day = start + dt.timedelta(days=rng.randint(6, 70))
        amount = -round(rng.uniform(6, 240), 2)
        _add(db, account, day, rng.choice(MERCHANTS), amount, "purchase", suffix=number)
    account.balance = round(sum(t.amount for t in db.transactions.values() if t.account_id == account.account_id), 2)
    if account.kind == "credit_card":
        account.balance = round(-account.balance, 2)


def _add(db: BankDB, account: Account, day: dt.date, description: str, amount: float, kind: str,
         suffix: object = "") -> None:
    transaction_id = f"TX-{account.account_id[1:]}-{day:%m%d}{suffix}"
    db.transactions[transaction_id] = Transaction(transaction_id=transaction_id, account_id=account.account_id,
                                                  posted_on=day.isoformat(), description=description,
                                                  amount=round(amount, 2), kind=kind)
