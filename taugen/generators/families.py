"""Problem families: problem templates compiled from a pack's typed facts, one instance per fact.

A hand-written problem (``taugen.generators.problems``) covers one situation; a *family* covers every
fact of a shape. Families are keyed on the fact's value type and category, never on a domain's names:

=============  ==========================================  ==================================================
family         facts it takes                              instances (variants) and gold outcome
=============  ==========================================  ==================================================
``fee``        money value, category ``fee``               ``charge``: provide the service on the customer's
                                                           product and charge that product's fee
``rate_fee``   percent value, category ``fee``             ``charge``: the fee is the rate times the amount
``limit``      cap value (money or count) with an authored ``under``: a request just under the cap is
               ``request`` (what the customer asks to do)  submitted; ``over``: just over is declined
``minimum``    money value, category ``eligibility``,      ``at``: a request at the minimum is submitted;
               statement says minimum / at least, with an  ``below``: just under it is declined
               authored ``request``
``window``     duration value with an authored ``window``  ``inside``: the event the span counts from lies
               (the request it decides, the event it       just inside it; ``outside``: just outside. The
               counts from, accepted or refused within)    dated request is submitted only where the fact
                                                           allows it (a deadline accepts inside, a waiting
                                                           period refuses inside)
``procedure``  steps value (the required order of a        ``order``: the agent carries the procedure out and
               procedure's steps)                          records each step on the customer's file in the
                                                           order the fact gives
``route``      enum value, category ``routing`` (which      ``transfer``: the agent hands the caller to the team
               team takes a kind of request)               the fact names (``transfer_to_human_agents``)
``quote``      any other typed value (and free text the    ``quote``: the agent tells the value and notes it
               client holds or the records contest)        on the customer's file (graded through the DB)
=============  ==========================================  ==================================================

The world is set up from the fact's value (an amount just under a cap, the fee of *this* product), so the
fact and not luck decides the gold outcome; :func:`taugen.generators.tasks.certify` proves it by
perturbing the value and recomposing (the fact-sensitivity proof).

The domain supplies a :class:`FamilyBinding` (which tool call realises "charge fee X on account A",
which account a fact's product needs, where the catalogue of topics lives). Facts a family cannot take
are reported with the reason (:func:`unexercisable`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from taugen.authoring.values import (
    BooleanValue, CapValue, CountValue, DateValue, DurationValue, EnumValue, MoneyValue, PercentValue, StepsValue,
    TextValue,
)
from taugen.generators.policy import window_allows, window_edge, within_window
from taugen.generators.problems import GoldCall, Problem, ProblemContext, ScenarioFragment

if TYPE_CHECKING:
    from taugen.authoring.models import Fact
    from taugen.authoring.pack import Pack
    from taugen.generators.environment import Toolkit

FAMILIES = ("fee", "rate_fee", "limit", "minimum", "window", "procedure", "route", "quote")
EDGE_VARIANTS = ("under", "over", "at", "below", "inside", "outside")
REFUSED_VARIANTS = ("over", "below")
"""Variants refused whatever the fact says; a window's refused side depends on the fact (:func:`refuses`)."""
_MINIMUM = re.compile(r"\b(minimum|at least)\b", re.I)
_RATE_BASES = (120, 240, 480, 800, 1250, 2000)


@dataclass(frozen=True)
class Topic:
    """A catalogue entry a family instance acts on: id, description the agent can search, products, and for a
    procedure the names of its steps in alphabetical order (the catalogue says what the steps are, never the
    order policy requires)."""

    topic_id: str
    description: str
    products: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()


