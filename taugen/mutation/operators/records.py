"""Generic mutation operators on records and grading (K12, K13, K18, K19, K20; see
:mod:`taugen.mutation.model` for the contract): they edit what every bundle has (tasks, the manifest's
facts, arcs and artifacts, the delivered policy, email, transcript and issue files) and name no domain's
problems, tools or tables. A domain's own operators of these kinds are in its ``mutations`` package.
"""

from __future__ import annotations

import re

from taugen.mutation.edits import first_artifact
from taugen.mutation.model import MutableBundle, mutation


@mutation("K19", "task_copied_under_new_id", "a task is copied verbatim under a new id")
def task_copied_under_new_id(bundle: MutableBundle) -> str | None:
    import copy

    original = sorted(bundle.tasks, key=lambda t: t["id"])[0]
    twin = copy.deepcopy(original)
    twin["id"] = original["id"] + "[COPY:1]"
    bundle.tasks.append(twin)
    bundle.splits["base"].append(twin["id"])
    return twin["id"]


@mutation("K12", "reward_basis_emptied", "a task's reward basis is emptied, so nothing is graded")
def reward_basis_emptied(bundle: MutableBundle) -> str | None:
    task = sorted(bundle.tasks, key=lambda t: t["id"])[0]
    task["evaluation_criteria"]["reward_basis"] = []
    return task["id"]


# ------------------------------------------------------------------------------------------ shared helpers


_FEE_SENTENCE = re.compile(r"^(The .+?) is \$(\d+\.\d\d)\b(.*)$")


def _fee_facts(bundle: MutableBundle) -> list[tuple[str, dict, re.Match]]:
    """Current, uncontested money facts stated as ``The <thing> is $<amount> …`` (one amount), by id,
    fee facts first."""
    found = []
    contested = bundle.manifest.get("contested") or {}
    for fact_id, fact in bundle.manifest["facts"].items():
        match = _FEE_SENTENCE.match(fact.get("statement", ""))
        if (fact.get("current") and fact_id not in contested and (fact.get("value") or {}).get("type") == "money"
                and match and fact["statement"].count("$") == 1 and float(match.group(2)) > 0):
            found.append((fact_id, fact, match))
    return sorted(found, key=lambda item: (not item[0].startswith("fee_"), item[0]))


def _policy_paths(bundle: MutableBundle) -> list[str]:
    """Every delivered file of the policy document (the kit copy and the runtime copy)."""
    return sorted(f["path"] for entry in bundle.manifest["artifacts"].values() if entry["genre"] == "policy_document"
                  for f in entry["files"])


def _append_to_policy(bundle: MutableBundle, text: str) -> None:
    for path in _policy_paths(bundle):
        bundle.set_text(path, bundle.text(path).rstrip("\n") + "\n\n" + text.strip("\n") + "\n")


# ------------------------------------------------------------------------------------------ K12


def _declared(bundle: MutableBundle) -> dict:
    return bundle.json("author/task_facts.json")


def _proven(bundle: MutableBundle) -> dict:
    """The bundle's certificates, or {} when none carries a fact-sensitivity proof (a bundle whose build does
    not prove its declared facts has nothing for these operators to falsify; banking and telecom both prove)."""
    certificates = bundle.json("author/certificates.json")
    return certificates if any(c.get("sensitivity") for c in certificates.values()) else {}


@mutation("K12", "dependency_declared_but_not_real",
          "a task declares one more fact of its section that nothing in it depends on, with the proof row the "
          "build writes for such a fact (no perturbation changed anything): its claimed fact load is inflated")
def dependency_declared_but_not_real(bundle: MutableBundle) -> str | None:
    facts = bundle.manifest["facts"]
    certificates = _proven(bundle)
    for task_id, record in sorted(_declared(bundle).items()):
        declared = set(record.get("facts") or []) | set(record.get("context_facts") or [])
        sections = {facts[f]["section"] for f in record.get("facts") or [] if f in facts}
        other = next((f for f, fact in sorted(facts.items()) if fact["section"] in sections and fact.get("current")
                      and fact.get("value") and f not in declared), None)
        if other is None or task_id not in certificates:
            continue
        record["facts"] = sorted([*record["facts"], other])
        certificates[task_id].setdefault("sensitivity", []).append(
            {"fact": other, "original": None, "perturbed": None, "changed": None})
        return task_id
    return None


