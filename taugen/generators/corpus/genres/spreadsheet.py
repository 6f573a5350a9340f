"""The spreadsheet genre: an ``.xlsx`` fee schedule or decision table written with openpyxl.

Variants:

* ``fee_schedule``: a ``Fee schedule`` (or ``Schedule``) sheet with one row per figure: item, product,
  the amount as a real numeric cell with a number format (currency, percent, ``0" days"``), basis,
  source, effective date, notes, owner and last-reviewed date; plus a ``Revision history`` sheet (the
  sheet's change log, opened by its publication entry).
* ``decision_table``: a ``Decision table`` sheet (rule, condition, threshold, applies to, source,
  outcome, owner, last reviewed), plus the same ``Revision history`` sheet when it lists a replaced
  figure.

Carriers and fillers come from one process (:meth:`SpreadsheetGenre._lines`): the rows are the rules
the plan owns (none in a filler) and *peer rows*, the figures other organisations publish for
comparable subjects of the topic (see :mod:`~taugen.generators.corpus.genres.benchmarks`), which a
pricing team keeps next to its own. A peer row names its organisation in ``Source`` (``Harper Bank
rate sheet``; the business's own rows cite its own document without a name) and states a figure that no
version of any fact on that subject ever had. Sheet names, headers, columns and the revision history
(which also logs peer figures that changed) are the same for both, so no sheet, header or column is
found only in carriers.

A superseded rendition goes to the ``Revision history`` sheet, next to the value that replaced it,
only when :func:`~taugen.generators.corpus.genre.shown_as_history` holds on the workbook's date
(``plan.end``): its successor is in the same workbook and already in force. Otherwise it was the rule in
force when the sheet was saved and is an ordinary row of the schedule or decision table, with no hint
of a coming change.

A table genre restates each rendition as a row: the :class:`Rendition` returned in
``RenderedArtifact.renditions`` carries ``text`` = the row's non-empty cells as :func:`read_rows`
formats them, joined by `` | `` (computed by reading the delivered bytes back, so it is exactly what
``extract_text`` yields), and ``value_form`` = the surface form of the fact's value found in that row.

Determinism: workbook core properties are set to the plan's dates and the zip is rewritten with a
fixed entry order, fixed timestamps (``plan.end``), fixed permissions and fixed compression.
"""

from __future__ import annotations

from types import MappingProxyType

import dataclasses
import datetime as dt
import io
import re
import zipfile
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook, load_workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.writer.excel import ExcelWriter

from taugen.authoring.values import (
    CapValue,
    CountValue,
    DateValue,
    DurationValue,
    MoneyValue,
    PercentValue,
    find_surface_form,
)
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
from taugen.generators.corpus.genres.benchmarks import (
    COMPARABLE_CATEGORIES,
    avoided_values,
    comparable_facts,
    peer_names,
    peer_value,
)
from taugen.generators.corpus.fact_reads import lookup_of
from taugen.generators.corpus.genres.workplace import render_to_length, row_labels
from taugen.findings import Finding, error, warning

if TYPE_CHECKING:
    from taugen.authoring.models import Fact

SUFFIX = ".xlsx"
SHEET_TOKENS = (80, 480)
"""A workbook's length in tokens of the text ``extract_text`` yields: the planner deals it over the
workbooks (``spread_words``), carriers and fillers each over the whole range, and
:meth:`SpreadsheetGenre.render` picks how many peer subjects the main sheet compares so the workbook comes
closest to it. Drawn instead, a filler's peer subjects outnumbered a carrier's rules and peers, so carriers
were the shorter workbooks (banking hard seed 0: 204 tokens against 298; seed 4's structure reader 0.783)."""
HISTORY_SHEET = "Revision history"
FORMULA_ERRORS = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA"})
_CURRENCY_FORMATS = {"USD": '"$"#,##0.00', "EUR": '"€"#,##0.00', "GBP": '"£"#,##0.00'}
_NOTES = ("", "", "", "Confirm the product before quoting", "Check for pending changes", "Checked against the source",
          "Conditions apply, see source")
"""Notes of any row, a rule or a peer's figure alike."""
_SOURCES = ("published schedule", "account terms", "rate sheet", "fee disclosure", "pricing page")
"""Where a row's figure is written: the business's own document, or a peer's (its name first)."""
_PEER_TYPES = {"fee_schedule": ("money", "percent", "cap"), "decision_table": ("cap", "count", "duration", "money")}
_OUTCOMES = {
    "fee": "Assess fee", "fees": "Assess fee", "limit": "Decline above threshold", "limits": "Decline above threshold",
    "deadline": "Accept if within window", "deadlines": "Accept if within window", "eligibility": "Eligible",
    "procedure": "Follow procedure", "rate": "Apply rate", "threshold": "Apply threshold",
}
_HEADER_FILL = PatternFill("solid", start_color="FF1F4E79", end_color="FF1F4E79")
_HEADER_FONT = Font(bold=True, color="FFFFFFFF")
_DATE_FORMAT = "mmm d, yyyy"
_NUMERIC_TYPES = frozenset({"money", "percent", "duration", "count", "cap"})


