"""The case-ledger-export genre: a table extract from the case-management database, as JSON.

The delivered ``.json`` is the kind of extract an analyst pulls from a case system for a review:
``{"export", "source", "filter", "snapshot_at", "primary_key", "columns", "rows", "row_count"}`` where
``columns`` lists the column names in order, each row is an object with exactly those keys (JSON,
RFC 8259), ``primary_key`` names the key column and ``row_count`` equals the number of rows. Times
are ISO 8601 with the business's UTC offset; ``snapshot_at`` is when the extract was taken (``plan.end``).

Variants:

* ``disputes``: disputes of charges (a bank's card and transfer disputes; the types are the pack's) (``case_id``, ``opened_at``, ``channel``,
  ``product``, ``dispute_type``, ``amount``, ``currency``, ``status``, ``assigned_team``,
  ``last_action_at``, ``resolution_note``); amounts are strings with cents and never a policy value;
* ``service_cases``: servicing requests (``case_id``, ``opened_at``, ``channel``, ``product``,
  ``request_type``, ``status``, ``assigned_team``, ``last_action_at``, ``agent_note``).

Cases are opened in the extract's window and numbered in the order they were opened; an extract
holds five to eighteen cases whether or not some notes state rules (plain notes log one or two
actions), trimmed from the latest plain cases if it would pass
:data:`~taugen.generators.corpus.genres.workplace.TOKEN_BUDGET` tokens. Renditions sit
in the note column of a case whose last action is on (or near) the rendition's date: the note cites
the rule applied, verbatim. A superseded rendition is framed as history only when
:func:`~taugen.generators.corpus.genre.shown_as_history` holds on that case's last-action date.
``timestamps`` are every opened and last-action time plus ``snapshot_at``, in chronological order.
"""

from __future__ import annotations

from types import MappingProxyType

import datetime as dt
import json
import random

from taugen.generators.corpus.genre import (
    ArtifactPlan,
    Genre,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    register_genre,
)
from taugen.generators.corpus.genres.workplace import (
    TOKEN_BUDGET,
    plan_frame,
    token_count,
    window,
    working_spread,
    workplace_words,
    written_history,
    zone,
)
from taugen.authoring.models import Fact
from taugen.generators.corpus.vocabulary import (
    DomainVocabulary,
    GenreVocabulary,
    Pool,
    register_vocabulary,
)
from taugen.generators.corpus.stamps import Chain, Stamp, iso_moment, json_documents
from taugen.findings import Finding, error

SUFFIX = ".json"
COLUMNS = {
    "disputes": ["case_id", "opened_at", "channel", "product", "dispute_type", "amount", "currency", "status",
                 "assigned_team", "last_action_at", "resolution_note"],
    "service_cases": ["case_id", "opened_at", "channel", "product", "request_type", "status", "assigned_team",
                      "last_action_at", "agent_note"],
}
_NOTE_COLUMN = {"disputes": "resolution_note", "service_cases": "agent_note"}
_TIME_COLUMNS = ("opened_at", "last_action_at")


class CaseLedgerWords(GenreVocabulary):
    """The ``case_ledger_export`` section of a pack's ``vocabulary.yaml``: the codes in the business's case
    system (snake_case, as an export shows them).

    Attributes:
        channels: how a case came in ("phone", "branch", "online_form").
        dispute_types_by_product_kind: the dispute types of a product, by the product's ``kind`` in
            ``domain.yaml``; the disputes variant lists only products of these kinds (any product when none
            is of one).
        other_dispute_types: the dispute types of a product of any other kind.
        request_types: the kinds of servicing request ("statement_copy", "card_replacement").
        dispute_sections: the pack's sections whose rules a dispute case cites (a billing-dispute deadline,
            an error-resolution credit); a rule of another section is cited by a servicing case (none
            listed: the layout follows the rule's value type).
    """

    channels: Pool
    dispute_types_by_product_kind: dict[str, Pool]
    other_dispute_types: Pool
    request_types: Pool
    dispute_sections: Pool = ()


