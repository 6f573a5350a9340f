"""The airline tools: τ²-bench's airline tool set (names, arguments and behaviour), over :class:`FlightDB`.

A bundle of this domain is graded by tau2's own airline environment (tau2 ships a domain called
``airline``), so each tool here has tau2's name, argument names and types, and the same effect on the
database: prices, seat counts, payment records, the ids a booking or a certificate gets (``HATHAT``...,
``certificate_3221322``...) and the booking time (the world's ``now``). A gold replay in taugen and in
tau2 therefore reaches the same database. The code is taugen's own.

As in tau2, the tools check mechanics only (ids exist, seats, balances, the payment adds up); the policy
(who may cancel, how many bags are free, which compensation applies) is the agent's to apply.
"""

from __future__ import annotations

import ast
import datetime as dt
import operator
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from taugen.generators.environment import Toolkit, ToolError, tool

from .db import (CabinClass, FlightAvailable, FlightDB, FlightType, Insurance, Passenger, Payment, Reservation,
                 ReservationFlight, TravelCertificate, User)
from .world import AIRPORTS

EXTRA_BAG_FEE = 50
"""Dollars per checked bag beyond the free allowance, as tau2's airline tools charge it (fact
``checked_bag_extra_fee`` states it; tests check the two agree)."""
INSURANCE_FEE_PER_PASSENGER = 30
"""Dollars of travel insurance per passenger, as tau2's airline tools charge it (fact
``travel_insurance_price_per_passenger``)."""
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
"""The ids bookings get, in order (tau2's: at most three bookings in one conversation)."""
NEW_PAYMENT_NUMBERS = (3221322, 3221323, 3221324)
"""The numbers of the certificates ``send_certificate`` issues, in order (tau2's)."""


class FlightInfo(BaseModel):
    """One flight of an itinerary."""

    model_config = ConfigDict(extra="forbid")
    flight_number: str = Field(description="Flight number, such as 'HAT001'.")
    date: str = Field(description="The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.")


class PassengerInfo(BaseModel):
    """A passenger: name and date of birth."""

    model_config = ConfigDict(extra="forbid")
    first_name: str = Field(description="Passenger's first name")
    last_name: str = Field(description="Passenger's last name")
    dob: str = Field(description="Date of birth in YYYY-MM-DD format")


class PaymentInfo(BaseModel):
    """A payment: a payment method id from the user's profile and the amount charged to it."""

    model_config = ConfigDict(extra="forbid")
    payment_id: str = Field(description="Unique identifier for the payment")
    amount: int = Field(description="Payment amount in dollars")


ReservationId = Annotated[str, Field(description="The reservation ID, such as 'ZFA04Y'.")]
UserId = Annotated[str, Field(description="The user ID, such as 'sara_doe_496'.")]
Airport = Annotated[str, Field(description="The city airport in three letters, such as 'JFK'.")]
FlightDate = Annotated[str, Field(description="The date of the flight in the format 'YYYY-MM-DD', such as "
                                              "'2024-05-01'.")]
PaymentId = Annotated[str, Field(description="The payment id stored in user profile, such as "
                                             "'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.")]

_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.USub: operator.neg, ast.UAdd: operator.pos}


def evaluate_arithmetic(expression: str) -> float:
    """The value of an arithmetic expression of numbers, ``+ - * /`` and parentheses.

    Raises:
        ToolError: any other character or construct, or a division by zero.
    """
    if not expression.strip() or any(ch not in "0123456789+-*/(). " for ch in expression):
        raise ToolError("Invalid characters in expression")

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.operand))
        raise ToolError("Invalid expression")

    try:
        return walk(ast.parse(expression, mode="eval"))
    except (SyntaxError, ZeroDivisionError) as exc:
        raise ToolError(f"Invalid expression: {exc}") from None


