"""Task-file structure, K18 (answer leaked where agents see it), K19 (duplicate tasks), K20 (chronology)
for any task set, and the tasks' annotations.

* schema (foreign folders): tau2's Task model (when tau2 is installed) and taugen's schema rules;
* splits (foreign folders): ``base`` exists, every split names existing tasks (a subset task file such as
  telecom's ``tasks_small.json`` is reported once), tasks outside ``base``, ``train``/``test`` overlap;
* K18: agent-visible text (database strings, the database patches of tasks' initial states, policy
  documents, file names) holds authoring words
  (gold action, ground truth, evaluator …) or instructions that give the answer away ("refund the
  $40 fee", "should be approved"); taugen's own ``leakage`` validator covers author words in bundles,
  so there only answer language in the database is added;
* K19 (foreign folders; ``tasks`` covers bundles): the same normalised scenario and gold writes;
* K20: no past-event date of a record (created, opened, posted, issued, paid …) is after the world's
  ``now``; a record is not dated before a record it refers to (a refund before its fee, a bill before
  its customer); inside a record, starts precede ends (period, issue/due, posted/statement,
  opened/closed); a date the user says something happened on is not after ``now``;
* annotations: every task annotation names a kind (``K1`` … ``K20``) and a reason, and is listed in the
  validation report (info findings of check ``annotations``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import (
    Defect, TaskSet, actions, annotations, dates_in, excerpt, leaves, parse_date, task_id, task_index, to_findings,
    user_text,
)
from taugen.validators.defects.sources import taskset_for_view
from taugen.findings import Finding
from taugen.validators.registry import validator

CHECK = "defect_data"
RULE_K18 = "scan agent-visible text (DB strings, records, file names) for answer or authoring language"
RULE_K19 = "hash normalised scenario + gold writes"
RULE_K20 = "order checks on every dated thing; supersession must go forward in time"
AUTHOR_WORDS = ("answer key", "ground truth", "gold action", "gold answer", "evaluator", "expected answer",
                "reward_basis", "nl_assertion", "communicate_info", "test case", "distractor")
#: Instructions that give a task's answer away ("refund the $40 fee", "should be approved"); policy
#: documents state rules this way, data and records must not.
ANSWER_LANGUAGE = re.compile(
    r"\b(?:(?:please\s+)?(?:refund|waive|reverse|approve|deny|escalate|cancel|credit|reimburse)\s+(?:the|this|their|his|"
    r"her|it|them)\b[^.]{0,40}\$\d|(?:should|must|needs? to)\s+be\s+(?:refunded|waived|approved|denied|cancelled|"
    r"canceled|escalated|credited|reimbursed|transferred)|the (?:correct|right) (?:answer|action|amount) is)", re.I)
_NAME_WORDS = re.compile(r"(final|answer|gold|solution|expected|correct)[_-]", re.I)
_PAST_FIELDS = re.compile(r"(created|opened|issued|issue_date|posted|paid|refunded|changed|resolved|verified|sent|"
                          r"since|placed|filed|closed)", re.I)
_START = re.compile(r"(created|opened|issued|issue_date|posted|since|placed)", re.I)
_PAIRS = (("period_start", "period_end"), ("start_date", "end_date"), ("issue_date", "due_date"),
          ("opened_on", "closed_on"), ("posted_on", "statement_date"), ("created_at", "updated_at"),
          ("opened_on", "resolved_on"))
_PAST = re.compile(r"\b(was|were|had|happened|charged|posted|opened|filed|paid|billed|bought|ordered|booked|"
                   r"placed|received|changed)\b", re.I)
_VALID_KIND = re.compile(r"^K([1-9]|1\d|20)$")


# ------------------------------------------------------------------------------------------ schema, splits


def schema_defects(taskset: TaskSet) -> list[Defect]:
    """tau2 Task model and taugen's structural rules (foreign folders)."""
    from taugen.validators.tasks import _schema_findings

    defects = []
    model = None
    try:
        from taugen.validators.defects.sources import quiet_tau2, tau2_available

        if tau2_available():
            with quiet_tau2():
                from tau2.data_model.tasks import Task as model
    except ImportError:  # pragma: no cover
        model = None
    ids = [task.get("id") for task in taskset.tasks]
    for task in taskset.tasks:
        identifier = str(task.get("id"))
        for problem in _schema_findings(task):
            if "comma" in problem:
                continue  # K12 reports commas in communicate_info
            defects.append(Defect("schema", "error", identifier, "task", problem,
                                  rule="tau2 Task schema (reference/tau2-format.md §2)"))
        if model is not None:
            try:
                model.model_validate(task)
            except Exception as exc:  # noqa: BLE001
                defects.append(Defect("schema", "error", identifier, "task",
                                      f"tau2's Task model rejects the task: {str(exc).splitlines()[0]}",
                                      evidence=str(exc)[:300], rule="tau2.data_model.tasks.Task"))
    repeated = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    for identifier in repeated:
        defects.append(Defect("schema", "error", str(identifier), taskset.task_file, "the task id repeats"))
    return defects