# --------------------------------------------------------------------------------------------------
# Reading: number formats and rows
# --------------------------------------------------------------------------------------------------

def _split_sections(number_format: str) -> list[str]:
    """Split an Excel number format on ``;`` outside quotes and brackets."""
    sections, current, quoted, bracket = [], [], False, False
    index = 0
    while index < len(number_format):
        char = number_format[index]
        if char == "\\" and not quoted and index + 1 < len(number_format):
            current.append(number_format[index:index + 2])
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char == "[" and not quoted:
            bracket = True
        elif char == "]" and not quoted:
            bracket = False
        if char == ";" and not quoted and not bracket:
            sections.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    sections.append("".join(current))
    return sections


def _tokens(section: str) -> list[tuple[str, str]]:
    """Tokenise one format section into ``(kind, text)``: ``lit`` literals and ``code`` characters."""
    tokens: list[tuple[str, str]] = []
    index = 0
    while index < len(section):
        char = section[index]
        if char == '"':
            end = section.find('"', index + 1)
            end = len(section) if end < 0 else end
            tokens.append(("lit", section[index + 1:end]))
            index = end + 1
        elif char == "\\" and index + 1 < len(section):
            tokens.append(("lit", section[index + 1]))
            index += 2
        elif char in "_*" and index + 1 < len(section):  # padding and fill: no visible text
            index += 2
        elif char == "[":
            end = section.find("]", index)
            end = len(section) if end < 0 else end
            inner = section[index + 1:end]
            if inner.startswith("$"):  # [$$-409] / [$€-2]: a currency symbol
                tokens.append(("lit", inner[1:].split("-")[0]))
            index = end + 1
        else:
            tokens.append(("code", char))
            index += 1
    return tokens


_DATE_CODES = re.compile(r"(yyyy|yy|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|AM/PM)", re.IGNORECASE)


def _is_date_format(number_format: str) -> bool:
    codes = "".join(text for kind, text in _tokens(_split_sections(number_format)[0]) if kind == "code")
    return bool(re.search(r"[ymd]", codes, re.IGNORECASE)) and not re.search(r"[0#?]", codes)


def _format_date(value: dt.date | dt.datetime, number_format: str) -> str:
    if not number_format or number_format == "General" or not _is_date_format(number_format):
        if isinstance(value, dt.datetime) and value.time() != dt.time(0, 0):
            return value.isoformat(sep=" ")
        return (value.date() if isinstance(value, dt.datetime) else value).isoformat()
    code = "".join(text for _kind, text in _tokens(_split_sections(number_format)[0]))
    when = value if isinstance(value, dt.datetime) else dt.datetime.combine(value, dt.time())
    pieces: list[str] = []
    after_hour = False  # "m"/"mm" right after an hour code means minutes, as in Excel
    for part in _DATE_CODES.split(code):
        lower = part.lower()
        if lower == "yyyy":
            pieces.append(f"{when.year:04d}")
        elif lower == "yy":
            pieces.append(f"{when.year % 100:02d}")
        elif lower == "mmmm":
            pieces.append(when.strftime("%B"))
        elif lower == "mmm":
            pieces.append(when.strftime("%b"))
        elif lower in ("mm", "m"):
            number = when.minute if after_hour else when.month
            pieces.append(f"{number:02d}" if lower == "mm" else str(number))
        elif lower == "dddd":
            pieces.append(when.strftime("%A"))
        elif lower == "ddd":
            pieces.append(when.strftime("%a"))
        elif lower == "dd":
            pieces.append(f"{when.day:02d}")
        elif lower == "d":
            pieces.append(str(when.day))
        elif lower in ("hh", "h"):
            hour = (when.hour % 12 or 12) if "am/pm" in code.lower() else when.hour
            pieces.append(f"{hour:02d}" if lower == "hh" else str(hour))
        elif lower in ("ss", "s"):
            pieces.append(f"{when.second:02d}" if lower == "ss" else str(when.second))
        elif lower == "am/pm":
            pieces.append("AM" if when.hour < 12 else "PM")
        else:
            pieces.append(part)
        if lower in ("hh", "h"):
            after_hour = True
        elif part and part not in (":",):
            after_hour = False
    return "".join(pieces)


def _general(number: float) -> str:
    if isinstance(number, int) or float(number).is_integer():
        return str(int(number))
    return format(number, ".10g")