@mutation("K12", "proof_row_of_an_older_value",
          "a declared fact's sensitivity proof was made for another value of the fact than the bundle's (a "
          "certificate reused after the fact was edited): nothing proves the current value decides the task")
def proof_row_of_an_older_value(bundle: MutableBundle) -> str | None:
    for task_id, certificate in sorted(_proven(bundle).items()):
        for row in certificate.get("sensitivity") or []:
            if row.get("changed") and row.get("perturbed") and row.get("original") != row.get("perturbed"):
                row["original"], row["perturbed"] = row["perturbed"], row["original"]
                return task_id
    return None


# ------------------------------------------------------------------------------------------ K13


@mutation("K13", "policy_restates_fee_with_other_amount",
          "the policy gets a reminder section restating a current fee with $5.00 more than the fee in force")
def policy_restates_fee_with_other_amount(bundle: MutableBundle) -> str | None:
    facts = _fee_facts(bundle)
    if not facts:
        return None
    fact_id, fact, match = facts[0]
    wrong = f"{float(match.group(2)) + 5:.2f}"
    _append_to_policy(bundle, f"## Fee reminders\n\n- {match.group(1)} is ${wrong}{match.group(3)}")
    return fact_id


@mutation("K13", "policy_fee_table_contradicts_rule",
          "the policy gets a quick-reference fee table whose row differs from the rule in force")
def policy_fee_table_contradicts_rule(bundle: MutableBundle) -> str | None:
    facts = _fee_facts(bundle)
    if len(facts) < 2:
        return None
    fact_id, fact, match = facts[1]
    thing = match.group(1)[4:]
    wrong = f"{float(match.group(2)) * 2:.2f}"
    _append_to_policy(bundle, f"## Quick reference\n\n| Item | Amount |\n| --- | --- |\n"
                              f"| {thing[0].upper() + thing[1:]} | ${wrong} |")
    return fact_id


@mutation("K13", "knowledge_base_states_fee_with_other_amount",
          "a knowledge-base article gets a paragraph stating a current fee with an amount no version ever had")
def knowledge_base_states_fee_with_other_amount(bundle: MutableBundle) -> str | None:
    facts = _fee_facts(bundle)
    found = first_artifact(bundle, "knowledge_base_archive", ".html")
    if len(facts) < 3 or found is None:
        return None
    fact_id, fact, match = facts[2]
    artifact_id, entry, path = found
    text = bundle.text(path)
    if "</article>" not in text:
        return None
    wrong = f"{float(match.group(2)) + 7.5:.2f}"
    paragraph = f"<p>{match.group(1)} is ${wrong}{match.group(3)}</p>\n"
    bundle.set_text(path, text.replace("</article>", paragraph + "</article>", 1))
    return artifact_id


# ------------------------------------------------------------------------------------------ K18


@mutation("K18", "record_file_named_answer_key",
          "a reference-table record is delivered as kit/uploaded_materials/answer_key.csv")
def record_file_named_answer_key(bundle: MutableBundle) -> str | None:
    found = first_artifact(bundle, "reference_table", ".csv")
    if found is None:
        return None
    artifact_id, entry, path = found
    new = "kit/uploaded_materials/answer_key.csv"
    bundle.rename(path, new)
    for item in entry["files"]:
        if item["path"] == path:
            item["path"] = new
    return artifact_id


# ------------------------------------------------------------------------------------------ K20


def _shift_days(iso: str, days: int) -> str:
    import datetime as dt

    return (dt.date.fromisoformat(iso[:10]) + dt.timedelta(days=days)).isoformat() + iso[10:]


@mutation("K20", "supersession_goes_backwards",
          "the current version of a rule is dated to take effect before the version it supersedes")