def split_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    if taskset.splits is None:
        defects.append(Defect("splits", "warning", None, taskset.task_file,
                              "no split file: tau2 loads airline, retail and telecom tasks through split_tasks.json"))
        return defects
    where = taskset.split_file or "split_tasks.json"
    ids = {str(task.get("id")) for task in taskset.tasks}
    if "base" not in taskset.splits:
        defects.append(Defect("splits", "error", None, where, "the split file has no 'base' split (tau2's default)"))
    outside: dict[str, int] = {}
    for name, members in taskset.splits.items():
        if not isinstance(members, list):
            defects.append(Defect("splits", "error", None, where, f"split {name!r} is not a list of task ids"))
            continue
        unknown = [m for m in members if str(m) not in ids]
        if unknown and taskset.subset:
            outside[name] = len(unknown)
        elif unknown:
            defects.append(Defect("splits", "error", None, where,
                                  f"split {name!r} names {len(unknown)} task(s) that do not exist, e.g. {unknown[0]!r}"))
    if outside:
        defects.append(Defect("splits", "info", None, where,
                              f"{taskset.task_file} holds a subset of the split file's tasks: "
                              + ", ".join(f"{name} names {n} tasks outside it" for name, n in outside.items())))
    base = {str(m) for m in taskset.splits.get("base", []) or []}
    if base and not taskset.subset:
        missing = sorted(ids - base)
        if missing:
            defects.append(Defect("splits", "warning", None, where,
                                  f"{len(missing)} task(s) are in no 'base' split, e.g. {missing[0]!r}"))
    train, test = set(map(str, taskset.splits.get("train", []) or [])), set(map(str, taskset.splits.get("test", []) or []))
    if train & test:
        defects.append(Defect("splits", "warning", None, where,
                              f"{len(train & test)} task(s) are in both train and test, e.g. {sorted(train & test)[0]!r}"))
    return defects


# ------------------------------------------------------------------------------------------ K18


def _strings(value: Any) -> list[tuple[str, str]]:
    return [(path, leaf) for path, leaf in leaves(value) if isinstance(leaf, str) and len(leaf) > 8]


def k18_defects(taskset: TaskSet, files: list[str] | None = None) -> list[Defect]:
    defects = []
    author = re.compile(r"(?<![\w])(" + "|".join(map(re.escape, AUTHOR_WORDS)) + r")(?![\w])", re.I)
    sources: list[tuple[str | None, str, str, str]] = []
    for name, database in (("db", taskset.db), ("user_db", taskset.user_db)):
        sources += [(None, name, path, text) for path, text in _strings(database or {})]
    for task in taskset.tasks:  # a task's initial-state patch becomes database text the agent reads
        data = ((task.get("initial_state") or {}).get("initialization_data") or {})
        for name in ("agent_data", "user_data"):
            if isinstance(data.get(name), dict):
                sources += [(task_id(task), f"initialization_data.{name}", path, text)
                            for path, text in _strings(data[name])]
    if not taskset.taugen:
        sources += [(None, name, "", text) for name, text in taskset.documents.items()]
    for task, where, path, text in sources:
        for pattern, what, severity in ((ANSWER_LANGUAGE, "answer language", "error"),
                                        (author, "authoring language", "error")):
            if (taskset.taugen and pattern is author) or (pattern is ANSWER_LANGUAGE and not path):
                continue  # policy documents state rules ("should be refunded"); data must not
            match = pattern.search(text)
            if match:
                start = max(0, match.start() - 60)
                defects.append(Defect("K18", severity, task, f"{where}:{path}" if path else where,
                                      f"agent-visible text holds {what}: {match.group(0)!r}",
                                      evidence=text[start:match.end() + 60], rule=RULE_K18))
    for name in files or []:
        if _NAME_WORDS.search(name):
            defects.append(Defect("K18", "warning", None, name, "an agent-visible file name sounds like an answer "
                                  "or an authoring stage", rule=RULE_K18))
    return defects


