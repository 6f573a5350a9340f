"""The reference workspace: an oracle that decides from the policy as code on the state it is served.

It is not a fair agent, and it says so. What it **knows** (author side, read when the workspace loads):

* which problem instances each task holds: ``author/task_facts.json`` → ``problems`` (names in gold order,
  identity verification first), resolved to the domain's problem classes (the hand-written ones by name,
  the family instances re-instantiated from the pack, whose names digest the fact and variant);
* the task's user scenario, i.e. what the customer says or would say when asked: its opening (reason and
  known details: phone, date of birth, the charge, the check, the wire) and its instructions (the amount a
  caller asks for, which the offline scripted user never volunteers); the opening message recognises the task;
* the pack the bundle was built from (fact values, problem functions, the domain's ``policy.RULES``),
  checked against the pack digests in ``bundle.json``, and the bundle manifest's facts (the rules' fact source).

What it **decides** at run time, in the conversation, through tools over the true client API: it makes the reads
the domain's readers name (``readers.read_records``; banking's find the caller by the phone they give and verify
them, read the bank's clock, the customer's profile, every account with its transactions, fee refunds and
disputes, the cards and the service catalogue), and rebuilds
each problem's ``state`` from those records (``taugen/domains/<d>/readers.py``: which account, fee,
charge, card, claim; fees from the policy's fee functions). It then calls the problem's own ``solve()`` on
that state and screens every write through the policy rules (``evaluate`` before each write on the state
the earlier writes leave, ``settle`` after): a write a rule forbids is not made, an amount a rule computes
differently is corrected to the rule's value, and a problem whose request has alternatives (refund or
refuse a courtesy refund; a claim with same-day credit, without it, or a transfer when it is late; a
replacement card or the fraud team; a wire or the wire desk) takes the first alternative, resolving first,
whose calls the rules accept with nothing refused and no obligation left. Nothing is taken from the
recorded gold actions. The writes are then made one per turn.

Defect workarounds (generic: the deployment is not consulted): a list read takes one large page and follows
cursors, stopping on a repeated page (a lost cursor), then re-reads in pages of the size the first page had
(a page silently cut to a cap is whole at that size) and keeps the union; after a write, the first read of
each operation is made twice and the second answer kept (a stale read lags one read); a write that answers
504 is not retried (it committed); a 200 with an error body is an error. It makes no read the domain's readers
do not name (banking's never fetch one claim by id, nor search for a caller by name). Money a
deployment may round to whole dollars is taken from a second source where the API has one: an account's balance
(only the account read returns it) is checked against the account's ledger, and a whole-dollar balance within 50
cents of the ledger's sum is the sum (the domain's readers, banking's ``readers.exact_balances``), so an account
overdrawn by cents is not read as in good standing. The clock the API reports gives the date the rules
use; a deployment may report it an hour off with the offset unchanged, and the API has no second source of the
time, so within an hour of midnight the task is decided on each date the clock allows and the decision stands
only when they agree (:func:`decide_on_clock`); when the date decides, the task falls back (see below) rather
than trust the date read. At the banking world's 10:30 no date is in doubt.

**Fallback** (explicit and counted): when a problem's state cannot be rebuilt from what was read (the
reader raises :class:`~taugen.domains.banking.readers.Undecidable`), no alternative's calls pass
the rules, the clock leaves the date in doubt and the date decides, the domain has no readers module, or a read
fails, the oracle replays the task's recorded gold actions instead, and says so in its report
(:meth:`Oracle.report`; ``taugen evaluate`` adds the totals to the score JSON under ``reference``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import inspect
import json
import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

from taugen.construction.bundle import ConstructionBundle
from taugen.construction.evaluate import STOP, Workspace, scripted_user
from taugen.errors import InputError
from taugen.generators.environment import clone

_TYPES = {"integer": int, "number": float, "boolean": bool}
_BIG_PAGE = 100


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _make_tool(name: str, method: str, parameters: dict[str, dict[str, Any]], required: list[str], doc: str,
               client_api, paginated: bool, memory: dict[str, Any]) -> Callable[..., Any]:
    """One tool over the client API with the generic defect workarounds (see the module docstring).

    ``memory`` is shared by the tools of one conversation: ``writes`` counts the writes made, ``fresh`` maps an
    operation to the write count at its last double read.

    Raises (from the tool): ValueError with the error envelope as JSON on a refusal (also a 200 with an error body).
    """

    def fail(body: Any) -> None:
        raise ValueError(json.dumps(body.get("error", body) if isinstance(body, dict) else body))

    def read_pages(arguments: dict[str, Any], limit: int) -> tuple[list[Any], Any]:
        items, seen, cursor = [], set(), None
        while True:
            answer = client_api.get(name, **arguments, limit=limit, **({"cursor": cursor} if cursor else {}))
            if answer.status >= 400 or (isinstance(answer.body, dict) and "error" in answer.body):
                return items, answer.body
            page = answer.body["items"]
            fingerprint = _json(page)
            if fingerprint in seen:  # a lost cursor answers the first page again
                return items, None
            seen.add(fingerprint)
            known = {_json(i) for i in items}
            items += [i for i in page if _json(i) not in known]
            cursor = answer.body.get("next_cursor")
            if cursor is None:
                return items, None

    def read_list(arguments: dict[str, Any]) -> list[Any]:
        items, error = read_pages(arguments, _BIG_PAGE)
        if error is not None:
            fail(error)
        if 0 < len(items) < _BIG_PAGE:  # a page cut to a cap is whole when asked for that many
            again, error = read_pages(arguments, len(items))
            if error is None:
                known = {_json(i) for i in items}
                items += [i for i in again if _json(i) not in known]
        return items

    def call(**arguments: Any) -> Any:
        arguments = {k: v for k, v in arguments.items() if v is not None}
        if method == "post":
            digest = hashlib.sha256(json.dumps([name, arguments], sort_keys=True).encode()).hexdigest()[:32]
            answer = client_api.post(name, arguments, idempotency_key=f"ref-{digest}")
            memory["writes"] += 1
            if answer.status == 504:  # committed upstream; a retry would run it again
                return {"status": "accepted; confirmation timed out (not retried)"}
            body = answer.body
        else:
            reads = 2 if memory["fresh"].get(name, 0) < memory["writes"] else 1
            memory["fresh"][name] = memory["writes"]
            for _ in range(reads):  # after a write, the first answer may still be the state before it
                if paginated:
                    body = read_list(arguments)
                    continue
                answer = client_api.get(name, **arguments)
                body = answer.body
                if answer.status >= 400:
                    fail(body)
            if paginated:
                return body
        if answer.status >= 400 or (isinstance(body, dict) and "error" in body):
            fail(body)
        return body

    signature = inspect.Signature([
        inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=_TYPES.get(s.get("type"), str),
                          default=inspect.Parameter.empty if p in required else None)
        for p, s in parameters.items() if not (paginated and p in ("limit", "cursor"))])
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    call.__name__ = name
    call.__doc__ = doc
    return call


def api_tools(document: dict[str, Any]) -> Callable[[Any], list[Callable[..., Any]]]:
    """``create_tools(client_api)`` over every operation of the OpenAPI ``document``, with the workarounds."""

    def create_tools(client_api) -> list[Callable[..., Any]]:
        memory: dict[str, Any] = {"writes": 0, "fresh": {}}
        tools = []
        for methods in document["paths"].values():
            for method, operation in methods.items():
                if method == "get":
                    own = [p for p in operation["parameters"] if "name" in p]
                    parameters = {p["name"]: p["schema"] for p in own}
                    required = [p["name"] for p in own if p.get("required")]
                else:
                    body = operation["requestBody"]["content"]["application/json"]["schema"]
                    parameters, required = body["properties"], body.get("required", [])
                tools.append(_make_tool(operation["operationId"], method, parameters, required,
                                        operation.get("summary", ""), client_api, "x-api-pagination" in operation,
                                        memory))
        return tools

    return create_tools


# ------------------------------------------------------------------------------------------ knowledge
def recognise(tasks: dict[str, dict[str, Any]], openings: dict[str, str], opening: str) -> str | None:
    """The id of the task a customer's opening message belongs to: the task whose scripted opening it is
    (``openings``: opening → task id), else the one task whose reason for calling it states and whose known
    details it repeats most of (at least half of their sentences: a caller may say an amount differently from
    the record); None when no task fits."""
    if opening in openings:
        return openings[opening]
    best, score = None, 0.0
    for task_id, task in tasks.items():
        instructions = (task.get("user_scenario") or {}).get("instructions") or {}
        if not isinstance(instructions, dict) or not instructions.get("reason_for_call") \
                or instructions["reason_for_call"] not in opening:
            continue
        known = [sentence for sentence in str(instructions.get("known_info") or "").split(". ") if sentence]
        shared = sum(1 for sentence in known if sentence in opening) / max(1, len(known))
        if shared > score:
            best, score = task_id, shared
    return best if score >= 0.5 else None


@dataclass
class Knowledge:
    """What the oracle knows before any conversation (see the module docstring).

    Attributes:
        bundle: the bundle; domain: its ``DomainDefinition``; pack: the pack it was built from.
        facts: the manifest's fact source (what the policy rules read).
        readers: the domain's readers module (None: the domain has none; every task falls back).
        classes: problem name → problem class (hand-written and family instances).
        writes: names of the operations that change state (POST).
        openings: the scripted opening message → task id.
    """

    bundle: ConstructionBundle
    domain: Any
    pack: Any
    facts: Any
    readers: Any
    classes: dict[str, type]
    writes: frozenset[str]
    openings: dict[str, str]
    records: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, bundle: ConstructionBundle) -> Knowledge:
        """Load it from ``bundle``.

        Raises:
            InputError: the pack on this machine differs from the one the bundle was built from.
        """
        from taugen.authoring.pack import load_pack
        from taugen.build.pipeline import resolve_pack
        from taugen.generators.policy import ManifestFacts

        environment = bundle.manifest["environment"]
        domain = importlib.import_module(environment).DOMAIN
        pack = load_pack(resolve_pack(bundle.domain))
        built = bundle.json("bundle.json").get("sources") or {}
        if built and built != pack.sha256_by_file():
            changed = sorted(k for k in set(built) | set(pack.sha256_by_file())
                             if built.get(k) != pack.sha256_by_file().get(k))
            raise InputError(f"the reference needs the pack the bundle was built from; changed since: "
                             f"{', '.join(changed[:5])}", bundle.path)
        try:
            readers = importlib.import_module(f"{environment}.readers")
        except ImportError:
            readers = None
        classes: dict[str, type] = {domain.opening.name: domain.opening}
        classes.update({p.name: p for p in domain.problems})
        if domain.families is not None:
            from taugen.generators.families import instantiate

            special = set(bundle.manifest.get("client_held") or []) | set(bundle.manifest.get("contested") or [])
            taken = {f for p in domain.problems for f in p.facts}
            instances, _, _ = instantiate(pack, domain.families(pack), special, taken)
            classes.update({p.name: p for p in instances})
        writes = frozenset(op["operationId"] for methods in bundle.openapi["paths"].values()
                           for method, op in methods.items() if method == "post")
        openings = {scripted_user(task).instructions: task_id for task_id, task in bundle.tasks.items()}
        return cls(bundle=bundle, domain=domain, pack=pack, facts=ManifestFacts(bundle.manifest["facts"]),
                   readers=readers, classes=classes, writes=writes, openings=openings,
                   records=bundle.json("author/task_facts.json"))

    def recognise(self, opening: str) -> str | None:
        """The task a customer's opening message belongs to (:func:`recognise`)."""
        return recognise(self.bundle.tasks, self.openings, opening)

    def topic_queries(self, problems: list[str]) -> list[str]:
        """What the agent searches the service catalogue for: each family instance's search words (its topic's
        description, or the words its request shares with it); routing topics are not catalogued."""
        queries = []
        for name in problems:
            problem = self.classes.get(name)
            if getattr(problem, "family", "route") != "route":
                query = problem.search_query or problem.topic.description
                if query not in queries:
                    queries.append(query)
        return queries

    def words(self, task_id: str, opening: str) -> str:
        """What the customer says or would say: the opening as said, then the task's scenario texts."""
        instructions = (self.bundle.tasks[task_id].get("user_scenario") or {}).get("instructions") or {}
        if not isinstance(instructions, dict):
            return f"{opening}\n{instructions}"
        return "\n".join([opening, *(str(instructions.get(k) or "") for k in ("known_info", "task_instructions"))])