def supersession_goes_backwards(bundle: MutableBundle) -> str | None:
    facts = bundle.manifest["facts"]
    for arc in sorted(bundle.manifest.get("arcs") or [], key=lambda arc: arc["arc_id"]):
        versions = arc["versions"]
        newest = versions[-1]["fact_id"]
        older = facts.get(newest, {}).get("supersedes")
        if len(versions) < 2 or older not in facts:
            continue
        backwards = _shift_days(facts[older]["effective_from"], -30)
        facts[newest]["effective_from"] = backwards
        versions[-1]["effective_from"] = backwards
        return newest
    return None


@mutation("K20", "email_reply_dated_before_its_parent",
          "the newest message of an email thread is dated a day before the message it quotes")
def email_reply_dated_before_its_parent(bundle: MutableBundle) -> str | None:
    import datetime as dt
    from email.utils import format_datetime

    for artifact_id, entry in sorted(bundle.manifest["artifacts"].items()):
        messages = (entry.get("metadata") or {}).get("messages") or []
        path = next((f["path"] for f in entry["files"] if f["path"].endswith(".eml")), None)
        if entry["genre"] != "email_thread" or len(messages) < 2 or path is None:
            continue
        early = dt.datetime.fromisoformat(messages[-2]["date"]) - dt.timedelta(days=1)
        text = bundle.text(path)
        header = re.search(r"^Date: .*$", text, re.MULTILINE)
        if header is None:
            continue
        bundle.set_text(path, text[:header.start()] + f"Date: {format_datetime(early)}" + text[header.end():])
        messages[-1]["date"] = early.isoformat()
        entry["timestamps"][-1] = early.isoformat()
        entry["end"] = max(entry["timestamps"])
        return artifact_id
    return None


@mutation("K20", "decision_register_updated_after_snapshot",
          "a decision register says it was last updated in the year after the snapshot")
def decision_register_updated_after_snapshot(bundle: MutableBundle) -> str | None:
    found = first_artifact(bundle, "decision_register", ".md")
    if found is None:
        return None
    artifact_id, entry, path = found
    text = bundle.text(path)
    year = int(bundle.manifest["snapshot_date"][:4]) + 1
    edited = re.sub(r"(Last updated \w+ \d{1,2}, )\d{4}", rf"\g<1>{year}", text, count=1)
    if edited == text:
        return None
    bundle.set_text(path, edited)
    return artifact_id


# K20 on the delivered files only: the manifest keeps the dates as built, so only a validator that
# reads the files themselves can see these.


def _built_manifest(bundle: MutableBundle) -> dict:
    """The manifest as built, parsed from its bytes without making it an editable document (so these
    operators cannot change it, not even by re-serialising it)."""
    import json

    return json.loads(bundle.files["author/manifest.json"])


def _delivered_paths(bundle: MutableBundle, genre: str, suffix: str) -> list[tuple[str, dict, str]]:
    """(artifact id, built manifest entry, delivered file path) of every ``genre`` artifact with a
    ``suffix`` file, by artifact id."""
    found = []
    for artifact_id, entry in sorted(_built_manifest(bundle)["artifacts"].items()):
        path = next((f["path"] for f in entry["files"] if f["role"] != "runtime" and f["path"].endswith(suffix)
                     and f["path"] in bundle.files), None)
        if entry["genre"] == genre and path:
            found.append((artifact_id, entry, path))
    return found


_EML_DATE = re.compile(r"^Date: ([^\r\n]*)", re.MULTILINE)


def _set_eml_date(bundle: MutableBundle, path: str, moment) -> bool:
    """Rewrite the ``Date`` header (the first ``Date:`` line, which is in the header block) of an .eml."""
    from email.utils import format_datetime

    text = bundle.text(path)
    header = _EML_DATE.search(text)
    if header is None:
        return False
    bundle.set_text(path, text[:header.start(1)] + format_datetime(moment) + text[header.end(1):])
    return True


@mutation("K20", "eml_date_header_before_quoted_parent",
          "an email's Date header is set a day before the message it quotes; the manifest keeps the built date")
def eml_date_header_before_quoted_parent(bundle: MutableBundle) -> str | None:
    import datetime as dt

    for artifact_id, entry, path in _delivered_paths(bundle, "email_thread", ".eml"):
        messages = (entry.get("metadata") or {}).get("messages") or []
        if len(messages) >= 2 and _set_eml_date(bundle, path, dt.datetime.fromisoformat(messages[-2]["date"])
                                                - dt.timedelta(days=1)):
            return artifact_id
    return None


