"""Scenario defects: K6 (missing information), K7 (ambiguity), K8 (contradiction), K10 (no fallback on
a refused branch), K11 (gold omits requested writes) and K16 (text names a tool or field that does not
exist).

K6: every argument of a gold action is stated in what the user knows (``known_info``, the reason and
instructions) or the ticket, or is in an earlier tool output the actor saw, in the policy, an enumerated
choice of the tool, or derived from known numbers; ids of *writes* are K14's. People listed in a write
(passengers) must each be named by the scenario.

K7: the scenario's reference to each gold write target (the values it states about the record: a
merchant, an amount, an option, a date) must match that record only, among its siblings (same table and
owner, or the same list inside a record); a confusable enumerated term ("economy" when the gold says
``basic_economy``) is a warning.

K8: (1) the ticket and the instructions state the same phone numbers, emails and locations; (2) a
quoted observation ("the status bar shows 'No Service'") is what the named user tool returns on the
initial state; (3) a dated or money fact the user states about a record ("the $35.00 fee charged on
March 12 to account A1") agrees with the database records that id reaches.

K10 / K11: each plain request of the scenario ("you want to cancel / return / exchange / change the
address …") maps to a gold write of a matching tool, or the scenario scripts the user's reaction to its
refusal ("if the agent says it is not possible, …"). A request with neither is K10 when the gold makes
no write at all (a refusal task without a fallback) and K11 when the gold writes other things (the write
was left out). A transfer needs no scripted reaction: its end condition is in tau2's global
user-simulator guidelines (``###TRANSFER###``).
Requests are matched by words, so these findings are warnings; taugen bundles also get the policy
family's K11 (writes the policy requires) with the facts cited.

K16: every name the text names as a tool (``taugen.validators.sufficiency.named_tools``: backticks, call
parentheses, "... tool") and every snake_case word close to a tool name that the scenario or the ticket
uses must be a tool, a function, a parameter or a database field of that actor; a near tool name is
suggested.

On taugen bundles K6 and K16 are ``taugen.validators.sufficiency``'s checks (``argument_unavailable``,
``named_tool``); the functions here serve ``taugen lint-tasks`` on folders taugen did not build.
"""

from __future__ import annotations

import difflib
import itertools
import json
import re
from decimal import Decimal
from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import (
    Defect, TaskSet, actions, dates_in, decimal, excerpt, free_reads, history_calls, instructions, is_free_text,
    leaves, looks_like_id, mentions, near_miss, numbers_in, outputs_before, parse_date, pool, reachable,
    scenario_text, task_id, task_index, to_findings, user_text,
)
from taugen.validators.defects.sources import taskset_for_view
from taugen.validators.findings import Finding
from taugen.validators.sufficiency import named_tools
from taugen.validators.registry import validator

CHECK = "defect_scenario"
RULE_K6 = ("every gold argument must be stated in known_info/ticket, uniquely derivable from earlier tool output, or "
           "covered by a stated fallback, for whoever must supply it")
RULE_K7 = ("enumerate readings of confusable terms and entity references; exactly one reading may be consistent with "
           "the gold end state")
RULE_K8 = ("turn stated facts and 'only if' clauses into predicates; they must be jointly satisfiable and satisfied by "
           "the gold path")
RULE_K10 = "every refused / unavailable / conditional request has an explicit user reaction and end condition"
RULE_K11 = "map each request in the scenario to gold writes, or to a refusal justified by a cited fact"
RULE_K16 = "every tool or field named in scenario or ticket text must exist for that actor"
_ID_KEYS = ("_id", "_ids")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _loose_mention(text: str, value: Any) -> bool:
    """``mentions`` plus: a word inside an underscore handle (``mei_kovacs_8020`` names Mei), phone and
    card numbers compared by digits, and case-insensitive whole strings."""
    if mentions(text, value):
        return True
    if not isinstance(value, str) or not value.strip():
        return False
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 7 and len(digits) >= len(value) - 4 and digits in re.sub(r"\D", "", text):
        return True
    tokens = {part for token in re.findall(r"[\w.@-]+", text.lower()) for part in re.split(r"[_-]", token)}
    return value.strip().lower() in tokens


# ------------------------------------------------------------------------------------------ K6