# ------------------------------------------------------------------------------------------ deciding
@dataclass
class Decision:
    """How the oracle settled one problem of a task.

    Attributes:
        problem: the problem the task records; chosen: the problem whose ``solve`` gave the calls (an
            alternative when the live state calls for it); calls: the writes to make, ``(name, arguments)``.
        refused: writes the rules forbade (not made), with the rule; corrected: amounts set to the rules' value.
        reason: why it could not be decided (then the task falls back).
    """

    problem: str
    chosen: str | None = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, [])}


def _errors(violations: list[Any]) -> list[Any]:
    return [v for v in violations if v.severity == "error"]


def _screen(knowledge: Knowledge, reading: Any, toolkit: Any, calls: list[Any],
            done: list[tuple[str, dict[str, Any]]]) -> tuple[Any, Decision, list[str]]:
    """Run ``calls`` (a problem's ``solve()``) on a copy of ``toolkit`` through the policy rules: a forbidden write
    is dropped, a rule's amount replaces a differing one. Returns the copy, a :class:`Decision` with the kept
    writes, and the obligations the rules still find unmet afterwards that were not unmet before."""
    from taugen.generators.policy import evaluate, settle

    rules, facts, now, words = knowledge.domain.policy, knowledge.facts, reading.now, reading.words
    trial = type(toolkit)(clone(toolkit.db), now)
    before = {v.message for v in _errors(settle(rules, trial.db, facts, now, done, words))}
    decision = Decision(problem="")
    made = list(done)
    for call in calls:
        if call.name not in knowledge.writes and call.name != "transfer_to_human_agents":
            continue  # reads: what they show was read already
        arguments = dict(call.arguments)
        violations = _errors(evaluate(rules, trial.db, call.name, arguments, facts, now, words, made))
        fixes = [v for v in violations if v.kind == "amount" and v.argument and v.expected is not None]
        if fixes and len(fixes) == len(violations):
            for fix in fixes:
                was = arguments.get(fix.argument)
                decision.corrected.append(f"{call.name}.{fix.argument}: {was} -> {fix.expected}")
                arguments[fix.argument] = fix.expected
            violations = _errors(evaluate(rules, trial.db, call.name, arguments, facts, now, words, made))
        if violations:
            decision.refused.append(f"{call.name}: {violations[0].rule}")
            continue
        result = trial.call(call.name, **arguments)
        if result.error is not None:
            decision.refused.append(f"{call.name}: {result.error}")
            continue
        decision.calls.append((call.name, arguments))
        made.append((call.name, arguments))
    unmet = [v.message for v in _errors(settle(rules, trial.db, facts, now, made, words)) if v.message not in before]
    return trial, decision, unmet


