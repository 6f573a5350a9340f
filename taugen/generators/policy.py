"""Policy as code: rules computed from a pack's typed fact values and checked against tool calls.

Tools enforce only mechanical preconditions; the policy (which fee applies, whether a refund is
allowed, when a caller must be transferred) lives in facts. A domain turns the facts its problems
exercise into :class:`PolicyRule` objects (``DomainDefinition.policy``) so that validators can replay a
task's gold writes and ask, before every write, whether the policy allows it and whether each amount
argument is what the facts compute:

* ``check(context, tool, arguments) -> [Violation]`` names the fact ids the call breaks (defect kinds
  K1: a forbidden write, K3: a wrong amount, K2: a broken tool contract);
* ``inputs(context, tool, arguments)`` returns the rule inputs that decide the call (K17 compares the
  decisions of tasks with equal inputs);
* ``alternatives(context, tool, arguments)`` lists other argument sets for the same write (K9 searches
  them for other policy-compliant end states);
* ``candidates(context, customer_id)`` lists writes a task could be asking for (K17 needs the refused
  ones, which never appear in gold).

Rules never read literals: every amount, window and limit comes from a :class:`FactSource`, so when a
domain expert edits a fee in YAML the rules follow.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Protocol

from pydantic import TypeAdapter

if TYPE_CHECKING:
    from pydantic import BaseModel

    from taugen.authoring.pack import Pack
    from taugen.authoring.values import _Value

ViolationKind = Literal["permission", "amount", "precondition", "omission"]
KIND_CODES: dict[str, str] = {"permission": "K1", "amount": "K3", "precondition": "K2", "omission": "K11"}
"""Defect kind (``../shared/reference/defect-kinds.md``) of each violation kind."""


class FactSource(Protocol):
    """Typed fact values by id, from a loaded pack or from a bundle's manifest."""

    def ids(self) -> Iterable[str]: ...

    def value(self, fact_id: str) -> "_Value | None": ...

    def effective_from(self, fact_id: str) -> dt.date | None: ...

    def is_current(self, fact_id: str) -> bool: ...

    def applies_to(self, fact_id: str) -> list[str] | None: ...


class PackFacts:
    """:class:`FactSource` over a loaded :class:`~taugen.authoring.pack.Pack`."""

    def __init__(self, pack: "Pack") -> None:
        self.pack = pack

    def ids(self) -> Iterable[str]:
        return self.pack.facts.keys()

    def value(self, fact_id: str):
        fact = self.pack.facts.get(fact_id)
        return fact.value if fact is not None else None

    def effective_from(self, fact_id: str) -> dt.date | None:
        fact = self.pack.facts.get(fact_id)
        return fact.effective_from if fact is not None else None

    def is_current(self, fact_id: str) -> bool:
        return fact_id in self.pack.facts and self.pack.is_current(fact_id)

    def applies_to(self, fact_id: str) -> list[str] | None:
        fact = self.pack.facts.get(fact_id)
        return list(fact.applies_to) if fact is not None else None

    def window(self, fact_id: str) -> dict[str, Any] | None:
        """The fact's authored window (``request``, ``event``, ``within``) as a dict, or None."""
        fact = self.pack.facts.get(fact_id)
        return fact.window.model_dump() if fact is not None and fact.window is not None else None

    def subject(self, fact_id: str) -> str | None:
        """What the fact is about, in the author's words, or None."""
        fact = self.pack.facts.get(fact_id)
        return fact.subject if fact is not None else None

    def category(self, fact_id: str) -> str | None:
        """The fact's category (``fee``, ``routing`` ...), or None."""
        fact = self.pack.facts.get(fact_id)
        return fact.category if fact is not None else None


