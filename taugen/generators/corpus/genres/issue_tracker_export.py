"""The issue-tracker-export genre: Jira issues with comments and change history, exported as JSON.

The file has the shape of the response of Jira's issue search with the change log expanded
(``GET /rest/api/2/search?expand=changelog``; Jira Cloud REST API v2:
https://developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issue-search/):
``{"expand", "startAt", "maxResults", "total", "issues": [...]}``, each issue
``{"id", "key", "fields": {...}, "changelog": {"histories": [...]}}`` with

* ``fields``: ``summary``, ``description`` (plain text, as API v2 returns it), ``issuetype``,
  ``project``, ``priority``, ``labels``, ``status`` (``To Do``, ``In Progress``, ``In Review``,
  ``Done``), ``created``, ``updated``, ``resolutiondate``, ``reporter`` and ``assignee`` (users with
  ``accountId``, ``displayName``, ``emailAddress``) and ``comment`` (``comments`` with ``id``,
  ``author``, ``body``, ``created``, ``updated``; ``total``);
* ``changelog.histories``: ``id``, ``author``, ``created`` and ``items`` (``field``,
  ``fieldtype``, ``fromString``, ``toString``) for every status and assignee change.

Times use Jira's format ``2026-03-04T14:09:31.000-0500``. Issues are numbered in the order they were
raised and each runs through its own events (created, assigned, moved, commented) in working hours
inside the plan window, never before the rules stated took effect.

Carriers and fillers come from one process: an export holds three to five issues (:data:`ISSUES`, drawn
before the rules are dealt to them, so how many rules a record holds does not show in how many issues
it has); every issue is about one subject and has one *slot*, in
its description under a heading drawn from one pool (``Details:``, ``Reference:`` ...) or in a
comment from the policy owner. An issue about a rule the plan owns holds the rendition there,
verbatim (voiced renditions only in comments); an issue about another subject of the topic holds a
grounded sentence in the same place (see
:func:`~taugen.generators.corpus.genres.benchmarks.grounded_sentences`): another organisation's
published figure for a comparable subject (attributed, never a value any fact on the subject had), how
often customers asked about it, or a working note. A filler is an export of such issues only; summaries,
backgrounds, acceptance criteria, issue types, statuses and comments come from the same pools for
every issue. An export that would pass
:data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens is written with fewer optional
issues and comments. A superseded rendition is framed as history only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the date of the description or
comment stating it. Sentences the planner adds about a fact without owning it (pointers, caveats,
route pointers, decoys) are plain comments, verbatim. ``timestamps`` are every event time, in
chronological order.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import json
import random
import re

from taugen.generators.corpus.genre import (
    CUE_STATUSES,
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    register_genre,
)
from taugen.generators.corpus.genres.benchmarks import (
    GroundedSlot,
    comparison,
    grounded_sentences,
    month_and_year,
    other_subjects,
    plan_peers,
    voiced_share,
)
from taugen.generators.corpus.genres.workplace import (
    Colleague,
    cast,
    counterpart,
    in_force_from,
    plan_frame,
    render_within_budget,
    said_subject,
    subject_phrase,
    upper_first,
    window,
    working_spread,
    workplace_words,
    written_history,
    zone,
)
from taugen.findings import Finding, error
from taugen.text import mid_sentence
from taugen.generators.corpus.stamps import Chain, Stamp, aware, json_documents

SUFFIX = ".json"
STATUSES = ("To Do", "In Progress", "In Review", "Done")
ISSUES = (3, 5)
"""How many issues an export holds (inclusive range), drawn before its rules are dealt to them: a mention
takes an issue of its own and the rules share the rest; fewer when the export is written again shorter
(see :func:`~taugen.generators.corpus.genres.workplace.render_within_budget`). τ^τ-bench's Jira exports
hold at least four."""
_KEY = re.compile(r"^[A-Z][A-Z0-9]{1,9}-\d+$")
_STAMP = "%Y-%m-%dT%H:%M:%S.000%z"

# One pool of everything an issue says, whether its slot holds a rule or a grounded figure. {S} subject,
# {T} topic, {A} asset. No digits and no number words.
_SUMMARIES = ("Update {A} for {S}", "Align {A} with the approved wording on {S}", "Confirm {S} before the "
              "content release", "Customer complaint: {A} unclear on {S}", "Refresh {S} in {A}",
              "Agents unsure about {S}", "Add {S} to the {T} module of new-starter training")
"""Summaries of an issue about one subject (a rule's or another subject of the topic)."""
_TOPIC_SUMMARIES = ("Refresh the {T} FAQ layout", "Move {T} guidance into the knowledge base",
                    "Tag {T} complaints in the case system", "Review access to the {T} procedures page",
                    "Add the {T} module to new-starter training", "Fix broken links on the {T} help pages",
                    "Retire the old {T} letter templates")
"""Summaries of an issue about the topic as a whole (when the topic has no other subject left)."""
_GENERIC_SUBJECTS = ("the {T} help pages", "the {T} letters", "the {T} section of the call guide",
                     "{T} complaints", "the {T} FAQ", "the {T} chat macros")
# {site}: where the business serves customers in person, the domain's word (CommonWords)
_BACKGROUND = ("Agents gave different answers on this; complaints picked it up in {REF}.",
               "The content in {A} predates the policy review of {MONTH} ({REF}).",
               "Raised after a {site} escalation ({REF}); the wording customers see should match our terms.",
               "Part of the {QUARTER} content review for {T}, tracked in {REF}.",
               "Housekeeping item from the {MONTH} {T} review ({REF}).", "Requested by the contact centre leads.",
               "Needed before the {MONTH} round of training; see {REF}.",
               "Follow-up from the audit walkthrough.", "{WHO} asked for this after the {MONTH} team huddle.")
"""How an issue came up. A stock line of eight words or more names something of its own issue (a linked
issue, a month, a person): long exports hold many issues, and the realism gate allows no long sentence
in two long documents of a genre."""
_CRITERIA = ("The wording in {A} matches the approved text exactly", "Compliance has signed off the change",
             "Contact centre leads are briefed", "The old wording is removed everywhere it appears",
             "Change is recorded in the content log", "Content team has reviewed the page", "Links are checked",
             "Owners are agreed and recorded", "Team leads are told where to find it")
_DETAILS = ("Details:", "Reference:", "For the change:")
"""The heading of the description's slot, whatever it holds (a rule, a peer's figure, a count, a note)."""
_WAITING = ("Details to follow in the comments.", "{WHO} will add the details below.")
_COMMENTS = {  # by the issue's status when the comment is written
    "To Do": ("Picked this up, will have a draft for review shortly.", "Looking into this now.",
              "Bumping this, the contact centre asked again."),
    "In Progress": ("Draft is ready for review.", "Added the screenshots to the review folder.",
                    "Checked with the {site} leads, no concerns.", "Halfway through, no blockers."),
    "In Review": ("Reviewed, looks good from Compliance.", "Deployed to the test environment.",
                  "One small wording tweak requested, otherwise fine."),
    "Done": ("Released, closing this one.", "Confirmed live.", "All done, thanks everyone."),
}
_SLOT_LEADS = ("Confirmed with the policy team:", "For reference:", "Quick note from the call with the team:",
               "For context:", "Checked this today:", "Noting this here:", "FYI:", "Note:", "", "")
"""Leads of a comment holding the slot or a remark in passing (a rule, a grounded figure, a pointer alike)."""
# Grounded content of a slot that holds no rule (see benchmarks.grounded_sentences). {P} peer, {V} figure.
_PEER_LINES = ("Customers are quoting {P}'s {V} for {S}.", "For comparison, {P} publishes {V} for {S}.",
               "A customer compared us with {P}, which lists {V} for {S}.", "{P}'s terms give {V} for {S}.")
_VOLUME_LINES = ("{N} customers asked about {S} in {MONTH}.", "{S} came up in {N} calls and chats in {MONTH}.",
                 "Complaints logged {N} cases mentioning {S} in {MONTH}.",
                 "The contact centre took {N} questions about {S} in {MONTH}.")
_NOTE_LINES = ("Customers often ask about {S} after a statement arrives.",
               "Agents explain {S} differently from one call to the next.",
               "Most questions about {S} come in by phone; some by secure message.",
               "Customers sometimes confuse {S} with something else; check what they mean first.")
_ASSETS = ("the IVR prompts", "the chat macros", "the website help pages", "the agent knowledge base",
           "the customer letter templates", "the {site} reference guide", "the call guide")
_LABELS = ("content", "compliance", "contact-centre", "website", "ivr", "training")


def jira_time(moment: dt.datetime) -> str:
    """``2026-03-04T14:09:31.000-0500`` (Jira's timestamp format)."""
    return moment.strftime(_STAMP)


def parse_jira_time(text: str) -> dt.datetime:
    """Parse a Jira timestamp (``...000-0500`` or ISO 8601 with a colon in the offset)."""
    return dt.datetime.fromisoformat(re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", text))


def _dealt(rng: random.Random, items: list, count: int) -> list[list]:
    """``items`` in order, cut into ``min(count, len(items))`` consecutive non-empty groups at random
    places (``[]`` when there are no items)."""
    count = min(count, len(items))
    if count <= 0:
        return []
    cuts = sorted(rng.sample(range(1, len(items)), count - 1))
    return [items[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)])]