@mutation("K20", "eml_dated_year_after_snapshot",
          "an email's Date header is moved to the year after the snapshot (a year typo); the manifest is unchanged")
def eml_dated_year_after_snapshot(bundle: MutableBundle) -> str | None:
    import datetime as dt

    year = int(_built_manifest(bundle)["snapshot_date"][:4]) + 1
    for artifact_id, entry, path in reversed(_delivered_paths(bundle, "email_thread", ".eml")):
        header = _EML_DATE.search(bundle.text(path))
        if header is None:
            continue
        from email.utils import parsedate_to_datetime

        moment = parsedate_to_datetime(header.group(1))
        later = moment.replace(year=year, day=min(moment.day, 28)) if moment.month == 2 else moment.replace(year=year)
        if _set_eml_date(bundle, path, later if later.tzinfo else later.replace(tzinfo=dt.timezone.utc)):
            return artifact_id
    return None


@mutation("K20", "chat_turn_clock_before_previous_turn",
          "the last timed turn of a chat transcript is stamped a minute before the turn above it (file edit only)")
def chat_turn_clock_before_previous_turn(bundle: MutableBundle) -> str | None:
    from taugen.generators.corpus.genres.support_transcript import CHAT_TURN

    for artifact_id, entry, path in _delivered_paths(bundle, "support_transcript", ".txt"):
        lines = bundle.text(path).split("\n")
        timed = [(index, CHAT_TURN.match(line)) for index, line in enumerate(lines) if CHAT_TURN.match(line)]
        if len(timed) < 2:
            continue
        (_, previous), (index, last) = timed[-2], timed[-1]
        minutes = int(previous.group(3)) * 60 + int(previous.group(4)) - 1
        if minutes < 0:
            continue
        lines[index] = (last.string[:last.start(3)] + f"{minutes // 60:02d}:{minutes % 60:02d}"
                        + last.string[last.end(4):])
        bundle.set_text(path, "\n".join(lines))
        return artifact_id
    return None


@mutation("K20", "meeting_cue_before_previous_cue",
          "the last cue of a meeting transcript (.vtt) starts two seconds before the cue above it (file edit only)")
def meeting_cue_before_previous_cue(bundle: MutableBundle) -> str | None:
    from taugen.generators.corpus.genres.meeting_transcript import cue_clock

    timing = re.compile(r"^(\d{2,}):(\d{2}):(\d{2})\.(\d{3})([ \t]+-->)", re.MULTILINE)
    for artifact_id, entry, path in _delivered_paths(bundle, "meeting_transcript", ".vtt"):
        text = bundle.text(path)
        found = list(timing.finditer(text))
        if len(found) < 2:
            continue
        hours, minutes, seconds, millis = (int(part) for part in found[-2].groups()[:4])
        start = hours * 3600 + minutes * 60 + seconds + millis / 1000 - 2.0
        if start < 0:
            continue
        last = found[-1]
        bundle.set_text(path, text[:last.start(1)] + cue_clock(start) + text[last.start(5):])
        return artifact_id
    return None


@mutation("K20", "issue_comment_before_issue_created",
          "the first comment of an exported Jira issue is dated a day before the issue was created (file edit only)")
def issue_comment_before_issue_created(bundle: MutableBundle) -> str | None:
    import datetime as dt

    from taugen.generators.corpus.genres.issue_tracker_export import parse_jira_time

    for artifact_id, entry, path in _delivered_paths(bundle, "issue_tracker_export", ".json"):
        for issue in bundle.json(path).get("issues", []):
            fields = issue.get("fields") or {}
            comments = (fields.get("comment") or {}).get("comments") or []
            if comments and fields.get("created"):
                early = parse_jira_time(fields["created"]) - dt.timedelta(days=1)
                stamp = early.strftime("%Y-%m-%dT%H:%M:%S.000%z")
                comments[0]["created"] = comments[0]["updated"] = stamp
                return artifact_id
    return None