class ManifestFacts:
    """:class:`FactSource` over a bundle manifest's ``facts`` table (``author/manifest.json``)."""

    def __init__(self, facts: dict[str, dict[str, Any]]) -> None:
        from taugen.authoring.values import FactValue

        self.facts = facts
        self._adapter = TypeAdapter(FactValue)
        self._values: dict[str, Any] = {}
        self._by_topic: dict[str | None, list[str]] | None = None

    def ids(self) -> Iterable[str]:
        return self.facts.keys()

    def value(self, fact_id: str):
        if fact_id not in self._values:
            raw = (self.facts.get(fact_id) or {}).get("value")
            self._values[fact_id] = self._adapter.validate_python(raw) if raw is not None else None
        return self._values[fact_id]

    def effective_from(self, fact_id: str) -> dt.date | None:
        fact = self.facts.get(fact_id)
        return dt.date.fromisoformat(fact["effective_from"]) if fact else None

    def is_current(self, fact_id: str) -> bool:
        return bool((self.facts.get(fact_id) or {}).get("current"))

    def applies_to(self, fact_id: str) -> list[str] | None:
        """The products the fact applies to (None for a manifest written before it recorded them)."""
        raw = (self.facts.get(fact_id) or {}).get("applies_to")
        return list(raw) if raw is not None else None

    def topic(self, fact_id: str) -> str | None:
        """The catalogue topic a problem family binds the fact to (None when no family binds it)."""
        return (self.facts.get(fact_id) or {}).get("topic")

    def current_in_topic(self, topic_id: str) -> list[str]:
        """The current facts bound to ``topic_id``, in :meth:`ids` order (indexed on first use: the manifest's
        facts table is read, never changed)."""
        if self._by_topic is None:
            self._by_topic = {}
            for fact_id in self.ids():
                if self.is_current(fact_id):
                    self._by_topic.setdefault(self.topic(fact_id), []).append(fact_id)
        return list(self._by_topic.get(topic_id, ()))

    def topic_products(self, fact_id: str) -> list[str]:
        """The account products the family binding lets the fact's topic act on (empty: any)."""
        return list((self.facts.get(fact_id) or {}).get("topic_products") or [])

    def window(self, fact_id: str) -> dict[str, Any] | None:
        """The fact's authored window (``request``, ``event``, ``within``), or None."""
        return (self.facts.get(fact_id) or {}).get("window")

    def subject(self, fact_id: str) -> str | None:
        """What the fact is about, in the author's words ("tracing an international wire"), or None."""
        return (self.facts.get(fact_id) or {}).get("subject")

    def category(self, fact_id: str) -> str | None:
        """The fact's category (``fee``, ``routing`` ...), or None."""
        return (self.facts.get(fact_id) or {}).get("category")


@dataclass(frozen=True)
class Violation:
    """One way a tool call breaks the policy.

    Attributes:
        rule: the rule's name.
        facts: ids of the facts the call breaks.
        message: one sentence for a reviewer.
        kind: ``permission`` (K1), ``amount`` (K3), ``precondition`` (K2) or ``omission`` (K11: a
            write the policy requires is missing from the conversation).
        argument: the argument at fault, for amounts.
        expected: the value the facts compute, for amounts.
        severity: ``error``, or ``warning`` for rules whose reading of the facts is uncertain.
    """

    rule: str
    facts: tuple[str, ...]
    message: str
    kind: ViolationKind = "permission"
    argument: str | None = None
    expected: Any = None
    severity: Literal["error", "warning"] = "error"

    @property
    def code(self) -> str:
        return KIND_CODES[self.kind]


@dataclass
class PolicyContext:
    """What a rule sees.

    Attributes:
        state: the database *before* the call (the rule must not modify it).
        facts: typed fact values.
        now: the world's fixed clock.
        scenario: the user scenario's text, for rules whose trigger is only in what the user asks
            (for example an amount above a limit that is never written to the database).
        calls: the calls made earlier in the same conversation, ``(tool, arguments)``.
    """

    state: "BaseModel"
    facts: FactSource
    now: dt.datetime
    scenario: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def today(self) -> dt.date:
        return self.now.date()

    def value(self, fact_id: str):
        """The typed value of ``fact_id`` (None when the pack lacks it)."""
        return self.facts.value(fact_id)


Check = Callable[[PolicyContext, str, dict[str, Any]], list[Violation]]
Inputs = Callable[[PolicyContext, str, dict[str, Any]], "dict[str, Any] | None"]
Alternatives = Callable[[PolicyContext, str, dict[str, Any]], list[dict[str, Any]]]
Candidates = Callable[[PolicyContext, str], list[tuple[str, dict[str, Any]]]]
Settle = Callable[[PolicyContext], list[Violation]]