class FamilyBinding(Protocol):
    """What a domain provides so generic families can act in its world (see ``banking/families.py``)."""

    def topic(self, fact: "Fact") -> Topic | None:
        """The catalogue topic of a fact, or None when the domain cannot bind it."""

    def prepare_world(self, world: Any, topics: list[Topic]) -> None:
        """Put the topic catalogue into the initial world (in place)."""

    def account(self, toolkit: "Toolkit", customer_id: str, topic: Topic) -> str | None:
        """An open account of the customer that the topic can act on, or None (read-only)."""

    def account_label(self, toolkit: "Toolkit", account_id: str) -> str:
        """How the customer names the account (``your Premier Checking account``)."""

    def lookups(self, context: ProblemContext, account_id: str | None, topic: Topic, incomplete: bool,
                query: str | None = None) -> list[GoldCall]:
        """The read calls an agent makes first (find the account when the user lacks its number, find the topic
        by ``query``, else by its description)."""

    def charge(self, account_id: str, topic: Topic, fee: float) -> GoldCall: ...

    def request(self, account_id: str, topic: Topic, amount: float) -> GoldCall: ...

    def quote(self, customer_id: str, topic: Topic, value: str) -> GoldCall: ...

    def dated_request(self, account_id: str, topic: Topic, event_date: str) -> GoldCall:
        """Submit a request whose policy counts a window back from its event (``event_date``: ISO date)."""

    def dated_requested(self, context: ProblemContext, account_id: str, topic: Topic) -> str | None:
        """The event date of the dated request recorded for the topic on the account, or None."""

    def charged(self, context: ProblemContext, account_id: str, topic: Topic) -> float | None:
        """The fee recorded for the topic on the account, or None when the service was not provided."""

    def requested(self, context: ProblemContext, account_id: str, topic: Topic) -> float | None: ...

    def quoted(self, context: ProblemContext, topic: Topic) -> str | None: ...

    def normalise_quote(self, text: str) -> str: ...

    def procedure_step(self, customer_id: str, topic: Topic, step: str) -> GoldCall:
        """The call that records one step of a procedure on the customer's file."""

    def steps_recorded(self, context: ProblemContext, topic: Topic) -> list[str]:
        """The steps recorded for ``topic`` on the task's customer, in the order they were recorded."""

    def route(self, department: str, topic: Topic) -> GoldCall:
        """The call that hands the caller to ``department`` about ``topic``."""

    def routed(self, context: ProblemContext) -> str | None:
        """The team the caller was handed to in this task (None: no transfer)."""


# ------------------------------------------------------------------------------------------ values
def money_step(amount: Decimal) -> Decimal:
    """A plausible next step on a fee or limit scale: 1 under $20, 5 under $200, else 5% rounded to $5."""
    if amount < 20:
        return Decimal(1)
    if amount < 200:
        return Decimal(5)
    return max(Decimal(5), (amount * Decimal("0.05") / 5).quantize(Decimal(1)) * 5)


def perturbations(value: Any) -> list[Any]:
    """Other valid values of the same type, nearest first: the next fee step up and down, a window ±1
    and ±2 units (-2 last: a waiting period's request just inside it is refused, and only a period two
    units shorter lets it through), a count ±1, the other boolean, every other enum member, a date ±1
    day, a changed key phrase. Used by the fact-sensitivity proof (:func:`taugen.generators.tasks.certify`)."""
    if isinstance(value, MoneyValue):
        step = money_step(value.amount)
        return [value.model_copy(update={"amount": a}) for a in (value.amount + step, value.amount - step) if a >= 0]
    if isinstance(value, CapValue):
        step = money_step(value.amount) if value.currency else Decimal(1)
        return [value.model_copy(update={"amount": a}) for a in (value.amount + step, value.amount - step) if a >= 0]
    if isinstance(value, PercentValue):
        return [value.model_copy(update={"value": v}) for v in (value.value + Decimal("0.5"), value.value - Decimal("0.5"))
                if v >= 0]
    if isinstance(value, DurationValue):
        return [value.model_copy(update={"amount": a})
                for a in (value.amount + 1, value.amount - 1, value.amount + 2, value.amount - 2) if a >= 0]
    if isinstance(value, CountValue):
        return [value.model_copy(update={"value": v}) for v in (value.value + 1, value.value - 1) if v >= 0]
    if isinstance(value, BooleanValue):
        return [value.model_copy(update={"value": not value.value})]
    if isinstance(value, EnumValue):
        return [value.model_copy(update={"value": option}) for option in value.options if option != value.value]
    if isinstance(value, DateValue):
        return [value.model_copy(update={"value": value.value + dt.timedelta(days=d)}) for d in (1, -1)]
    if isinstance(value, StepsValue):  # two neighbouring steps swapped, the first pair first
        return [value.model_copy(update={"steps": [*value.steps[:i], value.steps[i + 1], value.steps[i],
                                                   *value.steps[i + 2:]]}) for i in range(len(value.steps) - 1)]
    if isinstance(value, TextValue):
        return [value.model_copy(update={"key_terms": [f"{value.key_terms[0]} (revised)", *value.key_terms[1:]]})]
    return []


def quote_text(value: Any) -> str:
    """What an agent notes for a value: the number in digits (``3.75`` for 3.75%, ``25`` for $25.00, ``10``
    for 10 business days), an enum's label, a date, ``yes`` / ``no``, or a rule's key phrase."""
    if isinstance(value, BooleanValue):
        return "yes" if value.value else "no"
    if isinstance(value, EnumValue):
        return value.labels.get(value.value, [value.value.replace("_", " ")])[0]
    number = {CountValue: "value", PercentValue: "value", MoneyValue: "amount", CapValue: "amount",
              DurationValue: "amount"}.get(type(value))
    if number is not None:  # the topic fixes the unit; records word it freely ("ten business days", "$6,725")
        return format(Decimal(getattr(value, number)).normalize(), "f")
    return value.canonical()