def next_day(day: str) -> str:
    """The ISO date after ``day``."""
    return (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()


class AirlineTools(Toolkit):
    """tau2's airline tools over a :class:`FlightDB` at the world's fixed ``now``."""

    db_model = FlightDB
    db: FlightDB

    # ----------------------------------------------------------------- helpers (not tools)
    def _user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise ToolError(f"User {user_id} not found")
        return self.db.users[user_id]

    def _reservation(self, reservation_id: str) -> Reservation:
        if reservation_id not in self.db.reservations:
            raise ToolError(f"Reservation {reservation_id} not found")
        return self.db.reservations[reservation_id]

    def _flight_on(self, flight_number: str, date: str):
        if flight_number not in self.db.flights:
            raise ToolError(f"Flight {flight_number} not found")
        flight = self.db.flights[flight_number]
        if date not in flight.dates:
            raise ToolError(f"Flight {flight_number} not found on date {date}")
        return flight, flight.dates[date]

    def _stamp(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%S")

    def _available(self, date: str, origin: str | None, destination: str | None,
                   leave_after: str | None = None) -> list[dict[str, Any]]:
        found = []
        for flight in self.db.flights.values():
            status = flight.dates.get(date)
            if not isinstance(status, FlightAvailable):
                continue
            if origin is not None and flight.origin != origin:
                continue
            if destination is not None and flight.destination != destination:
                continue
            if leave_after is not None and flight.scheduled_departure_time_est < leave_after:
                continue
            found.append({"flight_number": flight.flight_number, "origin": flight.origin,
                          "destination": flight.destination, "status": "available",
                          "scheduled_departure_time_est": flight.scheduled_departure_time_est,
                          "scheduled_arrival_time_est": flight.scheduled_arrival_time_est, "date": None,
                          "available_seats": dict(status.available_seats), "prices": dict(status.prices)})
        return found

    def _charge_for_change(self, user: User, payment_id: str, amount: int) -> Payment | None:
        """Charge (or refund, when negative) ``amount`` to a credit card or gift card of the profile."""
        if payment_id not in user.payment_methods:
            raise ToolError("Payment method not found")
        method = user.payment_methods[payment_id]
        if method.source == "certificate":
            raise ToolError("Certificate cannot be used to update reservation")
        if method.source == "gift_card" and method.amount < amount:
            raise ToolError("Gift card balance is not enough")
        if method.source == "gift_card":
            method.amount -= amount
        return Payment(payment_id=payment_id, amount=amount) if amount != 0 else None

    # ----------------------------------------------------------------- read tools
    @tool("read")
    def get_user_details(self, user_id: UserId) -> dict[str, Any]:
        """Get the details of a user, including their reservations."""
        return self._user(user_id).model_dump(mode="json")

    @tool("read")
    def get_reservation_details(self, reservation_id: ReservationId) -> dict[str, Any]:
        """Get the details of a reservation."""
        return self._reservation(reservation_id).model_dump(mode="json")

    @tool("read")
    def list_all_airports(self) -> list[dict[str, str]]:
        """Returns a list of all available airports."""
        return [{"iata": code, "city": city} for code, city in AIRPORTS]

    @tool("read")
    def search_direct_flight(self, origin: Airport, destination: Airport, date: FlightDate) -> list[dict[str, Any]]:
        """Search for direct flights between two cities on a specific date."""
        return self._available(date, origin, destination)

    @tool("read")
    def search_onestop_flight(self, origin: Airport, destination: Airport, date: FlightDate) -> list[list[dict]]:
        """Search for one-stop flights between two cities on a specific date."""
        pairs = []
        for first in self._available(date, origin, None):
            first["date"] = date
            second_day = next_day(date) if "+1" in first["scheduled_arrival_time_est"] else date
            for second in self._available(second_day, first["destination"], destination,
                                          leave_after=first["scheduled_arrival_time_est"]):
                second["date"] = second_day
                pairs.append([first, second])
        return pairs

    @tool("read")
    def get_flight_status(self, flight_number: Annotated[str, Field(description="The flight number.")],
                          date: Annotated[str, Field(description="The date of the flight.")]) -> str:
        """Get the status of a flight."""
        return self._flight_on(flight_number, date)[1].status

    # ----------------------------------------------------------------- write tools
    @tool("write")
    def book_reservation(
            self, user_id: UserId,
            origin: Annotated[str, Field(description="The IATA code for the origin city such as 'SFO'.")],
            destination: Annotated[str, Field(description="The IATA code for the destination city such as 'JFK'.")],
            flight_type: Annotated[FlightType, Field(description="The type of flight such as 'one_way' or "
                                                                 "'round_trip'.")],
            cabin: Annotated[CabinClass, Field(description="The cabin class such as 'basic_economy', 'economy', "
                                                           "or 'business'.")],
            flights: Annotated[list[FlightInfo], Field(description="An array of objects containing details about "
                                                                   "each piece of flight.")],
            passengers: Annotated[list[PassengerInfo], Field(description="An array of objects containing details "
                                                                         "about each passenger.")],
            payment_methods: Annotated[list[PaymentInfo], Field(description="An array of objects containing details "
                                                                            "about each payment method.")],
            total_baggages: Annotated[int, Field(description="The total number of baggage items to book the "
                                                             "reservation.")],
            nonfree_baggages: Annotated[int, Field(description="The number of non-free baggage items to book the "
                                                               "reservation.")],
            insurance: Annotated[Insurance, Field(description="Whether the reservation has insurance.")],
    ) -> dict[str, Any]:
        """Book a reservation."""
        user = self._user(user_id)
        flights = [FlightInfo.model_validate(f) for f in flights]
        passengers = [Passenger.model_validate(p if isinstance(p, dict) else p.model_dump()) for p in passengers]
        payments = [Payment.model_validate(p if isinstance(p, dict) else p.model_dump()) for p in payment_methods]
        reservation_id = next((code for code in NEW_RESERVATION_IDS if code not in self.db.reservations), None)
        if reservation_id is None:
            raise ToolError("Too many reservations")
        legs: list[ReservationFlight] = []
        statuses: list[FlightAvailable] = []
        total = 0
        for info in flights:
            flight, status = self._flight_on(info.flight_number, info.date)
            if not isinstance(status, FlightAvailable):
                raise ToolError(f"Flight {info.flight_number} not available on date {info.date}")
            if status.available_seats[cabin] < len(passengers):
                raise ToolError(f"Not enough seats on flight {info.flight_number}")
            price = status.prices[cabin]
            legs.append(ReservationFlight(flight_number=info.flight_number, origin=flight.origin,
                                          destination=flight.destination, date=info.date, price=price))
            statuses.append(status)
            total += price * len(passengers)
        if insurance == "yes":
            total += INSURANCE_FEE_PER_PASSENGER * len(passengers)
        total += EXTRA_BAG_FEE * nonfree_baggages
        for payment in payments:
            if payment.payment_id not in user.payment_methods:
                raise ToolError(f"Payment method {payment.payment_id} not found")
            method = user.payment_methods[payment.payment_id]
            if method.source in ("gift_card", "certificate") and method.amount < payment.amount:
                raise ToolError(f"Not enough balance in payment method {payment.payment_id}")
        paid = sum(payment.amount for payment in payments)
        if paid != total:
            raise ToolError(f"Payment amount does not add up, total price is {total}, but paid {paid}")
        for payment in payments:
            method = user.payment_methods[payment.payment_id]
            if method.source == "gift_card":
                method.amount -= payment.amount
            elif method.source == "certificate":
                del user.payment_methods[payment.payment_id]
        for status in statuses:
            status.available_seats[cabin] -= len(passengers)
        reservation = Reservation(reservation_id=reservation_id, user_id=user_id, origin=origin,
                                  destination=destination, flight_type=flight_type, cabin=cabin, flights=legs,
                                  passengers=passengers, payment_history=payments, created_at=self._stamp(),
                                  total_baggages=total_baggages, nonfree_baggages=nonfree_baggages,
                                  insurance=insurance)
        self.db.reservations[reservation_id] = reservation
        user.reservations.append(reservation_id)
        return reservation.model_dump(mode="json")

    @tool("write")
    def cancel_reservation(self, reservation_id: ReservationId) -> dict[str, Any]:
        """Cancel the whole reservation."""
        reservation = self._reservation(reservation_id)
        refunds = [Payment(payment_id=p.payment_id, amount=-p.amount) for p in reservation.payment_history]
        reservation.payment_history.extend(refunds)
        reservation.status = "cancelled"
        return reservation.model_dump(mode="json")

    @tool("write")
    def update_reservation_baggages(
            self, reservation_id: ReservationId,
            total_baggages: Annotated[int, Field(description="The updated total number of baggage items included "
                                                             "in the reservation.")],
            nonfree_baggages: Annotated[int, Field(description="The updated number of non-free baggage items "
                                                               "included in the reservation.")],
            payment_id: PaymentId) -> dict[str, Any]:
        """Update the baggage information of a reservation."""
        reservation = self._reservation(reservation_id)
        user = self._user(reservation.user_id)
        price = EXTRA_BAG_FEE * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._charge_for_change(user, payment_id, price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation.model_dump(mode="json")

    @tool("write")
    def update_reservation_flights(
            self, reservation_id: ReservationId,
            cabin: Annotated[CabinClass, Field(description="The cabin class of the reservation")],
            flights: Annotated[list[FlightInfo], Field(description="An array of objects containing details about "
                                                                   "each piece of flight in the ENTIRE new "
                                                                   "reservation. Even if the a flight segment is not "
                                                                   "changed, it should still be included in the "
                                                                   "array.")],
            payment_id: PaymentId) -> dict[str, Any]:
        """Update the flight information of a reservation."""
        reservation = self._reservation(reservation_id)
        user = self._user(reservation.user_id)
        count = len(reservation.passengers)
        legs: list[ReservationFlight] = []
        total = 0
        for info in (FlightInfo.model_validate(f) for f in flights):
            kept = next((leg for leg in reservation.flights if leg.flight_number == info.flight_number
                         and leg.date == info.date and cabin == reservation.cabin), None)
            if kept is not None:
                legs.append(kept)
                total += kept.price * count
                continue
            flight, status = self._flight_on(info.flight_number, info.date)
            if not isinstance(status, FlightAvailable):
                raise ToolError(f"Flight {info.flight_number} not available on date {info.date}")
            if status.available_seats[cabin] < count:
                raise ToolError(f"Not enough seats on flight {info.flight_number}")
            legs.append(ReservationFlight(flight_number=info.flight_number, origin=flight.origin,
                                          destination=flight.destination, date=info.date,
                                          price=status.prices[cabin]))
            total += status.prices[cabin] * count
        total -= sum(leg.price for leg in reservation.flights) * count
        payment = self._charge_for_change(user, payment_id, total)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.flights = legs
        reservation.cabin = cabin
        return reservation.model_dump(mode="json")

    @tool("write")
    def update_reservation_passengers(
            self, reservation_id: ReservationId,
            passengers: Annotated[list[PassengerInfo], Field(description="An array of objects containing details "
                                                                         "about each passenger.")]) -> dict[str, Any]:
        """Update the passenger information of a reservation."""
        reservation = self._reservation(reservation_id)
        if len(passengers) != len(reservation.passengers):
            raise ToolError("Number of passengers does not match")
        reservation.passengers = [Passenger.model_validate(p if isinstance(p, dict) else p.model_dump())
                                  for p in passengers]
        return reservation.model_dump(mode="json")

    @tool("write")
    def send_certificate(self, user_id: UserId,
                         amount: Annotated[int, Field(description="The amount of the certificate to send.")]) -> str:
        """Send a certificate to a user. Be careful!"""
        user = self._user(user_id)
        for number in NEW_PAYMENT_NUMBERS:
            certificate_id = f"certificate_{number}"
            if certificate_id not in user.payment_methods:
                user.payment_methods[certificate_id] = TravelCertificate(id=certificate_id, amount=amount)
                return f"Certificate {certificate_id} added to user {user_id} with amount {amount}."
        raise ToolError("Too many certificates")

    # tau2 files calculate as a generic tool; it neither reads nor changes the database, and taugen's
    # certificate counts every tool that is not "read" as a write, so it is filed as a read here.
    @tool("read")
    def calculate(self, expression: Annotated[str, Field(description="The mathematical expression to calculate, "
                                                                     "such as '2 + 2'. The expression can contain "
                                                                     "numbers, operators (+, -, *, /), parentheses, "
                                                                     "and spaces.")]) -> str:
        """Calculate the result of a mathematical expression."""
        return str(round(float(evaluate_arithmetic(expression)), 2))

    @tool("generic")
    def transfer_to_human_agents(self, summary: Annotated[str, Field(description="A summary of the user's "
                                                                                 "issue.")]) -> str:
        """Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user
        explicitly asks for a human agent, or given the policy and the available tools, you cannot solve the
        user's issue."""
        return "Transfer successful"
