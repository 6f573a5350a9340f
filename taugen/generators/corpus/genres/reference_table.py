"""The reference-table genre: a CSV lookup table of limits, charges or time limits (``.csv``).

The delivered file follows RFC 4180 (https://www.rfc-editor.org/rfc/rfc4180): a header row (§2.3),
records separated by CRLF (§2.1–2.2), every field enclosed in double quotes with embedded quotes
doubled (§2.5–2.7), and the same number of fields in every record (§2.4). It is UTF-8 without a
byte-order mark, as operations teams export lookup tables from a shared system for staff to open in
a spreadsheet.

Variants (the value column is named ``Value`` or ``Time limit``; otherwise the layout is shared):

* ``limits``: daily limits, caps, charges and counts;
* ``timelines``: notice windows, cut-off times and investigation periods.

Columns: ``Ref, Item, Applies to, Value|Time limit, Basis, Rule or instruction, Source, Effective from,
Status, Owner, Last reviewed``. Each rendition is one row: the value in its canonical form in the value
column, the period (``per day``) in ``Basis``, and the statement in ``Rule or instruction``. Every
table also has instruction rows (what staff do for a request, with an empty value column and no
amounts, rates or time limits); a filler table is all instruction rows, so a table's shape does not say
whether it states a rule. Rows are ordered by their last-reviewed date, then item. A superseded
rendition is marked ``Replaced <date>`` and its rule prefixed by the written history lead only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on the row's review date; otherwise it
was the rule in force that day and its status is ``In force`` like any other row.

As in the spreadsheet genre, the :class:`Rendition` returned in ``RenderedArtifact.renditions`` has
``text`` = the row's cells joined by `` | `` exactly as :meth:`ReferenceTableGenre.extract_text`
reads them back with :mod:`csv`, and ``value_form`` = the surface form of the value found in that row.
"""

from __future__ import annotations

from types import MappingProxyType

import csv
import dataclasses
import datetime as dt
import io
import re

from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    register_genre,
    shown_as_history,
)
from taugen.generators.corpus.genres.workplace import (
    item_label,
    plan_frame,
    row_labels,
    spread,
    token_count,
    upper_first,
    window,
    workplace_words,
    written_history,
    zone,
)
from taugen.generators.corpus.vocabulary import GenreVocabulary, register_vocabulary
from taugen.findings import Finding, error

SUFFIX = ".csv"
TABLE_TOKENS = (140, 600)
"""A table's length in tokens as read (the realism gate's count): the planner stratifies it over the tables
(``spread_words``) and :meth:`ReferenceTableGenre.render` keeps as many instruction rows as come closest. A
row reads as about fifty tokens: a rule table of one row with no instructions is near the bottom, a table
of every instruction near the top."""
HEADERS = {
    "limits": ["Ref", "Item", "Applies to", "Value", "Basis", "Rule or instruction", "Source", "Effective from",
               "Status", "Owner", "Last reviewed"],
    "timelines": ["Ref", "Item", "Applies to", "Time limit", "Basis", "Rule or instruction", "Source",
                  "Effective from", "Status", "Owner", "Last reviewed"],
}
_PREFIX = {"limits": "LIM", "timelines": "TML"}
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Instruction rows: an item and what staff do, with no values (no amounts, rates or time limits).
# (item, instruction); {T} the topic, {site} / {Site} where the business serves customers in person (CommonWords)
_INSTRUCTIONS = (
    ("Copy of a letter or notice", "Send a copy by secure message or post; never read account numbers aloud."),
    ("Complaint about handling", "Log a complaint case and tell the customer how we will reply."),
    ("Request for a call back", "Book the call back in the case system and confirm the best number to use."),
    ("Customer disagrees with the rule", "Explain the rule as written, then offer to raise a complaint."),
    ("Question about a recent change", "Check the change log on the procedures page before answering."),
    ("Request from a third party", "Only discuss the account with an owner or an authorised user."),
    ("Customer asks for a manager", "Offer a call back from the team lead and note the request."),
    ("Update contact details", "Verify the customer first, then update the details in the customer record."),
    ("Vendor asks about the wording", "Point the vendor to the approved wording in this table."),
    ("{Site} referral", "Give the customer the {site} finder link and note the referral on the record."),
    ("General question about {T}", "Answer from this table; if the item is not listed, check the procedures page."),
    ("Written confirmation about {T}", "Send the approved letter template from the letter library."),
    ("Item not covered here", "Ask the product owner before answering, and note that you did."),
)