def requested(request: str | None, where: str, family: str) -> str:
    """What the customer of a ``limit`` or ``minimum`` task asks to do, completing "You want to ..." and,
    with " for <amount>", "Ask to ...": the fact's authored ``request`` with the account it acts on
    (``where``: " on your Everyday Checking account"; a minimum's deposit comes *from* that account):
    ``get cash back at checkout on your Everyday Checking account``. The domain's readers rebuild the
    customer's words from this function, so the two never drift apart.

    Raises:
        ValueError: no ``request`` (no family asks against a fact without one).
    """
    if not request:
        raise ValueError("a limit or minimum needs the fact's request: what the customer asks to do")
    if family == "minimum" and where.startswith(" on "):
        where = " from " + where[len(" on "):]
    return f"{request}{where}"


def family_of(fact: "Fact", special: bool) -> str | None:
    """The family that takes ``fact`` (None: no family can). ``special``: the fact is client-held or
    contested, so even a free-text fact is worth a quote."""
    value = fact.value
    if value is None:
        return None
    if isinstance(value, MoneyValue) and fact.category == "fee":
        return "fee"
    if isinstance(value, PercentValue) and fact.category == "fee":
        return "rate_fee"
    if isinstance(value, CapValue) and value.amount > 1 and fact.request:
        return "limit"
    if isinstance(value, MoneyValue) and fact.category == "eligibility" and _MINIMUM.search(fact.statement) \
            and value.amount > 1 and fact.request:
        return "minimum"
    if isinstance(value, DurationValue) and fact.window is not None and value.amount >= 1:
        return "window"
    if isinstance(value, StepsValue):
        return "procedure"
    if isinstance(value, EnumValue) and fact.category == "routing" and value.value in value.options:
        return "route"
    if isinstance(value, TextValue) and not special:
        return None
    return "quote"


def variants(family: str) -> tuple[str, ...]:
    """The instances a family makes per fact."""
    return {"fee": ("charge",), "rate_fee": ("charge",), "limit": ("under", "over"), "minimum": ("at", "below"),
            "window": ("inside", "outside"), "procedure": ("order",), "route": ("transfer",),
            "quote": ("quote",)}[family]


def refuses(family: str, variant: str, within: str | None = None) -> bool:
    """Whether policy refuses an instance: over a cap, below a minimum, or on the side of a window where its
    fact says no (outside a deadline, inside a waiting period; ``within`` is the fact's ``window.within``)."""
    if family == "window":
        return (variant == "inside") == (within == "refused")
    return variant in REFUSED_VARIANTS


_FUNCTION_WORDS = frozenset("a an and as at by for from in into of on or the to with your you".split())


def search_phrase(request: str, description: str) -> str | None:
    """The longest run of words a window's or a limit's ``request`` (what the user says) shares with its topic's
    ``description`` (what the catalogue search matches), not starting or ending on a function word, in the
    description's wording; None when they share no such word (the agent could not find the topic from what
    the user asks). Ties go to the run that comes first in the description."""
    said = re.findall(r"[\w'-]+", request.lower())
    words = re.findall(r"[\w'-]+", description)
    lowered = [w.lower() for w in words]
    best: tuple[int, int] = (0, 0)
    for start in range(len(lowered)):
        for end in range(start + best[1] - best[0] + 1, len(lowered) + 1):
            run = lowered[start:end]
            if run[0] in _FUNCTION_WORDS or run[-1] in _FUNCTION_WORDS:
                continue
            if any(said[i:i + len(run)] == run for i in range(len(said) - len(run) + 1)):
                best = (start, end)
    return " ".join(words[best[0]:best[1]]) or None


def spoken_date(day: "dt.date") -> str:
    """A date as a caller says it and a reader parses it: ``March 2, 2026`` (no zero padding)."""
    return f"{day:%B} {day.day}, {day.year}"


def unexercisable(fact: "Fact", pack: "Pack", special: bool, bound: bool) -> str | None:
    """Why no task can exercise ``fact`` (None when a family takes it)."""
    if not pack.is_current(fact.id):
        return "not in force at the world's now (superseded or not yet effective): history only"
    if fact.value is None:
        return "no typed value: context only"
    if isinstance(fact.value, TextValue) and not special:
        return "free text: no typed value a perturbation could change (procedure or context)"
    if not bound:
        return "the domain binds no catalogue topic for it"
    return None