def _derived(number: Decimal, pool_numbers: list[Decimal]) -> bool:
    if number in pool_numbers:
        return True
    base = sorted(set(pool_numbers))[:40]
    for size in (2, 3):
        for combo in itertools.combinations(base, size):
            if sum(combo) == number:
                return True
    return any(number == n * k for n in base for k in range(2, 10))


def k6_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    policy = taskset.policy_text
    for task in taskset.tasks:
        identifier = task_id(task)
        text = user_text(task) + "\n" + (task.get("ticket") or "")
        replay = taskset.replay(task)
        complete = replay is not None and replay.init_error is None
        history = pool(history_calls(task))
        for index, action in enumerate(actions(task)):
            actor = action.get("requestor") or "assistant"
            info = taskset.tool(action.get("name", ""), actor)
            arguments = action.get("arguments") or {}
            if not complete:
                continue
            seen_outputs = outputs_before(replay, index, actor if actor == "user" else None)
            seen = pool(seen_outputs) | history
            if actor != "user":
                seen |= pool(free_reads(taskset, task)) | reachable(taskset, task)
            numbers = [decimal(v) for v in seen if re.fullmatch(r"-?\d+(\.\d+)?", v)]
            numbers = [abs(n) for n in numbers if n is not None]
            for path, value in leaves(arguments):
                key = path.split(".")[-1].split("[")[0]
                if value is None or isinstance(value, bool) or value == "" or is_free_text(value):
                    continue
                if isinstance(value, str) and re.fullmatch(r"[\d\s.+\-*/()%]+", value) and re.search(r"[+\-*/]", value):
                    terms = [decimal(t) for t in re.findall(r"\d+(?:\.\d+)?", value)]
                    if all(t is not None and (t in numbers or t <= 10) for t in terms):
                        continue
                if info is not None and info.kind == "write" and (key.endswith(_ID_KEYS) or key == "id"):
                    continue  # K14 owns the ids of writes
                if (key.endswith(_ID_KEYS) or key == "id") and taskset.db is not None \
                        and not task_index(taskset, task).has(value):
                    continue  # an id that does not exist at all is K5's
                if info is not None and (str(value) in info.choices.get(key, ())
                                         or (isinstance(value, str) and mentions(info.description, value))):
                    continue  # an enumerated choice the actor reads in the tool's own description
                number = decimal(value) if isinstance(value, (int, float)) else None
                if str(value) in taskset.documented or (number is not None and (
                        str(abs(number)) in taskset.documented or str(abs(number).normalize()) in taskset.documented)):
                    continue  # a value the agent-visible records state (a fee of the fee schedule)
                if str(value) in seen or _loose_mention(text, value) or (isinstance(value, str) and mentions(policy, value)):
                    continue
                if isinstance(value, str) and value.lower() in {v.lower() for v in seen if isinstance(v, str)}:
                    continue
                number = decimal(value) if isinstance(value, (int, float)) else None
                if number is not None and (abs(number) <= 1 or _derived(abs(number), numbers)
                                           or any(n == abs(number) for n, _ in numbers_in(text))):
                    continue
                defects.append(Defect("K6", "error" if looks_like_id(value) or actor == "user" else "warning",
                                      identifier, f"evaluation_criteria.actions[{index}].arguments.{path}",
                                      f"{action.get('name')} needs {key}={value!r}, which the {actor} cannot know: the "
                                      "scenario does not state it and no earlier tool output returns it",
                                      evidence=str(value), rule=RULE_K6))
    return defects


# ------------------------------------------------------------------------------------------ K7


def _stated_values(record: dict[str, Any], text: str, skip: set[str]) -> dict[str, Any]:
    """``{field pattern: value}`` of the record's values the scenario states; a pattern is a key, a
    ``key.inner`` of a nested dict, or ``key[].inner`` of a list of dicts (an order's item names)."""
    stated: dict[str, Any] = {}

    def consider(pattern: str, value: Any) -> None:
        if isinstance(value, (dict, list, bool)) or value is None:
            return
        if isinstance(value, str) and (len(value) < 3 or looks_like_id(value)):
            return
        if isinstance(value, int) and abs(value) < 10:
            return
        if mentions(text, abs(value) if isinstance(value, (int, float)) else value):
            stated.setdefault(pattern, value)

    for key, value in record.items():
        if key in skip:
            continue
        if isinstance(value, dict):
            for inner_key, inner in value.items():
                consider(f"{key}.{inner_key}", inner)
        elif isinstance(value, list):
            size = len(value)
            if size > 1 and re.search(rf"\b({size}|{_NUMBER_WORDS.get(size, '-')})\s+{re.escape(key)}\b", text, re.I):
                stated[f"#{key}"] = size
            for element in value:
                if isinstance(element, dict):
                    for inner_key, inner in element.items():
                        consider(f"{key}[].{inner_key}", inner)
        else:
            consider(key, value)
    return stated