NEUTRAL_WORDS = CaseLedgerWords(
    channels=("phone", "chat", "in_person", "secure_message", "online_form"),
    dispute_types_by_product_kind={},
    other_dispute_types=("billing_error", "duplicate_charge", "incorrect_amount", "service_not_received"),
    request_types=("fee_question", "statement_copy", "address_change", "account_closure", "plan_change", "complaint"),
)
register_vocabulary("case_ledger_export", CaseLedgerWords, NEUTRAL_WORDS)
_NOTES = {  # by status; no values
    "open": ("New case, not yet reviewed.", "Acknowledgement letter sent to the customer.",
             "Left a voicemail, will try again."),
    "pending_customer": ("Waiting for the customer's signed statement.", "Asked the customer for receipts.",
                         "Customer will call back with the merchant's reply."),
    "pending_merchant": ("Waiting on merchant response.", "Chargeback request sent to the network.",
                         "Merchant asked for more detail; forwarded."),
    "under_review": ("Customer sent documents; under review.", "Escalated to the specialist desk.",
                     "Reviewing the transaction history with the customer's notes."),
    "resolved": ("Customer satisfied with the explanation.", "Credit posted and letter sent.",
                 "Customer confirmed the charge was theirs."),
    "closed": ("Closed after call back.", "Duplicate of an earlier case; merged.", "Letter sent to the customer; "
               "closed."),
}
_SERVICE_NOTES = {
    "open": ("New request logged.", "Left a voicemail, will try again."),
    "pending_customer": ("Waiting for the customer to confirm details.", "Sent a secure message asking for ID."),
    "under_review": ("Passed to the back office.", "Checking the account history before replying."),
    "resolved": ("Request completed and confirmed with the customer.", "Customer satisfied with the explanation."),
    "closed": ("Closed after call back.", "Duplicate of an earlier request; merged."),
}
_RULE_LEADS = ("Applied rule:", "Per current schedule:", "Explained to customer:", "Rule checked before closing:",
               "Policy applied:", "Confirmed with the team lead:")
_HISTORY_NOTES = ("Customer quoted the old rule.", "Customer had an old letter.")


def _iso(moment: dt.datetime) -> str:
    return moment.isoformat()