def _step(value: Any) -> Decimal:
    """How far from a limit the edge instances sit: one unit of a counted cap, else a money step."""
    if isinstance(value, CapValue) and not value.currency:
        return Decimal(1)
    return money_step(value.amount)


def _digest(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:6]


def _dollars(amount: float) -> str:
    return f"${amount:,.2f}"


def _number(value: Any, amount: Decimal) -> str:
    if isinstance(value, CapValue) and not value.currency:
        return f"{int(amount)}"
    return _dollars(float(amount))


# ------------------------------------------------------------------------------------------ problems
class FamilyProblem(Problem):
    """A problem instantiated from one fact by a family (class attributes set by :func:`instantiate`).

    Class attributes (besides :class:`Problem`'s): ``family``, ``variant``, ``fact_id``, ``topic``,
    ``binding``, ``incomplete`` (the user does not know the account number: the agent must look it up),
    ``changing`` (the user first asks for a refused amount, then changes the request), ``window`` (the
    fact's authored :class:`~taugen.authoring.models.Window`, for the ``window`` family), ``request`` (the
    fact's authored request, what a ``limit`` or ``minimum`` customer asks to do) and ``search_query``
    (what the agent searches the catalogue with, when not the topic's description: :func:`search_phrase`).
    """

    family: ClassVar[str]
    variant: ClassVar[str]
    fact_id: ClassVar[str]
    topic: ClassVar[Topic]
    binding: ClassVar[FamilyBinding]
    incomplete: ClassVar[bool] = False
    changing: ClassVar[bool] = False
    window: ClassVar[Any] = None
    request: ClassVar[str | None] = None
    search_query: ClassVar[str | None] = None

    def applicable(self, toolkit, customer_id):
        if self.family in ("quote", "route") or (self.family == "procedure" and not self.topic.products):
            return True  # a procedure offered on some products only needs a customer who holds one
        return self.binding.account(toolkit, customer_id, self.topic) is not None

    # -- the amount this instance puts in front of the agent, computed from the fact's value
    def _amount(self, context: ProblemContext) -> float:
        value = context.value(self.fact_id)
        if self.family == "rate_fee":
            return float(context.state["base"])
        limit = value.amount  # type: ignore[attr-defined]
        step = _step(value)
        amount = {"under": limit - step if limit > step else limit, "over": limit + step,
                  "at": limit, "below": limit - step}[self.variant]
        return float(amount)

    def _fee(self, context: ProblemContext) -> float:
        value = context.value(self.fact_id)
        if self.family == "rate_fee":
            return float((Decimal(str(context.state["base"])) * value.value / 100).quantize(Decimal("0.01")))  # type: ignore[attr-defined]
        return float(value.amount)  # type: ignore[attr-defined]

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        toolkit, binding, topic = context.toolkit, self.binding, self.topic
        customer_level = self.family in ("quote", "procedure", "route")
        account_id = None if customer_level else binding.account(toolkit, context.customer_id, topic)
        if not customer_level and account_id is None:
            raise LookupError(f"customer {context.customer_id} has no account for {topic.topic_id}")
        context.state["account_id"] = account_id
        where = ""
        known: list[str] = []
        unknown: list[str] = []
        withheld: dict[str, str] = {}
        if account_id is not None:
            label = binding.account_label(toolkit, account_id)
            where = f" on {label}"
            if self.incomplete:
                unknown.append(f"You do not know the account number of {label}.")
                withheld[unknown[-1]] = account_id
            else:
                known.append(f"The account is {label}, number {account_id}.")
        description = topic.description
        if self.family in ("fee", "rate_fee"):
            if self.family == "rate_fee":
                context.state["base"] = context.rng.choice(_RATE_BASES)
                known.append(f"It concerns a transaction of {_dollars(context.state['base'])}.")
            return ScenarioFragment(
                reason_for_call=f"You want the bank to take care of {description}{where}.",
                known_info=known, unknown_info=unknown, withheld=withheld,
                task_instructions=[f"Ask for {description}{where}. Agree to the fee the agent states, if any."])
        if self.family in ("limit", "minimum"):
            amount = self._amount(context)
            context.state["amount"] = amount
            value = context.value(self.fact_id)
            said = _number(value, Decimal(str(amount)))
            asked = requested(self.request, where, self.family)
            instructions = [f"Ask to {asked} for {said}. If the agent says policy does not allow it, accept that "
                            "and do not insist."]
            if self.changing:
                refused = float(value.amount + _step(value))  # type: ignore[attr-defined]
                instructions = [f"First ask to {asked} for {_number(value, Decimal(str(refused)))}. Before the agent "
                                f"submits anything, change your mind: you want {said} instead. Ask for that amount "
                                "only."]
            return ScenarioFragment(reason_for_call=f"You want to {asked}.",
                                    known_info=known, unknown_info=unknown, withheld=withheld,
                                    task_instructions=instructions)
        if self.family == "window":
            event = window_edge(context.value(self.fact_id), context.pack.now.date(), self.variant == "inside")
            context.state["event_date"] = event.isoformat()
            request, happened = self.window.request, self.window.event
            known.append(f"{happened[:1].upper()}{happened[1:]} on {spoken_date(event)}.")
            return ScenarioFragment(
                reason_for_call=f"You want to {request}.", known_info=known, unknown_info=unknown,
                withheld=withheld,
                task_instructions=[f"Ask to {request}. If the agent says policy does not allow it, accept that and "
                                   "do not insist."])  # the date is known info: the user gives it when asked
        if self.family == "route":  # the subject as the routing rule reads it (routed_by_facts), word for word
            description = routing_phrase(context.pack.facts[self.fact_id].subject or description)
            return ScenarioFragment(
                reason_for_call=f"You need the bank's help with {description}.", known_info=known,
                task_instructions=[f"Tell the agent you need help with {description}, and answer their questions. "
                                   "If the agent offers to transfer you to the team that handles it, accept."])
        if self.family == "procedure":
            return ScenarioFragment(
                reason_for_call=f"You need the bank's help with {description}.", known_info=known,
                task_instructions=[f"Tell the agent you need help with {description}, and let them take you through "
                                   "what the bank does. Answer their questions; you do not know the bank's procedure."])
        return ScenarioFragment(
            reason_for_call=f"You have a question about {description}.",
            known_info=known,
            task_instructions=[f"Ask the agent what the bank's policy says about {description}, and ask them to note "
                               "the answer on your file."])

    def _decides(self, context: ProblemContext) -> bool:
        """Whether policy allows the request: the amount (or event date) set up (``state``) against the fact's
        value now, so a changed limit or window changes the decision in the same world."""
        if self.family == "window":
            return window_allows(dt.date.fromisoformat(context.state["event_date"]), context.value(self.fact_id),
                                 self.window.within, context.pack.now.date())
        amount = Decimal(str(context.state["amount"]))
        limit = context.value(self.fact_id).amount  # type: ignore[attr-defined]
        return amount <= limit if self.family == "limit" else amount >= limit

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        if self.family == "route":  # policy names the team: no catalogue lookup, no write but the transfer
            said = routing_phrase(context.pack.facts[self.fact_id].subject or self.topic.description)
            return [self.binding.route(context.value(self.fact_id).value,  # type: ignore[attr-defined]
                                       dataclasses.replace(self.topic, description=said))]
        account_id = context.state.get("account_id")
        calls = self.binding.lookups(context, account_id, self.topic, self.incomplete, self.search_query)
        if self.family in ("fee", "rate_fee"):
            calls.append(self.binding.charge(account_id, self.topic, self._fee(context)))
        elif self.family in ("limit", "minimum"):
            if self._decides(context):
                calls.append(self.binding.request(account_id, self.topic, context.state["amount"]))
        elif self.family == "window":
            if self._decides(context):
                calls.append(self.binding.dated_request(account_id, self.topic, context.state["event_date"]))
        elif self.family == "procedure":
            calls += [self.binding.procedure_step(context.customer_id, self.topic, step)
                      for step in context.value(self.fact_id).steps]  # type: ignore[attr-defined]
        else:
            calls.append(self.binding.quote(context.customer_id, self.topic, quote_text(context.value(self.fact_id))))
        return calls

    def forbidden_calls(self, context: ProblemContext) -> list[GoldCall]:
        """The tempting write a declined request must not make: submitting it anyway."""
        if self.family in ("limit", "minimum") and self.variant in REFUSED_VARIANTS:
            return [self.binding.request(context.state["account_id"], self.topic, context.state["amount"])]
        if self.family == "window" and not self._decides(context):
            return [self.binding.dated_request(context.state["account_id"], self.topic, context.state["event_date"])]
        return []

    def check(self, context: ProblemContext) -> list[str]:
        account_id = context.state.get("account_id")
        if self.family in ("fee", "rate_fee"):
            charged = self.binding.charged(context, account_id, self.topic)
            expected = self._fee(context)
            if charged is None:
                return [f"{self.topic.description} was not provided"]
            return [] if abs(charged - expected) < 0.005 else [f"fee {charged} instead of {expected}"]
        if self.family in ("limit", "minimum"):
            requested = self.binding.requested(context, account_id, self.topic)
            if not self._decides(context):
                return [] if requested is None else [f"a request policy does not allow was submitted ({requested})"]
            expected = context.state["amount"]
            if requested is None:
                return [f"the request for {self.topic.description} was not submitted"]
            return [] if abs(requested - expected) < 0.005 else [f"request for {requested} instead of {expected}"]
        if self.family == "window":
            dated = self.binding.dated_requested(context, account_id, self.topic)
            if not self._decides(context):
                return [] if dated is None else [f"a request policy does not allow was submitted (event {dated})"]
            if dated is None:
                return [f"the request to {self.window.request} was not submitted"]
            expected = context.state["event_date"]
            return [] if dated == expected else [f"request dated {dated} instead of {expected}"]
        if self.family == "route":
            routed = self.binding.routed(context)
            expected = context.value(self.fact_id).value  # type: ignore[attr-defined]
            return [] if routed == expected else [f"transferred to {routed!r}, policy sends it to {expected!r}"]
        if self.family == "procedure":
            recorded = self.binding.steps_recorded(context, self.topic)
            expected = list(context.value(self.fact_id).steps)  # type: ignore[attr-defined]
            return [] if recorded == expected else [f"steps recorded in the order {recorded}, policy's is {expected}"]
        quoted = self.binding.quoted(context, self.topic)
        expected = self.binding.normalise_quote(quote_text(context.value(self.fact_id)))
        if quoted is None:
            return [f"no quote on {self.topic.description} was noted"]
        return [] if quoted == expected else [f"quoted {quoted!r} instead of {expected!r}"]

    @classmethod
    def case_kinds(cls) -> set[str]:
        """The case kinds this instance contributes to a task (see :func:`taugen.generators.tasks.case_kinds`)."""
        kinds = set()
        if cls.variant in EDGE_VARIANTS:
            kinds.add("unusual")
        if refuses(cls.family, cls.variant, getattr(cls.window, "within", None)):
            kinds.add("declined")
        if cls.incomplete:
            kinds.add("incomplete")
        if cls.changing:
            kinds.add("changing")
        return kinds or {"routine"}