def format_number(number: float, number_format: str) -> str:
    """Format a numeric cell value as Excel displays it under ``number_format``.

    Supports what business sheets use: ``General``, fixed decimals (``0.00``), thousands separators
    (``#,##0``), percent (``0%``, ``0.0%``), quoted literals (``"$"#,##0.00``, ``0" days"``), bracketed
    currency symbols (``[$$-409]``), padding (``_)``) and a negative section. Unsupported codes
    (scientific, fractions) fall back to the General form.

    Args:
        number: the cell value (int or float).
        number_format: the cell's ``number_format`` string.

    Returns:
        The display text, e.g. ``$1,250.00``, ``3%``, ``60 days``.
    """
    sections = _split_sections(number_format or "General")
    section = sections[0]
    negative = number < 0
    if negative and len(sections) > 1 and sections[1]:
        section = sections[1]
        number = -number
        negative = False
    if section.strip().lower() in ("general", ""):
        return _general(number)
    tokens = _tokens(section)
    codes = "".join(text for kind, text in tokens if kind == "code")
    if re.search(r"[eE][+-]|/", codes):
        return _general(number)
    percent = "%" in codes
    placeholder = re.search(r"[0#?][0#?,]*(?:\.[0#?]*)?|\.[0#?]+", codes)
    if placeholder is None:
        return "".join(text for _kind, text in tokens)
    pattern = placeholder.group(0)
    integer_part, _, decimal_part = pattern.partition(".")
    decimals = sum(1 for char in decimal_part if char in "0#?")
    grouped = "," in integer_part.rstrip(",")
    value = Decimal(repr(float(number))) * (100 if percent else 1)
    quantum = Decimal(1).scaleb(-decimals)
    value = value.quantize(quantum, rounding=ROUND_HALF_UP)
    digits = f"{abs(value):,.{decimals}f}" if grouped else f"{abs(value):.{decimals}f}"
    if negative and value != 0:
        digits = "-" + digits
    out: list[str] = []
    position = 0  # index into ``codes``
    for kind, text in tokens:
        if kind == "lit":
            out.append(text)
            continue
        if position == placeholder.start():
            out.append(digits)
        elif not placeholder.start() < position < placeholder.end():
            out.append(text)
        position += 1
    return "".join(out)


def format_cell(value: Any, number_format: str) -> str:
    """Display text of one cell value (as loaded with ``data_only=True``); '' for an empty cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (dt.datetime, dt.date)):
        return _format_date(value, number_format)
    if isinstance(value, (int, float, Decimal)):
        return format_number(float(value) if isinstance(value, Decimal) else value, number_format)
    if isinstance(value, dt.time):
        return value.isoformat()
    return " ".join(str(value).split())


def read_rows(data: bytes) -> list[tuple[str, list[tuple[int, str]]]]:
    """Every sheet of an ``.xlsx`` as ``(sheet title, [(row number, row text)])``.

    Each row text is the row's non-empty cells formatted for display (:func:`format_cell`), joined by
    `` | ``; empty rows are skipped. Raises whatever openpyxl raises on a file that is not a workbook.
    """
    workbook = load_workbook(io.BytesIO(data), data_only=True)
    sheets: list[tuple[str, list[tuple[int, str]]]] = []
    for sheet in workbook.worksheets:
        rows: list[tuple[int, str]] = []
        for row in sheet.iter_rows():
            cells = [format_cell(cell.value, cell.number_format) for cell in row]
            cells = [cell for cell in cells if cell]
            if cells:
                rows.append((row[0].row, " | ".join(cells)))
        sheets.append((sheet.title, rows))
    return sheets


def _sheets_text(sheets: list[tuple[str, list[tuple[int, str]]]]) -> str:
    """One workbook's text as :meth:`SpreadsheetGenre.extract_text` yields it, from :func:`read_rows`."""
    return "\n\n".join("\n".join([title] + [text for _number, text in rows]) for title, rows in sheets)


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------

def _value_cell(fact: Fact) -> tuple[Any, str]:
    """The cell value and number format that state ``fact.value`` (the statement when it has none)."""
    return _cell_of(fact.value) if fact.value is not None else (fact.statement, "@")


def _cell_of(value: Any) -> tuple[Any, str]:
    """The cell value and number format that state a typed value."""
    if isinstance(value, MoneyValue) or (isinstance(value, CapValue) and value.currency):
        currency = value.currency or "USD"
        fmt = _CURRENCY_FORMATS.get(currency, f'#,##0.00" {currency}"')
        return float(value.amount), fmt
    if isinstance(value, CapValue):
        count = CountValue(value=int(value.amount), unit=value.unit)
        return count.value, (f'0" {count.unit}"' if count.unit else "0")
    if isinstance(value, PercentValue):
        exponent = value.value.normalize().as_tuple().exponent
        decimals = max(0, -int(exponent))
        return float(value.value / 100), ("0." + "0" * decimals + "%") if decimals else "0%"
    if isinstance(value, DurationValue):
        word = value.canonical().split(" ", 1)[1]
        return value.amount, f'0" {word}"'
    if isinstance(value, CountValue):
        return value.value, (f'0" {value.unit}"' if value.unit else "0")
    if isinstance(value, DateValue):
        return value.value, "mmmm d, yyyy"
    return value.canonical(), "@"


