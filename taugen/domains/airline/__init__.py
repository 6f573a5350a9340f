"""The airline domain: τ²-bench's airline desk as a taugen pack.

The database (:mod:`.db`) has the shape of tau2's airline ``FlightDB`` and the tools (:mod:`.tools`) are
tau2's airline tools (same names, arguments and effects), written for taugen, so a bundle runs on tau2's
own airline environment; the world (:mod:`.world`) is seeded from the build seed; the problems
(:mod:`.problems`) are the policy's cases (cancellations, changes, cabin upgrades, bags, compensation,
passengers, bookings), each decided by the facts it declares; :mod:`.policy` is the policy as code the
defect validators replay gold writes through; :mod:`.mutations` holds the domain's mutation operators.
"""

from taugen.generators.domain import DomainDefinition
from taugen.domains.airline.policy import RULES
from taugen.domains.airline.problems import PROBLEMS, UserIdentification
from taugen.domains.airline.tools import AirlineTools
from taugen.domains.airline.world import build_world

PERSONAS: dict[str, str | None] = {
    "None": None,
    "Plain": ("You are a 42-year-old sales manager who flies a few times a year. You answer questions directly, "
              "know your trip details and expect the agent to be quick."),
    "Demanding": ("You are a 69-year-old retired bus driver travelling to see family. You are stressed about the "
                  "trip, you interrupt when the agent is slow, you ask for prices to be repeated, and you do not know "
                  "airline terms unless they are explained."),
}

POLICY_PREAMBLE = """You are a customer service agent for {brand}. You help users book, modify or cancel flight
reservations, and you handle refunds and compensation.

- The current time is {now}.
- Make only one tool call at a time; when you make a tool call, do not reply to the user in the same turn.
- Obtain the user id from the user first; use the tools to read profiles, reservations and flights, and never
  invent an id, a price or a date.
- Before any action that updates the booking database, list the action details and obtain the user's
  explicit confirmation (yes).
- Deny requests that are against the policy. Transfer the user to a human agent with
  transfer_to_human_agents only when the request cannot be handled within the scope of your actions.
"""

REQUEST_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "book": (r"\bbook (?:a|an|the|new|one|two|three|\d)\b", ("book",)),
    "upgrade": (r"\b(?:upgrade|downgrade)\w*", ("flights", "cabin")),
    "add bags": (r"\badd\w*\b[^.]{0,30}\b(?:bag|bags|baggage|suitcases?)\b", ("baggages",)),
    "change passengers": (r"\b(?:remove|add|change)\w*\b(?:(?!\bfor\b)[^.]){0,30}\bpassengers?\b", ("passengers",)),
    "be compensated": (r"\bcompensat\w*", ("certificate",)),
}
"""The desk's own requests for the K10/K11 scenario check (``DomainDefinition.request_words``): booking,
changing the cabin, adding bags or changing passengers (the tools tau2's airline has, so these words serve
tau2's own airline task folders too), and being compensated: ``send_certificate`` carries it out (the
policy's only compensation is a travel certificate), so a refused compensation needs a scripted reaction
like any refused write."""

DECISION_TARGETS: tuple[tuple[str, str], ...] = (("reservation_id", "reservations"),)
"""The record a desk's write acts on (``DomainDefinition.decision_targets``): a reservation, so that the
K17 check sees a cancellation the scenario asks for and the gold does not make as a refusal."""

DOMAIN = DomainDefinition(
    name="airline",
    toolkit=AirlineTools,
    build_world=build_world,
    opening=UserIdentification,
    problems=PROBLEMS,
    personas=PERSONAS,
    policy_preamble=POLICY_PREAMBLE,
    customer_table="users",
    policy=RULES,
    request_words=REQUEST_WORDS,
    decision_targets=DECISION_TARGETS,
)