def instantiate(pack: "Pack", binding: FamilyBinding, special: set[str] = frozenset(),
                taken: set[str] = frozenset()) -> tuple[
        list[type[FamilyProblem]], list[Topic], dict[str, str]]:
    """Every family instance the pack's facts allow.

    Args:
        pack: the loaded pack (current facts only are instantiated).
        binding: the domain's binding.
        special: ids of client-held or contested facts (free text is quoted for them too).
        taken: ids of facts hand-written problems already decide (their policy may differ from a family's
            generic reading, e.g. a wire over its limit goes to the wire desk instead of being declined).

    Returns:
        ``(problem classes, catalogue topics, {fact id: reason})`` with the reason for every current fact no
        family takes. Instances are ordered by fact order in the pack; names are ``<family>_<variant>_<digest>``
        (a digest of the fact id, so no fact id shows in a task id).
    """
    problems: list[type[FamilyProblem]] = []
    topics: dict[str, Topic] = {}
    reasons: dict[str, str] = {}
    for fact in pack.facts.values():
        if fact.id in taken:
            reasons[fact.id] = "decided by a hand-written problem"
            continue
        is_special = fact.id in special or fact.holder != "records"
        topic = binding.topic(fact) if fact.value is not None else None
        reason = unexercisable(fact, pack, is_special, topic is not None)
        family = family_of(fact, is_special) if reason is None else None
        if family is None:
            reasons[fact.id] = reason or "no family takes this value type and category"
            continue
        asked = fact.window.request if family == "window" else fact.request if family in ("limit", "minimum") \
            else None
        search_query = search_phrase(asked, topic.description) if asked else None
        if asked and search_query is None:
            reasons[fact.id] = (f"its request shares no word with its catalogue topic ({topic.description!r}): an "
                                "agent could not find the topic from what the user asks")
            continue
        if family != "route":  # a routing topic is policy's business, not a catalogue entry
            if topic.topic_id in topics:  # product rows of one service share a topic: merge their products
                known = topics[topic.topic_id]
                products = tuple(sorted(set(known.products) | set(topic.products))) \
                    if known.products and topic.products else ()
                topic = Topic(known.topic_id, known.description, products, known.steps)
            topics[topic.topic_id] = topic
        digest = int(_digest(fact.id), 16)
        for variant in variants(family):
            name = f"{family}_{variant}_{_digest(fact.id, variant)}"
            attributes = {
                "name": name, "slot": f"family:{name}", "facts": (fact.id,), "family": family, "variant": variant,
                "fact_id": fact.id, "topic": binding.topic(fact), "binding": binding,
                "outcome": "transfer" if family == "route" else
                           "refuse" if refuses(family, variant, getattr(fact.window, "within", None)) else "resolve",
                "summary": f"{family} family ({variant}): {fact.subject or fact.statement}",
                "incomplete": family not in ("quote", "procedure") and digest % 5 == 0,
                "changing": variant == "under" and digest % 2 == 0,
                "window": fact.window, "request": fact.request, "search_query": search_query,
                "__module__": __name__,
            }
            problems.append(type(f"Family_{name}", (FamilyProblem,), attributes))
    return problems, sorted(topics.values(), key=lambda t: t.topic_id), reasons