@dataclass(frozen=True)
class PolicyRule:
    """A rule of the policy, as code.

    Attributes:
        name: snake_case id (shown in findings).
        facts: ids of the facts the rule implements, when they are fixed.
        facts_from: ``(fact source) -> fact ids`` for a rule whose facts are selected from the pack rather
            than named (a problem family's rule reads every fact bound to a catalogue topic); see
            :meth:`fact_ids`.
        tools: the write tools it inspects (empty: every tool).
        check: ``(context, tool, arguments) -> violations``.
        inputs: the rule inputs that decide a call (None when the rule does not apply to it).
        alternatives: other argument sets for the same call (bounded; for K9).
        candidates: writes a customer's state invites (for K17's refused decisions).
        settle: checked once after the last call, on the final state with ``context.calls`` holding
            every call: obligations such as "a small claim is credited on the day it is filed".
        description: the rule in words.
    """

    name: str
    facts: tuple[str, ...]
    tools: tuple[str, ...] = ()
    check: Check | None = None
    inputs: Inputs | None = None
    alternatives: Alternatives | None = None
    candidates: Candidates | None = None
    settle: Settle | None = None
    description: str = ""
    facts_from: "Callable[[FactSource], tuple[str, ...]] | None" = None

    def applies_to(self, tool: str) -> bool:
        return not self.tools or tool in self.tools

    def fact_ids(self, source: FactSource) -> tuple[str, ...]:
        """Every fact the rule reads in ``source``: the named ones, then the selected ones, sorted."""
        selected = self.facts_from(source) if self.facts_from is not None else ()
        return tuple(self.facts) + tuple(sorted(set(selected) - set(self.facts)))


def evaluate(rules: Iterable[PolicyRule], state: "BaseModel", tool: str, arguments: dict[str, Any],
             facts: FactSource, now: dt.datetime, scenario: str = "",
             calls: list[tuple[str, dict[str, Any]]] | None = None) -> list[Violation]:
    """Every violation of ``rules`` by calling ``tool(**arguments)`` on ``state`` at ``now``."""
    context = PolicyContext(state=state, facts=facts, now=now, scenario=scenario, calls=list(calls or []))
    found: list[Violation] = []
    for rule in rules:
        if rule.check is not None and rule.applies_to(tool):
            found += rule.check(context, tool, arguments)
    return found


def settle(rules: Iterable[PolicyRule], state: "BaseModel", facts: FactSource, now: dt.datetime,
           calls: list[tuple[str, dict[str, Any]]], scenario: str = "") -> list[Violation]:
    """Obligations still unmet after the whole conversation ``calls`` ended in ``state``."""
    context = PolicyContext(state=state, facts=facts, now=now, scenario=scenario, calls=list(calls))
    return [violation for rule in rules if rule.settle is not None for violation in rule.settle(context)]