_CATEGORICAL = {"kind", "type", "status", "fee_type", "country", "reason", "regulation", "currency", "category"}
_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def _value(record: dict[str, Any], pattern: str) -> set[Any]:
    """The values a record holds at a field pattern of :func:`_stated_values`."""
    if pattern.startswith("#"):
        return {len(record.get(pattern[1:]) or [])}
    if "[]." in pattern:
        key, inner = pattern.split("[].", 1)
        return {e.get(inner) for e in record.get(key) or [] if isinstance(e, dict)}
    current: Any = record
    for part in pattern.split("."):
        current = current.get(part) if isinstance(current, dict) else None
    return {current}


def k7_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    if taskset.db is None:
        return defects
    from taugen.validators.defects.grounding import _ORDER_RE

    for task in taskset.tasks:
        text = user_text(task)
        if _ORDER_RE.search(scenario_text(task)):
            ordered = True
        else:
            ordered = False
        index = task_index(taskset, task)
        identifier = task_id(task)
        gold = actions(task)
        for position, action in enumerate(gold):
            if not taskset.is_write(action):
                continue
            arguments = action.get("arguments") or {}
            used = {str(v) for a in gold if a.get("name") == action.get("name") for _, v in leaves(a.get("arguments") or {})}
            context = {str(v) for _, v in leaves(arguments)}
            for path, value in leaves(arguments):
                key = path.split(".")[-1].split("[")[0]
                if not (key.endswith(_ID_KEYS) or key == "id") or not isinstance(value, str) or mentions(text, value):
                    continue
                record_key = key[:-1] if key.endswith("_ids") else key
                records = index.records_with(record_key, value)
                if len(records) > 1:
                    records = [r for r in records if any(c in (index.path_of(r) or "") for c in context - {value})] or records
                if len(records) != 1 or ordered:
                    continue
                record = records[0]
                owner_keys = {k for k in ("user_id", "customer_id", "account_id") if k in record and k != record_key}
                stated = _stated_values(record, text, {record_key} | owner_keys)
                family = [s for s in index.siblings(record) if s.get(record_key) is not None
                          and all(s.get(k) == record.get(k) for k in owner_keys)]
                # a value every sibling shares, or one of the owner's own profile (the user's zip code),
                # describes the owner, not one of their records
                owners = [index.owned(record[k]) for k in owner_keys]
                profile = pool(*[o for o in owners if o is not None])
                stated = {k: v for k, v in stated.items() if not all(v in _value(s, k) for s in family)
                          and str(v) not in profile}
                if not stated or all(k.split(".")[-1].split("]")[-1].lstrip(".") in _CATEGORICAL for k in stated):
                    continue  # "a fee", "a pending order": a category, not a reference to one record
                rivals = [s.get(record_key) for s in family if str(s.get(record_key)) not in used
                          and s.get(record_key) != value and all(v in _value(s, k) for k, v in stated.items())]
                rivals = [r for r in rivals if _valid_reading(taskset, task, position, value, r)]
                if rivals:
                    defects.append(Defect("K7", "error" if taskset.taugen else "warning", identifier,
                                          f"evaluation_criteria.actions[{position}].arguments.{path}",
                                          f"the scenario's description ({', '.join(f'{k}={v!r}' for k, v in stated.items())}) "
                                          f"fits {value!r} and also {', '.join(map(repr, sorted(set(map(str, rivals)))[:3]))}; "
                                          "the gold picks one of several readings", evidence=excerpt(stated), rule=RULE_K7))
            info = taskset.tool(action.get("name", ""), action.get("requestor") or "assistant")
            for key, choices in (info.choices.items() if info else []):
                chosen = str(arguments.get(key, ""))
                if not chosen or chosen not in choices:
                    continue
                words = {c: c.replace("_", " ").lower() for c in choices}
                confusable = [c for c in choices if c != chosen and (words[c] in words[chosen] or words[chosen] in words[c])]
                said = [c for c in confusable if mentions(text, words[c])]
                if said and not _mentioned_alone(text, words[chosen], [words[c] for c in confusable]):
                    defects.append(Defect("K7", "warning", identifier,
                                          f"evaluation_criteria.actions[{position}].arguments.{key}",
                                          f"the scenario says {words[said[0]]!r}, which can read as {chosen!r} or "
                                          f"{said[0]!r}; the gold picks {chosen!r}", rule=RULE_K7))
    return defects