# ------------------------------------------------------------------------------------------ policy as code
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


def routing_phrase(subject: str) -> str:
    """How a routing fact's subject is said in a scenario and looked for by the routing rule: without a
    leading article, white space folded ("the wire trace" → "wire trace")."""
    return " ".join(_ARTICLE.sub("", subject.strip()).split())


def routed_by_facts(facts: Any, scenario: str) -> dict[str, tuple[str, ...]]:
    """The teams routing facts send this conversation to: ``{department: (fact ids)}`` for every current fact
    of category ``routing`` with an enum value whose subject (without a leading article) the scenario names,
    case-insensitively. A domain's transfer rule reads it so that a transfer the routing facts require is no
    violation, and one to another team is (K1). Empty for a fact source that records no subjects."""
    subject_of, category_of = getattr(facts, "subject", None), getattr(facts, "category", None)
    if subject_of is None or category_of is None:
        return {}
    said = " ".join(scenario.lower().split())
    found: dict[str, list[str]] = {}
    for fact_id in facts.ids():
        if category_of(fact_id) != "routing" or not facts.is_current(fact_id):
            continue
        value, subject = facts.value(fact_id), subject_of(fact_id)
        if isinstance(value, EnumValue) and subject and routing_phrase(subject).lower() in said:
            found.setdefault(value.value, []).append(fact_id)
    return {department: tuple(sorted(ids)) for department, ids in sorted(found.items())}


