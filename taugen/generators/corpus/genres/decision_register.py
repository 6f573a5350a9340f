"""The decision-register genre: a kickoff document / decision register in Markdown (``.md``).

The delivered file is CommonMark (https://spec.commonmark.org/) with a GitHub Flavored Markdown table
(https://github.github.com/gfm/#tables-extension-), as teams keep such registers in a repository or
wiki: a title, a header line (organisation, author, last-updated date), a purpose paragraph, the
decision table ``| ID | Date | Decision | Owner | Status |`` (status one of ``Proposal``,
``Rejected``, ``Superseded``, ``Final``), a status key, workshop notes (``### Workshop ...`` with
attendees and bullet notes) and open actions (``- [ ]`` items). Written through
``decision_register/register.md.j2``; all dynamic text is backslash-escaped where Markdown would read
it as markup (``|``, ``*``, ``_``, ``[``, ``<`` ...), so the reader gets the words back verbatim.

For each rendition the table records the alternatives considered and rejected (they never carry a
number, so no wrong value is planted) and the final decision, whose text is the rendition, verbatim. A
superseded rendition is a ``Superseded`` row (``Replaced by D-NN.``) only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the register's date; otherwise it was
the decision in force that day and is a ``Final`` row like any other.

Carriers and fillers come from one process. Other rules of the topic are decided the same way, with the
same alternatives, and a final decision that states no rule of the business: another organisation's
published figure (a comparable subject, :func:`~taugen.generators.corpus.genres.benchmarks.comparable_facts`),
how often customers raised the subject, or a working note; a register without rules decides one to four
such subjects, one with rules one beside them half the time. Housekeeping topics (ownership, channels,
training, sign-off) are decided the same way with no values; a register decides as many topics as bring
it closest to the length the planner gave it (``length_words``, dealt over :data:`REGISTER_TOKENS`,
carriers and fillers alike) whether or not some state rules; unplanned, two to seven, and fewer when it
would pass :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens. Every row's owner is drawn
from the same people and teams. Rows are in date order;
``timestamps`` are the workshop and decision times and the last-updated time, in chronological order."""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import random
import re

from markdown_it import MarkdownIt

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.workplace import (
    cast,
    counterpart,
    long_day,
    plan_frame,
    render_to_length,
    render_within_budget,
    said_subject,
    subject_phrase,
    upper_first,
    window,
    working_spread,
    workplace_words,
    zone,
)
from taugen.findings import Finding, error

