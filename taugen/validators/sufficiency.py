"""Sufficiency: the scenario gives every actor what the gold path needs (defect kinds K6, K14, K16).

* K16 (``named_tool``): every tool named in user-facing text exists for the actor who reads it. A
  tool is *named* when it appears in backticks, with call parentheses (``reset_password()``) or before
  the word "tool", and looks like an identifier. The user reads ``reason_for_call``, ``known_info``,
  ``unknown_info`` and ``task_instructions`` (or the plain instructions string): names there must be
  user tools. The ticket is read by the agent in solo mode, which has both tool sets.
* K14 (``actor_lacks_tool``): every gold step's tool exists for its requestor (an ``assistant`` step
  among the agent's tools, a ``user`` step among the user's).
* K6 / K14 (``argument_unavailable``): every graded gold argument (all keys, or the ``compare_args``
  ones) can be supplied by whoever must supply it. A value is available when it is stated in text the
  user or the agent has (the scenario, the ticket, client-held facts, the policy, the records, the
  tool descriptions), returned by an earlier gold step, or returned by one read the requestor can
  make on the state before the step: a read with no required argument, or with one required argument
  taken from a token the scenario states (an id, a phone number) or an id an earlier step returned.
  Booleans and empty values are not checked; numbers (and strings of digits) match in their usual
  written forms (digits, or spelt out as a voiced record says them), ISO dates as written out in full
  (``2026-03-02`` is stated by "March 2, 2026"); an amount
  that is a stated rate (``3%``) of a dollar amount the scenario states counts as derived. A
  *verification* step (a tool named ``verify_…`` / ``authenticate_…`` or described as verifying the
  caller) compares what the caller says with the record, so its non-id arguments count as available
  only when the scenario or ticket states them: reading them from the database defeats the check.
  The finding's code is the kind: ``K14`` for an id argument of a write (an id no earlier read
  returns), ``K6`` for every other value.

Codes are the defect kinds (``K16``, ``K14``, ``K6``), as in :mod:`taugen.validators.defects`, so a
report or a mutation run attributes each finding to its kind.

Gold replays use the domain's toolkit: ``DOMAIN.toolkit.task_session(view, task)`` when the toolkit
provides one (telecom: tau2's environment with the task's initialization actions), otherwise taugen's
DB replay (``db.json`` with ``initialization_data`` merged).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from taugen.authoring.values import PercentValue
from taugen.validators.bundle_view import BundleView
from taugen.findings import Finding, error
from taugen.text import as_text
from taugen.validators.memo import Memo, digest
from taugen.validators.registry import validator

_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_NAMED_TOOL = re.compile(rf"`({_IDENTIFIER})(?:\([^`]*\))?`|\b({_IDENTIFIER})\(|\b({_IDENTIFIER})`?\s+tool\b")
_TOKEN = re.compile(r"(?<![\w@.-])[A-Za-z0-9][A-Za-z0-9_.@+-]*[0-9][A-Za-z0-9_.@+-]*(?![\w@-])")
_ID = re.compile(r"[A-Za-z]{0,6}[-_]?[A-Z0-9]*\d[A-Z0-9-]*")
USER_FIELDS = ("reason_for_call", "known_info", "unknown_info", "task_instructions")


# ---------------------------------------------------------------------------- text helpers
def user_text(task: Mapping[str, Any]) -> str:
    """What the simulated user reads of a task (persona excluded: it names no tools or values)."""
    instructions = (task.get("user_scenario") or {}).get("instructions")
    if isinstance(instructions, str):
        return instructions
    if isinstance(instructions, dict):
        return "\n".join(str(instructions.get(key) or "") for key in USER_FIELDS)
    return ""


def named_tools(text: str) -> list[str]:
    """Identifiers the text names as tools (see the module docstring), in order, without repeats."""
    names: list[str] = []
    for match in _NAMED_TOOL.finditer(text or ""):
        name = next(group for group in match.groups() if group)
        if "_" in name and name not in names:  # a tool name is snake_case; "the search tool" is prose
            names.append(name)
    return names


def _number_forms(value: float) -> list[str]:
    forms = {repr(value), f"{value:g}", f"{value:.1f}", f"{value:.2f}", f"{value:,.2f}"}
    if float(value).is_integer():
        forms |= {str(int(value)), f"{int(value):,}"}
    return sorted(forms, key=len, reverse=True)


_NUMERIC = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def date_forms(iso: str) -> list[str]:
    """How people write the ISO date ``iso`` in full: ``March 2, 2026``, ``2 March 2026`` (month names in
    English; [] when ``iso`` is not a real date). A date without its year is not the same value."""
    import datetime as dt

    try:
        day = dt.date.fromisoformat(iso)
    except ValueError:
        return []
    return [f"{day:%B} {day.day}, {day.year}", f"{day.day} {day:%B} {day.year}"]


def stated(value: Any, text: str, lowered: str | None = None) -> bool:
    """Whether ``value`` is written in ``text`` (strings case-insensitively as a whole token; numbers in
    their usual forms, not inside a longer number). ``lowered`` (``text.lower()``), when given, lets a
    plain substring test rule a value out before any regular expression runs."""
    if isinstance(value, bool) or value is None or value == "":
        return True
    if isinstance(value, str) and _ISO_DATE.fullmatch(value) and not stated_text(value, text, lowered):
        return any(stated_text(form, text, lowered) for form in date_forms(value))
    if isinstance(value, str) and _NUMERIC.fullmatch(value) and not stated_text(value, text, lowered):
        value = float(value)  # a number written as a string ("6725" for "$6,725.00"); ids keep their zeros
    if isinstance(value, (int, float)) and float(value).is_integer() and 0 < value < 10**7:
        from taugen.authoring.values import _words  # a voiced record says "six thousand seven hundred ..."

        spoken = _words(int(value))
        if spoken in (lowered if lowered is not None else text.lower()):
            return True
    if isinstance(value, (int, float)):
        return any(_number_at(form, text) for form in _number_forms(value))
    return stated_text(str(value), text, lowered)


def _occurs(needle: str, haystack: str, bounded: Callable[[int, int], bool]) -> bool:
    """Whether ``needle`` occurs in ``haystack`` at a place ``bounded(start, end)`` accepts (``str.find``
    from one occurrence to the next: a regular expression per value over a corpus-sized text made the
    searches below slow)."""
    start = haystack.find(needle)
    while start >= 0:
        if bounded(start, start + len(needle)):
            return True
        start = haystack.find(needle, start + 1)
    return False


def _number_at(form: str, text: str) -> bool:
    """Whether the number ``form`` occurs in ``text`` with no digit or point before it and no digit, nor a
    point and a digit, after it (what the pattern ``(?<![0-9.])FORM(?![0-9]|[.][0-9])`` matches, with Unicode
    digits)."""
    def bounded(start: int, end: int) -> bool:
        before, after = text[start - 1] if start else "", text[end:end + 2]
        return not (before == "." or before.isdecimal()) and \
            not (after[:1].isdecimal() or (after[:1] == "." and after[1:2].isdecimal()))

    return _occurs(form, text, bounded)


_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_\u0131\u017f")
"""What ``[A-Za-z0-9_]`` matches under ``re.IGNORECASE``, lower-cased: the ASCII letters, digits and
underscore, and the letters Python's case folding maps onto ASCII ones (dotless i, long s; the Kelvin sign
lower-cases to ``k``). See the ``re`` documentation on ``IGNORECASE``."""


def stated_text(needle: str, text: str, lowered: str | None = None) -> bool:
    """Whether ``needle`` occurs in ``text`` as a whole token (no ASCII letter, digit or underscore on
    either side), case-insensitively. ``lowered`` is ``text.lower()`` when the caller has it."""
    lowered = lowered if lowered is not None else text.lower()
    wanted = needle.lower()
    if wanted not in lowered:
        return False
    if len(lowered) != len(text) or len(wanted) != len(needle):  # lower-casing moved the offsets: rare, exact
        return re.search(rf"(?<![A-Za-z0-9_]){re.escape(needle)}(?![A-Za-z0-9_])", text, re.IGNORECASE) is not None
    return _occurs(wanted, lowered, lambda start, end: (not start or lowered[start - 1] not in _WORD_CHARACTERS)
                   and (end == len(lowered) or lowered[end] not in _WORD_CHARACTERS))


class Knowledge:
    """A large text searched for many values: lower-cased once, answers memoised."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lowered = text.lower()
        self._memo: dict[tuple[type, Any], bool] = {}

    def states(self, value: Any) -> bool:
        key = (type(value), value)
        if key not in self._memo:
            self._memo[key] = stated(value, self.text, self.lowered)
        return self._memo[key]


