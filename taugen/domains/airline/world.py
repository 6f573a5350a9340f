"""Seed the airline world: a flight schedule with a status per date, users, and their reservations.

The shape follows τ²-bench's airline database (its ``db.json`` is not shipped with the package, so the
world is generated): twenty US airports, flights ``HAT001``... flying every day of May 2024 with a status
per date (landed before the world's ``now``, on time / delayed / flying / cancelled on the day, bookable
afterwards with seats and prices per cabin, a few cancelled in the next days), users ``first_last_123``
with credit cards, gift cards and travel certificates, saved passengers and a membership level, and
reservations made before ``now``. Every draw comes from a ``random.Random`` and a Faker seeded from the
build seed, so the same seed gives the same world.
"""

from __future__ import annotations

import datetime as dt
import random
import string

from faker import Faker

from taugen.authoring.models import DomainConfig
from taugen.generators.corpus.genre import birth_date
from taugen.hashing import stable_seed

from .db import (CABINS, MEMBERSHIPS, Address, CreditCard, Flight, FlightAvailable, FlightCancelled, FlightDB,
                 FlightDelayed, FlightFlying, FlightLanded, FlightOnTime, GiftCard, Name, Passenger, Payment,
                 Reservation, ReservationFlight, TravelCertificate, User)

AIRPORTS: tuple[tuple[str, str], ...] = (
    ("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"), ("DFW", "Dallas"),
    ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"), ("MIA", "Miami"), ("BOS", "Boston"),
    ("PHX", "Phoenix"), ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"),
    ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"), ("PHL", "Philadelphia"), ("LGA", "LaGuardia"))
"""The airports the airline serves: IATA code and city (what ``list_all_airports`` returns)."""

FIRST_DAY = dt.date(2024, 5, 1)
LAST_DAY = dt.date(2024, 5, 30)
HUBS = ("ORD", "DFW", "ATL", "DEN")
"""Airports every other airport has flights to and from (so one-stop itineraries exist)."""
PRICE_RANGES = {"basic_economy": (50, 100), "economy": (100, 200), "business": (200, 500)}
"""Per-passenger fare ranges by cabin, whole dollars."""
CARD_BRANDS = ("visa", "mastercard", "amex", "discover")


def flight_days() -> list[str]:
    """Every date a flight of the schedule operates, ISO format."""
    return [(FIRST_DAY + dt.timedelta(days=n)).isoformat() for n in range((LAST_DAY - FIRST_DAY).days + 1)]


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def _routes(rng: random.Random) -> list[tuple[str, str]]:
    """Every airport to and from each hub, plus direct routes between some other pairs."""
    codes = [code for code, _ in AIRPORTS]
    routes = []
    for hub in HUBS:
        for code in codes:
            if code != hub:
                routes += [(hub, code), (code, hub)]
    others = [code for code in codes if code not in HUBS]
    for _ in range(24):
        origin, destination = rng.sample(others, 2)
        routes += [(origin, destination), (destination, origin)]
    return sorted(set(routes))


def _status(rng: random.Random, day: str, now: dt.datetime, departure: int, arrival: int):
    """A flight's status on ``day`` as seen at ``now`` (departure and arrival in minutes after midnight)."""
    date = dt.date.fromisoformat(day)
    stamp = lambda minutes: f"{day}T{_clock(max(0, min(minutes, 24 * 60 - 1)))}"  # noqa: E731
    today = now.date()
    minute_now = now.hour * 60 + now.minute
    if date < today or (date == today and arrival + 30 < minute_now):
        if rng.random() < 0.04:
            return FlightCancelled()
        drift = rng.randint(-10, 40)
        return FlightLanded(actual_departure_time_est=stamp(departure + drift),
                            actual_arrival_time_est=stamp(arrival + drift + rng.randint(-10, 10)))
    if date == today:
        if departure <= minute_now:
            return FlightFlying(actual_departure_time_est=stamp(departure + rng.randint(0, 20)),
                                estimated_arrival_time_est=stamp(arrival + rng.randint(0, 20)))
        draw = rng.random()
        if draw < 0.15:
            return FlightCancelled()
        if draw < 0.45:
            delay = rng.randint(60, 240)
            return FlightDelayed(estimated_departure_time_est=stamp(departure + delay),
                                 estimated_arrival_time_est=stamp(arrival + delay))
        return FlightOnTime(estimated_departure_time_est=stamp(departure), estimated_arrival_time_est=stamp(arrival))
    if (date - today).days <= 2 and rng.random() < 0.1:
        return FlightCancelled()
    return FlightAvailable(available_seats={cabin: rng.randint(0, 20) for cabin in CABINS},
                           prices={cabin: rng.randint(*PRICE_RANGES[cabin]) for cabin in CABINS})


def reservation_code(rng: random.Random) -> str:
    """A six-character reservation id (upper-case letters and digits)."""
    return "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(6))


def payment_code(rng: random.Random) -> str:
    """The seven-digit number of a payment method id (``credit_card_1234567``)."""
    return str(rng.randint(1_000_000, 9_999_999))


def build_world(config: DomainConfig, seed: int, users: int = 40) -> FlightDB:
    """The initial database: the flight schedule, ``users`` users and two to four reservations each."""
    rng = random.Random(stable_seed(seed, config.domain, "world"))
    fake = Faker(config.locale)
    fake.seed_instance(stable_seed(seed, config.domain, "world-faker"))
    now = config.now.replace(tzinfo=None)
    db = FlightDB()
    for index, (origin, destination) in enumerate(_routes(rng)):
        departure = rng.randrange(5 * 60, 17 * 60, 5)
        arrival = departure + rng.randrange(60, 5 * 60, 5)
        number = f"HAT{index + 1:03d}"
        db.flights[number] = Flight(
            flight_number=number, origin=origin, destination=destination,
            scheduled_departure_time_est=_clock(departure), scheduled_arrival_time_est=_clock(arrival),
            dates={day: _status(rng, day, now, departure, arrival) for day in flight_days()})
    taken: set[str] = set()
    for _ in range(users):
        first, last = fake.first_name(), fake.last_name()
        user_id = f"{first}_{last}_{rng.randint(100, 999)}".lower().replace("'", "").replace(" ", "")
        while user_id in db.users:
            user_id = f"{first}_{last}_{rng.randint(100, 999)}".lower()
        methods: dict = {}
        for _ in range(rng.randint(1, 2)):
            card_id = f"credit_card_{payment_code(rng)}"
            methods[card_id] = CreditCard(id=card_id, brand=rng.choice(CARD_BRANDS), last_four=f"{rng.randint(0, 9999):04d}")
        for _ in range(rng.randint(0, 2)):
            gift_id = f"gift_card_{payment_code(rng)}"
            methods[gift_id] = GiftCard(id=gift_id, amount=float(rng.randint(20, 300)))
        for _ in range(rng.randint(0, 2)):
            certificate_id = f"certificate_{payment_code(rng)}"
            methods[certificate_id] = TravelCertificate(id=certificate_id, amount=float(rng.choice([100, 150, 200, 250, 500])))
        saved = [Passenger(first_name=fake.first_name(), last_name=rng.choice([last, fake.last_name()]),
                           dob=birth_date(fake, now.date(), minimum_age=2, maximum_age=85).isoformat())
                 for _ in range(rng.randint(0, 2))]
        state = fake.state_abbr()
        user = User(user_id=user_id, name=Name(first_name=first, last_name=last),
                    address=Address(address1=fake.street_address(), address2=None, city=fake.city(),
                                    country="USA", state=state, zip=fake.postcode_in_state(state)),
                    email=f"{first}.{last}{rng.randint(1, 9999)}@example.com".lower().replace(" ", ""),
                    dob=birth_date(fake, now.date(), minimum_age=18, maximum_age=85).isoformat(),
                    payment_methods=methods, saved_passengers=saved,
                    membership=rng.choice(MEMBERSHIPS), reservations=[])
        db.users[user_id] = user
        for _ in range(rng.randint(2, 4)):
            reservation = _past_reservation(rng, db, user, taken, now)
            if reservation is not None:
                db.reservations[reservation.reservation_id] = reservation
                user.reservations.append(reservation.reservation_id)
    return db


def _past_reservation(rng: random.Random, db: FlightDB, user: User, taken: set[str],
                      now: dt.datetime) -> Reservation | None:
    """A reservation the user made before ``now`` on one flight (one way) or a flight and its return."""
    flight = db.flights[rng.choice(sorted(db.flights))]
    back = [f for f in sorted(db.flights.values(), key=lambda f: f.flight_number)
            if f.origin == flight.destination and f.destination == flight.origin]
    day = flight_days()[rng.randrange(len(flight_days()))]
    cabin = rng.choice(CABINS)
    round_trip = bool(back) and rng.random() < 0.5
    legs = [(flight, day)]
    if round_trip:
        return_day = min(dt.date.fromisoformat(day) + dt.timedelta(days=rng.randint(2, 6)), LAST_DAY).isoformat()
        legs.append((back[0], return_day))
    passengers = [Passenger(first_name=user.name.first_name, last_name=user.name.last_name, dob=user.dob)]
    passengers += user.saved_passengers[:rng.randint(0, len(user.saved_passengers))]
    flights = [ReservationFlight(flight_number=f.flight_number, origin=f.origin, destination=f.destination, date=d,
                                 price=rng.randint(*PRICE_RANGES[cabin])) for f, d in legs]
    code = reservation_code(rng)
    while code in taken:
        code = reservation_code(rng)
    taken.add(code)
    insurance = rng.choice(["yes", "no"])
    total = sum(f.price for f in flights) * len(passengers) + (30 * len(passengers) if insurance == "yes" else 0)
    card = next(m for m in user.payment_methods.values() if m.source == "credit_card")
    booked = min(now - dt.timedelta(days=1), dt.datetime.fromisoformat(f"{day}T00:00:00")) - dt.timedelta(
        days=rng.randint(1, 20), minutes=rng.randint(0, 1439))
    bags = rng.randint(0, 3)
    return Reservation(reservation_id=code, user_id=user.user_id, origin=flight.origin, destination=flight.destination,
                       flight_type="round_trip" if round_trip else "one_way", cabin=cabin, flights=flights,
                       passengers=passengers, payment_history=[Payment(payment_id=card.id, amount=total)],
                       created_at=booked.strftime("%Y-%m-%dT%H:%M:%S"), total_baggages=bags, nonfree_baggages=0,
                       insurance=insurance, status="cancelled" if rng.random() < 0.1 else None)