CLOCK_ERROR = dt.timedelta(hours=1)
"""How far the oracle lets the API's clock be off, either way (a deployment may format time an hour off)."""


def clock_readings(now: dt.datetime) -> list[dt.datetime]:
    """The times the bank's clock may truly show when the API reports ``now``: ``now`` itself, then each of
    ``now`` ± :data:`CLOCK_ERROR` that falls on another date (none unless ``now`` is within an hour of midnight).
    The rules read only the date, so these are the readings that can decide differently."""
    readings = [now]
    for other in (now - CLOCK_ERROR, now + CLOCK_ERROR):
        if other.date() not in {r.date() for r in readings}:
            readings.append(other)
    return readings


def decide_on_clock(knowledge: Knowledge, reading: Any,
                    problems: list[str]) -> tuple[list[Decision], list[tuple[str, dict[str, Any]]]]:
    """:func:`decide` on the clock as read, made robust to a clock an hour off: within an hour of midnight the
    task is decided on each date the clock allows (:func:`clock_readings`), and the decision stands only when every
    date gives the same writes. The API has no second source of the time (no other read answers with one), and a
    one-hour shift keeps the UTC offset, so a decision that depends on which of those dates it is cannot be made.

    Raises:
        ValueError: the dates decide differently (the message names them and the writes each gives).
    """
    decisions, plan = decide(knowledge, reading, problems)
    for other in clock_readings(reading.now)[1:]:
        other_decisions, other_plan = decide(knowledge, replace(reading, now=other), problems)
        if other_plan != plan or [d.reason is None for d in other_decisions] != [d.reason is None for d in decisions]:
            raise ValueError(f"the clock reads {reading.now.isoformat()}, within {CLOCK_ERROR} of midnight, and the "
                             f"date decides: on {reading.now.date()} the writes are {plan}, on {other.date()} "
                             f"{other_plan}")
    return decisions, plan