def _valid_reading(taskset: TaskSet, task: dict[str, Any], position: int, value: Any, rival: Any) -> bool:
    """Whether the gold still runs when action ``position`` acts on ``rival`` instead of ``value``: a
    reading the tools refuse (modifying a delivered order) or, with policy rules, one the policy forbids
    is no reading at all."""
    if taskset.replayer is None:
        return True
    gold = actions(task)
    action = gold[position]
    swapped = json.loads(json.dumps(action.get("arguments") or {}).replace(json.dumps(value), json.dumps(rival)))
    calls = [*gold[:position], {**action, "arguments": swapped}]
    replay = taskset.replayer(task, calls)
    if replay.init_error is not None or not replay.steps or replay.steps[-1].error is not None:
        return False
    if taskset.rules and taskset.facts is not None and taskset.toolkit_class is not None:
        from taugen.validators.defects.policy import run_policy

        violations, _, _ = run_policy(taskset, task, calls)
        if any(index == position and v.severity == "error" for index, v in violations):
            return False  # the policy forbids that reading (a fee older than the refund window)
    return True


def _mentioned_alone(text: str, word: str, longer: list[str]) -> bool:
    """``word`` occurs in ``text`` outside every occurrence of a longer confusable term."""
    lowered = text.lower()
    spans = [m.span() for term in longer if word in term for m in re.finditer(re.escape(term), lowered)]
    for match in re.finditer(rf"(?<![\w]){re.escape(word)}(?![\w])", lowered):
        if not any(start <= match.start() and match.end() <= end for start, end in spans):
            return True
    return False


# ------------------------------------------------------------------------------------------ K8

_PHONE = re.compile(r"\b\d{3}-\d{3}-\d{4}\b")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b")
_LOCATION = re.compile(r"\b(abroad in|at home in)\s+(?:the\s+)?([A-Z][\w ]+?)(?=[.,;]|$)", re.M)
_QUOTE = re.compile(r"([A-Za-z][\w ]{2,40}?)\s+(?:shows|says|displays|reads)\s+['\"“]([^'\"”]{2,60})['\"”]")
_PAST = re.compile(r"\b(was|were|charged|posted|opened|filed|paid|billed|refunded|credited|rebated|changed|updated)\b", re.I)
_MONEY_WORDS = re.compile(r"\b(charge|charged|fee|fees|refund|refunded|credit|credited|claim|paid|billed|rebated)\b", re.I)


def _ticket_contradictions(task: dict[str, Any]) -> list[str]:
    ticket = task.get("ticket") or ""
    if not ticket:
        return []
    text = user_text(task)
    found = []
    for pattern, what in ((_PHONE, "phone number"), (_EMAIL, "email")):
        stated, claimed = set(pattern.findall(text)), set(pattern.findall(ticket))
        if stated and claimed and not claimed <= stated:
            found.append(f"the ticket's {what} {sorted(claimed - stated)[0]} is not the one the user knows "
                         f"({sorted(stated)[0]})")
    stated_places = {(m.group(1), m.group(2).strip()) for m in _LOCATION.finditer(text)}
    claimed_places = {(m.group(1), m.group(2).strip()) for m in _LOCATION.finditer(ticket)}
    if stated_places and claimed_places and not claimed_places <= stated_places:
        found.append(f"the ticket says the user is {' '.join(sorted(claimed_places)[0])} but the scenario says "
                     f"{' '.join(sorted(stated_places)[0])}")
    if len({place for place in stated_places}) > 1:
        found.append(f"the scenario puts the user in two places: {sorted(stated_places)}")
    return found