SUFFIX = ".md"
TEMPLATE = "decision_register/register.md.j2"
REGISTER_TOKENS = (400, 900)
"""A register's length in tokens of its text (as the realism gate counts them): the planner stratifies it
over the registers (``spread_words``), carriers and fillers each over the whole range, and
:meth:`DecisionRegisterGenre.render` picks how many topics it records so it comes closest. Unplanned, a
register's length followed its topics, and at banking hard seed 4 the 13 carriers' registers ran longer
than the 29 fillers' (540 words against 490), which a numeric-density reader picked up (ROC AUC 0.777)."""
HEADER = ["ID", "Date", "Decision", "Owner", "Status"]
STATUSES = ("Proposal", "Rejected", "Superseded", "Final")
_ID = re.compile(r"^D-\d{2,}$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_REPLACED = re.compile(r"Replaced by (D-\d{2,})")
_ESCAPE = re.compile(r"([\\`*_\[\]<|])|&(?=[A-Za-z#])")

# No digits and no number words: only renditions carry values. {S} subject, {T} topic, {A} asset; {site} and
# {sites}: where the business serves customers in person, the domain's word (CommonWords).
_ALTERNATIVES = ("Leave {S} out of {A} and point customers to the website.",
                 "Let each {site} explain {S} in its own words.", "Mention {S} only when a customer asks.",
                 "Keep the existing wording on {S} in {A} until the next release.",
                 "Route every question about {S} to the specialist team.")
_OPEN = ("Add a short explainer on {S} to the help pages.", "Review how {S} is shown in the mobile app.",
         "Ask the vendor to show {S} in the statement message file.")
_FILLER_DECISIONS = (  # (alternatives considered, final decision): ownership, channels, training; no values
    (("Marketing owns the {T} FAQ.", "Each product team keeps its own {T} FAQ."),
     "Customer Care owns the {T} FAQ and Compliance reviews every change."),
    (("Keep {T} guidance in the shared drive.", "Send {T} guidance to staff by email only."),
     "{T} guidance lives in the knowledge base, linked from the call guide."),
    (("Log {T} complaints as free-text notes.", "Track {T} complaints in a separate spreadsheet."),
     "Every {T} complaint gets a case with its category selected."),
    (("Fold {T} into the general induction.", "Leave {T} training to team leads on the floor."),
     "New starters complete the {T} module before taking live calls."),
    (("Product signs off {A} alone.", "The vendor signs off {A} on our behalf."),
     "Product drafts {A}; Compliance signs off."),
    (("Tell {sites} about {T} changes by email.", "Let {sites} find {T} changes on the intranet themselves."),
     "{T} changes go in the weekly {site} bulletin and huddle notes."),
    (("Answer {T} questions from memory.", "Read {T} answers from the old call guide."),
     "Agents answer {T} questions from the current knowledge base article only."),
    (("Keep retired {T} letters in the letter library.", "Delete retired {T} letters without a record."),
     "Retired {T} letters move to the archive with a note of the date they were withdrawn."),
)
# A subject block decides another rule of the topic the way a rule block decides its rule, and states no
# rule of the business: another organisation's published figure (a comparable subject), how often
# customers raised it (a count that is none of the subject's values), or a working note. {P} peer, {V}
# its figure, {N} a count, {M} a month.
_PEER_FINALS = ("Keep {S} as published; {P} lists {V} and we do not match it.",
                "Note in the pricing review that {P} publishes {V} for {S}, labelled as theirs.",
                "Answer questions comparing {S} with {P} ({V}) by pointing to our published terms.",
                "Track {P}'s published {V} for {S} in the market comparison, not in {A}.")
_VOLUME_FINALS = ("Give {S} its own answer in {A}: customers asked about it {N} times in {M}.",
                  "Review how {A} explains {S} after {N} complaints in {M}.",
                  "Add {S} to the refresher: {N} calls about it in {M} were transferred.",
                  "Flag {S} in {A}; {N} cases in {M} needed a call back.")
_NOTE_FINALS = ("{A} links to the published terms for {S} rather than restating them.",
                "Agents quote {S} from the current schedule, never from old letters.",
                "Keep {S} out of the IVR prompts and answer it in {A}.",
                "Explain {S} in plain words in {A}, with the terms linked.")
_SUBJECT_COUNTS = (1, 2, 2, 3, 3, 4)
"""Subject blocks in a register without rules when the planner gave no ``rule_slots``."""
_GENERIC_SUBJECTS = ("the {T} help pages", "the {T} letters", "the {T} section of the call guide", "the {T} FAQ")
_PURPOSES = ("This register records what was decided about {T} during the kickoff workshops, who owns each "
             "decision and where it stands. It is the reference for {A}.",
             "Decisions on {T} for the content refresh, kept in one place so that scripts, letters and {A} say "
             "the same thing.",
             "The working record of the {T} workshops: proposals, what was rejected and why, and the final "
             "positions.")
_NOTES = ("Walked through the current wording of {S} in {A}.", "Agreed the customer-facing wording must match "
          "the terms exactly.", "Compliance to confirm the sign-off route.", "Contact centre asked for one line "
          "agents can read out.", "Discussed where customers look first: the app, then the website.",
          "Reviewed complaints that mention {S}.", "The vendor will need the final wording before the next build.",
          "No objections to the proposed owners.")
_ACTIONS = ("Update {A} with the final wording.", "Brief the contact centre leads.", "Send the register to the "
            "vendor.", "Archive the superseded guidance.", "Book the follow-up workshop.")
_ASSETS = ("the call guide", "the agent knowledge base", "the {site} reference guide", "the IVR prompts",
           "the website help pages", "the customer letter templates")


def _subject_of(fact) -> str:
    text = (fact.subject or "").strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() or not text[1:2] else text


def md_escape(text: str) -> str:
    """Backslash-escape the characters Markdown would read as markup (CommonMark §2.4)."""
    return _ESCAPE.sub(lambda m: "\\" + (m.group(1) or "&"), text)


def _inline_text(token) -> str:
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def read_markdown(data: bytes) -> tuple[list[str], list[list[list[str]]]]:
    """Parse Markdown with markdown-it-py (CommonMark + tables).

    Returns ``(lines, tables)``: one text line per heading, paragraph, list item and table row (cells
    joined by `` | ``), markup removed and escapes resolved; and each table as rows of cell texts.
    """
    parser = MarkdownIt("commonmark").enable("table")
    lines: list[str] = []
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    checkbox = re.compile(r"^\[[ xX]\] ")
    for token in parser.parse(data.decode("utf-8")):
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            lines.append(" | ".join(row))
            tables[-1].append(row)
            row = None
        elif token.type == "inline":
            text = _inline_text(token)
            if row is not None:
                row.append(text)
            else:
                lines.append(checkbox.sub("", text))
    return lines, tables


@register_genre
class DecisionRegisterGenre(Genre):
    """A Markdown decision register / kickoff document; see the module docstring.

    ``metadata``: ``decisions`` (id → date, status, facts) and ``timestamp_order`` =
    ``"chronological"``.
    """

    name = "decision_register"
    reference_kinds = MappingProxyType({"": "intake_form"})
    label = "Decision register (Markdown)"
    max_facts = 5
    grounded_fillers = True
    variants = ("kickoff", "register")
    affinity = (("text", "register", 2), ("money", "kickoff", 1), ("duration", "register", 1),
                ("boolean", "register", 1), ("enum", "kickoff", 1), ("cap", "kickoff", 1), ("percent", "kickoff", 1),
                ("none", "register", 1))

    spread_words = REGISTER_TOKENS
    """Planned lengths in tokens of the register's text (:data:`REGISTER_TOKENS`)."""

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the register through the template. With a planned length (``plan.length_words``, tokens
        of its text) the register is written with one workshop and with its drawn workshops, each with one
        to eight topics decided, and the draft closest to the length is kept
        (:func:`~taugen.generators.corpus.genres.workplace.render_to_length`); without one, a register
        that would run past :data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens is
        written again with fewer optional topics and notes.

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        if not plan.length_words:
            return render_within_budget(self, plan, context)
        return render_to_length(self, plan, context, [[(shrink, {"topics": topics}) for topics in range(1, 9)]
                                                      for shrink in (1, 0)])

    def _render(self, plan: ArtifactPlan, context: RenderContext, shrink: int,
                topics: int | None = None) -> RenderedArtifact:
        """One register. ``topics`` (planned lengths) fixes how many topics it records decisions on (the
        rules' and other subjects' first; context topics fill up to it); else it draws two to seven, less
        twice ``shrink``, which also keeps it to one workshop."""
        rng = plan.rng(f"register-{shrink}" if shrink else "register")
        fake = plan.faker(context.config.locale, "register-people")
        tz = zone(context)
        start, end = window(plan, tz)
        bank = context.config.business
        other = counterpart(rng, context)
        people = cast(rng, fake, [(bank, "business")] * 3 + ([(other, other.role)] if other else []),
                      workplace_words(context))
        author = people[0]
        owners = [f"{p.name} ({p.org.name.split()[0]})" if p.org.id != bank.id else p.name for p in people]
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        topic = subject_phrase(plan)
        terms = context.vocabulary.common.terms()
        asset = rng.choice(_ASSETS).format(**terms)
        day = end.date()

        # Rows in blocks, one block per topic decided: rejected alternatives, an open proposal, a replaced
        # decision shown as history, then the final decision.
        history = {r.fact_id for r in plan.renditions if shown_as_history(plan, r, day)}
        blocks: list[list[dict]] = []
        current = [r for r in sorted(plan.renditions, key=lambda r: (r.date, r.fact_id)) if r.fact_id not in history]
        saying = plan.rng("spoken subjects")  # how staff write each subject, a rule's or another's alike
        for rendition in current:
            values = {"S": said_subject(context, saying, subject_phrase(plan, rendition)), "A": asset, **terms}
            block = [{"status": "Rejected", "text": upper_first(text.format(**values)), "facts": []}
                     for text in rng.sample(_ALTERNATIVES, k=rng.randint(1, 2))]
            if rng.random() < 0.3:
                block.append({"status": "Proposal", "text": rng.choice(_OPEN).format(**values), "facts": []})
            older = [r for r in plan.renditions if r.fact_id in history
                     and getattr(plan.successor(r.fact_id), "id", None) == rendition.fact_id]
            block += [{"status": "Superseded", "text": old.text, "facts": [old.fact_id], "replaced_by": True}
                      for old in older]
            block.append({"status": "Final", "text": rendition.text, "facts": [rendition.fact_id]})
            blocks.append(block)
        placed = {f for block in blocks for row in block for f in row["facts"]}
        for rendition in plan.renditions:  # history whose successor is not stated here (not expected)
            if rendition.fact_id not in placed:
                blocks.append([{"status": "Final", "text": rendition.text, "facts": [rendition.fact_id]}])
        subject_facts = self._subjects(rng, plan, context, bool(blocks))
        for fact in subject_facts:
            blocks.append(self._subject_block(rng, plan, context, fact, asset, end.date(), saying))
        fillers = list(_FILLER_DECISIONS)
        rng.shuffle(fillers)
        # topics decided, with or without rules
        wanted = topics if topics is not None else rng.randint(2, 7) - 2 * shrink
        values = {"T": topic, "A": asset, **terms}
        for alternatives, final in fillers[:max(wanted - len(blocks), 0 if blocks else 2)]:
            block = [{"status": "Rejected", "text": upper_first(text.format(**values)), "facts": []}
                     for text in rng.sample(alternatives, k=rng.randint(1, 2))]
            if rng.random() < 0.3:
                generic = rng.choice(_GENERIC_SUBJECTS).format(T=topic)
                block.append({"status": "Proposal", "text": rng.choice(_OPEN).format(S=generic, A=asset),
                              "facts": []})
            block.append({"status": "Final", "text": upper_first(final.format(**values)), "facts": []})
            blocks.append(block)
        rng.shuffle(blocks)
        rows = [row for block in blocks for row in block]

        # Dates: workshops then decisions, in working time inside the window; renditions on their day.
        n_workshops = rng.randint(1, 2) if not shrink else 1
        times = working_spread(rng, n_workshops + len(rows), start, end, min_gap=1800, max_gap=6 * 3600)
        workshop_times, row_times = times[:n_workshops], times[n_workshops:]
        for row, moment in zip(rows, row_times):
            row["moment"] = moment
        for number, row in enumerate(rows, start=1):
            row["id"] = f"D-{number:02d}"
        final_ids = {f: row["id"] for row in rows if row["status"] == "Final" for f in row["facts"]}
        table = []
        for row in rows:
            text = row["text"]
            if row.get("replaced_by"):
                old = row["facts"][0]
                newer = plan.successor(old)
                assert newer is not None  # shown as history: the successor is in this register
                text = f"{text} Replaced by {final_ids[newer.id]} from {long_day(newer.effective_from)}."
            table.append({"id": row["id"], "date": f"{row['moment']:%Y-%m-%d}", "text": md_escape(text),
                          "owner": md_escape(rng.choice(owners + list(workplace_words(context).teams))),
                          "status": row["status"]})
        workshops = []
        for index, moment in enumerate(workshop_times, start=1):
            subjects = [said_subject(context, saying, subject_phrase(plan, r)) for r in current] + \
                [said_subject(context, saying, _subject_of(f)) for f in subject_facts] or [topic]
            notes = [md_escape(upper_first(n.format(S=rng.choice(subjects), A=asset)))
                     for n in rng.sample(_NOTES, k=rng.randint(3, 5))]
            attendees = rng.sample(people, k=rng.randint(2, len(people)))
            workshops.append({"title": md_escape(f"Workshop {index}" if variant == "register" else
                                                 ("Kickoff workshop" if index == 1 else "Follow-up workshop")),
                              "date": long_day(moment.date()),
                              "attendees": md_escape(", ".join(p.name for p in attendees)), "notes": notes})
        actions = [{"owner": md_escape(p.name), "text": md_escape(a.format(A=asset))}
                   for p, a in zip(rng.sample(people, k=min(len(people), 3)), rng.sample(_ACTIONS, k=3))]
        title = (f"Kickoff: {plan.topic_title or 'operations'} content refresh" if variant == "kickoff"
                 else f"{plan.topic_title or 'Operations'} decision register")
        markdown = context.templates.get_template(TEMPLATE).render(
            title=md_escape(title), organisation=md_escape(bank.name), author=md_escape(author.name),
            author_title=md_escape(author.title), updated=long_day(end.date()),
            purpose=md_escape(rng.choice(_PURPOSES).format(T=topic, A=asset)), decisions=table, workshops=workshops,
            actions=actions)
        data = markdown.encode("utf-8")
        metadata = {"variant": variant,
                    "decisions": {row["id"]: {"date": row["moment"].isoformat(), "status": row["status"],
                                              "facts": row["facts"]} for row in rows},
                    "timestamp_order": "chronological"}
        stamps = [plan_frame(t, plan, tz) for t in sorted(times + [end])]
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=list(plan.renditions), timestamps=stamps, metadata=metadata)

    @staticmethod
    def _subjects(rng, plan: ArtifactPlan, context: RenderContext, has_rules: bool) -> list:
        """Other rules of the topic the register decides without stating them: in a register without rules
        as many as the plan's ``rule_slots`` (a register with rules' count; unplanned, one to four from
        :data:`_SUBJECT_COUNTS`), one beside the rules half the time; those registers state first
        (:func:`~taugen.generators.corpus.genres.benchmarks.other_subjects`), none of the plan's subjects or
        supersession arcs."""
        from taugen.generators.corpus.genres.benchmarks import other_subjects

        subjects = other_subjects(context, plan, rng)
        wanted = (1 if rng.random() < 0.5 else 0) if has_rules else plan.rule_slots or rng.choice(_SUBJECT_COUNTS)
        return subjects[:wanted]

    @staticmethod
    def _subject_block(rng, plan: ArtifactPlan, context: RenderContext, fact, asset: str, day: dt.date,
                       saying: random.Random | None = None) -> list[dict]:
        """Rows deciding ``fact``'s subject as a rule block decides a rule (rejected alternatives, now and
        then a proposal, a final decision) whose final decision states no rule of the business: another
        organisation's published figure (a comparable subject, two times in five; equal to no value any
        fact on the subject ever had), how often customers raised it (one time in three; a count that is
        none of the subject's values), or a working note."""
        from taugen.authoring.values import find_surface_form
        from taugen.generators.corpus.genres.benchmarks import (
            avoided_values,
            comparable_facts,
            peer_names,
            peer_value,
            portable,
            values_among,
        )

        subject = _subject_of(fact)
        values = {"S": said_subject(context, saying or rng, subject), "A": asset, **context.vocabulary.common.terms()}
        block = [{"status": "Rejected", "text": upper_first(text.format(**values)), "facts": []}
                 for text in rng.sample(_ALTERNATIVES, k=rng.randint(1, 2))]
        if rng.random() < 0.3:
            block.append({"status": "Proposal", "text": rng.choice(_OPEN).format(**values), "facts": []})
        avoid = avoided_values(context, fact, plan.facts.values())
        guarded = [f.value for f in plan.facts.values() if f.value is not None] + values_among(context, avoid)
        draw = rng.random()
        final = ""
        if draw < 0.4 and portable(subject, context) and fact in comparable_facts(context, fact.section):
            peer = peer_names(plan.faker(context.config.locale, "register-peers"), context, 1)[0]
            final = rng.choice(_PEER_FINALS).format(P=peer, V=peer_value(rng, fact, avoid).canonical(), **values)
        elif draw < 0.75:
            for _ in range(20):
                month = day - dt.timedelta(days=rng.randint(20, 60))
                line = rng.choice(_VOLUME_FINALS).format(N=rng.randint(6, 240), M=f"{month:%B %Y}", **values)
                if not any(find_surface_form(value, line) for value in guarded):
                    final = line
                    break
        final = final or rng.choice(_NOTE_FINALS).format(**values)
        block.append({"status": "Final", "text": upper_first(final), "facts": []})
        return block

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Parse each ``.md`` with markdown-it-py (CommonMark plus GFM tables) and return one line per
        heading, paragraph, list item and table row (cells joined by `` | ``), with Markdown markup
        and backslash escapes removed. ``author_text`` is not used."""
        return "\n\n".join("\n".join(read_markdown(f.data)[0]) for f in files if f.suffix == SUFFIX)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Register structure: one ``.md`` in UTF-8 with exactly one table whose header is ``ID, Date,
        Decision, Owner, Status``; every row has five cells, a unique ``D-NN`` id, an ISO date (rows in
        date order, none after the ``Last updated`` date) and a status from Proposal, Rejected,
        Superseded, Final; a Superseded row names (``Replaced by D-NN``) a Final row that exists; and
        the document has a ``Workshop notes`` section."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "md_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        try:
            lines, tables = read_markdown(files[0].data)
        except UnicodeDecodeError as exc:
            return [error("structure", "md_encoding", subject, "the register is not UTF-8", str(exc))]
        if len(tables) != 1:
            return [error("structure", "table_count", subject, f"expected one decision table, found {len(tables)}")]
        findings: list[Finding] = []
        header, *rows = tables[0]
        if header != HEADER:
            findings.append(error("structure", "bad_header", subject, "the decision table header is not "
                                  + " | ".join(HEADER), " | ".join(header)))
            return findings
        if not rows:
            findings.append(error("structure", "no_decisions", subject, "the decision table is empty"))
        updated = None
        for line in lines:
            match = re.search(r"Last updated (\w+ \d{1,2}, \d{4})", line)
            if match:
                updated = dt.datetime.strptime(match.group(1), "%B %d, %Y").date()
                break
        ids, previous = [], None
        status_of: dict[str, str] = {}
        for row in rows:
            if len(row) != 5:
                findings.append(error("structure", "row_width", subject, "a decision row does not have five cells",
                                      " | ".join(row)))
                continue
            ident, day, text, _owner, status = row
            ids.append(ident)
            status_of[ident] = status
            if not _ID.match(ident):
                findings.append(error("structure", "bad_id", subject, f"decision id {ident!r} is not D-NN"))
            if status not in STATUSES:
                findings.append(error("structure", "bad_status", subject, f"{ident} has status {status!r}"))
            if not _ISO.match(day):
                findings.append(error("structure", "bad_date", subject, f"{ident} has date {day!r}"))
                continue
            if previous is not None and day < previous:
                findings.append(error("structure", "rows_out_of_order", subject, f"{ident} is dated before the row "
                                      "above it"))
            if updated is not None and dt.date.fromisoformat(day) > updated:
                findings.append(error("structure", "decision_after_update", subject,
                                      f"{ident} is dated after the register was last updated"))
            previous = day
        if len(set(ids)) != len(ids):
            findings.append(error("structure", "duplicate_id", subject, "decision ids repeat"))
        for row in rows:
            if len(row) == 5 and row[4] == "Superseded":
                target = _REPLACED.search(row[2])
                if target is None or status_of.get(target.group(1)) != "Final":
                    findings.append(error("structure", "dangling_supersession", subject,
                                          f"{row[0]} is superseded but names no final decision replacing it"))
        if not any(line.strip().lower() == "workshop notes" for line in lines):
            findings.append(error("structure", "no_workshop_notes", subject, "the register has no workshop notes"))
        return findings


__all__ = ["DecisionRegisterGenre", "md_escape", "read_markdown"]