def decide(knowledge: Knowledge, reading: Any,
           problems: list[str]) -> tuple[list[Decision], list[tuple[str, dict[str, Any]]]]:
    """Decide every problem of a task on the read state (``reading``: the domain's ``Reading``).

    ``problems`` are the task's problem names without the opening identity check (done in the conversation).
    Returns the decisions and the writes to make, transfers last; a decision with a ``reason`` means the
    task must fall back.
    """
    from taugen.generators.problems import ProblemContext

    readers = knowledge.readers
    toolkit = knowledge.domain.toolkit(clone(reading.db), reading.now)
    verify, arguments = readers.verification(reading)
    toolkit.call(verify, **arguments)  # done in the conversation before anything was read
    done: list[tuple[str, dict[str, Any]]] = [(verify, arguments)]
    decisions: list[Decision] = []
    said: dict[str, int] = {}
    for name in problems:
        decision = Decision(problem=name)
        decisions.append(decision)
        problem_class = knowledge.classes.get(name)
        if problem_class is None:
            decision.reason = "the problem is not among the domain's problems or the pack's family instances"
            continue
        family = getattr(problem_class, "family", None)
        group = (name,) if family is not None else readers.ALTERNATIVES.get(name, (name,))
        fallback: tuple[Any, Decision] | None = None
        reasons = []
        for candidate in group:
            candidate_class = knowledge.classes[candidate]
            try:
                if family is not None:
                    state = readers.read_family(reading, candidate_class, said.get(readers.said_key(problem_class), 0))
                else:
                    state = readers.READERS[candidate](reading, candidate_class)
                context = ProblemContext(toolkit=toolkit, pack=knowledge.pack, customer_id=reading.customer_id,
                                         rng=random.Random(0), state=state)
                calls = candidate_class().solve(context)
            except (LookupError, KeyError, ValueError) as exc:
                reasons.append(f"{candidate}: {exc}")
                continue
            trial, screened, unmet = _screen(knowledge, reading, toolkit, calls, done)
            screened.problem, screened.chosen = name, candidate
            if unmet:
                reasons.append(f"{candidate}: leaves unmet {unmet[0]}")
                continue
            if not screened.refused:
                fallback = (trial, screened)
                break
            if fallback is None:
                fallback = (trial, screened)
        if family is not None:  # the next instance that says the same kind of thing says the next one
            said[readers.said_key(problem_class)] = said.get(readers.said_key(problem_class), 0) + 1
        if fallback is None:
            decision.reason = "; ".join(reasons) or "no alternative decides it"
            continue
        toolkit, chosen = fallback
        decisions[-1] = chosen
        done += chosen.calls
    plan = [c for d in decisions for c in d.calls if c[0] != "transfer_to_human_agents"]
    plan += [c for d in decisions for c in d.calls if c[0] == "transfer_to_human_agents"]
    return decisions, plan