class ReferenceTableWords(GenreVocabulary):
    """The ``reference_table`` section of a pack's ``vocabulary.yaml``.

    Attributes:
        sources_by_section: the document a row's rule comes from, by the pack's section id ("Cardholder
            agreement"); a section without one cites the staff procedures page.
    """

    sources_by_section: dict[str, str]


register_vocabulary("reference_table", ReferenceTableWords, ReferenceTableWords(sources_by_section={}))
_SHOWN_TYPES = ("money", "percent", "duration", "count", "cap", "date", "enum")
"""Value types with a value cell; a yes/no or procedural rule is stated in the rule column only."""
_INSTRUCTION_SOURCES = ("Staff procedures page", "Complaints procedure", "Call guide", "{Site} reference guide")


def read_csv(data: bytes) -> list[list[str]]:
    """Records of an RFC 4180 file, read with :mod:`csv` (UTF-8, optional BOM)."""
    text = data.decode("utf-8-sig")
    return [row for row in csv.reader(io.StringIO(text, newline=""), strict=True)]


def row_text(cells: list[str]) -> str:
    """A record as one line: cells joined by `` | `` (what :meth:`ReferenceTableGenre.extract_text` yields)."""
    return " | ".join(cells)


@register_genre
class ReferenceTableGenre(Genre):
    """A CSV reference table (RFC 4180); see the module docstring.

    ``metadata``: ``variant``, ``columns``, ``rows`` (fact id → 1-based record number, the header being
    record 1, and ``status``), ``value_column`` (0-based index) and ``timestamp_order`` = ``"rows"``.
    """

    name = "reference_table"
    reference_kinds = MappingProxyType({"": "reference_document"})
    label = "Reference table (CSV)"
    max_facts = 8
    categories = ("fee", "fees", "limit", "limits", "deadline", "deadlines", "rate", "threshold", "waiver",
                  "eligibility", "notice")
    variants = ("limits", "timelines")
    tabular = True
    """A table: the planner places no conversational cues here."""
    affinity = (("cap", "limits", 3), ("money", "limits", 1), ("count", "limits", 1), ("percent", "limits", 1),
                ("duration", "timelines", 3), ("date", "timelines", 1), ("enum", "timelines", 1))

    spread_words = TABLE_TOKENS
    """Planned lengths in tokens of the table as read (:data:`TABLE_TOKENS`)."""

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the table and read it back so each rendition is the row as a reader gets it.

        With a planned length (``plan.length_words``, tokens as the realism gate counts them) the table is
        written with every number of instruction rows it can hold (none to all of :data:`_INSTRUCTIONS`
        beside rules, at least two without) and the one closest to the length is kept (the fewest rows of
        equals); without one, it draws that number (0–4 beside rules, 2–10 without).

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        if len(plan.renditions) > self.max_facts:
            raise ValueError(f"{plan.artifact_id}: reference_table holds at most {self.max_facts} facts")
        if not plan.length_words:
            return self._render(plan, context, None)
        best: tuple[int, RenderedArtifact] | None = None
        for extra in range(0 if plan.renditions else 2, len(_INSTRUCTIONS) + 1):
            artifact = self._render(plan, context, extra)
            miss = abs(token_count(artifact.author_text) - plan.length_words)
            if best is None or miss < best[0]:
                best = (miss, artifact)
        return best[1]  # type: ignore[index]

    def _render(self, plan: ArtifactPlan, context: RenderContext, extra: int | None) -> RenderedArtifact:
        """One table with ``extra`` instruction rows (``None``: drawn). Every call with the same plan writes
        the same rule rows and takes the instructions in the same order; the instruction rows' dates are
        drawn for their count."""
        rng = plan.rng("reference-table")
        tz = zone(context)
        start, end = window(plan, tz)
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        products = {p.id: p.label for p in context.config.products}
        domain_words: ReferenceTableWords = context.vocabulary.words(self.name)  # type: ignore[assignment]
        terms = context.vocabulary.common.terms()
        records: list[tuple[dt.date, str, list[str], int | None]] = []  # (reviewed, item, cells, rendition)
        row_label = row_labels(context, plan)  # staff label rows the way they say the subject
        for index, rendition in enumerate(plan.renditions):
            fact = plan.facts.get(rendition.fact_id)
            reviewed = min(max(rendition.date, start.date()), end.date())
            lead, _tail = written_history(rng, plan, rendition, reviewed)
            rule = f"{lead} {rendition.text}" if lead else rendition.text
            status = "In force"
            if shown_as_history(plan, rendition, reviewed):
                status = f"Replaced {plan.successor_effective_date(rendition.fact_id):%Y-%m-%d}"
            value = fact.value if fact is not None else None
            shown = value.canonical() if value is not None and value.type in _SHOWN_TYPES else ""
            basis = getattr(value, "per", None) or ""
            applies = ", ".join(products.get(p, p.replace("_", " ")) for p in (fact.applies_to if fact else [])) \
                or "All accounts"
            effective = f"{fact.effective_from:%Y-%m-%d}" if fact is not None else ""
            source = domain_words.sources_by_section.get(fact.section if fact is not None else plan.topic,
                                                         "Staff procedures page")
            item = row_label(item_label(plan, rendition))
            cells = [item, applies, shown, f"per {basis}" if basis else "", rule, source, effective, status,
                     rng.choice(workplace_words(context).teams)]
            records.append((reviewed, item, cells, index))
        # Instruction rows (no values) in every table; a table with no rules is all instructions.
        topic = plan.topic_title.lower() if plan.topic_title else "this topic"
        instructions = list(_INSTRUCTIONS)
        rng.shuffle(instructions)
        drawn = rng.randint(0, 4) if plan.renditions else rng.randint(2, 10)
        extra = drawn if extra is None else extra
        days = [t.date() for t in spread(rng, extra, start, end, min_gap=3600, max_gap=86400)]
        for day, (item, instruction) in zip(days, instructions[:extra]):
            effective = max(context.config.history_start, day - dt.timedelta(days=rng.randint(40, 400)))
            cells = [upper_first(item.format(T=topic, **terms)), "All accounts", "", "", instruction.format(**terms),
                     rng.choice(_INSTRUCTION_SOURCES).format(**terms), f"{effective:%Y-%m-%d}", "In force",
                     rng.choice(workplace_words(context).teams)]
            records.append((day, cells[0], cells, None))
        records.sort(key=lambda r: (r[0], r[1]))
        kind = variant
        header = HEADERS[kind]
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        writer.writerow(header)
        placements: dict[int, int] = {}
        for number, (day, _item, cells, rendition_index) in enumerate(records, start=1):
            writer.writerow([f"{_PREFIX[kind]}-{number:02d}", *cells, f"{day:%Y-%m-%d}"])
            if rendition_index is not None:
                placements[rendition_index] = number + 1
        data = buffer.getvalue().encode("utf-8")

        rows = read_csv(data)
        value_column = header.index("Value") if "Value" in header else header.index("Time limit") \
            if "Time limit" in header else None
        placed: list[Rendition] = []
        row_meta: dict[str, dict] = {}
        for index, rendition in enumerate(plan.renditions):
            record = placements[index]
            text = row_text(rows[record - 1])
            fact = plan.facts.get(rendition.fact_id)
            form = find_surface_form(fact.value, text) if fact is not None and fact.value is not None else None
            placed.append(dataclasses.replace(rendition, text=text, value_form=form or rendition.value_form))
            row_meta[rendition.fact_id] = {"record": record, "status": rendition.status}
        stamps = [plan_frame(min(max(dt.datetime.combine(day, dt.time(9, 0), tz), start), end), plan, tz)
                  for day, *_rest in records]
        metadata = {"variant": variant, "columns": header, "rows": row_meta,
                    "value_column": value_column, "timestamp_order": "rows"}
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=placed, timestamps=stamps, metadata=metadata)

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Read each ``.csv`` with :mod:`csv`: one line per record (header first), cells joined by
        `` | ``. ``author_text`` is not used."""
        return "\n\n".join("\n".join(row_text(row) for row in read_csv(f.data)) for f in files if f.suffix == SUFFIX)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """RFC 4180 structure: one ``.csv`` in UTF-8; CRLF record breaks (§2.1); every field quoted
        (§2.5); a header row of distinct, non-empty names (§2.3); every record as wide as the header
        (§2.4); unique ``Ref`` values; ISO dates in the date columns, ``Last reviewed`` never before
        ``Effective from`` and never decreasing down the table."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "csv_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        data = files[0].data
        try:
            rows = read_csv(data)
        except (UnicodeDecodeError, csv.Error) as exc:
            return [error("structure", "csv_unreadable", subject, "the table does not parse as CSV", str(exc),
                          rule="RFC 4180 §2")]
        findings: list[Finding] = []
        if data.count(b"\n") != data.count(b"\r\n"):
            findings.append(error("structure", "bare_line_feed", subject, "records are not separated by CRLF",
                                  rule="RFC 4180 §2.1"))
        if any(line and not line.startswith(b'"') for line in data.split(b"\r\n")):
            findings.append(error("structure", "unquoted_field", subject, "a record starts with an unquoted field"))
        if len(rows) < 2:
            return findings + [error("structure", "no_records", subject, "the table has no records under its header")]
        header = rows[0]
        if not all(cell.strip() for cell in header) or len(set(header)) != len(header):
            findings.append(error("structure", "bad_header", subject, "the header has empty or repeated names",
                                  row_text(header), rule="RFC 4180 §2.3"))
        for number, row in enumerate(rows[1:], start=2):
            if len(row) != len(header):
                findings.append(error("structure", "ragged_record", subject,
                                      f"record {number} has {len(row)} fields, the header {len(header)}",
                                      row_text(row), rule="RFC 4180 §2.4"))
        width_ok = [row for row in rows[1:] if len(row) == len(header)]
        if "Ref" in header:
            refs = [row[header.index("Ref")] for row in width_ok]
            if len(set(refs)) != len(refs):
                findings.append(error("structure", "duplicate_ref", subject, "two records share a Ref"))
        previous = None
        for row in width_ok:
            cells = dict(zip(header, row))
            reviewed, effective = cells.get("Last reviewed", ""), cells.get("Effective from", "")
            if not _ISO.match(reviewed) or (effective and not _ISO.match(effective)):
                findings.append(error("structure", "bad_date", subject, "a date cell is not YYYY-MM-DD", row_text(row)))
                continue
            if effective and reviewed < effective:
                findings.append(error("structure", "reviewed_before_effective", subject,
                                      "a rule was reviewed before it took effect", row_text(row)))
            if previous is not None and reviewed < previous:
                findings.append(error("structure", "rows_out_of_order", subject,
                                      "the table is not in review-date order", row_text(row)))
            previous = reviewed
        return findings


__all__ = ["ReferenceTableGenre", "read_csv", "row_text", "HEADERS"]
