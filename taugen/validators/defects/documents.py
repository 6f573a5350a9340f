"""K13: a policy or knowledge document contradicts itself.

Typed values (money, percentages, durations) are extracted from every statement of every document (a
sentence, or a table row); two statements about the same thing with different values of the same type
conflict: identical wording with another value is an error; a statement whose content words all occur
in the other (a table row and the sentence that restates it) is a warning. Statements dated as history
("Until July 01, 2025: …" before ``now``) or as a future change are not active and never conflict.

For taugen bundles the facts are typed already: two facts of one family in force at once (``fee_x`` and
``fee_x_2025`` both current) or two current facts whose statements differ only in the value are active
conflicts, the runtime policy's own prose (the lines that are not rendered fact statements) must
not state a current fact's subject with another value, and no record may restate a current fact with a
value that no version of the fact ever had (unless it is a declared contested decoy).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from taugen.validators.bundle_view import BundleView
from taugen.validators.defects.base import Defect, TaskSet, dates_in, to_findings
from taugen.validators.defects.sources import taskset_for_view
from taugen.findings import Finding
from taugen.validators.memo import Memo, digest
from taugen.validators.registry import validator

CHECK = "defect_documents"
RULE = "extract typed values from all documents; conflicting active values for one fact are errors (unless declared contested)"
_VALUE = re.compile(r"\$\s?\d[\d,]*(?:\.\d{1,2})?|\b\d+(?:\.\d+)?\s?%|\b\d+\s+(?:business\s+|calendar\s+)?"
                    r"(?:days?|hours?|minutes?|weeks?|months?|years?)\b", re.I)
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*[a-z0-9]|[a-z]")
"""Content words, numbers that are not the statement's value included ("6-month" vs "60-month")."""
_STOP = set("""a an the of to in on for and or is are be by with at from as it its this that these those any each
every per not no if when than then their your you we our can may must will shall would should has have had was were
within after before up more less than only also there which who whom what""".split())


def _kind(value: str) -> str:
    if value.startswith("$"):
        return "money"
    if value.endswith("%"):
        return "percent"
    return "duration:" + re.sub(r"[\d.\s]+", "", value.lower()).rstrip("s").replace("business", "business ")


def _normal(value: str) -> str:
    return re.sub(r"[\s,$]", "", value.lower()).rstrip("s").replace(".00", "")


_DATED = re.compile(r"^\W*(until|before|prior to|through|from|starting|effective|as of|beginning)\s+(.{6,30}?\d{4})\b",
                    re.I)


def active(statement: str, now: dt.datetime | None) -> bool:
    """Whether a statement is in force: not one dated as history ("Until July 01, 2025: …", before
    ``now``) or as a future change ("From June 1, 2026: …", after ``now``)."""
    match = _DATED.match(statement)
    if not match:
        return True
    dates = dates_in(match.group(2))
    if not dates or dates[0].year is None:
        return False
    day = dt.date(dates[0].year, dates[0].month, dates[0].day)
    today = now.date() if now else dt.date.max
    if match.group(1).lower() in ("until", "before", "prior to", "through"):
        return day > today
    return day <= today


def statements(text: str, now: dt.datetime | None = None) -> list[tuple[str, str, set[str], str]]:
    """``(statement, value, content words, wording with the value masked)`` for each active statement
    holding exactly one typed value."""
    found = []
    for line in text.splitlines():
        parts = [line] if line.lstrip().startswith("|") else re.split(r"(?<=[.!?;])\s+", line)
        if not active(line, now):
            continue
        for part in parts:
            values = _VALUE.findall(part)
            if len(values) != 1:
                continue
            masked = _VALUE.sub("#", part.lower())
            words = {w for w in _WORD.findall(masked) if w not in _STOP}
            if len(words) >= 3:
                found.append((part.strip(), values[0], words, " ".join(masked.split())))
    return found