def decision_inputs(rules: Iterable[PolicyRule], context: PolicyContext, tool: str,
                    arguments: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{rule name: inputs}`` for every rule that decides ``tool(**arguments)``."""
    found = {}
    for rule in rules:
        if rule.inputs is not None and rule.applies_to(tool):
            inputs = rule.inputs(context, tool, arguments)
            if inputs is not None:
                found[rule.name] = inputs
    return found


def alternatives(rules: Iterable[PolicyRule], context: PolicyContext, tool: str,
                 arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Distinct alternative argument sets for ``tool`` from every rule (the original excluded)."""
    seen = [arguments]
    for rule in rules:
        if rule.alternatives is None or not rule.applies_to(tool):
            continue
        for option in rule.alternatives(context, tool, arguments):
            if option not in seen:
                seen.append(option)
    return seen[1:]


def candidates(rules: Iterable[PolicyRule], context: PolicyContext, customer_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Writes the customer's state invites, from every rule (deduplicated, in rule order)."""
    found: list[tuple[str, dict[str, Any]]] = []
    for rule in rules:
        if rule.candidates is None:
            continue
        for call in rule.candidates(context, customer_id):
            if call not in found:
                found.append(call)
    return found


# --------------------------------------------------------------------------- expected-value helpers
def money(value: Any) -> float | None:
    """A money/cap value's amount as a float rounded to cents (None when not numeric)."""
    amount = getattr(value, "amount", None)
    return None if amount is None else round(float(amount), 2)


def fact_in_force(facts: FactSource, prefix: str, on: dt.date) -> str | None:
    """The id of the version of a fact family member in force on ``on``.

    Versions share a stem: ``fee_x`` and ``fee_x_2024`` (older); the one with the latest
    ``effective_from`` not after ``on`` wins.
    """
    best: tuple[dt.date, str] | None = None
    for fact_id in facts.ids():
        if fact_id != prefix and not (fact_id.startswith(prefix + "_") and fact_id[len(prefix) + 1:].isdigit()):
            continue
        start = facts.effective_from(fact_id)
        if start is None or start > on:
            continue
        if best is None or start > best[0]:
            best = (start, fact_id)
    return best[1] if best else None


def business_days_between(start: dt.date, end: dt.date) -> int:
    """Business days (Monday–Friday) after ``start`` up to and including ``end``."""
    count = 0
    day = start
    while day < end:
        day += dt.timedelta(days=1)
        if day.weekday() < 5:
            count += 1
    return count


def business_days_before(day: dt.date, count: int) -> dt.date:
    """The latest business day ``d`` with ``business_days_between(d, day) == count`` (``count`` >= 0)."""
    start, found = day, 0
    while found < count:
        if start.weekday() < 5:
            found += 1
        start -= dt.timedelta(days=1)
    while start.weekday() >= 5:  # a weekend start adds no business day to the span: the Friday before
        start -= dt.timedelta(days=1)
    return start


def window_start(value: Any, today: dt.date) -> dt.date | None:
    """The earliest event date a span ``value`` (a duration fact) reaches back to from ``today``: an event on
    or after it lies within the window. Business days count Monday to Friday (no bank holidays, as
    :func:`business_days_between`); months and years are calendar months. None for a non-duration or a
    span shorter than a day."""
    unit, amount = getattr(value, "unit", None), getattr(value, "amount", None)
    if amount is None:
        return None
    amount = int(amount)
    if unit in ("days", "calendar_days"):
        return today - dt.timedelta(days=amount)
    if unit == "weeks":
        return today - dt.timedelta(days=7 * amount)
    if unit == "business_days":
        return business_days_before(today, amount)
    if unit == "months":
        return months_before(today, amount)
    if unit == "years":
        return months_before(today, 12 * amount)
    return None


def within_window(event: dt.date, value: Any, today: dt.date) -> bool:
    """Whether ``event`` lies within the span ``value`` counted back from ``today`` (ends included: an event
    exactly 60 days ago is within "60 days"; in business days, within when at most ``amount`` business
    days follow it up to today).

    Raises:
        ValueError: ``value`` is not a duration a calendar can count (minutes, hours, not a duration).
    """
    start = window_start(value, today)
    if start is None:
        raise ValueError(f"{value!r} is not a span of days, weeks, months or years")
    if getattr(value, "unit", None) == "business_days":
        return business_days_between(event, today) <= int(value.amount)
    return event >= start


def window_allows(event: dt.date, value: Any, within: str, today: dt.date) -> bool:
    """Whether policy takes a request whose event is on ``event``, for a window fact with span ``value`` and
    ``within`` (``accepted``: a deadline, taken inside the span; ``refused``: a waiting period, taken after it).

    Raises:
        ValueError: as :func:`within_window`.
    """
    return within_window(event, value, today) == (within == "accepted")


def window_edge(value: Any, today: dt.date, inside: bool) -> dt.date:
    """An event date just inside (``inside``) or just outside the span ``value`` before ``today``: one unit of
    the count nearer or farther than the edge (a day for spans in days, weeks, months and years; a business
    day for business days, landing on a business day). Both sides are unambiguous whether the edge day
    itself is read as inside or not.

    Raises:
        ValueError: as :func:`within_window`; also for a span of 0 days, which has no inside.
    """
    unit, amount = getattr(value, "unit", None), int(getattr(value, "amount", 0) or 0)
    if amount < 1:
        raise ValueError("a window of 0 has no inside")
    if unit == "business_days":
        return business_days_before(today, amount - 1 if inside else amount + 1)
    start = window_start(value, today)
    if start is None:
        raise ValueError(f"{value!r} is not a span of days, weeks, months or years")
    return start + dt.timedelta(days=1 if inside else -1)


def months_before(day: dt.date, months: int) -> dt.date:
    """The same day ``months`` calendar months earlier (clamped to the month's last day)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    month += 1
    for candidate in (day.day, 30, 29, 28):
        try:
            return dt.date(year, month, candidate)
        except ValueError:
            continue
    raise ValueError(day)  # pragma: no cover - a month always has 28 days


def duration_days(value: Any, today: dt.date) -> int | None:
    """A duration value in calendar days counted back from ``today`` (months and years as calendar
    months); None for business days or non-durations."""
    unit = getattr(value, "unit", None)
    amount = getattr(value, "amount", None)
    if amount is None:
        return None
    if unit in ("days", "calendar_days"):
        return int(amount)
    if unit == "weeks":
        return int(amount) * 7
    if unit == "months":
        return (today - months_before(today, int(amount))).days
    if unit == "years":
        return (today - months_before(today, int(amount) * 12)).days
    return None