def family_rules(binding_account_product, normalise: "Any", steps_on_file: "Any" = None) -> tuple:
    """Policy rules for the family tools, for a domain's ``DomainDefinition.policy``.

    The rules read the topic of every fact from the fact source (``facts.topic(fact_id)``, which the bundle
    manifest records) and check, before each family write: the fee charged for a topic on an account is the
    money value of the topic's fact for the account's product (K3); a request's amount is within a cap or at
    least a minimum (K1); a dated request's event lies on the side of its window the fact accepts (K1); a quoted
    value is the fact's value (K3); a procedure's step is the next one in the order its fact gives (K1).

    Args:
        binding_account_product: ``(state, account_id) -> product id | None``.
        normalise: how the quote tool normalises a stated value (``str -> str``).
        steps_on_file: ``(state, customer_id, topic_id) -> [step, ...]``, the procedure steps already recorded,
            in order (None: the domain has no procedure tool, and the procedure rule checks nothing).
    """
    from taugen.generators.policy import PolicyRule, Violation

    def topic_facts(context, topic_id: str, product: str | None) -> list[str]:
        topic_of = getattr(context.facts, "topic", None)
        if topic_of is None:
            return []
        indexed = getattr(context.facts, "current_in_topic", None)
        found = indexed(topic_id) if indexed is not None else \
            [f for f in context.facts.ids() if context.facts.is_current(f) and topic_of(f) == topic_id]
        if product is None or len(found) < 2:
            return found
        products_of = getattr(context.facts, "topic_products", None) or (lambda f: context.facts.applies_to(f) or [])
        exact = [f for f in found if product in products_of(f)]
        return exact or [f for f in found if not products_of(f)]

    def fee(context, tool, arguments):
        product = binding_account_product(context.state, arguments.get("account_id"))
        facts = topic_facts(context, arguments.get("topic_id", ""), product)
        values = [(f, context.value(f)) for f in facts]
        money = [(f, v) for f, v in values if isinstance(v, MoneyValue)]
        if len(money) != 1:
            return []
        fact_id, value = money[0]
        try:
            charged = round(float(arguments.get("fee")), 2)
        except (TypeError, ValueError):
            return []
        if charged == float(value.amount):
            return []
        return [Violation("family_service_fee", (fact_id,), f"service fee is {charged:.2f} but the facts give "
                          f"{float(value.amount):.2f} for this product", kind="amount", argument="fee",
                          expected=float(value.amount))]

    def request(context, tool, arguments):
        product = binding_account_product(context.state, arguments.get("account_id"))
        violations = []
        for fact_id in topic_facts(context, arguments.get("topic_id", ""), product):
            value = context.value(fact_id)
            try:
                amount = Decimal(str(arguments.get("amount")))
            except Exception:  # noqa: BLE001 - a malformed amount is the tool's business
                return []
            if isinstance(value, CapValue) and amount > value.amount:
                violations.append(Violation("family_limit", (fact_id,), f"the request for {amount} is over the limit "
                                            f"of {value.amount}"))
            if isinstance(value, MoneyValue) and amount < value.amount:
                violations.append(Violation("family_minimum", (fact_id,), f"the request for {amount} is under the "
                                            f"minimum of {value.amount}"))
        return violations

    def dated(context, tool, arguments):
        product = binding_account_product(context.state, arguments.get("account_id"))
        window_of = getattr(context.facts, "window", None)
        try:
            event = dt.date.fromisoformat(str(arguments.get("event_date")))
        except ValueError:
            return []  # a malformed date is the tool's business
        violations = []
        for fact_id in topic_facts(context, arguments.get("topic_id", ""), product):
            value, window = context.value(fact_id), window_of(fact_id) if window_of is not None else None
            if window is None or not isinstance(value, DurationValue):
                continue
            if not window_allows(event, value, window["within"], context.today):
                side = "within" if within_window(event, value, context.today) else "outside"
                violations.append(Violation("family_window", (fact_id,), f"the request's event on {event} lies {side} "
                                            f"the {value.canonical()} window before today, where the policy refuses it"))
        return violations

    def quote(context, tool, arguments):
        facts = topic_facts(context, arguments.get("topic_id", ""), None)
        if len(facts) != 1:
            return []
        value = context.value(facts[0])
        if value is None:
            return []
        expected = normalise(quote_text(value))
        stated = normalise(str(arguments.get("value", "")))
        if stated == expected:
            return []
        return [Violation("family_quote", (facts[0],), f"quoted {stated!r} but the facts give {expected!r}",
                          kind="amount", argument="value", expected=expected)]

    def procedure(context, tool, arguments):
        if steps_on_file is None:
            return []
        facts = topic_facts(context, arguments.get("topic_id", ""), None)
        values = [(f, context.value(f)) for f in facts if isinstance(context.value(f), StepsValue)]
        if len(values) != 1:
            return []
        fact_id, value = values[0]
        done = steps_on_file(context.state, arguments.get("customer_id"), arguments.get("topic_id"))
        step = arguments.get("step")
        if step not in value.steps or step in done:
            return []  # an unknown or repeated step is the tool's business
        expected = next((s for s in value.steps if s not in done), None)
        if step == expected:
            return []
        return [Violation("family_procedure", (fact_id,), f"step {step!r} recorded before {expected!r}: the "
                          f"procedure's order is {', '.join(value.steps)}")]

    def bound(*kinds: type) -> "Any":
        def select(source) -> tuple[str, ...]:
            topic_of = getattr(source, "topic", None)
            if topic_of is None:
                return ()
            return tuple(f for f in source.ids() if source.is_current(f) and topic_of(f) is not None
                         and (not kinds or isinstance(source.value(f), kinds)))
        return select

    return (
        PolicyRule(name="family_service_fee", facts=(), facts_from=bound(MoneyValue), tools=("charge_service_fee",),
                   check=fee,
                   description="A catalogued service is charged the fee its fact sets for the account's product."),
        PolicyRule(name="family_request_limits", facts=(), facts_from=bound(CapValue, MoneyValue),
                   tools=("submit_service_request",), check=request,
                   description="A request is submitted only within its cap and at or above its minimum."),
        PolicyRule(name="family_window", facts=(), facts_from=bound(DurationValue), tools=("submit_dated_request",),
                   check=dated, description="A dated request is submitted only on the side of its window that the "
                                            "fact accepts (within a deadline, after a waiting period)."),
        PolicyRule(name="family_procedure", facts=(), facts_from=bound(StepsValue),
                   tools=("record_procedure_step",), check=procedure,
                   description="A procedure's steps are recorded in the order its fact requires."),
        PolicyRule(name="family_quote", facts=(), facts_from=bound(), tools=("record_quote",), check=quote,
                   description="A quote noted on file states the value its fact sets."),
    )