def _value_header(values: list[Any]) -> str:
    kinds = {type(value) for value in values}
    money = all(isinstance(value, MoneyValue) or (isinstance(value, CapValue) and value.currency) for value in values)
    if values and money:
        return "Fee"
    if kinds == {PercentValue}:
        return "Rate"
    if kinds == {DurationValue}:
        return "Time frame"
    return "Amount / limit"


def _basis(value: Any) -> str:
    if isinstance(value, CapValue) and value.per:
        return f"per {value.per}"
    return ""


def _item(fact: Fact) -> str:
    """The row label: the fact's subject without a leading article, capitalised (the statement when the
    fact has no subject)."""
    subject = (fact.subject or fact.statement).strip()
    if fact.subject:
        subject = re.sub(r"^(the|a|an)\s+", "", subject, flags=re.IGNORECASE)
    return subject[:1].upper() + subject[1:]


@dataclasses.dataclass
class _Line:
    """One row of a main sheet: a rule the plan owns (``rendition`` set) or a peer's published figure
    for a comparable subject (``peer`` names the organisation; ``fact`` is the subject's fact, whose
    value the row does not state)."""

    fact: Fact
    value: Any
    source: str
    effective: dt.date
    reviewed: dt.date
    peer: str = ""
    rendition: int | None = None
    revised: bool = False


def _fallback_subjects(context: RenderContext, plan: ArtifactPlan, rng) -> list[Fact]:
    """Subjects for peer rows when the topic has no comparable fact: comparable facts of any topic, or
    (a context without facts) one money subject per product of the pack."""
    from taugen.authoring.models import Fact as FactModel

    found = [fact for section in lookup_of(context.facts).sections()
             for fact in comparable_facts(context, section)]
    if found:
        return found
    labels = [product.label for product in context.config.products] or [plan.topic_title or "Standard service"]
    return [FactModel(id=f"peer_subject_{index}", section=plan.topic or "general", category="fee",
                      subject=f"the standard {label} charge", statement=f"The standard {label} charge is ${amount}.00.",
                      value={"type": "money", "amount": str(amount)}, effective_from=context.config.history_start)
            for index, (label, amount) in enumerate(zip(labels, rng.choices((5, 8, 10, 12, 15, 25), k=len(labels))))]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _products(fact: Fact, context: RenderContext) -> str:
    labels = {product.id: product.label for product in context.config.products}
    if not fact.applies_to:
        return "All products"
    return ", ".join(labels.get(pid, pid.replace("_", " ").title()) for pid in fact.applies_to)


def _at(plan: ArtifactPlan, day: dt.date, hour: int = 9) -> dt.datetime:
    """A datetime on ``day`` in the plan's time zone, clamped into [plan.start, plan.end]."""
    when = dt.datetime.combine(day, dt.time(hour, 0), tzinfo=plan.end.tzinfo)
    if plan.end.tzinfo is None:
        when = when.replace(tzinfo=None)
    return min(max(when, plan.start), plan.end)


def _naive_utc(when: dt.datetime) -> dt.datetime:
    if when.tzinfo is not None:
        when = when.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return when.replace(microsecond=0)


def _style_sheet(sheet, widths: list[int]) -> None:
    for column, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(column)].width = width
    for cell in sheet[1]:
        cell.font = _HEADER_FONT
        cell.fill = _HEADER_FILL
        cell.alignment = Alignment(vertical="center", wrap_text=True)
    sheet.freeze_panes = "A2"
    if sheet.max_row > 1:
        sheet.auto_filter.ref = f"A1:{get_column_letter(len(widths))}{sheet.max_row}"


def _write_row(sheet, row: int, cells: list[tuple[Any, str | None]]) -> None:
    for column, (value, fmt) in enumerate(cells, start=1):
        if value is None or value == "":
            continue
        cell = sheet.cell(row=row, column=column, value=value)
        if isinstance(value, str) and value.startswith("="):
            cell.data_type = "s"  # text that merely starts with '=' is not a formula
        if fmt:
            cell.number_format = fmt
        cell.alignment = Alignment(vertical="top", wrap_text=isinstance(value, str) and len(value) > 40)