# ------------------------------------------------------------------------------------------ the agent
class _Failed(Exception):
    """A read the oracle needs answered with an error."""


def _parse(message: Any) -> Any:
    content = getattr(message, "content", None)
    if getattr(message, "error", False):
        raise _Failed(str(content))
    try:
        value = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        value = content
    if isinstance(value, str) and value.startswith("Error"):
        raise _Failed(value)
    return value


class Oracle:
    """One conversation of the reference (a tau2-style agent; see the module docstring)."""

    def __init__(self, knowledge: Knowledge, tools: list[Callable[..., Any]], fallback: bool = True) -> None:
        self.knowledge = knowledge
        self.fallback = fallback
        self.steps: Iterator[tuple[str, dict[str, Any]]] | None = None
        self.pending: tuple[str, dict[str, Any]] | None = None
        self.finished = False
        self.said_done = False
        self.record: dict[str, Any] = {"task_id": None, "mode": None, "decisions": [], "fallback": None,
                                       "run_errors": []}

    def report(self) -> dict[str, Any]:
        """``task_id``, ``problems`` (as recorded), ``mode`` (``decided``; ``fallback``: the recorded gold was
        replayed; ``undecided``: no fallback allowed, nothing written; ``unrecognised``), each problem's
        :class:`Decision` as a dict, the reason of a fallback and any write that failed at run time."""
        return self.record

    def get_init_state(self, message_history=None):
        return {}

    # -- the conversation as a generator: it yields a call and receives its parsed result
    def _conversation(self, task_id: str, opening: str) -> Iterator[tuple[str, dict[str, Any]]]:
        knowledge = self.knowledge
        readers = knowledge.readers
        words = knowledge.words(task_id, opening)
        problems = list(knowledge.records.get(task_id, {}).get("problems") or [])
        self.record["problems"] = problems
        try:
            if readers is None:
                raise _Failed(f"the domain {knowledge.bundle.domain} has no readers module")
            reading = yield from readers.read_records(words, knowledge.facts, knowledge.topic_queries(problems))
            customer_id = reading.customer_id
            decisions, plan = decide_on_clock(knowledge, reading, problems[1:])
            self.record["decisions"] = [{"problem": problems[0], "chosen": problems[0],
                                         "calls": [[readers.VERIFY, {"customer_id": customer_id}]]}] + \
                [d.as_dict() for d in decisions]
            undecided = [d for d in decisions if d.reason]
            if undecided:
                raise _Failed("; ".join(f"{d.problem}: {d.reason}" for d in undecided))
            self.record["mode"] = "decided"
        except (_Failed, LookupError, KeyError, TypeError, ValueError) as exc:
            self.record["mode"] = "fallback" if self.fallback else "undecided"
            self.record["fallback"] = f"{type(exc).__name__}: {exc}"
            actions = (knowledge.bundle.tasks[task_id].get("evaluation_criteria") or {}).get("actions") or []
            plan = [(a["name"], dict(a["arguments"])) for a in actions if a.get("requestor", "assistant") == "assistant"
                    and (a["name"] in knowledge.writes or a["name"] == "transfer_to_human_agents")] \
                if self.fallback else []
        for name, arguments in plan:
            try:
                yield (name, arguments)
            except _Failed as exc:
                self.record["run_errors"].append(f"{name}: {exc}"[:300])

    def _next(self, message: Any) -> tuple[str, dict[str, Any]] | None:
        assert self.steps is not None
        try:
            if self.pending is None:
                return next(self.steps)
            try:
                result = _parse(message)
            except _Failed as exc:
                return self.steps.throw(exc)
            return self.steps.send(result)
        except StopIteration:
            return None

    def generate_next_message(self, message, state):
        from tau2.data_model.message import AssistantMessage, ToolCall

        role = getattr(message, "role", "")
        if self.steps is None and role == "user":
            opening = message.content or ""
            task_id = self.knowledge.recognise(opening)
            self.record["task_id"] = task_id
            if task_id is None:
                self.record["mode"] = "unrecognised"
                return AssistantMessage(role="assistant", content=STOP), state
            self.steps = self._conversation(task_id, opening)
        if self.steps is not None and not self.finished and (role == "tool" or self.pending is None):
            step = self._next(message)
            self.pending = step
            if step is not None:
                name, arguments = step
                call = ToolCall(id=f"ref_{len(state)}", name=name, arguments=dict(arguments))
                state[call.id] = name
                return AssistantMessage(role="assistant", content=None, tool_calls=[call]), state
            self.finished = True
        if self.finished and not self.said_done:
            self.said_done = True
            return AssistantMessage(role="assistant", content="Everything you asked for is done."), state
        return AssistantMessage(role="assistant", content=STOP), state