# ------------------------------------------------------------------------------------------ K19


def k19_defects(taskset: TaskSet) -> list[Defect]:
    """Tasks whose normalised scenario, initial state and gold writes equal an earlier task's."""
    from taugen.text import normalised_scenario

    defects = []
    seen: dict[str, str] = {}
    for task in taskset.tasks:
        scenario = normalised_scenario(task.get("user_scenario"))
        writes = [a for a in actions(task) if taskset.is_write(a) or taskset.tool(a.get("name", ""), a.get("requestor")
                                                                                  or "assistant") is None]
        gold = json.dumps([{k: a.get(k) for k in ("name", "arguments", "requestor")} for a in writes], sort_keys=True)
        initial = json.dumps(task.get("initial_state"), sort_keys=True)
        signature = hashlib.sha256(f"{scenario}|{gold}|{initial}".encode()).hexdigest()
        if signature in seen:
            defects.append(Defect("K19", "error", task_id(task), "user_scenario",
                                  f"same normalised scenario, initial state and gold writes as task {seen[signature]}",
                                  rule=RULE_K19))
        seen.setdefault(signature, task_id(task))
    return defects


# ------------------------------------------------------------------------------------------ K20


def _record_dates(record: dict[str, Any]) -> dict[str, dt.date]:
    return {key: day for key, value in record.items() if isinstance(value, str) and (day := parse_date(value))}


def _start_date(dates: dict[str, dt.date]) -> tuple[str, dt.date] | None:
    return next(((key, day) for key, day in sorted(dates.items()) if _START.search(key)), None)


def _k20_records(database: dict[str, Any], now: dt.datetime | None, where: str, task: str | None,
                 index=None) -> list[Defect]:
    defects = []
    records: list[tuple[str, dict[str, Any]]] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            if any(isinstance(v, str) and parse_date(v) for v in value.values()):
                records.append((path, value))
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list):
            for position, item in enumerate(value):
                walk(item, f"{path}[{position}]")

    walk(database, "")
    for path, record in records:
        dates = _record_dates(record)
        status = str(record.get("status") or "").lower()
        if now is not None and status in ("overdue", "past due", "expired"):
            for key, day in dates.items():
                if re.search(r"due|expir", key) and day > now.date():
                    defects.append(Defect("K20", "error", task, f"{where}:{path}.{key}",
                                          f"status {record.get('status')!r} but {key} {day} is still ahead of the "
                                          f"world's now ({now.date()})", rule=RULE_K20))
        if now is not None and status not in ("draft", "scheduled", "pending", "upcoming"):
            for key, day in dates.items():
                if _PAST_FIELDS.search(key) and day > now.date():
                    defects.append(Defect("K20", "error", task, f"{where}:{path}.{key}",
                                          f"{key} {day} is after the world's now ({now.date()})", rule=RULE_K20))
        for first, second in _PAIRS:
            if first in dates and second in dates and dates[first] > dates[second]:
                defects.append(Defect("K20", "error", task, f"{where}:{path}",
                                      f"{first} {dates[first]} is after {second} {dates[second]}", rule=RULE_K20))
        own = _start_date(dates)
        if own is None or index is None:
            continue
        for key, value in record.items():
            if not (isinstance(value, str) and key.endswith("_id")) or key == _own_id_key(path):
                continue
            for other in index.records_with(key, value)[:3]:
                if other is record or other.get(key) != value or _own_id_key(index.path_of(other) or "") not in (key, ""):
                    continue
                theirs = _start_date(_record_dates(other))
                if theirs is not None and own[1] < theirs[1]:
                    defects.append(Defect("K20", "warning", task, f"{where}:{path}.{own[0]}",
                                          f"{own[0]} {own[1]} is before {theirs[0]} {theirs[1]} of the {key} "
                                          f"{value} it refers to", rule=RULE_K20))
    return defects


