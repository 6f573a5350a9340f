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
March 12 to account A1", "the charge from PAYPAL *DIGIMARKET posted on February 11") agrees with the
database records the stated id reaches or the gold record the sentence names; (4) the name the user
goes by is the name on the person record the gold acts for; (5) an "only if" condition (a fee waived,
an amount cap) holds on the gold path; (6) ``unknown_info`` keeps nothing from the user that ``known_info``
gives them ("You do not know the account number of your Premier Checking account" beside "The account is
your Premier Checking account, number A20000342").

K10 / K11: each plain request of the scenario ("you want to cancel / return / exchange / change the
address …") maps to a gold write of a matching tool (of either request in "cancel or return everything"),
or the scenario scripts the user's reaction to its refusal ("if the agent says it is not possible, …"): a
conditional sentence about this request (its stem or a shared word, or nothing specific after it) whose
reaction ends the matter (accept, end the conversation, accept a transfer, forget about it) or turns to an
alternative ("you are ok with canceling the other flight"). A request with neither is K10 when its refusal is justified (with
policy rules: the policy forbids every candidate write of its tools; without: the gold makes no write
but verifications) and K11 otherwise. With policy rules a request or acceptance is also K11 when the
policy requires, or allows on a record the scenario describes, a write of its tools the gold lacks. A
transfer needs no scripted reaction: its end condition is in tau2's global user-simulator guidelines
(``###TRANSFER###``). Requests are matched by words, so on foreign folders these findings are warnings;
on taugen bundles (generated text, policy as code) they are errors.

K16: every name the text names as a tool (``taugen.validators.sufficiency.named_tools``: backticks, call
parentheses, "... tool"), every snake_case word close to a tool name and every snake_case word called a
field / column / parameter that the scenario or the ticket uses must be a tool, a function, a parameter
or a database field of that actor; a near tool or field name is suggested.

On taugen bundles K6 and the K16 of quoted tool names are ``taugen.validators.sufficiency``'s checks
(codes ``K6`` and ``K16``); the K6 function here serves ``taugen lint-tasks`` on folders taugen did not
build.
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
from taugen.findings import Finding
from taugen.validators.memo import Memo, digest
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
        bare_terms: set[tuple[str, str]] = set()  # (argument, value) already reported as a bare term
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
                if len(records) > 1:  # the record the id names (its own id), else the one under the call's other ids
                    owner = index.owned(value)
                    records = [r for r in records if r is owner] or [
                        r for r in records if any(c in (index.path_of(r) or "") for c in context - {value})] or records
                if len(records) != 1 or ordered:
                    continue
                record = records[0]
                if any(isinstance(v, str) and looks_like_id(v) and not k.endswith(_ID_KEYS) and mentions(text, v)
                       for k, v in record.items()):
                    continue  # the scenario states one of the record's own identifiers (its email): a unique reference
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
                elif not said and (key, chosen) not in bare_terms:
                    rivals = broader_readings(taskset, task, position, key, chosen, choices)
                    if rivals:
                        bare_terms.add((key, chosen))  # one finding per term: five legs "to economy" are one reading
                        defects.append(Defect("K7", "warning", identifier,
                                              f"evaluation_criteria.actions[{position}].arguments.{key}",
                                              f"the scenario says {words[chosen]!r} alone, which can read as "
                                              f"{chosen!r} or {rivals[0]!r} (both are {key} values, and nothing "
                                              f"excludes {words[rivals[0]]!r}); the gold picks {chosen!r}",
                                              evidence=words[chosen], rule=RULE_K7))
    return defects


def broader_readings(taskset: TaskSet, task: dict[str, Any], position: int, key: str, chosen: str,
                     choices: tuple[str, ...]) -> list[str]:
    """The other readings of the gold's enumerated value ``chosen`` (argument ``key`` of gold action
    ``position``) when the scenario names it only by its bare words: every choice whose words contain
    ``chosen``'s ("economy" inside "basic economy") while the scenario never says the longer term
    (saying it, even to exclude it, "Economy (not Basic Economy)", separates the two) and does say the
    bare one. There is one reading when the record the action writes already holds ``chosen`` (a
    reservation in economy the user wants to "keep economy" or "stay in economy": the term names what
    the user has, and the gold leaves it as it is). A rival is no reading when that record already holds
    the rival (a reservation in basic economy "upgraded to economy" cannot mean basic economy) or when
    the gold no longer runs with it (:func:`_valid_reading`: the tools or, with policy rules, the policy
    refuse it).

    From defect-kinds.md K7, whose example is this very case ("move me to economy" when both economy and
    basic economy exist): "enumerate readings of confusable terms; exactly one reading may be consistent
    with the gold end state". Returns the rivals in ``choices`` order (empty: one reading). Never raises
    on a task whose arguments name no record (nothing is held then).
    """
    text = user_text(task)
    words = {c: c.replace("_", " ").lower() for c in choices}
    bare = words[chosen]
    broader = [c for c in choices if c != chosen and bare != words[c]
               and re.search(rf"(?<![\w]){re.escape(bare)}(?![\w])", words[c])]
    if not broader or any(mentions(text, words[c]) for c in broader) or not mentions(text, bare):
        return []
    action = actions(task)[position]
    index = task_index(taskset, task)
    targets = [index.owned(v) for k, v in leaves(action.get("arguments") or {})
               if isinstance(v, str) and k.split(".")[-1].split("[")[0].endswith(("_id", "id"))]
    held = {str(r.get(key)) for r in targets if isinstance(r, dict) and r.get(key) is not None}
    if chosen in held:
        return []  # the gold keeps the value the record has: the bare term names the user's own
    return [c for c in broader if c not in held and _valid_reading(taskset, task, position, chosen, c)]


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


def _gold_records(taskset: TaskSet, task: dict[str, Any]) -> list[dict[str, Any]]:
    """Top-level records holding an id the gold's arguments use (the accounts, cards, customers the gold
    acts on and every record filed under them, such as an account's transactions)."""
    index = task_index(taskset, task)
    found: dict[int, dict[str, Any]] = {}
    for action in actions(task):
        for _, value in leaves(action.get("arguments") or {}):
            if looks_like_id(value):
                for record in index.containing(value):
                    found[id(record)] = record
    return list(found.values())


def _named_in(sentence: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records whose own distinctive words (a merchant, a description: a string of six or more
    characters that is no id, date or category) the sentence states."""
    named = []
    for record in records:
        for key, value in record.items():
            if (isinstance(value, str) and len(value) >= 6 and key not in _CATEGORICAL and not looks_like_id(value)
                    and parse_date(value) is None and mentions(sentence, value)):
                named.append(record)
                break
    return named


def _record_facts(taskset: TaskSet, task: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(sentence, problem, severity)`` for dated or money facts the user states about a database
    record that the record's data denies. A sentence reaches records through the ids it states (and
    the records those ids link to) or, more precisely, by naming a record the gold works on (its
    merchant or description); a contradiction is an error when the sentence names the record itself
    or the value is a near miss of a recorded one, a warning otherwise (the ids reach many records)."""
    if taskset.db is None:
        return []
    index = task_index(taskset, task)
    gold_records: list[dict[str, Any]] | None = None
    problems = []
    for sentence in _sentences(user_text(task)):
        if not _PAST.search(sentence):
            continue
        ids = [token.strip(".,;:()") for token in sentence.split()]
        ids = [token for token in ids if looks_like_id(token) and index.has(token)]
        if gold_records is None:
            gold_records = _gold_records(taskset, task)
        named = _named_in(sentence, gold_records)
        connected: list[dict[str, Any]] = []
        for identifier in ids:
            for key, _ in index.where(identifier):
                connected += index.records_with(key, identifier)
        for record in list(connected):
            for key, value in record.items():
                if isinstance(value, str) and key.endswith("_id") and value not in ids:
                    connected += index.records_with(key, value)
        if named:
            connected, sure = named, True
            about = ", ".join(sorted({str(next((v for k, v in r.items() if k.endswith("_id")), "?")) for r in named}))
        elif connected:
            sure, about = False, ", ".join(ids)
        else:
            continue
        dates = {parse_date(v) for r in connected for _, v in leaves(r) if parse_date(v)}
        money = {abs(decimal(v)) for r in connected for _, v in leaves(r)
                 if isinstance(v, (int, float)) and not isinstance(v, bool)}
        for ref in dates_in(sentence):
            if not any(ref.matches(day) for day in dates):
                near = any(ref.month == day.month and abs(ref.day - day.day) <= 3 for day in dates)
                problems.append((sentence, f"the date {ref.text!r} matches no date of the records of {about}"
                                           + (" (a near miss)" if near else ""), "error" if sure or near else "warning"))
        if _MONEY_WORDS.search(sentence):
            for number, written in numbers_in(sentence):
                if "$" in written and number not in money:
                    near = any(near_miss(str(number), str(m)) for m in money)
                    problems.append((sentence, f"the amount {written!r} is not an amount of the records of {about}"
                                               + (" (a near miss)" if near else ""), "error" if sure or near else "warning"))
    return problems


_STATED_NAME = re.compile(r"\b(?:You are|Your name is|My name is|I am)\s+([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)+)")


def _name_contradictions(taskset: TaskSet, task: dict[str, Any]) -> list[str]:
    """The user's stated name ("You are Jacqueline Le") is not the name on the person record the gold
    acts for (the record owning a gold ``customer_id`` / ``user_id``, with first and last name)."""
    if taskset.db is None:
        return []
    stated = {m.group(1).strip() for m in _STATED_NAME.finditer(user_text(task))}
    if not stated:
        return []
    index = task_index(taskset, task)
    people = {}
    for action in actions(task):
        for path, value in leaves(action.get("arguments") or {}):
            if path.split(".")[-1] in ("customer_id", "user_id") and isinstance(value, str):
                record = index.owned(value)
                names = dict(leaves(record)) if record else {}
                first = next((v for k, v in names.items() if k.split(".")[-1] == "first_name"), None)
                last = next((v for k, v in names.items() if k.split(".")[-1] == "last_name"), None)
                if isinstance(first, str) and isinstance(last, str):
                    people[value] = f"{first} {last}"
    if not people:
        return []
    known = {name.lower() for name in people.values()}
    return [f"the user is called {name!r} but the gold acts for {', '.join(f'{k} ({v})' for k, v in sorted(people.items()))}"
            for name in sorted(stated) if name.lower() not in known
            and not any(name.lower().startswith(k) or k.startswith(name.lower()) for k in known)]


_NOT_KNOWN = re.compile(r"\b(?:do not|don't|does not|doesn't|no longer) (?:know|remember|have)\s+(?:the |your |their |his |her )?"
                        r"(?P<thing>[a-z][\w -]*?)(?:\s+of\s+(?P<owner>[^.;]+?))?\s*(?:[.;]|$)", re.I)
_ARTICLE = re.compile(r"^(?:the|your|their|his|her|a|an)\s+", re.I)


def _told_and_withheld(task: dict[str, Any]) -> list[tuple[str, str]]:
    """Sentences of ``unknown_info`` that ``known_info`` contradicts: the user "does not know the account
    number of your Premier Checking account" while known_info says "The account is your Premier Checking
    account, number A20000342". Read conservatively: an unknown sentence names a thing ("account number",
    "email address") and, after "of", whose it is; a known sentence contradicts it when it names the owner
    and the thing's last word followed by a value with a digit or an ``@`` ("number A20000342"), or, with no
    owner named, the whole thing followed by one ("email address is jo@x.com"; "Your user id is ..." does
    not contradict "You do not remember your reservation id", tau2 airline 21). Returns ``(unknown
    sentence, known sentence)`` pairs."""
    fields = instructions(task)
    known, unknown = fields.get("known_info") or "", fields.get("unknown_info") or ""
    if not known or not unknown:
        return []
    told = [s.strip() for s in re.split(r"(?<=[.;!?])\s+|\n", known) if s.strip()]
    found = []
    for match in _NOT_KNOWN.finditer(unknown):
        thing = match.group("thing").strip()
        owner = _ARTICLE.sub("", (match.group("owner") or "").strip())
        named = thing.split()[-1] if owner else thing  # whose it is is said apart ("..., number A2...")
        value = re.compile(rf"\b{re.escape(named)}\b(?:\s+(?:is|was|:))?\s+(?:[\w.+-]*[\d@][\w.@+-]*)", re.I)
        for sentence in told:
            if (not owner or owner.lower() in sentence.lower()) and value.search(sentence):
                found.append((match.group(0).strip(), sentence))
                break
    return found


_ONLY_IF = re.compile(r"\b(?:only if|only when|as long as|provided that|on condition that)\b([^.;]*)", re.I)
_WAIVED = re.compile(r"\b(waived?|free|no (?:fee|charge)|at no (?:cost|charge)|without (?:a |any )?(?:fee|charge))\b", re.I)
_CAP = re.compile(r"\b(?:under|below|less than|no more than|at most|up to|not more than|does not exceed)\s+"
                  r"(\$?[\d,]+(?:\.\d+)?)", re.I)


def _unsatisfied_conditions(taskset: TaskSet, task: dict[str, Any]) -> list[tuple[str, str]]:
    """``(clause, problem)`` for "only if" conditions the gold path breaks: the user agrees only if a fee
    is waived while a gold write charges one, or only up to an amount the gold exceeds. The clause is
    matched to the writes whose tool name shares a word with it (all writes when none does)."""
    problems = []
    writes = [a for a in actions(task) if taskset.is_write(a)]
    for match in _ONLY_IF.finditer(user_text(task)):
        clause = match.group(1)
        words = set(re.findall(r"[a-z]+", clause.lower())) - {"the", "a", "an", "if", "is", "fee", "fees", "it"}
        targets = [a for a in writes if words & set((a.get("name") or "").split("_"))] or writes
        fee_only = bool(re.search(r"\b(fee|fees|charge)\b", clause, re.I))
        charged = [(a.get("name"), key, value) for a in targets for key, value in (a.get("arguments") or {}).items()
                   if isinstance(value, (int, float)) and not isinstance(value, bool)
                   and ("fee" in key if fee_only else True)]
        if _WAIVED.search(clause):
            for name, key, value in charged:
                if "fee" in key and value > 0:
                    problems.append((match.group(0), f"the user agrees only if{clause}, but the gold {name} charges "
                                                     f"{key}={value}"))
        cap = _CAP.search(clause)
        if cap is not None:
            limit = decimal(cap.group(1).replace("$", "").replace(",", ""))
            for name, key, value in charged:
                if limit is not None and decimal(value) is not None and abs(decimal(value)) > limit:
                    problems.append((match.group(0), f"the user agrees only if{clause}, but the gold {name} has "
                                                     f"{key}={value}"))
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
        for sentence, problem, severity in _record_facts(taskset, task):
            defects.append(Defect("K8", severity, identifier, "user_scenario.instructions", problem, evidence=sentence,
                                  rule=RULE_K8))
        for problem in _name_contradictions(taskset, task):
            defects.append(Defect("K8", "error", identifier, "user_scenario.instructions", problem, rule=RULE_K8))
        for withheld, told in _told_and_withheld(task):
            defects.append(Defect("K8", "error", identifier, "user_scenario.instructions.unknown_info",
                                  f"unknown_info says {withheld!r} but known_info gives it: {told!r}",
                                  evidence=told, rule=RULE_K8))
        for clause, problem in _unsatisfied_conditions(taskset, task):
            defects.append(Defect("K8", "error", identifier, "user_scenario.instructions", problem, evidence=clause,
                                  rule=RULE_K8))
    return defects


# ------------------------------------------------------------------------------------------ K10 / K11

_REFUSAL = re.compile(r"\b(not possible|impossible|cannot|can't|can not|unable|refus\w*|won't|will not|not allowed|"
                      r"isn't allowed|not eligible|denied|denies|deny|too late|no further|decline\w*|reject\w*|not able|"
                      r"doesn't allow|does not allow|says no|say no|(?:does|do) not agree|(?:doesn't|don't) agree|"
                      r"disagree\w*)\b", re.I)
_CONDITION = re.compile(r"\b(if|when|unless|otherwise|in case|only if)\b", re.I)
_TRANSFER = re.compile(r"\b(transfer\w*|human|specialist|representative|###TRANSFER###)\b", re.I)
_END = re.compile(r"(end the (conversation|call|chat)|###STOP###|hang up|accept|do not insist|don't insist|give up|"
                  r"thank the agent|stop the conversation|that's fine|is fine|cancel the (entire )?request|move on|"
                  r"leave it|drop it|forget (about )?it)", re.I)
_REQUESTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cancel": (r"\bcancel\b", ("cancel",)),
    "change the address": (r"\b(?:change|update|modify|correct)\w*\b[^.]{0,40}\baddress", ("address",)),
}
"""Request phrases and the stems of the write tools that carry them out, for any domain: cancelling and
changing an address. A domain adds its own (``DomainDefinition.request_words``, read into
``TaskSet.requests``; see :func:`request_table`), as the retail pack adds returning and exchanging an order;
a tau2 task folder of a domain a built-in pack mirrors (airline, retail, telecom) gets that pack's
(:func:`taugen.validators.defects.sources.taskset_from_folder`)."""


def request_table(taskset: TaskSet) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The request phrases the K10/K11 check looks for in ``taskset``: :data:`_REQUESTS` with the domain's
    own (``taskset.requests``) added after them (replacing a generic one of the same name)."""
    return {**_REQUESTS, **taskset.requests} if taskset.requests else _REQUESTS


_ASK = re.compile(r"\b(want|wants|ask|asks|would like|'d like|need|needs|wish|request|like to)\b", re.I)
_ACCEPT = re.compile(r"\b(accept|accepts|agree|agrees)\b", re.I)
_NEGATION = re.compile(r"\b(not|don't|do not|never|no longer|didn't|won't)\b", re.I)


def _requests(task: dict[str, Any], write_tools: set[str],
              table: dict[str, tuple[str, tuple[str, ...]]] = _REQUESTS) -> list[tuple[str, str, set[str], bool]]:
    """``(request, sentence, tools, accepted)`` for every plain (not negated, not conditional) request of
    the scenario that a write tool of the domain carries out; ``accepted`` marks a permission ("accept
    any credit the agent offers") rather than an ask or a consent to one action ("agree to switch to
    online statements"): a permission cannot be refused."""
    fields = instructions(task)
    text = f"{fields.get('reason_for_call', '')}\n{fields.get('task_instructions', '')}"
    found = []
    for sentence in _sentences(text):
        asks, accepts = bool(_ASK.search(sentence)), bool(_ACCEPT.search(sentence))
        if not (asks or accepts) or _NEGATION.search(sentence) or _CONDITION.search(sentence):
            continue
        for request, (pattern, stems) in table.items():
            match = re.search(pattern, sentence, re.I)
            if match:
                tools = {t for t in write_tools if any(stem in t for stem in stems)}
                if tools:
                    start = max(sentence.rfind(",", 0, match.start()), sentence.rfind(";", 0, match.start())) + 1
                    stops = [at for at in (sentence.find(",", match.end()), sentence.find(";", match.end())) if at >= 0]
                    clause = sentence[start: min(stops, default=len(sentence))]
                    permission = bool(re.search(r"\b(any|whatever|offers?|can)\b", clause, re.I))
                    found.append((request, sentence, tools, not asks and permission))
    return found


_GENERIC = {"agent", "agents", "says", "said", "explains", "tells", "cannot", "possible", "impossible", "allowed",
            "accept", "conversation", "insist", "policy", "allows", "further", "offers", "offer", "transfer",
            "transferred", "team", "that", "this", "with", "your", "yours", "request", "anything", "thank", "there",
            "they", "them", "then", "will", "would", "able", "unable", "does", "done", "refuses", "refused", "yet",
            "help", "instead", "when", "unless", "otherwise", "only", "human", "specialist", "handled", "everything"}
_CONTENT = re.compile(r"[a-z]{4,}")


def _linked(reaction: str, request: str, sentence: str, other_actions: set[str], antecedent: str | None = None,
            table: dict[str, tuple[str, tuple[str, ...]]] = _REQUESTS) -> bool:
    """A conditional reaction speaks of this request: it uses the request's stem or shares a content
    word with the request sentence, or it names no other action of the domain (a word of another write
    tool's name, or an inflection of one: "if the agent cannot *send* that amount" is about a wire, not a
    refund; "if the order cannot be *cancelled*" is about a cancellation, not an address) and its
    ``antecedent`` is about this request.

    The antecedent is the last plain request before the reaction (:func:`_antecedent`): a reaction that
    names nothing specific ("if the agent says policy does not allow *it*, accept that") reacts to the
    request just before it, so after "Ask to go ahead with the mobile deposit limit" it scripts no
    refusal of the wire asked for two sentences earlier. Without an antecedent (a reaction before any
    request) it may speak of any request."""
    if re.search(table[request][0], reaction, re.I):
        return True
    words = {w.rstrip("s") for w in _CONTENT.findall(reaction.lower())} - _GENERIC
    asked = {w.rstrip("s") for w in _CONTENT.findall(sentence.lower())} - _GENERIC
    if words & asked:
        return True
    if any(word.startswith(action) for word in words for action in other_actions):
        return False  # an inflection counts: "cannot be cancelled" is about a cancellation
    return antecedent is None or antecedent == sentence or bool(re.search(table[request][0], antecedent, re.I))


def _antecedent(sentences: list[str], at: int,
                table: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> str | None:
    """The last sentence before ``sentences[at]`` that asks for something and is no condition itself
    ("Ask to go ahead with …"), which a reaction naming nothing specific ("… does not allow it") refers
    to; None when no sentence before it asks. A sentence naming a request of ``table`` counts as asking
    even without an asking word: in "You try a maximum of five times to get the agent to cancel with a
    refund. If the agent continues to refuse, you move on." (tau2 airline 35) the reaction is about the
    cancellation, not about the "do not want to be transferred" said before it."""
    requests = [pattern for pattern, _stems in (table or {}).values()]
    return next((s for s in reversed(sentences[:at]) if not _CONDITION.search(s) and (
        _ASK.search(s) or any(re.search(pattern, s, re.I) for pattern in requests))), None)


_DECLINE = re.compile(r"\b(don't|do not|does not|doesn't) want to\b|\bnot go ahead\b", re.I)
_NO_CHANGES = re.compile(r"\b(?:don't|do not) (?:make|want|do) any changes\b|\bno changes at all\b|"
                         r"\bkeep everything as it is\b", re.I)
"""A reaction that calls off every change ("If the total costs for all your changes is above your budget of
$200, don't make any changes", tau2 airline 34): the user's own end condition for each request, whether the
agent refuses or the price does."""


def _scripted_refusal(text: str, request: str, sentence: str = "", other_actions: frozenset[str] = frozenset(),
                      table: dict[str, tuple[str, tuple[str, ...]]] = _REQUESTS) -> bool:
    """The scenario tells the user what to do if this request is refused: a conditional sentence with a
    refusal, linked to the request (:func:`_linked`), whose reaction ends the matter within it or the
    next two sentences (accept, end the conversation, accept a transfer, do not want to go ahead), or
    one offering an alternative ("instead", "you are willing to …", "you are ok with canceling the other
    flight"), or one that calls every change off (:data:`_NO_CHANGES`)."""
    sentences = _sentences(text)
    for at, reaction in enumerate(sentences):
        if not _CONDITION.search(reaction) or not _linked(reaction, request, sentence or reaction, set(other_actions),
                                                           _antecedent(sentences, at, table), table):
            continue
        if re.search(r"\b(instead|prefer|change (your|their) mind|only one|rethink|"
                     r"(you|then) (want|are willing|are ok|agree) to|(you|then) (are|'re) (ok|okay|fine|happy) with)\b",
                     reaction, re.I):
            return True  # an alternative request: the refused branch continues with it
        if _NO_CHANGES.search(reaction):
            return True  # the user calls everything off: an end condition for every request
        following = []
        for later in sentences[at + 1: at + 3]:
            if _CONDITION.match(later):
                break  # another branch ("If you are transferred …", "When everything is handled …")
            if _ASK.search(later) and not _NEGATION.search(later):
                break  # the next request ("Ask to have ... accepted"): its words end nothing about this one
            following.append(later)
        window = " ".join([reaction, *following])
        if _REFUSAL.search(reaction) and (_END.search(window) or _TRANSFER.search(reaction) or _DECLINE.search(window)):
            return True
    return False


def _policy_view(taskset: TaskSet, task: dict[str, Any]) -> Any:
    """``(omitted tools, compliant candidates, forbidden tools)`` after replaying the gold through the
    policy rules (taugen bundles only; None elsewhere): the tools of writes the policy requires but
    the gold lacks, the candidate writes (``rule.candidates``) the policy and the tools accept on the
    state the gold leaves, and the tools whose every candidate the policy forbids on that state.
    Remembered per task under :func:`~taugen.validators.defects.policy.policy_key` (results are only read)."""
    if not taskset.rules or taskset.facts is None or taskset.toolkit_class is None:
        return None
    from taugen.validators.defects.policy import policy_key

    shared = policy_key(taskset)
    if shared is None:
        return _replayed_policy_view(taskset, task)
    return _POLICY_VIEWS.compute(digest(shared, task), lambda: _replayed_policy_view(taskset, task))


_POLICY_VIEWS: Memo[Any] = Memo(20_000)


def _replayed_policy_view(taskset: TaskSet, task: dict[str, Any]) -> Any:
    from taugen.generators.environment import clone
    from taugen.generators.policy import PolicyContext, candidates, evaluate
    from taugen.validators.defects.policy import _customer, run_policy

    gold = actions(task)
    found, errors, toolkit = run_policy(taskset, task, gold)
    if toolkit is None or errors:
        return None
    rules_by_name = {rule.name: rule for rule in taskset.rules}
    omitted = {tool for index, violation in found if index < 0 and violation.kind == "omission"
               for tool in getattr(rules_by_name.get(violation.rule), "tools", ())}
    customer = _customer(task)
    if not customer:  # no candidates to judge a refusal by: the judgement without policy applies (a tau2 task
        return (omitted, [], set()) if omitted else None  # whose gold reads no profile)
    scenario = scenario_text(task)
    done = [(a.get("name", ""), a.get("arguments") or {}) for a in gold]
    context = PolicyContext(state=toolkit.db, facts=taskset.facts, now=taskset.now, scenario=scenario, calls=done)
    allowed, tried = [], {}
    for name, arguments in candidates(taskset.rules, context, customer):
        bad = any(v.severity == "error" for v in evaluate(taskset.rules, toolkit.db, name, arguments, taskset.facts,
                                                         taskset.now, scenario, done))
        if not bad:
            bad = not taskset.toolkit_class(clone(toolkit.db), taskset.now).call(name, **arguments).ok
        tried.setdefault(name, []).append(bad)
        if not bad:
            allowed.append((name, arguments, toolkit))
    forbidden = {name for name, results in tried.items() if all(results)}
    return omitted, allowed, forbidden


def _described_candidate(toolkit: Any, arguments: dict[str, Any], text: str,
                         tables: tuple[tuple[str, str], ...]) -> bool:
    """The scenario states two identifying values of a candidate write's target record, or its id; the
    record is looked up through ``tables`` (the domain's decision targets, then its accounts)."""
    from taugen.validators.defects.policy import _described

    for key, table in (*tables, ("account_id", "accounts")):
        if key in arguments:
            record = getattr(toolkit.db, table, {}).get(arguments[key])
            return record is not None and (_described(record, text) >= 2 or mentions(text, arguments[key]))
    return False


def _written_record_text(taskset: TaskSet, writes: list[dict[str, Any]]) -> list[str]:
    """Descriptions of catalogue records a gold write names by id (a service topic's description): a request
    worded by such a description ("arrange replacing a credit card") is carried by that write."""
    db = taskset.db if isinstance(taskset.db, dict) else {}
    texts = []
    for action in writes:
        for value in (action.get("arguments") or {}).values():
            if not isinstance(value, str):
                continue
            for table in db.values():
                record = table.get(value) if isinstance(table, dict) else None
                if isinstance(record, dict) and isinstance(record.get("description"), str):
                    texts.append(record["description"])
    return texts


def _quoted_request(sentence: str, named: list[str]) -> str:
    """The part of ``sentence`` that is a written record's description (empty when none occurs in it)."""
    lowered = sentence.lower()
    return " ".join(text for text in named if text.lower() in lowered)


def _alternatives(sentence: str, pattern: str, other: str) -> bool:
    """Whether ``sentence`` joins the two requests by "or" ("cancel or return everything associated with
    it", tau2 retail 14): the user asks for either, so the gold carrying out one answers both."""
    first, second = re.search(pattern, sentence, re.I), re.search(other, sentence, re.I)
    if not first or not second:
        return False
    left, right = sorted((first, second), key=lambda m: m.start())
    return re.fullmatch(r"\s*,?\s*(?:or|and/or)\s+(?:to\s+)?", sentence[left.end(): right.start()], re.I) is not None


def k10_k11_defects(taskset: TaskSet) -> list[Defect]:
    """Requests the gold does not carry out (see the module docstring).

    A request with no gold write of its tools and no scripted reaction to its refusal is K10 when the
    refusal is justified (the policy forbids every candidate write of those tools on the state the gold
    leaves; without policy rules: the gold makes no write but verifications) and K11 otherwise. With
    policy rules, a request (or an acceptance: "accept any credit the agent offers") is also K11 when
    the policy requires a write of its tools that the gold lacks, or allows one on the state the gold
    leaves whose target the scenario describes. On taugen bundles (generated text, policy as code) the
    findings are errors; elsewhere words are matched loosely and they are warnings."""
    from taugen.validators.defects.grounding import _ORDER_RE
    from taugen.validators.sufficiency import verifies_caller

    defects = []
    tools_by_name = {**taskset.agent_tools, **taskset.user_tools}
    write_tools = {name for name, info in tools_by_name.items() if info.kind == "write"}
    if not write_tools:
        return defects
    severity = "error" if taskset.taugen else "warning"
    table = request_table(taskset)
    for task in taskset.tasks:
        gold = actions(task)
        if any("transfer" in (a.get("name") or "") for a in gold):
            continue
        done = {a.get("name", "") for a in gold}
        writes = [a for a in gold if taskset.is_write(a) and not (
            a.get("name") in tools_by_name and verifies_caller(tools_by_name[a["name"]]))]
        keys = {key for a in writes for key in (a.get("arguments") or {})}
        text = scenario_text(task)
        policy = _policy_view(taskset, task)
        def ordered(request: str, sentences: list[str] = _sentences(text)) -> bool:
            """An order word in a sentence about this request ("dispute the later charge"): the scenario
            picks one of equally described records."""
            return any(_ORDER_RE.search(s) and re.search(table[request][0], s, re.I) for s in sentences)

        reported: set[str] = set()
        named = _written_record_text(taskset, writes)
        asked = _requests(task, write_tools, table)

        def is_carried(request: str, sentence: str, tools: set[str]) -> bool:
            stems = table[request][1]
            return bool(tools & done) or any(stem in key for stem in stems for key in keys) \
                or bool(named and re.search(table[request][0], _quoted_request(sentence, named), re.I))

        for request, sentence, tools, accepted in asked:
            carried = is_carried(request, sentence, tools) or any(
                other != request and same == sentence and _alternatives(sentence, table[request][0], table[other][0])
                and is_carried(other, same, other_tools) for other, same, other_tools, _ in asked)
            if policy is not None:
                omitted, allowed, forbidden = policy
                left = [(name, arguments) for name, arguments, toolkit in allowed if name in tools
                        and _described_candidate(toolkit, arguments, text, taskset.targets)
                        and not (ordered(request) and any(g.get("name") == name for g in writes))]
                if tools & omitted or left:
                    what = f" (for instance {left[0][0]} {json.dumps(left[0][1], sort_keys=True)})" if left else ""
                    if request not in reported:
                        reported.add(request)
                        defects.append(Defect("K11", severity, task_id(task), "user_scenario.instructions",
                                              f"the user asks to {request}; the policy {'requires' if tools & omitted else 'allows'} "
                                              f"a {' / '.join(sorted(tools))} write on the state the gold leaves{what}, "
                                              "but the gold does not make it", evidence=sentence[:200], rule=RULE_K11))
                    continue
            others = frozenset(w for t in write_tools - tools for w in t.split("_") if len(w) >= 4) - \
                {w for t in tools for w in t.split("_")} - _GENERIC
            if carried or accepted or _scripted_refusal(text, request, sentence, others, table) or request in reported:
                continue
            reported.add(request)
            justified = bool(tools & policy[2]) if policy is not None else not writes
            if justified:
                defects.append(Defect("K10", severity, task_id(task), "user_scenario.instructions",
                                      f"the user asks to {request}, the gold does not do it (the request is refused), "
                                      "and the scenario gives no reaction to the refusal and no end condition",
                                      evidence=sentence[:200], rule=RULE_K10))
            else:
                defects.append(Defect("K11", severity, task_id(task), "user_scenario.instructions",
                                      f"the user asks to {request} but the gold makes no {' / '.join(sorted(tools))} "
                                      "call, no fact forbids it, and the scenario does not script a refusal",
                                      evidence=sentence[:200], rule=RULE_K11))
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


_FIELD_CUE = re.compile(r"^\s*(field|column|attribute|property|parameter|argument|flag|setting)s?\b", re.I)


def _nearest_name(name: str, known: set[str]) -> str | None:
    """A known name the misnamed one most likely means: one of its underscore parts (``account_balance``
    → ``balance``), else the closest spelling."""
    parts = [part for part in reversed(name.split("_")) if part in known]
    if parts:
        return parts[0]
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return close[0] if close else None


def k16_defects(taskset: TaskSet, quoted_names: bool = True) -> list[Defect]:
    """K16 (see the module docstring). A snake_case word counts as a named tool or field when it is
    quoted as a tool (``named_tools``), is close to a tool name, or is followed by "field" / "column" /
    "parameter" …; ``quoted_names=False`` leaves the quoted ones to ``taugen.validators.sufficiency``."""
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
            no_user_tools = actor == "user" and not taskset.user_tools and not taskset.helpers.get("user")
            quoted_here = named_tools(text)
            named = [(name, True) for name in quoted_here]
            named += [(m.group(1), False) for m in _SNAKE.finditer(text)]
            fields = {m.group(1) for m in _SNAKE.finditer(text) if _FIELD_CUE.match(text[m.end():])}
            for name, quoted in named:
                if name in reported or (not quoted_names and name in quoted_here):
                    continue
                if name in known:
                    if no_user_tools:
                        continue  # no user toolkit at all: naming an agent tool is K14's question, not K16's
                    if actor == "user" and name in taskset.agent_tools and name not in taskset.user_tools \
                            and taskset.user_tools and quoted:
                        reported.add(name)
                        defects.append(Defect("K16", "warning", task_id(task), path,
                                              f"the user is told about `{name}`, a tool only the agent has",
                                              evidence=name, rule=RULE_K16))
                    continue
                nearest = _nearest_tool(name, tools)
                if no_user_tools and nearest is None and name not in fields:
                    continue  # no user toolkit at all: an unknown tool the user should call is K14's (no tool)
                if name in fields and nearest is None:
                    nearest = _nearest_name(name, known - set(tools))
                elif not quoted and nearest is None:
                    continue
                reported.add(name)
                what = "a field" if name in fields else "a tool"
                defects.append(Defect("K16", "error", task_id(task), path,
                                      f"the text names `{name}` as {what}, but it is no tool, function, parameter or field"
                                      + (f" (did it mean `{nearest}`?)" if nearest else ""),
                                      evidence=_context(text, name), rule=RULE_K16))
    return defects


def _context(text: str, name: str) -> str:
    at = text.find(name)
    return text[max(0, at - 60): at + len(name) + 40].replace("\n", " ")


def scenario_defects(taskset: TaskSet) -> list[Defect]:
    return (k6_defects(taskset) + k7_defects(taskset) + k8_defects(taskset) + k10_k11_defects(taskset)
            + k16_defects(taskset))


@validator(CHECK, cost=3)
def check_scenario(view: BundleView) -> list[Finding]:
    """K7, K8, K10, K11 and K16 on a taugen bundle. K6 and the K16 of quoted tool names there are
    ``taugen.validators.sufficiency``'s (codes ``K6``, ``K16``), so they are not repeated; the K16 of
    unquoted names (a misspelt tool, an unknown field) is this family's."""
    taskset = taskset_for_view(view)
    defects = k7_defects(taskset) + k8_defects(taskset) + k10_k11_defects(taskset) + k16_defects(taskset, False)
    return to_findings(CHECK, defects, taskset.tasks)