def leaves(value: Any) -> Iterable[Any]:
    """Scalar values inside an argument (dicts and lists walked)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from leaves(item)
    else:
        yield value


# ---------------------------------------------------------------------------- pure checks
def named_tool_findings(task: Mapping[str, Any], agent_tools: Iterable[str], user_tools: Iterable[str]) -> list[Finding]:
    """K16 for one task."""
    agent, user = set(agent_tools), set(user_tools)
    findings = []
    for name in named_tools(user_text(task)):
        if name not in user:
            where = "an agent tool the user cannot call" if name in agent else "no such tool exists"
            findings.append(error("sufficiency", "K16", str(task.get("id")),
                                  f"the user instructions name the tool '{name}': {where}",
                                  rule="K16: every tool named in scenario or ticket text exists for that actor"))
    for name in named_tools(task.get("ticket") or ""):
        if name not in agent | user:
            findings.append(error("sufficiency", "K16", str(task.get("id")),
                                  f"the ticket names the tool '{name}', which no actor has",
                                  rule="K16: every tool named in scenario or ticket text exists for that actor"))
    return findings


def actor_tool_findings(task: Mapping[str, Any], agent_tools: Iterable[str], user_tools: Iterable[str]) -> list[Finding]:
    """K14 (the actor has the tool) for one task."""
    tools = {"assistant": set(agent_tools), "user": set(user_tools)}
    findings = []
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        requestor = action.get("requestor") or "assistant"
        if action.get("name") not in tools.get(requestor, set()):
            findings.append(error("sufficiency", "K14", str(task.get("id")),
                                  f"gold {action.get('action_id')}: the {requestor} has no tool '{action.get('name')}'",
                                  rule="K14: the actor of each gold step has the tool"))
    return findings


def graded_arguments(action: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments an ACTION check compares (``compare_args``: None = all, [] = none)."""
    arguments = action.get("arguments") or {}
    keys = action.get("compare_args")
    if keys is None:
        return dict(arguments)
    return {key: arguments[key] for key in keys if key in arguments}