def reference_workspace(bundle: ConstructionBundle, fallback: bool = True) -> Workspace:
    """The oracle as a :class:`Workspace` (see the module docstring).

    ``fallback=False``: a task the oracle cannot decide from what its tools read gets no writes at all (mode
    ``undecided``) instead of the recorded gold; used to measure other tools under the oracle's decisions, whose
    reads may be what fails.

    Raises:
        InputError: the pack differs from the one the bundle was built from.
    """
    knowledge = Knowledge.load(bundle)
    return Workspace(create_tools=api_tools(bundle.openapi),
                     create_agent=lambda tools, context: Oracle(knowledge, tools, fallback), label="reference")


class _Replay:
    """Makes the task's recorded gold actions, one per turn, without reading anything (see :func:`replay_workspace`)."""

    def __init__(self, bundle: ConstructionBundle, openings: dict[str, str]) -> None:
        self.bundle = bundle
        self.openings = openings
        self.plan: list[dict[str, Any]] | None = None
        self.step = 0
        self.task_id: str | None = None

    def report(self) -> dict[str, Any]:
        """``task_id`` recognised and ``mode`` ``replay`` (or ``unrecognised``)."""
        return {"task_id": self.task_id, "mode": "replay" if self.task_id else "unrecognised", "decisions": []}

    def get_init_state(self, message_history=None):
        return {}

    def generate_next_message(self, message, state):
        from tau2.data_model.message import AssistantMessage, ToolCall

        if self.plan is None and getattr(message, "role", "") == "user":
            self.task_id = recognise(self.bundle.tasks, self.openings, message.content or "")
            task = self.bundle.tasks.get(self.task_id or "") or {}
            actions = (task.get("evaluation_criteria") or {}).get("actions") or []
            self.plan = [a for a in actions if a.get("requestor", "assistant") == "assistant"]
        plan = self.plan or []
        self.step += 1
        if self.step <= len(plan):
            action = plan[self.step - 1]
            call = ToolCall(id=f"replay_{self.step}", name=action["name"], arguments=dict(action["arguments"]))
            return AssistantMessage(role="assistant", content=None, tool_calls=[call]), state
        text = "Everything you asked for is done." if plan and self.step == len(plan) + 1 else STOP
        return AssistantMessage(role="assistant", content=text), state


def replay_workspace(bundle: ConstructionBundle) -> Workspace:
    """The earlier reference, kept to show what the run-time oracle adds: it recognises the task by its opening
    and replays the recorded gold actions through the same tools, reading nothing. It passes only when the
    served state is the one the gold was recorded on."""
    openings = {scripted_user(task).instructions: task_id for task_id, task in bundle.tasks.items()}
    return Workspace(create_tools=api_tools(bundle.openapi),
                     create_agent=lambda tools, context: _Replay(bundle, openings), label="replay")