def _observations(taskset: TaskSet, task: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    """``(where, quoted, tool, output)`` for quoted observations the user's read tools can check."""
    if taskset.replayer is None or not taskset.user_tools:
        return []
    found = []
    for field, text in (("ticket", task.get("ticket") or ""), *((f"user_scenario.instructions.{k}", v)
                                                               for k, v in instructions(task).items())):
        for match in _QUOTE.finditer(text):
            subject = match.group(1).lower().split()
            tool = next((name for name, info in sorted(taskset.user_tools.items()) if info.kind == "read"
                         and not info.required and all(w in name for w in subject[-2:])), None)
            if tool is None:
                continue
            replay = taskset.replayer(task, [{"name": tool, "requestor": "user", "arguments": {}}])
            if replay.init_error or not replay.steps or replay.steps[0].error:
                continue
            found.append((field, match.group(2), tool, replay.steps[0].output))
    return found


def _record_facts(taskset: TaskSet, task: dict[str, Any]) -> list[tuple[str, str]]:
    """Dated or money facts the user states about a database record that the record's data denies."""
    if taskset.db is None:
        return []
    index = task_index(taskset, task)
    problems = []
    for sentence in _sentences(user_text(task)):
        if not _PAST.search(sentence):
            continue
        ids = [token.strip(".,;:()") for token in sentence.split()]
        ids = [token for token in ids if looks_like_id(token) and index.has(token)]
        if not ids:
            continue
        connected: list[dict[str, Any]] = []
        for identifier in ids:
            for key, _ in index.where(identifier):
                connected += index.records_with(key, identifier)
        for record in list(connected):
            for key, value in record.items():
                if isinstance(value, str) and key.endswith("_id") and value not in ids:
                    connected += index.records_with(key, value)
        if not connected:
            continue
        dates = {parse_date(v) for r in connected for _, v in leaves(r) if parse_date(v)}
        money = {abs(decimal(v)) for r in connected for _, v in leaves(r)
                 if isinstance(v, (int, float)) and not isinstance(v, bool)}
        for ref in dates_in(sentence):
            if not any(ref.matches(day) for day in dates):
                problems.append((sentence, f"the date {ref.text!r} matches no date of the records of "
                                           f"{', '.join(ids)}"))
        if _MONEY_WORDS.search(sentence):
            for number, written in numbers_in(sentence):
                if "$" in written and number not in money:
                    near = any(near_miss(str(number), str(m)) for m in money)
                    problems.append((sentence, f"the amount {written!r} is not an amount of the records of "
                                               f"{', '.join(ids)}" + (" (a near miss)" if near else "")))
    return problems


def k8_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    for task in taskset.tasks:
        identifier = task_id(task)
        for problem in _ticket_contradictions(task):
            defects.append(Defect("K8", "error", identifier, "ticket", problem, evidence=excerpt(task.get("ticket")),
                                  rule=RULE_K8))
        for field, quoted, tool, output in _observations(taskset, task):
            if quoted.lower() in str(output).lower():
                continue
            shared = set(re.findall(r"\w+", quoted.lower())) & set(re.findall(r"\w+", str(output).lower()))
            defects.append(Defect("K8", "warning" if shared else "error", identifier, field,
                                  f"the text says '{quoted}' but {tool} on the task's initial state returns "
                                  f"{excerpt(output, 120)!r}" + (" (a paraphrase at best)" if shared else ""),
                                  evidence=quoted, rule=RULE_K8))
        for sentence, problem in _record_facts(taskset, task):
            defects.append(Defect("K8", "error" if "near miss" in problem else "warning", identifier,
                                  "user_scenario.instructions", problem, evidence=sentence, rule=RULE_K8))
    return defects


# ------------------------------------------------------------------------------------------ K10 / K11

_REFUSAL = re.compile(r"\b(not possible|impossible|cannot|can't|can not|unable|refus\w*|won't|will not|not allowed|"
                      r"isn't allowed|not eligible|denied|denies|deny|too late|no further|decline\w*|reject\w*|not able|"
                      r"doesn't allow|does not allow|says no|say no)\b", re.I)
_CONDITION = re.compile(r"\b(if|when|unless|otherwise|in case|only if)\b", re.I)
_TRANSFER = re.compile(r"\b(transfer\w*|human|specialist|representative|###TRANSFER###)\b", re.I)
_END = re.compile(r"(end the (conversation|call|chat)|###STOP###|hang up|accept|do not insist|don't insist|give up|"
                  r"thank the agent|stop the conversation|that's fine|is fine|cancel the (entire )?request|move on|"
                  r"leave it|drop it)", re.I)
_REQUESTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cancel": (r"\bcancel\b", ("cancel",)),
    "return": (r"\breturn (?:the|my|an?|all|both|these|those|it|them|everything)\b", ("return", "cancel_pending")),
    "exchange": (r"\b(?:exchange|swap)\w*", ("exchange", "modify_pending_order_items")),
    "book": (r"\bbook (?:a|an|the|new|one|two|three|\d)\b", ("book",)),
    "upgrade": (r"\b(?:upgrade|downgrade)\w*", ("flights", "cabin")),
    "change the address": (r"\b(?:change|update|modify|correct)\w*\b[^.]{0,40}\baddress", ("address",)),
    "add bags": (r"\badd\w*\b[^.]{0,30}\b(?:bag|bags|baggage|suitcases?)\b", ("baggages",)),
    "change passengers": (r"\b(?:remove|add|change)\w*\b[^.]{0,30}\bpassengers?\b", ("passengers",)),
    "refund": (r"\brefund\w*", ("refund",)),
    "dispute": (r"\bdispute\w*", ("dispute",)),
    "replace": (r"\breplace\w*", ("replacement",)),
    "close": (r"\bclose (?:the|my|an?|this|that)\b", ("close",)),
    "wire": (r"\bwire\b", ("wire",)),
    "stop payment": (r"\bstop payment\b", ("stop_payment",)),
    "refuel": (r"\brefuel\w*", ("refuel",)),
}
"""Request phrases and the stems of the write tools that carry them out."""
_ASK = re.compile(r"\b(want|wants|ask|asks|would like|'d like|need|needs|wish|request|like to)\b", re.I)
_NEGATION = re.compile(r"\b(not|don't|do not|never|no longer|didn't|won't)\b", re.I)