def _own_id_key(path: str) -> str:
    """``customers[0]`` / ``customers.C1`` → ``customer_id`` (the id key a table's records carry)."""
    table = re.split(r"[.\[]", path)[0] if path else ""
    return f"{table[:-1]}_id" if table.endswith("s") else ""


def k20_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    now = taskset.now
    world = []
    if taskset.db is not None:
        world += _k20_records(taskset.db, now, "db", None, taskset.db_index)
    if taskset.user_db is not None:
        world += _k20_records(taskset.user_db, now, "user_db", None)
    if taskset.inherited_world:
        # a bundle shipping a world it did not generate (tau2's telecom databases): report, don't block
        world = [Defect(d.kind, "warning", d.task, d.path, f"{d.message} (in the domain's inherited world data)",
                        d.evidence, d.rule) for d in world]
    defects += world
    for task in taskset.tasks:
        data = ((task.get("initial_state") or {}).get("initialization_data") or {})
        patch = data.get("agent_data")
        if isinstance(patch, dict) and taskset.db is not None:
            defects += _k20_records(patch, now, "initialization_data.agent_data", task_id(task), task_index(taskset, task))
        if now is None:
            continue
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", user_text(task)):
            if not _PAST.search(sentence):
                continue
            for ref in dates_in(sentence):
                year = ref.year or now.year
                try:
                    day = dt.date(year, ref.month, ref.day)
                except ValueError:
                    continue
                if day > now.date() and ref.year is not None:
                    defects.append(Defect("K20", "error", task_id(task), "user_scenario.instructions",
                                          f"the user says something happened on {ref.text}, after the world's now "
                                          f"({now.date()})", evidence=sentence[:200], rule=RULE_K20))
    return defects


# ------------------------------------------------------------------------------------------ annotations


def annotation_defects(taskset: TaskSet) -> list[Defect]:
    defects = []
    for task in taskset.tasks:
        raw = task.get("annotations")
        if raw is not None and not isinstance(raw, list):
            defects.append(Defect("annotation", "error", task_id(task), "annotations",
                                  "annotations must be a list of {kind, reason, path} objects"))
            continue
        for position, note in enumerate(raw or []):
            if not isinstance(note, dict) or not _VALID_KIND.match(str(note.get("kind", ""))) \
                    or not str(note.get("reason") or "").strip():
                defects.append(Defect("annotation", "error", task_id(task), f"annotations[{position}]",
                                      "an annotation needs a kind (K1 … K20) and a reason", evidence=excerpt(note)))
    return defects


def annotation_listing(taskset: TaskSet) -> list[Finding]:
    """Every well-formed annotation as an info finding of check ``annotations`` (for the report)."""
    findings = []
    for task in taskset.tasks:
        for note in annotations(task):
            if _VALID_KIND.match(str(note.get("kind", ""))) and str(note.get("reason") or "").strip():
                findings.append(Finding(check="annotations", code="annotation", severity="info", subject=task_id(task),
                                        message=f"{note['kind']} accepted at {note.get('path') or '(whole task)'}: "
                                                f"{note['reason']}", evidence=str(note.get("path") or "")))
    return findings


def data_defects(taskset: TaskSet, files: list[str] | None = None) -> list[Defect]:
    defects = k18_defects(taskset, files) + k20_defects(taskset) + annotation_defects(taskset)
    if not taskset.taugen:
        defects = schema_defects(taskset) + split_defects(taskset) + k19_defects(taskset) + defects
    return defects


@validator(CHECK)
def check_data(view: BundleView) -> list[Finding]:
    """K18 (answer language in the database), K20 (dated records) and annotations on a taugen bundle."""
    taskset = taskset_for_view(view)
    return to_findings(CHECK, data_defects(taskset), taskset.tasks)


@validator("annotations")
def list_annotations(view: BundleView) -> list[Finding]:
    """The tasks' annotations (deliberate defects, accepted with a reason), for the validation report."""
    return annotation_listing(taskset_for_view(view))