@register_genre
class CaseLedgerExportGenre(Genre):
    """A case-ledger extract (JSON); see the module docstring.

    ``metadata``: ``variant``, ``cases`` (fact id → case id whose note states it) and
    ``timestamp_order`` = ``"chronological"``.
    """

    name = "case_ledger_export"
    reference_kinds = MappingProxyType({"": "system_export"})
    label = "Case ledger export (JSON)"
    max_facts = 5
    variants = ("disputes", "service_cases")
    tabular = True
    """A table: the planner places no conversational cues here."""
    affinity = (("money", "disputes", 1), ("duration", "disputes", 2), ("cap", "disputes", 1),
                ("text", "service_cases", 1), ("boolean", "service_cases", 1), ("count", "service_cases", 1))

    def variant_for(self, fact: Fact, variant: str, vocabulary: DomainVocabulary) -> str:
        """The layout whose cases a rule governs when the pack lists its ``dispute_sections``: ``disputes``
        for a rule of one of them, ``service_cases`` for any other; ``variant`` (drawn by value type) when
        it lists none. Drawn by value type alone, banking's dispute ledgers cited only identity-check and
        account rules (the transfer age of a custodial account as a dispute's resolution note), and its
        billing-dispute rules sat in servicing cases."""
        sections = vocabulary.words(self.name).dispute_sections  # type: ignore[attr-defined]
        if not sections:
            return variant
        return "disputes" if fact.section in sections else "service_cases"

    def lead_time(self, rng: random.Random) -> dt.timedelta:
        """An extract's filter spans 1 to 7 days of opened cases: with the default (0 to 3 days) one
        extract in four filtered a window of no time, and every case in it was opened in the same
        minute."""
        return dt.timedelta(days=rng.randint(1, 7))

    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Open the cases in the window, write their notes, take the extract at ``plan.end``.

        Raises:
            ValueError: more renditions than ``max_facts``.
        """
        if len(plan.renditions) > self.max_facts:
            raise ValueError(f"{plan.artifact_id}: case_ledger_export holds at most {self.max_facts} facts")
        rng = plan.rng("ledger")
        tz = zone(context)
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        columns = COLUMNS[variant]
        note_column = _NOTE_COLUMN[variant]
        domain_words: CaseLedgerWords = context.vocabulary.words(self.name)  # type: ignore[assignment]
        dispute_types = domain_words.dispute_types_by_product_kind
        products = list(context.config.products)
        if variant == "disputes":
            products = [p for p in products if p.kind in dispute_types] or products
        by_id = {p.id: p for p in context.config.products}
        start, end = window(plan, tz)
        count = max(rng.randint(5, 18), len(plan.renditions) + rng.randint(1, 3))  # same spread with or without rules
        carriers = sorted(rng.sample(range(count), len(plan.renditions)))
        ordered = sorted(plan.renditions, key=lambda r: (r.date, r.fact_id))
        carried = dict(zip(carriers, ordered))
        opened = working_spread(rng, count, start, end, min_gap=600, max_gap=5 * 3600)

        rows: list[dict] = []
        cases: dict[str, str] = {}
        sequence = rng.randint(1200, 48000)
        for index, moment in enumerate(opened):
            sequence += rng.randint(1, 40)
            rendition = carried.get(index)
            room = (end - moment).total_seconds()
            if rendition is not None:  # last action on the rendition's day when the window allows
                target = dt.datetime.combine(rendition.date, dt.time(rng.randint(9, 16), rng.randint(0, 59)), tz)
                last = min(max(target, moment), end)
            else:
                last = working_spread(rng, 1, moment, min(end, moment + dt.timedelta(days=2)))[0] if room > 0 \
                    else moment
            fact = plan.facts.get(rendition.fact_id) if rendition is not None else None
            named = [by_id[p] for p in (fact.applies_to if fact is not None else []) if p in by_id]
            product = named[0] if named else rng.choice(products) if products else None
            if variant == "disputes":
                case_id = f"DSP-{moment.year}-{sequence:06d}"
                kinds = dispute_types.get(product.kind if product else "", domain_words.other_dispute_types)
                row = {"case_id": case_id, "opened_at": _iso(moment), "channel": rng.choice(domain_words.channels),
                       "product": product.label if product else "Account",
                       "dispute_type": rng.choice(kinds),
                       "amount": f"{rng.randint(4, 900)}.{rng.randint(1, 99):02d}", "currency": "USD"}
            else:
                case_id = f"CS-{sequence:07d}"
                row = {"case_id": case_id, "opened_at": _iso(moment), "channel": rng.choice(domain_words.channels),
                       "product": product.label if product else "Account",
                       "request_type": rng.choice(domain_words.request_types)}
            if rendition is not None:
                lead, tail = written_history(rng, plan, rendition, last.date())
                if lead:
                    note = " ".join([rng.choice(_HISTORY_NOTES), lead, rendition.text, tail]).strip()
                else:
                    note = f"{rng.choice(_RULE_LEADS)} {rendition.text}"
                status = rng.choice(("resolved", "closed", "under_review"))
                cases[rendition.fact_id] = case_id
            else:
                notes = _NOTES if variant == "disputes" else _SERVICE_NOTES
                status = rng.choice(tuple(notes))
                said = rng.sample(notes[status], k=rng.choice((1, 1, 2)))  # a note may log two actions
                note = " ".join(said)
            row.update({"status": status, "assigned_team": rng.choice(workplace_words(context).teams),
                        "last_action_at": _iso(last), note_column: note})
            rows.append({"row": {column: row[column] for column in columns}, "times": [moment, last],
                         "carrier": rendition is not None})

        def build(kept: list[dict]) -> bytes:
            document = {
                "export": "dispute_cases" if variant == "disputes" else "service_cases",
                "source": f"{context.config.brand} case management",
                "filter": f"opened_at between {_iso(start)} and {_iso(end)}",
                "snapshot_at": _iso(end),
                "primary_key": "case_id",
                "columns": columns,
                "rows": [entry["row"] for entry in kept],
                "row_count": len(kept),
            }
            return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

        data = build(rows)
        while token_count(self.extract_text([RenderedFile(SUFFIX, data)], "")) > TOKEN_BUDGET and \
                any(not entry["carrier"] for entry in rows):  # natural length: drop the latest plain case
            drop = max(i for i, entry in enumerate(rows) if not entry["carrier"])
            rows.pop(drop)
            data = build(rows)
        stamps = [moment for entry in rows for moment in entry["times"]]
        timestamps = [plan_frame(t, plan, tz) for t in sorted(stamps + [end])]
        metadata = {"variant": variant, "cases": cases, "timestamp_order": "chronological"}
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data)],
                                author_text=self.extract_text([RenderedFile(SUFFIX, data)], ""),
                                renditions=list(plan.renditions), timestamps=timestamps, metadata=metadata)

    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Parse the extract with :mod:`json`: ``Export``, ``Source``, ``Filter`` and ``Snapshot`` lines,
        the column names joined by `` | ``, then one line per row (values in column order, joined by
        `` | ``). ``author_text`` is not used."""
        blocks = []
        for file in files:
            if file.suffix != SUFFIX:
                continue
            document = json.loads(file.data)
            columns = document.get("columns", [])
            lines = [f"Export: {document.get('export', '')}", f"Source: {document.get('source', '')}",
                     f"Filter: {document.get('filter', '')}", f"Snapshot: {document.get('snapshot_at', '')}",
                     f"Rows: {document.get('row_count', '')}", "", " | ".join(columns)]
            lines += [" | ".join(str(row.get(c, "")) for c in columns) for row in document.get("rows", [])]
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    def delivered_dates(self, files: list[RenderedFile], author_text: str, zone: dt.tzinfo) -> list[Chain]:
        """Chains of the extract: per row, its time columns (names ending ``_at``) in column order
        (``opened_at`` before ``last_action_at``), then the extract's ``snapshot_at`` (no case acts after the
        extract was taken). Times are ISO 8601; one without an offset takes ``zone``. ``author_text`` is not
        used."""
        chains: list[Chain] = []
        for document in json_documents(files):
            columns = [c for c in document.get("columns") or [] if isinstance(c, str) and c.endswith("_at")]
            key = document.get("primary_key")
            snapshot = iso_moment(document.get("snapshot_at"), zone)
            tail = [Stamp("the extract's snapshot_at", snapshot)] if snapshot else []
            for position, row in enumerate(document.get("rows") or [], start=1):
                if not isinstance(row, dict):
                    continue
                name = row.get(key, f"row {position}")
                stamps = [Stamp(f"{name} {column}", moment) for column in columns
                          if (moment := iso_moment(row.get(column), zone)) is not None]
                chains.append(stamps + tail)
            if not document.get("rows") and tail:
                chains.append(tail)
        return chains

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Extract structure: one ``.json`` with ``export``, ``snapshot_at``, ``columns``, ``rows``,
        ``primary_key`` and ``row_count``; distinct column names including the primary key; every row
        has exactly the columns; primary-key values are present and unique; ``row_count`` equals the
        rows; every row time parses, is no later than ``snapshot_at``, and a case's last action is not
        before it was opened."""
        subject = artifact.plan.artifact_id
        files = [f for f in artifact.files if f.suffix == SUFFIX]
        if len(files) != 1:
            return [error("structure", "json_missing", subject, f"expected one {SUFFIX} file, found {len(files)}")]
        try:
            document = json.loads(files[0].data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return [error("structure", "json_unreadable", subject, "the extract is not valid JSON", str(exc))]
        required = ("export", "snapshot_at", "columns", "rows", "primary_key", "row_count")
        if not isinstance(document, dict) or any(key not in document for key in required):
            return [error("structure", "extract_keys", subject, "the extract lacks one of " + ", ".join(required))]
        findings: list[Finding] = []
        columns, rows, key = document["columns"], document["rows"], document["primary_key"]
        if not isinstance(columns, list) or len(set(columns)) != len(columns) or key not in columns:
            findings.append(error("structure", "bad_columns", subject,
                                  "columns repeat or do not include the primary key", repr(columns)))
        if not isinstance(rows, list):
            return findings + [error("structure", "bad_rows", subject, "rows is not a list")]
        if document["row_count"] != len(rows):
            findings.append(error("structure", "row_count_mismatch", subject,
                                  f"row_count says {document['row_count']}, the extract holds {len(rows)} rows"))
        try:
            snapshot = dt.datetime.fromisoformat(str(document["snapshot_at"]))
        except ValueError:
            return findings + [error("structure", "bad_snapshot", subject, "snapshot_at is not ISO 8601")]
        keys = []
        for number, row in enumerate(rows, start=1):
            if not isinstance(row, dict) or set(row) != set(columns if isinstance(columns, list) else []):
                findings.append(error("structure", "row_shape", subject, f"row {number} does not have exactly the "
                                      "columns"))
                continue
            keys.append(row.get(key))
            times = {}
            for column in _TIME_COLUMNS:
                if column in row:
                    try:
                        times[column] = dt.datetime.fromisoformat(str(row[column]))
                    except ValueError:
                        findings.append(error("structure", "bad_time", subject, f"row {number}: {column} is not "
                                              "ISO 8601", str(row[column])))
            for column, moment in times.items():
                if moment > snapshot:
                    findings.append(error("structure", "row_after_snapshot", subject,
                                          f"row {number}: {column} {moment.isoformat()} is after snapshot_at"))
            if len(times) == 2 and times["last_action_at"] < times["opened_at"]:
                findings.append(error("structure", "action_before_opening", subject,
                                      f"row {number} was acted on before it was opened"))
        if any(k in (None, "") for k in keys) or len(set(keys)) != len(keys):
            findings.append(error("structure", "primary_key", subject, f"{key} values are missing or not unique"))
        return findings


__all__ = ["CaseLedgerExportGenre", "COLUMNS"]