def _conflicts(items: list[tuple[str, str, set[str], str]]) -> list[tuple[str, str, bool]]:
    """Pairs of statements about the same thing with different values of one type: the same wording
    with another value, or one statement's content words all inside the other's ("| Platinum annual fee
    | $95 |" and "The Platinum card's annual fee is $99."). Statements naming different things (Everyday
    vs Premier Checking) differ in a content word both ways and never pair."""
    conflicts = []
    by_word: dict[str, list[int]] = {}
    for position, (_, _, words, _) in enumerate(items):
        for word in words:
            by_word.setdefault(word, []).append(position)
    seen: set[tuple[int, int]] = set()
    for first, (_, _, words_first, _) in enumerate(items):
        # a statement whose words all occur in another shares its rarest word with it: look both ways
        rarest = min(words_first, key=lambda w: len(by_word[w]))
        for second in by_word[rarest]:
            i, j = min(first, second), max(first, second)
            if i == j or (i, j) in seen:
                continue
            seen.add((i, j))
            text_a, value_a, words_a, masked_a = items[i]
            text_b, value_b, words_b, masked_b = items[j]
            if _kind(value_a) != _kind(value_b) or _normal(value_a) == _normal(value_b):
                continue
            if masked_a == masked_b:
                conflicts.append((text_a, text_b, True))
            elif (words_a <= words_b or words_b <= words_a) and min(len(words_a), len(words_b)) >= 3:
                conflicts.append((text_a, text_b, False))
    return conflicts


def _stem(fact_id: str) -> str:
    return re.sub(r"_\d{4}$", "", fact_id)


def fact_conflicts(facts: dict[str, dict[str, Any]]) -> list[Defect]:
    """Active conflicts between a taugen manifest's facts."""
    defects = []
    current = {fid: fact for fid, fact in facts.items() if fact.get("current")}
    by_stem: dict[str, list[str]] = {}
    for fact_id in current:
        by_stem.setdefault(_stem(fact_id), []).append(fact_id)
    for stem, members in sorted(by_stem.items()):
        values = {str(current[m].get("value")) for m in members}
        if len(members) > 1 and len(values) > 1:
            defects.append(Defect("K13", "error", None, f"facts:{stem}",
                                  f"facts {', '.join(sorted(members))} are versions of one fact and all in force, with "
                                  "different values", rule=RULE))
    masked: dict[str, list[str]] = {}
    for fact_id, fact in current.items():
        if len(_VALUE.findall(fact["statement"])) != 1:
            continue  # several numbers (a rate band "from $2,500 to $9,999.99"): the wording is not the subject
        masked.setdefault(" ".join(_VALUE.sub("#", fact["statement"].lower()).split()), []).append(fact_id)
    for wording, members in sorted(masked.items()):
        values = {str(current[m].get("value")) for m in members}
        if len(members) > 1 and len(values) > 1 and "#" in wording:
            defects.append(Defect("K13", "error", None, f"facts:{members[0]}",
                                  f"current facts {', '.join(sorted(members))} say the same thing with different values",
                                  evidence=wording, rule=RULE))
    return defects


def _versions(fact_id: str, facts: dict[str, dict[str, Any]]) -> list[str]:
    """``fact_id`` and every fact it supersedes or is superseded by (the fact's whole history)."""
    found, queue = [], [fact_id]
    while queue:
        current = queue.pop()
        if current in found or current not in facts:
            continue
        found.append(current)
        queue += [facts[current].get("supersedes"), facts[current].get("superseded_by")]
    return found