def _user(person: Colleague, account: str) -> dict:
    return {"accountId": account, "displayName": person.name, "emailAddress": person.email, "active": True}


@register_genre
class IssueTrackerExportGenre(Genre):
    """A Jira issue export (JSON); see the module docstring.

    ``metadata``: ``project`` (key), ``issues`` (key → ``facts`` stated, ``where`` each is stated:
    ``description`` or ``comment:<id>``) and ``timestamp_order`` = ``"chronological"``.
    """

    name = "issue_tracker_export"
    reference_kinds = MappingProxyType({"": "work_item_export"})
    label = "Issue tracker export (Jira JSON)"
    max_facts = 4
    variants = ("change_request", "defect")
    affinity = (("text", "change_request", 2), ("money", "change_request", 1), ("duration", "defect", 1),
                ("boolean", "defect", 1), ("cap", "change_request", 1), ("enum", "defect", 1),
                ("none", "change_request", 1))
    voiced = True
    grounded_fillers = True
    """Issues whose slot holds no rule hold grounded figures (peers' published terms, customers' questions)."""

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """An export's issues are worked on over 1 to 14 days and some hours, first created to last
        updated: with the default (0 to 3 days) one export in four was created, commented on, moved
        through every status and resolved in one minute."""
        return dt.timedelta(days=rng.randint(1, 14), hours=rng.randint(0, 9), minutes=rng.randint(0, 59))

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Raise the issues, play out their events in the window, export them. An export that would
        run past :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens is written
        again with fewer optional issues and comments.

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        return render_within_budget(self, plan, context)

    def _render(self, plan: ArtifactPlan, context: RenderContext, shrink: int) -> RenderedArtifact:
        rng = plan.rng(f"issues-{shrink}" if shrink else "issues")
        fake = plan.faker(context.config.locale, "issue-people")
        tz = zone(context)
        bank = context.config.business
        other = counterpart(rng, context)
        roles = [(bank, "business")] * 3 + ([(other, other.role)] if other is not None else [])
        people = cast(rng, fake, roles, workplace_words(context))
        accounts = {p.handle: f"5f{rng.getrandbits(64):016x}{rng.getrandbits(24):06x}" for p in people}
        policy_owner, builder = people[0], people[-1]
        initials = "".join(word[0] for word in bank.name.split() if word[:1].isalpha()).upper() or "OPS"
        project = (initials + ("CX" if plan.variant == "defect" else "OPS"))[:10]
        topic = subject_phrase(plan)
        terms = context.vocabulary.common.terms()
        asset = rng.choice(_ASSETS).format(**terms)
        variant = plan.variant if plan.variant in self.variants else self.variants[0]

        # Issues: one per rendition (two close ones may share), plus issues about other subjects of the
        # topic whose slot holds a grounded sentence instead of a rule (a peer's figure, how often customers
        # asked, a working note). A filler is the same export with only the latter.
        # A mention (a rule named in passing) holds the slot of an issue about its subject, as a rule does;
        # pointers, caveats, routes and decoys are plain comments.
        # How many issues the export holds is drawn first, the same way for every export: rules (and
        # echoes) share issues when they would outnumber it, so a carrier's four rule places and a
        # filler's four do not give it more issues than the draw (they did: banking hard seed 0, four
        # issues in 65 % of carriers' exports and 44 % of fillers').
        wanted = max(1, rng.randint(ISSUES[0], ISSUES[1]) - shrink)
        remarks = [r for r in plan.renditions if r.status in CUE_STATUSES and r.status != "mention"]
        held = sorted((r for r in plan.renditions if r.status not in CUE_STATUSES or r.status == "mention"),
                      key=lambda r: (r.date, r.fact_id))
        mentions = [r for r in held if r.status == "mention"]
        rules = [r for r in held if r.status != "mention"]
        groups = [[mention] for mention in mentions] + _dealt(rng, rules, max(1, wanted - len(mentions)))
        groups.sort(key=lambda group: (group[0].date, group[0].fact_id))
        subjects = other_subjects(context, plan, rng)
        issues: list[dict] = [{"renditions": g} for g in groups]
        issues += [{"renditions": [], "about": subjects[n] if n < len(subjects) else None}
                   for n in range(max(wanted - len(groups), 0))]
        rng.shuffle(issues)
        for remark in remarks:
            rng.choice(issues).setdefault("remarks", []).append(remark)
        peers = plan_peers(context, plan)
        voiced = voiced_share(context)

        # Events per issue: created, assigned, status moves, comments.
        for issue in issues:
            # now and then a comment on what other organisations publish for the issue's subject, beside a
            # rule or a grounded sentence alike
            lead = issue["renditions"][0] if issue["renditions"] else None
            fact = plan.facts.get(lead.fact_id) if lead is not None else issue.get("about")
            subject = subject_phrase(plan, lead) if lead is not None else \
                mid_sentence((getattr(fact, "subject", None) or "").strip().rstrip("."))
            aside = comparison(rng, context, fact, subject, peers, plan.facts.values(), 0.35, peer_lines=_PEER_LINES)
            if aside:
                issue.setdefault("remarks", []).append(GroundedSlot(text=aside, subject=subject, fact=fact))
            final = rng.choice(("Done", "Done", "In Review", "In Progress", "To Do"))
            moves = list(STATUSES[1:STATUSES.index(final) + 1])
            comments = rng.randint(1, max(1, 3 - shrink))
            slots_of = issue["renditions"] or ([issue["about"]] if issue.get("about") is not None else [])
            # voiced renditions are said in comments; a grounded slot is "voiced" as often as the tier's rules
            in_comment = [r for r in slots_of if (r.register == "voiced" if isinstance(r, Rendition)
                                                  else rng.random() < voiced) or rng.random() < 0.35]
            needed = len(in_comment) + len(issue.get("remarks", []))
            issue.update(final=final, moves=moves, n_comments=max(comments, needed), in_comment=in_comment,
                         assigned=rng.random() < 0.9)
            issue["n_events"] = 1 + int(issue["assigned"]) + len(moves) + issue["n_comments"]
        start, end = window(plan, tz)
        times = working_spread(rng, sum(i["n_events"] for i in issues), in_force_from(plan, start, end), end,
                               min_gap=300, max_gap=6 * 3600)

        exported: list[dict] = []
        metadata_issues: dict[str, dict] = {}
        cursor = 0
        history_id, comment_id = rng.randint(100000, 400000), rng.randint(20000, 90000)
        first_number = issue_number = rng.randint(120, 2400)
        saying = plan.rng("spoken subjects")  # how an issue title says its subject (draws of its own)
        for number, issue in enumerate(issues):
            slots = times[cursor:cursor + issue["n_events"]]
            cursor += issue["n_events"]
            created = slots[0]
            issue_number = first_number if number == 0 else issue_number + rng.randint(1, 9)
            key = f"{project}-{issue_number}"
            reporter = rng.choice(people[1:3])
            assignee = builder if rng.random() < 0.75 else rng.choice(people)
            renditions: list[Rendition] = issue["renditions"]
            about = issue.get("about")
            # Every issue draws its summary from the same templates, whether or not it states a rule.
            if renditions:
                subject = subject_phrase(plan, renditions[0])
            elif about is not None:
                subject = mid_sentence((about.subject or "").strip().rstrip("."))
            else:
                subject = rng.choice(_GENERIC_SUBJECTS).format(T=topic)
            templates = _SUMMARIES if renditions or about is not None else _SUMMARIES + _TOPIC_SUMMARIES
            # an issue's title says its subject as people write it (a rule's issue or not alike)
            summary = upper_first(rng.choice(templates).format(S=said_subject(context, saying, subject), A=asset,
                                                               T=topic))
            grounded = {}
            if about is not None:
                grounded[id(about)] = " ".join(upper_first(line) for line in grounded_sentences(
                    rng, context, about, subject, peers, created.date(), plan.facts.values(), peer_lines=_PEER_LINES,
                    volume_lines=_VOLUME_LINES, note_lines=_NOTE_LINES))
            where: dict[str, str] = {}
            slot_items = renditions or ([about] if about is not None else [])
            described = [r for r in slot_items if r not in issue["in_comment"]]
            raised = created.date() - dt.timedelta(days=rng.randint(3, 80))
            background = rng.choice(_BACKGROUND).format(
                A=asset, T=topic, REF=f"{project}-{rng.randint(40, max(41, issue_number - 1))}",
                MONTH=month_and_year(raised), QUARTER=f"Q{(raised.month - 1) // 3 + 1} {raised.year}",
                WHO=rng.choice(people).first, **terms)
            # the background often says how the subject came up (a rule's issue or not alike); never as a
            # working note, which written with "this" for the subject is the same sentence in every export
            fact = plan.facts.get(renditions[0].fact_id) if renditions else about
            if fact is not None and rng.random() < 0.6:
                background += " " + " ".join(upper_first(line) for line in grounded_sentences(
                    rng, context, fact, subject, peers, created.date(), plan.facts.values(), peer_lines=_PEER_LINES,
                    volume_lines=_VOLUME_LINES, note_lines=_NOTE_LINES, written="this", weights=(0.8, 1.0)))
            description = [f"Background:\n{background}"]
            if described:
                wording = []
                for item in described:
                    if isinstance(item, Rendition):
                        lead, tail = written_history(rng, plan, item, created.date())
                        wording.append(" ".join(part for part in (lead, item.text, tail) if part))
                        if item.status not in CUE_STATUSES:
                            where[item.fact_id] = "description"
                    else:
                        wording.append(grounded[id(item)])
                description.append(rng.choice(_DETAILS) + "\n" + "\n".join(wording))
            elif slot_items:
                description.append(rng.choice(_WAITING).format(WHO=policy_owner.first))
            criteria = rng.sample(_CRITERIA, k=rng.randint(2, 3))
            description.append("Acceptance criteria:\n" + "\n".join(f"* {c.format(A=asset)}" for c in criteria))

            # Lay the events on their slots in order.
            # Assignment first (when any), then moves (in workflow order) and comments interleaved.
            later = ["move"] * len(issue["moves"]) + ["comment"] * issue["n_comments"]
            rng.shuffle(later)
            events = ["assign"] * int(issue["assigned"]) + later
            histories, comments = [], []
            status = "To Do"
            moves = list(issue["moves"])
            pending = list(issue["in_comment"])
            asides = list(issue.get("remarks", []))
            resolved = None
            used: set[str] = set()
            for event, moment in zip(events, slots[1:]):
                if event == "assign":
                    history_id += rng.randint(1, 40)
                    histories.append({"id": str(history_id), "author": _user(reporter, accounts[reporter.handle]),
                                      "created": jira_time(moment),
                                      "items": [{"field": "assignee", "fieldtype": "jira", "from": None,
                                                 "fromString": None, "to": accounts[assignee.handle],
                                                 "toString": assignee.name}]})
                elif event == "move":
                    target = moves.pop(0)
                    history_id += rng.randint(1, 40)
                    histories.append({"id": str(history_id), "author": _user(assignee, accounts[assignee.handle]),
                                      "created": jira_time(moment),
                                      "items": [{"field": "status", "fieldtype": "jira",
                                                 "from": str(STATUSES.index(status) + 1), "fromString": status,
                                                 "to": str(STATUSES.index(target) + 1), "toString": target}]})
                    status = target
                    if target == "Done":
                        resolved = moment
                else:
                    comment_id += rng.randint(1, 60)
                    if pending:
                        item = pending.pop(0)
                        if isinstance(item, Rendition):
                            lead, tail = written_history(rng, plan, item, moment.date())
                            lead, text = lead or rng.choice(_SLOT_LEADS), item.text
                            if item.status not in CUE_STATUSES:
                                where[item.fact_id] = f"comment:{comment_id}"
                        else:
                            lead, text, tail = rng.choice(_SLOT_LEADS), grounded[id(item)], ""
                        body = " ".join(part for part in (lead, text, tail) if part)
                        author = policy_owner
                    elif asides and (len(asides) >= issue["n_comments"] - len(comments) - len(pending)
                                     or rng.random() < 0.5):
                        aside = asides.pop(0)
                        lead = rng.choice(_SLOT_LEADS)
                        body = f"{lead} {aside.text}" if lead else aside.text
                        author = rng.choice(people)
                    else:
                        options = [c for c in (c.format(**terms) for c in _COMMENTS[status]) if c not in used] or [
                            "Noted."]
                        body = rng.choice(options)
                        used.add(body)
                        author = rng.choice([assignee, reporter])
                    comments.append({"id": str(comment_id), "author": _user(author, accounts[author.handle]),
                                     "body": body, "created": jira_time(moment), "updated": jira_time(moment)})
            updated = slots[-1]
            issue_type = rng.choice(("Bug", "Bug", "Task") if variant == "defect" else ("Story", "Story", "Task"))
            fields = {
                "summary": summary,
                "description": "\n\n".join(description),
                "issuetype": {"name": issue_type},
                "project": {"key": project,
                            "name": f"{bank.name} {'Customer Experience' if variant == 'defect' else 'Operations'}"},
                "priority": {"name": rng.choice(("Medium", "Medium", "High", "Low"))},
                "labels": sorted(rng.sample(_LABELS, k=rng.randint(1, 2))),
                "status": {"name": status},
                "created": jira_time(created),
                "updated": jira_time(updated),
                "resolutiondate": jira_time(resolved) if resolved else None,
                "reporter": _user(reporter, accounts[reporter.handle]),
                "assignee": _user(assignee, accounts[assignee.handle]) if issue["assigned"] else None,
                "comment": {"comments": comments, "maxResults": len(comments), "total": len(comments), "startAt": 0},
            }
            exported.append({"expand": "renderedFields,names,schema,changelog", "id": str(10000 + issue_number),
                             "key": key, "fields": fields,
                             "changelog": {"startAt": 0, "maxResults": len(histories), "total": len(histories),
                                           "histories": histories}})
            metadata_issues[key] = {"facts": [r.fact_id for r in renditions if r.status not in CUE_STATUSES],
                                    "where": where}
        document = {"expand": "schema,names", "startAt": 0, "maxResults": 50, "total": len(exported),
                    "issues": exported}
        data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        stamps = [plan_frame(t, plan, tz) for t in sorted(times)]
        metadata = {"project": project, "variant": variant, "issues": metadata_issues,
                    "timestamp_order": "chronological"}
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=list(plan.renditions), timestamps=stamps, metadata=metadata)

    # ------------------------------------------------------------------------------------------- reading
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Parse the export with :mod:`json`; for each issue: ``KEY: summary``, type, status, priority,
        reporter, assignee, created and updated, the description, the comments (``[time] Author:
        body``) and the change history (``[time] Author: field: from -> to``). ``author_text`` is not used."""
        blocks = []
        for file in files:
            if file.suffix != SUFFIX:
                continue
            for issue in json.loads(file.data).get("issues", []):
                fields = issue.get("fields", {})
                status, priority = fields.get("status", {}).get("name", ""), fields.get("priority", {}).get("name", "")
                assignee = (fields.get("assignee") or {}).get("displayName", "Unassigned")
                lines = [f"{issue.get('key')}: {fields.get('summary', '')}",
                         f"Type: {fields.get('issuetype', {}).get('name', '')} | Status: {status} | "
                         f"Priority: {priority}",
                         f"Reporter: {(fields.get('reporter') or {}).get('displayName', '')} | Assignee: {assignee}",
                         f"Created: {fields.get('created', '')} | Updated: {fields.get('updated', '')}",
                         "", fields.get("description") or "", ""]
                comments = fields.get("comment", {}).get("comments", [])
                if comments:
                    lines.append("Comments:")
                    lines += [f"[{c.get('created', '')}] {c.get('author', {}).get('displayName', '')}: "
                              f"{c.get('body', '')}" for c in comments]
                histories = issue.get("changelog", {}).get("histories", [])
                if histories:
                    lines.append("History:")
                    for history in histories:
                        who = history.get("author", {}).get("displayName", "")
                        for item in history.get("items", []):
                            lines.append(f"[{history.get('created', '')}] {who}: {item.get('field')}: "
                                         f"{item.get('fromString') or 'None'} -> {item.get('toString')}")
                blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """Chains of the search export (times read with :func:`parse_jira_time`; one without an offset
        takes ``zone``), per issue: ``created``, the comments in order, ``updated``; ``created``, the
        change-log histories in order, ``updated``; each comment's ``created`` then its ``updated``;
        ``created`` then ``resolutiondate``. ``updated``, ``resolutiondate`` and an unedited comment's
        ``updated`` restate other events' moments (:attr:`~taugen.generators.corpus.stamps.Stamp.restates`)."""

        def stamp(text: object, label: str, restates: bool = False) -> Stamp | None:
            try:
                return Stamp(label, aware(parse_jira_time(str(text)), zone), restates=restates) if text else None
            except ValueError:
                return None

        chains: list[list[Stamp | None]] = []
        for document in json_documents(files):
            for issue in document.get("issues") or []:
                if not isinstance(issue, dict):
                    continue
                key, fields = issue.get("key", "?"), issue.get("fields") or {}
                # ``updated`` is the issue's last activity and ``resolutiondate`` its move to Done: they restate
                # events the export states (one issue with one comment is three fields at one moment, not a
                # frozen clock; banking hard seed 18 failed on it)
                created = stamp(fields.get("created"), f"{key} created")
                updated = stamp(fields.get("updated"), f"{key} updated", restates=True)
                comments = [c for c in (fields.get("comment") or {}).get("comments") or [] if isinstance(c, dict)]
                histories = [h for h in (issue.get("changelog") or {}).get("histories") or [] if isinstance(h, dict)]
                # one label per field: a comment's ``created`` is the same stamp in the issue's chain and in
                # its own (two labels for it made one unedited last comment four "moments" of a frozen clock)
                chains.append([created, *(stamp(c.get("created"), f"{key} comment {c.get('id')} created")
                                          for c in comments), updated])
                chains.append([created, *(stamp(h.get("created"), f"{key} change {h.get('id')}") for h in histories),
                               updated])
                chains += [[stamp(c.get("created"), f"{key} comment {c.get('id')} created"),
                            stamp(c.get("updated"), f"{key} comment {c.get('id')} updated",
                                  restates=c.get("updated") == c.get("created"))] for c in comments]
                chains.append([created, stamp(fields.get("resolutiondate"), f"{key} resolved", restates=True)])
        return [[s for s in chain if s is not None] for chain in chains]

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Export structure: one ``.json`` with an ``issues`` list (and ``total`` equal to its length);
        each issue has a unique ``PROJECT-N`` key, a summary, a status and parseable ``created`` and
        ``updated`` with created ≤ updated; comments and change-log histories are in time order and
        inside ``[created, updated]``; status changes form a chain from ``To Do`` (each ``fromString`` is
        the previous ``toString``) ending at the issue's status; ``resolutiondate`` is set exactly when
        the issue is ``Done``."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "json_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        try:
            document = json.loads(files[0].data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return [error("structure", "json_unreadable", subject, "the export is not valid JSON", str(exc))]
        if not isinstance(document, dict) or not isinstance(document.get("issues"), list) or not document["issues"]:
            return [error("structure", "no_issues", subject, "the export has no issues list")]
        findings: list[Finding] = []
        issues = document["issues"]
        if "total" in document and document["total"] != len(issues):
            findings.append(error("structure", "total_mismatch", subject,
                                  f"total says {document['total']}, the export holds {len(issues)} issues"))
        keys = [issue.get("key", "") for issue in issues]
        if len(set(keys)) != len(keys):
            findings.append(error("structure", "duplicate_key", subject, "two issues share a key"))
        for issue in issues:
            key = str(issue.get("key", ""))
            fields = issue.get("fields") or {}
            if not _KEY.match(key):
                findings.append(error("structure", "bad_key", subject, f"issue key {key!r} is not PROJECT-N"))
            if not fields.get("summary") or not (fields.get("status") or {}).get("name"):
                findings.append(error("structure", "missing_field", subject, f"{key} lacks a summary or status"))
                continue
            try:
                created, updated = parse_jira_time(fields["created"]), parse_jira_time(fields["updated"])
                comments = [parse_jira_time(c["created"]) for c in (fields.get("comment") or {}).get("comments", [])]
                histories = issue.get("changelog", {}).get("histories", [])
                changes = [parse_jira_time(h["created"]) for h in histories]
            except (KeyError, TypeError, ValueError) as exc:
                findings.append(error("structure", "bad_time", subject, f"{key} has a missing or unparseable time",
                                      str(exc)))
                continue
            if created > updated:
                findings.append(error("structure", "updated_before_created", subject, f"{key} was updated before "
                                      "it was created"))
            for label, moments in (("comments", comments), ("changelog", changes)):
                if any(b < a for a, b in zip(moments, moments[1:])):
                    findings.append(error("structure", "changelog_out_of_order" if label == "changelog" else
                                          "comments_out_of_order", subject, f"{key}: {label} are not in time order"))
                if any(not created <= m <= updated for m in moments):
                    findings.append(error("structure", "event_outside_issue", subject,
                                          f"{key}: {label} fall outside created..updated"))
            status = "To Do"
            for history in histories:
                for item in history.get("items", []):
                    if item.get("field") != "status":
                        continue
                    if item.get("fromString") != status:
                        findings.append(error("structure", "status_chain", subject,
                                              f"{key}: a status change starts from {item.get('fromString')!r}, "
                                              f"the issue was {status!r}"))
                    status = item.get("toString")
            if status != fields["status"]["name"]:
                findings.append(error("structure", "status_mismatch", subject,
                                      f"{key}: the change log ends at {status!r}, the issue shows "
                                      f"{fields['status']['name']!r}"))
            if (fields["status"]["name"] == "Done") != bool(fields.get("resolutiondate")):
                findings.append(error("structure", "resolution_mismatch", subject,
                                      f"{key}: resolutiondate does not match the status"))
        return findings


__all__ = ["IssueTrackerExportGenre", "jira_time", "parse_jira_time"]
