"""The retail domain: τ²-bench's retail order desk as a taugen pack.

The database (:mod:`.db`) has the shape of tau2's retail ``RetailDB`` and the tools (:mod:`.tools`) are
tau2's retail tools (same names, arguments and effects), written for taugen, so a bundle runs on tau2's
own retail environment; the world (:mod:`.world`) is seeded from the build seed; the problems
(:mod:`.problems`) are the policy's cases (cancelling, changing the address, payment or items of a pending
order, returning and exchanging delivered items, the default address), each decided by the facts it
declares; :mod:`.policy` is the policy as code the defect validators replay gold writes through;
:mod:`.mutations` holds the domain's mutation operators.
"""

from taugen.generators.domain import DomainDefinition
from taugen.domains.retail.policy import RULES
from taugen.domains.retail.problems import PROBLEMS, UserIdentification
from taugen.domains.retail.tools import RetailTools
from taugen.domains.retail.world import build_world

PERSONAS: dict[str, str | None] = {
    "None": None,
    "Plain": ("You are a 38-year-old nurse who shops online a few times a month. You answer questions directly, "
              "know your order details and expect the agent to be quick."),
    "Demanding": ("You are a 71-year-old retired teacher who does not often shop online. You are impatient, you "
                  "interrupt when the agent is slow, you ask for totals to be repeated, and you do not know terms "
                  "such as item id or payment method unless they are explained."),
}

POLICY_PREAMBLE = """You are a customer service agent for {brand}, an online store. You help users cancel or
modify pending orders, return or exchange delivered orders, modify their default address, and answer questions
about their own profile, orders and products.

- The current time is {now}.
- Authenticate the user first by locating their user id via email, or via name and zip code, even when they give
  a user id.
- Make only one tool call at a time; when you make a tool call, do not reply to the user in the same turn.
- Before any action that updates the database, list the action details and obtain the user's explicit
  confirmation (yes).
- Deny requests that are against the policy. Transfer the user to a human agent with transfer_to_human_agents
  only when the request cannot be handled within the scope of your actions.
"""

REQUEST_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "return": (r"\breturn (?:the|my|an?|all|both|these|those|it|them|everything)\b", ("return", "cancel_pending")),
    "exchange": (r"\b(?:exchange|swap)\w*", ("exchange", "modify_pending_order_items")),
}
"""The desk's own requests for the K10/K11 scenario check (``DomainDefinition.request_words``): returning
items (carried out by the return tool, or by cancelling an order not yet shipped) and exchanging them (the
exchange tool, or modifying a pending order's items). These are tau2's retail words, so they serve tau2's
own retail task folder too; cancelling and changing an address are every domain's words and stay in the
generic table."""

DECISION_TARGETS: tuple[tuple[str, str], ...] = (("order_id", "orders"),)
"""The record a desk's write acts on (``DomainDefinition.decision_targets``): an order, so that the K17 check
sees a cancellation the scenario asks for and the gold does not make as a refusal."""

DOMAIN = DomainDefinition(
    name="retail",
    toolkit=RetailTools,
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