def record_conflicts(facts: dict[str, dict[str, Any]], contested: dict[str, Any], records: dict[str, str],
                     now: dt.datetime | None) -> list[Defect]:
    """Records restating a current fact with a value no version of it ever had.

    Args:
        facts: the manifest's facts (fact id → ``statement``, ``current``, ``supersedes`` …).
        contested: the manifest's declared contested facts (fact id → ``decoys`` with typed values);
            a decoy's value is a declared disagreement, not a contradiction.
        records: artifact id → the text a reader extracts from the record.
        now: the world's now (statements dated as history or as a future change are skipped).

    A record statement is about a fact when it holds the fact's whole statement with the value masked
    (the same wording, perhaps inside a longer sentence; a looser match on content words pairs "Virginia"
    with "West Virginia" and one product's fee with another's); it conflicts when its value has the fact's type and
    equals neither the fact's value, nor a superseded or later version's, nor a declared decoy. History
    of a rule (an older version in an older record) is a chronology question (K20), not a conflict.
    """
    items: list[tuple[str, tuple[str, str, set[str], str]]] = []
    by_word: dict[str, list[int]] = {}
    for artifact_id, text in sorted(records.items()):
        for item in statements(text, now):
            for word in item[2]:
                by_word.setdefault(word, []).append(len(items))
            items.append((artifact_id, item))
    defects = []
    for fact_id, fact in sorted(facts.items()):
        own = statements(fact.get("statement", ""))
        if not fact.get("current") or len(own) != 1 or len(_VALUE.findall(fact["statement"])) != 1:
            continue
        _, value, words, masked = own[0]
        if any(word not in by_word for word in words):
            continue
        allowed = {_normal(_VALUE.findall(facts[v]["statement"])[0]) for v in _versions(fact_id, facts)
                   if len(_VALUE.findall(facts[v].get("statement", ""))) == 1}
        allowed |= {_normal(str((decoy.get("value") or {}).get("amount")))
                    for decoy in (contested.get(fact_id) or {}).get("decoys") or []}
        reported: set[str] = set()
        for position in by_word[min(words, key=lambda w: len(by_word[w]))]:
            artifact_id, (text, other, other_words, other_masked) = items[position]
            if artifact_id in reported or _kind(other) != _kind(value) or _normal(other) in allowed:
                continue
            if masked.rstrip(".") in other_masked:
                reported.add(artifact_id)
                defects.append(Defect("K13", "error", None, f"{artifact_id}:{fact_id}",
                                      f"record {artifact_id} states fact {fact_id} as {other}, a value no version of "
                                      f"the fact has ({value} in force)", evidence=text[:300], rule=RULE))
    return defects


def document_defects(taskset: TaskSet, records: dict[str, str] | None = None,
                     contested: dict[str, Any] | None = None) -> list[Defect]:
    """K13 findings of a task set's documents; ``records`` (artifact id → text) and ``contested`` (the
    manifest's declared contested facts) add the records of a taugen bundle."""
    defects = []
    facts = getattr(taskset.facts, "facts", None)
    for name, text in sorted(taskset.documents.items()):
        if taskset.taugen:
            break  # a bundle's policy renders typed facts: their conflicts are checked on the facts below
        for first, second, identical in _conflicts(statements(text, taskset.now)):
            defects.append(Defect("K13", "error" if identical else "warning", None, name,
                                  f"two statements of {name} give different values for the same thing",
                                  evidence=f"{first!r} vs {second!r}", rule=RULE))
    if taskset.taugen and isinstance(facts, dict):
        defects += fact_conflicts(facts)
        rendered = {" ".join(f["statement"].split()) for f in facts.values()}
        # the policy's own prose (not a rendered fact statement, dated or not) must agree with the facts
        policy = [item for item in statements(taskset.policy_text, taskset.now)
                  if not any(statement in " ".join(item[0].split()) for statement in rendered)]
        for fact_id, fact in sorted(facts.items()):
            if not fact.get("current") or not policy:
                continue
            for item in statements(fact["statement"]):
                for first, second, identical in _conflicts([item, *policy]):
                    if first == item[0]:
                        defects.append(Defect("K13", "error", None, f"facts:{fact_id}",
                                              f"the runtime policy states fact {fact_id} with another value",
                                              evidence=f"{first!r} vs {second!r}", rule=RULE))
        if records:
            defects += record_conflicts(facts, contested or {}, records, taskset.now)
    return defects


@validator(CHECK)
def check_documents(view: BundleView) -> list[Finding]:
    """K13 on a taugen bundle (see module docstring)."""
    taskset = taskset_for_view(view)
    records = {artifact_id: view.text(artifact_id) for artifact_id, entry in sorted(view.manifest["artifacts"].items())
               if entry["genre"] != "policy_document"}
    contested = view.manifest.get("contested")
    # the documents, the facts' table, the records and the clock are all it reads (no task)
    table = getattr(taskset.facts, "facts", None)
    if not isinstance(table, dict):
        return to_findings(CHECK, document_defects(taskset, records, contested), taskset.tasks)
    key = digest(taskset.taugen, taskset.documents, table, records, contested, taskset.now)
    defects = _DEFECTS.compute(key, lambda: document_defects(taskset, records, contested))
    return to_findings(CHECK, defects, taskset.tasks)


_DEFECTS: Memo[list[Defect]] = Memo(64)
"""K13 defects of a bundle's documents by the digest of what they read; only read."""