def _requests(task: dict[str, Any], write_tools: set[str]) -> list[tuple[str, str, set[str]]]:
    """``(request, sentence, tools)`` for every plain (not negated, not conditional) request of the
    scenario that a write tool of the domain carries out."""
    fields = instructions(task)
    text = f"{fields.get('reason_for_call', '')}\n{fields.get('task_instructions', '')}"
    found = []
    for sentence in _sentences(text):
        if not _ASK.search(sentence) or _NEGATION.search(sentence) or _CONDITION.search(sentence):
            continue
        for request, (pattern, stems) in _REQUESTS.items():
            if re.search(pattern, sentence, re.I):
                tools = {t for t in write_tools if any(stem in t for stem in stems)}
                if tools:
                    found.append((request, sentence, tools))
    return found


def _scripted_refusal(text: str, request: str) -> bool:
    """The scenario tells the user what to do if this request is refused or impossible."""
    stem = _REQUESTS[request][0]
    for sentence in _sentences(text):
        if _CONDITION.search(sentence) and re.search(r"\b(instead|prefer|change (your|their) mind|only one|rethink)\b",
                                                     sentence, re.I):
            return True
        if (_CONDITION.search(sentence) and (_REFUSAL.search(sentence) or _END.search(sentence))
                and re.search(stem, sentence, re.I)) or (_CONDITION.search(sentence) and _REFUSAL.search(sentence)):
            return True
    return False