def deterministic_zip(data: bytes, when: dt.datetime) -> bytes:
    """Rewrite a zip (xlsx) with fixed entry timestamps, permissions, system and compression.

    Args:
        data: the zip bytes as openpyxl wrote them.
        when: the timestamp given to every entry (local wall time of ``when`` is used; year ≥ 1980).

    Returns:
        New zip bytes that depend only on the entries' names, order and contents.
    """
    stamp = (max(when.year, 1980), when.month, when.day, when.hour, when.minute, when.second)
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as target:
        for info in source.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=stamp)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.create_system = 3
            entry.external_attr = 0o644 << 16
            target.writestr(entry, source.read(info.filename), compress_type=zipfile.ZIP_DEFLATED,
                            compresslevel=6)
    return out.getvalue()


@register_genre
class SpreadsheetGenre(Genre):
    """An ``.xlsx`` workbook: a fee schedule or a decision table, with a revision history sheet.

    Accepts any fact with a typed value (money, percent, durations and counts become numeric cells
    with number formats; dates become date cells; enum/boolean/text values become text cells).
    """

    name = "spreadsheet"
    reference_kinds = MappingProxyType({"": "reference_document"})
    grounded_fillers = True
    """Fillers' rows hold other organisations' published figures for comparable subjects."""
    anchor_titles = {"fee_schedule": "schedule", "decision_table": "decision table"}
    affinity = (("money", "fee_schedule", 5), ("percent", "fee_schedule", 4), ("cap", "decision_table", 3),
                ("count", "decision_table", 2), ("duration", "decision_table", 2), ("boolean", "decision_table", 1))
    label = "Spreadsheet (fee schedule / decision table)"
    max_facts = 12
    categories = ("fee", "fees", "limit", "limits", "deadline", "deadlines", "rate", "threshold")
    variants = ("fee_schedule", "decision_table")
    binary = True
    spread_words = SHEET_TOKENS

    def accepts(self, fact: Fact) -> bool:
        """Any fact with a typed value (the row needs a value cell)."""
        return fact.value is not None

    # ---------------------------------------------------------------------------------------------
    def render(self, plan: ArtifactPlan, context: RenderContext) -> RenderedArtifact:
        """Write the workbook; return it with renditions restated as the rows ``extract_text`` yields.

        Carriers and fillers are written by one process (:meth:`_lines`): the main sheet holds the
        rules the plan owns (none for a filler) and peer rows, other organisations' published figures
        for comparable subjects of the topic, attributed in the ``Source`` column; the revision history
        records replaced rules and peer figures that changed. With a planned length (``plan.length_words``,
        tokens of the text ``extract_text`` yields, dealt over :data:`SHEET_TOKENS`) the workbook is
        drafted with zero (a filler: one) to eight peer subjects and the draft closest to the length is
        kept (:func:`~taugen.generators.corpus.genres.workplace.render_to_length`); without one, the
        number of peer subjects is drawn.

        Raises:
            KeyError: a rendition names a fact missing from ``plan.facts``.
            ValueError: more renditions than ``max_facts``.
        """
        if not plan.length_words:
            return self._render(plan, context, 0)
        fewest = 0 if plan.states_rules else 1
        return render_to_length(self, plan, context, [[(0, {"subjects": count}) for count in range(fewest, 9)]])

    def _render(self, plan: ArtifactPlan, context: RenderContext, shrink: int,
                subjects: int | None = None) -> RenderedArtifact:
        """One workbook (see :meth:`render`); ``subjects`` (planned lengths) fixes how many peer subjects
        its main sheet compares, else they are drawn. ``shrink`` is unused (the signature
        :func:`~taugen.generators.corpus.genres.workplace.render_to_length` calls)."""
        owner_teams = context.vocabulary.words("workplace").owner_teams  # type: ignore[attr-defined]
        variant = plan.variant if plan.variant in self.variants else self.variants[0]
        rng = plan.rng("spreadsheet")
        brand = context.config.brand
        author = plan.faker(context.config.locale, "author").name()
        workbook = Workbook()
        sheet = workbook.active
        saved = plan.end.date()
        replaced = [r for r in plan.renditions if shown_as_history(plan, r, saved)]  # on the history sheet
        placements: dict[int, tuple[str, int]] = {}  # rendition index -> (sheet title, row)
        owners: list[str] = []
        review_dates: list[dt.date] = []
        index_of = {id(r): i for i, r in enumerate(plan.renditions)}
        lines, peer_history = self._lines(plan, context, variant, rng, review_dates, subjects)
        said_label = row_labels(context, plan)  # staff label rows the way they say the subject

        def label(fact: Fact) -> str:
            return said_label(_item(fact))
        revised_ids = {plan.successor(r.fact_id).id for r in replaced if plan.successor(r.fact_id) is not None}

        if variant == "fee_schedule":
            sheet.title = "Fee schedule" if _value_header([line.value for line in lines]) == "Fee" else "Schedule"
            title = f"{brand} - {plan.topic_title}"
            title += "" if "schedule" in title.lower() else " schedule"
            sheet.append(["Item", "Product", _value_header([line.value for line in lines]), "Basis", "Source",
                          "Effective", "Notes", "Owner", "Last reviewed"])
            lines.sort(key=lambda line: (_products(line.fact, context), label(line.fact), bool(line.peer), line.peer,
                                         line.fact.id))
        else:
            sheet.title = "Decision table"
            title = f"{brand} - {plan.topic_title} decision table"
            sheet.append(["Rule", "Condition", "Threshold", "Applies to", "Source", "Outcome", "Owner",
                          "Last reviewed"])
            lines.sort(key=lambda line: (label(line.fact), bool(line.peer), line.peer, line.fact.id))
        for row, line in enumerate(lines, start=2):
            value, fmt = _cell_of(line.value) if line.value is not None else (line.fact.statement, "@")
            owner = rng.choice(owner_teams)
            owners.append(owner)
            review_dates.append(line.reviewed)
            if variant == "fee_schedule":
                revised = line.revised or line.fact.id in revised_ids
                note = "Revised, see Revision history" if revised else rng.choice(_NOTES)
                cells = [(label(line.fact), None), (_products(line.fact, context), None), (value, fmt),
                         (_basis(line.value), None), (line.source, None), (line.effective, _DATE_FORMAT),
                         (note, None), (owner, None), (line.reviewed, _DATE_FORMAT)]
            else:
                cells = [(f"R{row - 1}", None), (label(line.fact), None), (value, fmt),
                         (_products(line.fact, context), None), (line.source, None),
                         (_OUTCOMES.get(line.fact.category, "Apply rule"), None), (owner, None),
                         (line.reviewed, _DATE_FORMAT)]
            _write_row(sheet, row, cells)
            if line.rendition is not None:
                placements[line.rendition] = (sheet.title, row)
        if variant == "fee_schedule":
            _style_sheet(sheet, [34, 26, 14, 14, 30, 14, 30, 22, 14])
        else:
            _style_sheet(sheet, [8, 40, 16, 28, 30, 26, 22, 14])

        history = None
        if variant == "fee_schedule" or replaced or peer_history:
            history = workbook.create_sheet(HISTORY_SHEET)
        if history is not None:
            history.append(["Changed on", "Item", "Product", "Previous", "In force from", "Replaced by", "Status",
                            "Changed by", "Source"])
            entries: list[tuple[dt.date, int, list, int | None]] = [
                (plan.start.date(), -1, [(plan.start.date(), _DATE_FORMAT), ("Sheet published", None), ("", None),
                                         ("", None), ("", None), ("", None), ("Initial version", None),
                                         (author, None), ("", None)], None)]
            for rendition in replaced:  # shown as history: the successor is here and already in force
                fact = plan.facts[rendition.fact_id]
                newer = plan.successor(fact.id)
                assert newer is not None
                value, fmt = _value_cell(fact)
                new_value, new_fmt = _value_cell(newer)
                until = newer.effective_from
                source = next((line.source for line in lines if line.fact.id == newer.id), rng.choice(_SOURCES))
                cells = [(until, _DATE_FORMAT), (label(fact), None), (_products(fact, context), None), (value, fmt),
                         (fact.effective_from, _DATE_FORMAT), (new_value, new_fmt), ("Superseded", None),
                         (rng.choice(owner_teams), None), (source, None)]
                entries.append((until, len(entries), cells, index_of[id(rendition)]))
            for line, previous, since in peer_history:  # a peer's figure that changed, kept the same way
                value, fmt = _cell_of(previous)
                new_value, new_fmt = _cell_of(line.value)
                cells = [(line.effective, _DATE_FORMAT), (label(line.fact), None), (_products(line.fact, context), None),
                         (value, fmt), (since, _DATE_FORMAT), (new_value, new_fmt), ("Superseded", None),
                         (rng.choice(owner_teams), None), (line.source, None)]
                entries.append((line.effective, len(entries), cells, None))
            for history_row, (_day, _order, cells, rendition_index) in enumerate(sorted(entries, key=lambda e: e[:2]),
                                                                                 start=2):
                _write_row(history, history_row, cells)
                if rendition_index is not None:
                    placements[rendition_index] = (HISTORY_SHEET, history_row)
            _style_sheet(history, [14, 34, 26, 14, 14, 14, 20, 22, 30])

        modified = _naive_utc(plan.end)
        props = workbook.properties
        props.creator = author
        props.lastModifiedBy = author
        props.title = title
        props.subject = plan.topic_title
        props.created = _naive_utc(plan.start)
        props.modified = modified
        props.lastPrinted = None
        buffer = io.BytesIO()
        # ExcelWriter directly: openpyxl's save_workbook() would stamp properties.modified with the clock.
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
            ExcelWriter(workbook, archive).write_data()
        data = deterministic_zip(buffer.getvalue(), plan.end)

        sheets = read_rows(data)
        rows = {(title_, number): text for title_, sheet_rows in sheets for number, text in sheet_rows}
        placed: list[Rendition] = []
        row_meta: dict[str, dict] = {}
        for index, rendition in enumerate(plan.renditions):
            sheet_title, row = placements[index]
            text = rows[(sheet_title, row)]
            fact = plan.facts[rendition.fact_id]
            form = find_surface_form(fact.value, text) if fact.value is not None else ""
            placed.append(dataclasses.replace(rendition, text=text, value_form=form or rendition.value_form))
            row_meta.setdefault(rendition.fact_id, {"sheet": sheet_title, "row": row, "status": rendition.status,
                                                    "value_type": fact.value.type if fact.value is not None else None})

        timestamps = sorted([plan.start, plan.end] + [_at(plan, day) for day in review_dates])
        metadata = {
            "variant": variant,
            "sheets": [name for name, _rows in sheets],
            "rows": row_meta,
            "value_column": {"Fee schedule": 3, "Schedule": 3, "Decision table": 3, HISTORY_SHEET: 4},
            "owners": owners,
            "author": author,
        }
        return RenderedArtifact(plan=plan, files=[RenderedFile(SUFFIX, data, "main")],
                                author_text=_sheets_text(sheets), renditions=placed, timestamps=timestamps,
                                metadata=metadata)

    def _lines(self, plan: ArtifactPlan, context: RenderContext, variant: str, rng, review_dates: list[dt.date],
               planned_subjects: int | None = None) -> tuple[list[_Line], list[tuple[_Line, Any, dt.date]]]:
        """The main sheet's rows, carriers and fillers alike: one per rule the plan states (owned or echoed)
        in force on the sheet's date, then peer rows, and the peer figures that changed
        ``(line, previous value, in force from)`` for the revision history.

        Peer rows state what other organisations publish for comparable subjects of the topic
        (:func:`~taugen.generators.corpus.genres.benchmarks.comparable_facts`; a carrier's own subjects
        come first half the time), each with the organisation's name in ``Source`` and a figure that no
        version of a fact on that subject ever had. A sheet without rules draws as many subjects as a
        carrier's rules plus peers; a sheet with rules has none in one case out of five.
        ``planned_subjects`` (a planned length) replaces the drawn count after the same draws, so drafts
        that differ only in it share every other row.
        """
        saved = plan.end.date()
        lines: list[_Line] = []
        for index, rendition in enumerate(plan.renditions):
            if shown_as_history(plan, rendition, saved):
                continue
            fact = plan.facts[rendition.fact_id]
            lines.append(_Line(fact, fact.value, _upper_first(rng.choice(_SOURCES)), fact.effective_from,
                               rendition.date, rendition=index))
        span = max((plan.end.date() - plan.start.date()).days, 0)
        fake = plan.faker(context.config.locale, "peers")
        peers = peer_names(fake, context, rng.randint(2, 4))
        own = [line.fact for line in lines if line.fact.value is not None and line.fact.value.type in
               _NUMERIC_TYPES and line.fact.category in COMPARABLE_CATEGORIES and line.fact.subject]
        preferred = _PEER_TYPES[variant]
        pool = comparable_facts(context, plan.topic, preferred) or comparable_facts(context, plan.topic) \
            or _fallback_subjects(context, plan, rng)
        if plan.states_rules:
            wanted = 0 if rng.random() < 0.2 else rng.choice((1, 1, 2, 2, 3, 4))
            subjects = list(own) if own and rng.random() < 0.5 else []
        else:
            wanted = rng.choice((1, 2, 2, 3, 3, 4, 5, 6, 8))
            subjects = []
        if planned_subjects is not None:
            wanted = planned_subjects
        owned = {(fact.subject or "").lower() for fact in plan.facts.values()}
        others = [fact for fact in pool if (fact.subject or "").lower() not in owned]
        rng.shuffle(others)
        subjects = (subjects + others)[:wanted]
        history: list[tuple[_Line, Any, dt.date]] = []
        # a peer's figures take effect on the days schedules change (the pack's effective dates), so a
        # sheet shows no other day than its own window and those: the days an evidence route names a
        # sheet by stay unique to that sheet
        days = lookup_of(context.facts).effective_days(context.config.history_start, plan.start.date()) \
            or [min(context.config.history_start, plan.start.date())]
        for fact in subjects:
            avoid = avoided_values(context, fact, plan.facts.values())
            for peer in rng.sample(peers, k=min(len(peers), rng.choice((1, 1, 2, 2, 3)))):
                value = peer_value(rng, fact, avoid)
                avoid.add(value.canonical())
                effective = rng.choice(days)
                reviewed = plan.start.date() + dt.timedelta(days=rng.randint(0, span))
                line = _Line(fact, value, f"{peer} {rng.choice(_SOURCES)}", effective, reviewed, peer=peer)
                earlier = [day for day in days if day <= effective - dt.timedelta(days=90)]
                if rng.random() < 0.3 and earlier:
                    previous = peer_value(rng, fact, avoid)
                    avoid.add(previous.canonical())
                    line.revised = True
                    history.append((line, previous, rng.choice(earlier)))
                lines.append(line)
        return lines, history

    # ---------------------------------------------------------------------------------------------
    def extract_text(self, files: list[RenderedFile], author_text: str) -> str:
        """Every sheet of every ``.xlsx`` file: the sheet title on its own line, then one line per
        non-empty row (cells formatted for display, joined by `` | ``); sheets separated by a blank
        line. ``author_text`` is not used."""
        return "\n\n".join(_sheets_text(read_rows(file.data)) for file in files if file.suffix == SUFFIX)

    def validate(self, artifact: RenderedArtifact) -> list[Finding]:
        """Structure: one ``.xlsx`` that opens; no empty workbook; every sheet has a text header row of
        at least two cells; no formula error values; value cells of money/percent/duration facts are
        numeric (from ``metadata['rows']``). Warnings: a value :func:`shown_as_history` on the sheet's
        date that is not on the revision history sheet, or a value in force on that date that is."""
        subject = artifact.plan.artifact_id
        findings: list[Finding] = []
        workbooks = [file for file in artifact.files if file.suffix == SUFFIX]
        if len(workbooks) != 1:
            return [error("structure", "xlsx_missing", subject, f"expected one {SUFFIX} file, found {len(workbooks)}")]
        try:
            workbook = load_workbook(io.BytesIO(workbooks[0].data), data_only=True)
        except Exception as exc:  # noqa: BLE001 - any reader failure is the finding
            return [error("structure", "xlsx_unreadable", subject, "the workbook does not open", str(exc))]
        if not workbook.worksheets or all(sheet.max_row < 2 for sheet in workbook.worksheets):
            findings.append(error("structure", "empty_workbook", subject, "the workbook has no data rows"))
        for sheet in workbook.worksheets:
            header = [cell.value for cell in sheet[1]] if sheet.max_row >= 1 else []
            filled = [value for value in header if value not in (None, "")]
            if len(filled) < 2 or not all(isinstance(value, str) for value in filled):
                findings.append(error("structure", "missing_header", subject,
                                      f"sheet '{sheet.title}' has no header row of text cells", repr(header)))
            for row in sheet.iter_rows():
                for cell in row:
                    if cell.data_type == "e" or (isinstance(cell.value, str) and cell.value in FORMULA_ERRORS):
                        findings.append(error("structure", "formula_error", subject,
                                              f"cell {sheet.title}!{cell.coordinate} holds an error value",
                                              str(cell.value)))
        columns = artifact.metadata.get("value_column", {})
        for fact_id, place in artifact.metadata.get("rows", {}).items():
            fact = artifact.plan.facts.get(fact_id)
            value_type = place.get("value_type") or (fact.value.type if fact is not None and fact.value else None)
            sheet_name, row = place.get("sheet"), place.get("row")
            if sheet_name not in workbook.sheetnames or sheet_name not in columns:
                continue
            numeric = value_type in _NUMERIC_TYPES
            cell = workbook[sheet_name].cell(row=row, column=columns[sheet_name])
            if numeric and not isinstance(cell.value, (int, float)):
                findings.append(error("structure", "value_not_numeric", subject,
                                      f"the value cell {sheet_name}!{cell.coordinate} is not a number",
                                      repr(cell.value)))
        saved = artifact.plan.end.date()
        for rendition in artifact.renditions:
            place = artifact.metadata.get("rows", {}).get(rendition.fact_id, {})
            on_history = place.get("sheet") == HISTORY_SHEET
            if place and shown_as_history(artifact.plan, rendition, saved) and not on_history:
                findings.append(warning("structure", "superseded_not_in_history", subject,
                                        "a replaced value is not on the revision history sheet"))
            elif place and artifact.plan.facts and not shown_as_history(artifact.plan, rendition, saved) \
                    and on_history:  # (a plan rebuilt from a bundle has no facts: successors unknown)
                findings.append(warning("structure", "rule_in_force_as_history", subject,
                                        "a value in force on the sheet's date is listed as replaced"))
        return findings