# ---------------------------------------------------------------------------- replay sessions
class _DbSession:
    """taugen's DB replay for toolkit domains without their own session (banking): the task's starting
    database and a copy of it for the tools, from the view's
    :class:`~taugen.validators.replays.DatabaseReplays` (the database validated once per view, a task's
    patch validated on top of it, a copy that copies only the tables the tools reach where the model allows):
    the same database as validating the merged data for every task, at the cost of the tables a task touches.

    Raises:
        pydantic.ValidationError: the task's starting database is not valid (as validating it whole raises).
    """

    def __init__(self, toolkit_class: Any, view: BundleView, task: Mapping[str, Any]) -> None:
        from taugen.validators.replays import DatabaseReplays

        replays = view.__dict__.get("_sufficiency_replays")
        if replays is None or replays.toolkit_class is not toolkit_class:
            replays = view.__dict__["_sufficiency_replays"] = DatabaseReplays(toolkit_class, view.db, view.now)
        patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data")
        self.toolkit = replays.toolkit(replays.initial(patch))

    def step(self, action: Mapping[str, Any]) -> str | None:
        result = self.toolkit.call(action["name"], **(action.get("arguments") or {}))
        return as_text(result.output) if result.ok else None

    def probe(self, side: str, name: str, arguments: dict[str, Any]) -> str | None:
        if side != "assistant":
            return None
        result = self.toolkit.call(name, **arguments)
        return as_text(result.output) if result.ok else None


def _domain(view: BundleView) -> Any:
    return importlib.import_module(view.manifest["environment"]).DOMAIN


