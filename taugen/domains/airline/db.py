"""The airline database, in the JSON shape of τ²-bench's airline ``FlightDB``.

The bundle's ``db.json`` is loaded by tau2's own airline domain (``airline`` is a domain tau2 ships), so
every table, record and field here has the name and type tau2's schema gives it: ``flights`` (flight
number → flight with a status per date), ``users`` (user id → profile with payment methods, saved
passengers, membership and reservation ids) and ``reservations`` (reservation id → reservation). The
models are taugen's own; only the shape is shared. Records forbid unknown fields, so a setup that writes
a field tau2 would not load fails here first.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

CabinClass = Literal["business", "economy", "basic_economy"]
FlightType = Literal["round_trip", "one_way"]
Insurance = Literal["yes", "no"]
Membership = Literal["gold", "silver", "regular"]
CABINS: tuple[str, ...] = ("basic_economy", "economy", "business")
MEMBERSHIPS: tuple[str, ...] = ("regular", "silver", "gold")


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Name(_Record):
    first_name: str
    last_name: str


class Address(_Record):
    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class Payment(_Record):
    """One payment (positive) or refund (negative) on a reservation, in whole dollars."""

    payment_id: str
    amount: int


class CreditCard(_Record):
    source: Literal["credit_card"] = "credit_card"
    id: str
    brand: str
    last_four: str


class GiftCard(_Record):
    source: Literal["gift_card"] = "gift_card"
    id: str
    amount: float


class TravelCertificate(_Record):
    source: Literal["certificate"] = "certificate"
    id: str
    amount: float


PaymentMethod = Annotated[Union[CreditCard, GiftCard, TravelCertificate], Field(discriminator="source")]


class Passenger(_Record):
    first_name: str
    last_name: str
    dob: str = Field(description="Date of birth, YYYY-MM-DD.")


class FlightAvailable(_Record):
    status: Literal["available"] = "available"
    available_seats: dict[CabinClass, int]
    prices: dict[CabinClass, int]


class FlightOnTime(_Record):
    status: Literal["on time"] = "on time"
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class FlightFlying(_Record):
    status: Literal["flying"] = "flying"
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class FlightLanded(_Record):
    status: Literal["landed"] = "landed"
    actual_departure_time_est: str
    actual_arrival_time_est: str


class FlightCancelled(_Record):
    status: Literal["cancelled"] = "cancelled"


class FlightDelayed(_Record):
    status: Literal["delayed"] = "delayed"
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


FlightDateStatus = Annotated[Union[FlightAvailable, FlightLanded, FlightCancelled, FlightDelayed, FlightFlying,
                                   FlightOnTime], Field(discriminator="status")]


class Flight(_Record):
    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str = Field(description="HH:MM:SS")
    scheduled_arrival_time_est: str = Field(description="HH:MM:SS, '+1' appended when it lands the next day")
    dates: dict[str, FlightDateStatus] = Field(default_factory=dict)


class ReservationFlight(_Record):
    flight_number: str
    origin: str
    destination: str
    date: str
    price: int


class User(_Record):
    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod] = Field(default_factory=dict)
    saved_passengers: list[Passenger] = Field(default_factory=list)
    membership: Membership
    reservations: list[str] = Field(default_factory=list)


class Reservation(_Record):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: CabinClass
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str = Field(description="YYYY-MM-DDTHH:MM:SS")
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(_Record):
    """All flights, users and reservations (tau2's airline ``FlightDB`` shape)."""

    flights: dict[str, Flight] = Field(default_factory=dict)
    users: dict[str, User] = Field(default_factory=dict)
    reservations: dict[str, Reservation] = Field(default_factory=dict)