def k10_k11_defects(taskset: TaskSet) -> list[Defect]:
    """Requests the gold does not carry out: without a scripted reaction to the refusal it is K10 (the
    gold makes no write at all: the task is a refusal) or K11 (the gold writes other things: the write
    was left out)."""
    defects = []
    write_tools = {name for name, info in {**taskset.agent_tools, **taskset.user_tools}.items() if info.kind == "write"}
    if not write_tools:
        return defects
    for task in taskset.tasks:
        gold = actions(task)
        if any("transfer" in (a.get("name") or "") for a in gold):
            continue
        done = {a.get("name", "") for a in gold}
        writes = [a for a in gold if taskset.is_write(a)]
        keys = {key for a in writes for key in (a.get("arguments") or {})}
        text = scenario_text(task)
        for request, sentence, tools in _requests(task, write_tools):
            stems = _REQUESTS[request][1]
            if tools & done or any(stem in key for stem in stems for key in keys) or _scripted_refusal(text, request):
                continue
            if writes:
                defects.append(Defect("K11", "warning", task_id(task), "user_scenario.instructions",
                                      f"the user asks to {request} but the gold makes no {' / '.join(sorted(tools))} "
                                      "call and the scenario does not script a refusal", evidence=sentence[:200],
                                      rule=RULE_K11))
            else:
                defects.append(Defect("K10", "warning", task_id(task), "user_scenario.instructions",
                                      f"the user asks to {request}, the gold makes no write (the request is refused), "
                                      "and the scenario gives no reaction to the refusal and no end condition",
                                      evidence=sentence[:200], rule=RULE_K10))
            break
    return defects


# ------------------------------------------------------------------------------------------ K16

_SNAKE = re.compile(r"(?<![\w.@/-])([a-z]+(?:_[a-z]+)+)(?![\w.@/-])")


def _known_names(taskset: TaskSet) -> set[str]:
    names = set(taskset.agent_tools) | set(taskset.user_tools)
    for helpers in taskset.helpers.values():
        names |= helpers
    for info in [*taskset.agent_tools.values(), *taskset.user_tools.values()]:
        names |= set(info.parameters)
    if taskset.db is not None:
        names |= {key for key in taskset.db_index.keys if not looks_like_id(key)}
    return names


def _nearest_tool(name: str, tools: list[str]) -> str | None:
    tail = "_".join(name.split("_")[1:])
    for tool in tools:
        if tail and "_".join(tool.split("_")[1:]) == tail:
            return tool
    close = difflib.get_close_matches(name, tools, n=1, cutoff=0.75)
    return close[0] if close else None


def k16_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    if not taskset.agent_tools and not taskset.user_tools:
        return defects
    known = _known_names(taskset)
    tools = sorted(set(taskset.agent_tools) | set(taskset.user_tools))
    for task in taskset.tasks:
        reported = set()
        fields = [(f"user_scenario.instructions.{k}", v, "user") for k, v in instructions(task).items() if v]
        fields.append(("ticket", task.get("ticket") or "", "assistant"))
        for path, text, actor in fields:
            if actor == "user" and not taskset.user_tools and not taskset.helpers.get("user"):
                continue  # the runtime has no user toolkit at all: nothing to judge names against (K14 says so)
            named = [(name, True) for name in named_tools(text)]
            named += [(m.group(1), False) for m in _SNAKE.finditer(text)]
            for name, quoted in named:
                if name in reported:
                    continue
                if name in known:
                    if actor == "user" and name in taskset.agent_tools and name not in taskset.user_tools \
                            and taskset.user_tools and quoted:
                        reported.add(name)
                        defects.append(Defect("K16", "warning", task_id(task), path,
                                              f"the user is told about `{name}`, a tool only the agent has",
                                              evidence=name, rule=RULE_K16))
                    continue
                nearest = _nearest_tool(name, tools)
                if not quoted and nearest is None:
                    continue
                reported.add(name)
                defects.append(Defect("K16", "error", task_id(task), path,
                                      f"the text names `{name}`, which is no tool, function, parameter or field"
                                      + (f" (did it mean `{nearest}`?)" if nearest else ""),
                                      evidence=_context(text, name), rule=RULE_K16))
    return defects


def _context(text: str, name: str) -> str:
    at = text.find(name)
    return text[max(0, at - 60): at + len(name) + 40].replace("\n", " ")


def scenario_defects(taskset: TaskSet) -> list[Defect]:
    return (k6_defects(taskset) + k7_defects(taskset) + k8_defects(taskset) + k10_k11_defects(taskset)
            + k16_defects(taskset))


@validator(CHECK)
def check_scenario(view: BundleView) -> list[Finding]:
    """K7, K8, K10 and K11 on a taugen bundle; K6 and K16 there are ``taugen.validators.sufficiency``'s
    (``argument_unavailable``, ``named_tool``), so they are not repeated."""
    taskset = taskset_for_view(view)
    defects = k7_defects(taskset) + k8_defects(taskset) + k10_k11_defects(taskset)
    return to_findings(CHECK, defects, taskset.tasks)