def tool_sets(toolkit_class: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(agent tools, user tools)`` of a toolkit class (the user has none unless it says so)."""
    user = getattr(toolkit_class, "user_tool_specs", None)
    return toolkit_class.tool_specs(), (user() if user else {})


def knowledge(view: BundleView) -> tuple[str, str]:
    """``(agent knowledge, client knowledge)``: every document the agent can read (runtime markdown,
    kit policy and tool descriptions, every record's text), and what the client alone holds."""
    parts = [view.files[path].decode("utf-8", "replace") for path in sorted(view.files)
             if (path.startswith(f"{view.runtime_dir}/") and path.endswith(".md")) or path == "kit/policy.md"]
    if "kit/tools.json" in view.files:
        parts.append(as_text(json.loads(view.files["kit/tools.json"])))
    for artifact_id, entry in sorted(view.manifest.get("artifacts", {}).items()):
        if entry.get("genre") != "policy_document":
            parts.append(view.text(artifact_id))
    client = view.files.get("author/client_prompt.md", b"").decode("utf-8", "replace")
    return "\n".join(parts), client


def argument_findings(task: Mapping[str, Any], session: Any, agent_tools: Mapping[str, Any],
                      user_tools: Mapping[str, Any], agent_knowledge: str | Knowledge,
                      client_knowledge: str = "", equivalents: Mapping[str, list[str]] | None = None,
                      rates: Iterable[float] = ()) -> list[Finding]:
    """K6 / K14 (arguments available to whoever supplies them) for one task, replaying its gold.

    ``equivalents`` (lower-cased surface form → every surface form of the same fact value, see
    :func:`fact_equivalents`): a gold string that writes one of a declared fact's values is known when any
    form of that value is (an enum label "4:00 PM Central Time" when a record says "4 PM Central").
    ``rates``: percentages (``2.5`` for 2.5 %) of declared facts that the agent can read in some written
    form ("2.5 percent", "two and a half percent"), besides the ``N%`` the library shows."""
    equivalents = equivalents or {}
    rates = tuple(rates)
    findings = []
    scenario = f"{user_text(task)}\n{task.get('ticket') or ''}\n{client_knowledge}"
    library = agent_knowledge if isinstance(agent_knowledge, Knowledge) else Knowledge(agent_knowledge)
    found = (token.rstrip(".-+@_") for token in _TOKEN.findall(f"{user_text(task)}\n{task.get('ticket') or ''}"))
    tokens = list(dict.fromkeys(token for token in found if any(ch.isdigit() for ch in token)))[:24]
    outputs: list[str] = []
    earlier_ids: list[str] = []
    tools = {"assistant": agent_tools, "user": user_tools}
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        side = action.get("requestor") or "assistant"
        spec = tools.get(side, {}).get(action.get("name"))
        probes: list[str] | None = None
        for key, argument in graded_arguments(action).items():
            is_id = key.endswith(("_id", "_ids")) or key == "id"
            for value in leaves(argument):
                if stated(value, scenario):
                    continue
                if spec is not None and verifies_caller(spec) and not is_id:
                    findings.append(error(
                        "sufficiency", "K6", str(task.get("id")),
                        f"gold {action.get('action_id')} ({side} {action.get('name')}) verifies the caller with "
                        f"{key}={value!r}, but the scenario never gives it to the caller (reading it from the records "
                        "would defeat the verification)",
                        rule="K6: every gold argument is stated in known_info/ticket for whoever must supply it"))
                    continue
                if any(stated(value, out) for out in outputs) or library.states(value):
                    continue
                if isinstance(value, str) and any(library.states(form) or any(stated(form, out) for out in outputs)
                                                  for form in equivalents.get(value.lower(), ())):
                    continue
                if probes is None:
                    probes = _probe(session, side, tools.get(side, {}), list(dict.fromkeys(tokens + earlier_ids))[:48])
                if any(stated(value, out) for out in probes):
                    continue
                if isinstance(value, (int, float)) and not isinstance(value, bool) and _rate_of_stated(
                        float(value), scenario, library, rates):
                    continue
                findings.append(error(
                    "sufficiency", "K14" if is_id and spec is not None and spec.kind != "read" else "K6",
                    str(task.get("id")),
                    f"gold {action.get('action_id')} ({side} {action.get('name')}): {key}={value!r} is stated "
                    f"nowhere the {side} can read and no earlier step or single read returns it",
                    rule="K6/K14: every gold argument is in known info, ticket or policy, or returned by an "
                         "earlier read, for whoever must supply it"))
        output = session.step(action)
        if output is not None:
            outputs.append(output)
            earlier_ids += [line for line in output.splitlines() if _ID.fullmatch(line)]
    return findings


_DOLLARS = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)")
_PERCENT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s?%")
_PERCENTS: dict[int, tuple[str, set[float]]] = {}


def _rate_of_stated(value: float, scenario: str, library: Knowledge, rates: tuple[float, ...] = ()) -> bool:
    """Whether ``value`` is a percentage of a stated amount: a rate the agent can read (``3%`` in the library,
    or one of ``rates``) times a dollar amount the scenario states (``$480.00``), rounded to cents (a foreign
    transaction fee, an FX margin)."""
    cached = _PERCENTS.get(id(library))
    if cached is None or cached[0] is not library.text:
        cached = (library.text, {float(m.group(1)) for m in _PERCENT.finditer(library.text)})
        _PERCENTS.clear()
        _PERCENTS[id(library)] = cached
    amounts = {float(m.group(1).replace(",", "")) for m in _DOLLARS.finditer(scenario)}
    return any(abs(round(amount * rate / 100 + 1e-9, 2) - value) < 0.005 for amount in amounts
               for rate in cached[1] | set(rates))


_VERIFIES = re.compile(r"^\s*(verif(y|ies)|authenticat\w*)\b[^.]{0,40}\b(caller|customer|user|identity)", re.I)


def verifies_caller(spec: Any) -> bool:
    """Whether a tool verifies the caller: its name starts with ``verify_`` / ``authenticate_`` or its
    description opens with "Verify(ies) / Authenticate … caller / customer / user / identity"."""
    return bool(re.match(r"(verify|authenticate)_", getattr(spec, "name", "")) or _VERIFIES.match(getattr(spec, "description", "")))


def _probe(session: Any, side: str, specs: Mapping[str, Any], tokens: list[str]) -> list[str]:
    found = []
    for name, spec in specs.items():
        if spec.kind != "read":
            continue
        if not spec.required:
            calls = [{}]
        elif len(spec.required) == 1:
            calls = [{spec.required[0]: token} for token in tokens]
        else:
            continue
        for arguments in calls:
            output = session.probe(side, name, arguments)
            if output:
                found.append(output)
    return found


@validator("sufficiency", cost=4)
def check_sufficiency(view: BundleView) -> list[Finding]:
    """See the module docstring."""
    definition = _domain(view)
    toolkit_class = definition.toolkit
    agent_tools, user_tools = tool_sets(toolkit_class)
    agent_text, client_knowledge = knowledge(view)
    agent_knowledge = Knowledge(agent_text)
    make_session = getattr(toolkit_class, "task_session", None)
    declared = json.loads(view.files["author/task_facts.json"]) if "author/task_facts.json" in view.files else {}
    known = view.manifest.get("facts") or {}
    # A task's findings read the task, its declared facts, the toolkit, the clock, the database and what
    # each actor can read; with taugen's DB replay nothing else, so they are remembered under the digest
    # of exactly that (a domain with its own sessions reads the bundle's files: not remembered).
    world = None if make_session else digest(f"{toolkit_class.__module__}.{toolkit_class.__qualname__}", view.now,
                                              view.db, agent_text, client_knowledge)
    findings: list[Finding] = []
    for task in view.tasks:
        facts = (declared.get(str(task.get("id"))) or {}).get("facts") or []
        key = None if world is None else digest(world, task, facts, [known.get(f) for f in facts])
        remembered = None if key is None else _TASK_FINDINGS.get(key)
        if remembered is not None:
            findings += remembered
            continue
        found = named_tool_findings(task, agent_tools, user_tools) + actor_tool_findings(task, agent_tools, user_tools)
        session = make_session(view, task) if make_session else _DbSession(toolkit_class, view, task)
        equivalents = fact_equivalents(view, facts)
        found += argument_findings(task, session, agent_tools, user_tools, agent_knowledge, client_knowledge,
                                   equivalents, readable_rates(view, facts, agent_knowledge))
        if key is not None:
            _TASK_FINDINGS.put(key, found)
        findings += found
    return findings


_TASK_FINDINGS: Memo[list[Finding]] = Memo(20_000, "validate-sufficiency")
"""One task's findings by the digest of what they read (see :func:`check_sufficiency`), shared by every
bundle view in the process: a mutation run re-checks only the tasks a mutant changed."""


def readable_rates(view: BundleView, fact_ids: Iterable[str], library: Knowledge) -> list[float]:
    """The percentages of ``fact_ids`` (percent-valued facts a task declares) that ``library`` states in
    any of their written forms ("2.5%", "2.5 percent", "two and a half percent")."""
    known = view.manifest.get("facts") or {}
    found = []
    for fact_id in fact_ids:
        value = view.fact_value(fact_id) if fact_id in known else None
        if isinstance(value, PercentValue) and any(library.states(form) for form in value.surface_forms()):
            found.append(float(value.value))
    return found


def fact_equivalents(view: BundleView, fact_ids: Iterable[str]) -> dict[str, list[str]]:
    """Lower-cased surface form → all surface forms, over the typed values of ``fact_ids`` (the facts a
    task declares in ``author/task_facts.json``). Only values with more than one written form count: an
    enum's labels, a money amount's ``$25`` / ``25.00 USD``, a window's ``10 business days`` / ``ten
    business days``."""
    found: dict[str, list[str]] = {}
    known = view.manifest.get("facts") or {}
    for fact_id in fact_ids:
        value = view.fact_value(fact_id) if fact_id in known else None
        forms = list(dict.fromkeys(value.surface_forms())) if value is not None else []
        if len(forms) > 1:
            for form in forms:
                found.setdefault(form.lower(), forms)
    return found
