"""Load a domain pack from disk into typed, cross-checked objects.

A pack folder holds ``domain.yaml`` and ``facts/*.yaml`` (plus CSV tables that families name).
:func:`load_pack` parses every file, expands families, and checks what spans files: unique ids,
known sections and products, supersession targets, no supersession cycle, supersession forward in
time, every date inside the pack's history. Any problem raises :class:`~taugen.errors.InputError`
pointing at ``file:line``.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import jinja2
import networkx as nx
from pydantic import BaseModel, ValidationError

from taugen.authoring.models import DomainConfig, Fact, FactFamily, FactFile
from taugen.authoring.sandbox import PackTemplateEnvironment, render_bounded
from taugen.authoring.yaml_lines import (LineDict, LineList, decode_text, forbidden_character, line_for_location,
                                         load_yaml)
from taugen import plugins
from taugen.errors import InputError

# Family templates are pack data: they render sandboxed and bounded (see taugen/authoring/sandbox.py).
_TEMPLATES = PackTemplateEnvironment()


@dataclass(frozen=True)
class SourceLocation:
    """Where an item was written: a file and a 1-based line."""

    file: Path
    line: int | None


@dataclass
class Pack:
    """A loaded domain pack.

    Attributes:
        directory: the pack folder.
        config: the parsed ``domain.yaml``.
        facts: every atomic fact by id, in file order (families expanded in place).
        sources: where each fact (and each family, by family id) was written.
        source_files: every file read, sorted; their sha256 go into ``bundle.json``.
        supersession: directed graph old fact id → newer fact id.
    """

    directory: Path
    config: DomainConfig
    facts: dict[str, Fact]
    sources: dict[str, SourceLocation]
    source_files: list[Path]
    supersession: nx.DiGraph = field(repr=False)

    @property
    def now(self) -> dt.datetime:
        """The world's fixed clock."""
        return self.config.now

    def fact(self, fact_id: str) -> Fact:
        """The fact with ``fact_id``; raises ``KeyError`` with the id when unknown."""
        return self.facts[fact_id]

    def superseded_by(self, fact_id: str) -> str | None:
        """Id of the fact that replaces ``fact_id``, or None."""
        successors = list(self.supersession.successors(fact_id))
        return successors[0] if successors else None

    def is_current(self, fact_id: str) -> bool:
        """True when the fact is in force at the world's ``now``: effective, and not replaced by an
        effective successor."""
        fact = self.facts[fact_id]
        if fact.effective_from > self.now.date():
            return False
        newer = self.superseded_by(fact_id)
        return newer is None or self.facts[newer].effective_from > self.now.date()

    def current_facts(self) -> list[Fact]:
        """Facts in force at ``now``, in pack order."""
        return [fact for fact in self.facts.values() if self.is_current(fact.id)]

    def arcs(self) -> list[list[str]]:
        """Supersession arcs: chains of fact ids from the oldest version to the newest, longest first
        then by first id. Facts never superseded and superseding nothing are not arcs."""
        chains = []
        for start in sorted(node for node in self.supersession if self.supersession.in_degree(node) == 0):
            if self.supersession.out_degree(start) == 0:
                continue
            chain = [start]
            while (nxt := self.superseded_by(chain[-1])) is not None:
                chain.append(nxt)
            chains.append(chain)
        return sorted(chains, key=lambda chain: (-len(chain), chain[0]))

    def sha256_by_file(self) -> dict[str, str]:
        """``{relative path: sha256 hex}`` of every source file of the pack."""
        return {path.relative_to(self.directory).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
                for path in self.source_files}

    def location(self, item_id: str) -> SourceLocation | None:
        """Where ``item_id`` (a fact or family id) was written, if known."""
        return self.sources.get(item_id)


def validate_model(model: type[BaseModel], data: Any, path: Path, item_id: str | None = None,
              default_line: int | None = None) -> Any:
    """Validate ``data`` into ``model``; report one error at its YAML line.

    An unknown key wins over other errors: a misspelt required key is reported as the unknown key
    at its own line, not as a missing key. ``default_line`` is used when ``data`` carries no lines
    (facts expanded from a family row).
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors()
        error = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        location = tuple(error["loc"])
        line = line_for_location(data, location) if isinstance(data, (LineDict, LineList)) else None
        line = line or default_line
        where = ".".join(str(part) for part in location if not str(part).startswith("function-"))
        if error["type"] == "extra_forbidden":
            message = f"unknown key '{location[-1]}'"
        elif error["type"] == "missing":
            message = f"missing required key '{where}'"
        else:
            reason = error["msg"].removeprefix("Value error, ")
            message = f"{where}: {reason}" if where else reason
        raise InputError(message, path, line, item_id) from None


def _require_mapping(data: Any, path: Path, what: str) -> LineDict:
    if not isinstance(data, LineDict):
        raise InputError(f"{what} must be a YAML mapping", path, getattr(data, "line", 1))
    return data


def load_domain_config(directory: Path) -> DomainConfig:
    """Parse ``domain.yaml`` of the pack at ``directory``."""
    path = directory / "domain.yaml"
    if not path.is_file():
        raise InputError("not a domain pack: domain.yaml is missing", directory)
    data = _require_mapping(load_yaml(path), path, "domain.yaml")
    return validate_model(DomainConfig, data, path, data.get("domain") if isinstance(data.get("domain"), str) else None)


class _Template:
    """A family template compiled once, where it was written (so syntax errors name that line)."""

    def __init__(self, source: str, path: Path, line: int | None, family: str) -> None:
        try:
            self.template = _TEMPLATES.compile_pack_template(source)
        except jinja2.TemplateError as exc:  # syntax, or a construct the sandbox refuses (macro, nested loop)
            raise InputError(f"template error: {_one_line(exc.message)}", path, line, family) from None
        self.family = family

    def render(self, row: dict[str, Any], path: Path, line: int | None) -> str:
        """Render for one row; any failure is reported at the row (file and line)."""
        try:
            return render_bounded(self.template, row).strip()
        except jinja2.exceptions.SecurityError as exc:  # reaching for Python internals: refused by the sandbox
            raise InputError(f"template error: not allowed in a fact pack: {_one_line(exc.message)}", path, line,
                             self.family) from None
        except jinja2.TemplateError as exc:
            raise InputError(f"template error: {_one_line(exc.message)}", path, line, self.family) from None
        except Exception as exc:  # noqa: BLE001 - a filter on the wrong type, etc.: still the author's input
            raise InputError(f"template error: {type(exc).__name__}: {_one_line(str(exc))}", path, line,
                             self.family) from None


def _one_line(message: str | None) -> str:
    """An error message folded onto one line (jinja2 and Python messages may hold newlines)."""
    return " ".join(str(message or "").split())


def _compile_tree(value: Any, path: Path, line: int | None, family: str) -> Any:
    if isinstance(value, str):
        return _Template(value, path, line, family)
    if isinstance(value, dict):
        return {key: _compile_tree(item, path, line, family) for key, item in value.items()}
    if isinstance(value, list):
        return [_compile_tree(item, path, line, family) for item in value]
    return value


def _render_tree(value: Any, row: dict[str, Any], path: Path, line: int | None) -> Any:
    if isinstance(value, _Template):
        return value.render(row, path, line)
    if isinstance(value, dict):
        return {key: _render_tree(item, row, path, line) for key, item in value.items()}
    if isinstance(value, list):
        return [_render_tree(item, row, path, line) for item in value]
    return value


MAX_TABLE_BYTES = 16 * 1024 * 1024
"""Largest family CSV table accepted (bytes); the biggest built-in table is under 20 KB."""


def inside_pack(candidate: Path, pack_dir: Path) -> bool:
    """True when ``candidate``, with every symlink resolved, lies inside the folder ``pack_dir``."""
    try:
        return candidate.resolve().is_relative_to(pack_dir.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


TABLE_POOL_KEYS = frozenset({"table", "column"})
"""The keys of a vocabulary pool read from a CSV table: ``{table: <path in the pack>, column: <header>}``
(see :mod:`taugen.generators.corpus.vocabulary`)."""


def vocabulary_tables(path: Path, pack_dir: Path) -> list[Path]:
    """The CSV tables that pools of the vocabulary file ``path`` are read from (existing files inside
    ``pack_dir``), so their bytes count among the pack's sources. A file that does not parse, or a pool
    naming a missing table, adds nothing here: loading the vocabulary reports it."""
    from taugen.authoring.yaml_lines import load_yaml

    try:
        data = load_yaml(path)
    except InputError:
        return []
    tables = []
    for section in (data.values() if isinstance(data, dict) else ()):
        for pool in (section.values() if isinstance(section, dict) else ()):
            if isinstance(pool, dict) and set(pool) == TABLE_POOL_KEYS and isinstance(pool["table"], str):
                table = pack_table(pool["table"], pack_dir)
                if table is not None and table.is_file():
                    tables.append(table)
    return tables


def pack_table(name: str, pack_dir: Path) -> Path | None:
    """The file ``name`` (a path relative to the pack folder) names, or None when it is empty, absolute,
    climbs out with ``..`` or resolves (through a symlink) outside ``pack_dir``. Existence is not checked."""
    relative = Path(name)
    if not name.strip() or relative.is_absolute() or name.startswith(("/", "\\", "~")) or ".." in relative.parts:
        return None
    table = pack_dir / relative
    return table if inside_pack(table, pack_dir) else None


def family_table_path(family: FactFamily, data: LineDict, path: Path, pack_dir: Path) -> Path:
    """The CSV file a family's ``table:`` names, relative to its YAML file ``path``.

    Raises:
        InputError: (at the ``table:`` line) the name is absolute, climbs out with ``..``, resolves
            (through a symlink) outside ``pack_dir``, or is not a file.
    """
    line = data.line_of("table")
    name = str(family.table)
    relative = Path(name)
    if not name.strip() or relative.is_absolute() or name.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", name):
        raise InputError(f"family table '{name}' must be a file name relative to this YAML file", path, line,
                         family.family)
    if ".." in relative.parts:
        raise InputError(f"family table '{name}' must not climb out of the pack ('..')", path, line, family.family)
    if "\\" in name:
        raise InputError(f"family table '{name}' must separate folders with '/'", path, line, family.family)
    table = path.parent / relative
    if not inside_pack(table, pack_dir):
        raise InputError(f"family table '{name}' lies outside the pack folder", path, line, family.family)
    if not table.is_file():
        raise InputError(f"family table '{name}' not found", path, line, family.family)
    return table


def read_table_text(table: Path, family: str) -> str:
    """The text of a family CSV table: UTF-8, bounded in size, no NUL or other control character.

    Raises:
        InputError: too large, unreadable, not UTF-8, or a control character (with its line).
    """
    try:
        size = table.stat().st_size
        if size > MAX_TABLE_BYTES:
            raise InputError(f"table is {size:,} bytes, larger than the {MAX_TABLE_BYTES:,} a family table may be",
                             table, None, family)
        data = table.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read table: {exc.strerror}", table, None, family) from None
    text = decode_text(data, table, family)
    bad = forbidden_character(text)
    if bad is not None:
        raise InputError(f"table holds the control character {bad[1]}", table, bad[0], family)
    return text


def _family_rows(family: FactFamily, data: LineDict, table: Path | None) -> Iterable[tuple[dict[str, Any], int | None]]:
    if table is None:
        rows = data["rows"]
        for index, row in enumerate(rows):
            yield dict(row), rows.item_lines[index] if isinstance(rows, LineList) else data.line
        return
    text = read_table_text(table, family.family)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            line = reader.line_num  # the physical line the row ends on (a quoted cell may span lines)
            if None in row or any(value is None for value in row.values()):
                raise InputError("row has a different number of cells than the header", table, line, family.family)
            yield {key.strip(): value.strip() for key, value in row.items()}, line
    except csv.Error as exc:
        # The csv module counts a line once it has parsed it: the bad one is the next.
        raise InputError(f"malformed CSV: {_one_line(str(exc))}", table, reader.line_num + 1, family.family) from None


def _expand_family(data: LineDict, path: Path, default_section: str | None,
                   pack_dir: Path) -> Iterable[tuple[dict[str, Any], int | None, Path]]:
    data = _require_mapping(data, path, "a family")
    if default_section and "section" not in data:
        data = _with_default(data, "section", default_section)
    family = validate_model(FactFamily, data, path, data.get("family"))
    table = family_table_path(family, data, path, pack_dir) if family.table is not None else None
    table_source = table or path
    name = family.family
    templates = {key: _compile_tree(getattr(family, key), path, data.line_of(key), name)
                 for key in ("id", "statement", "subject", "value", "applies_to", "window", "request")
                 if getattr(family, key) is not None}
    for row, line in _family_rows(family, data, table):
        row_path = table_source
        if family.skip_if and str(row.get(family.skip_if, "")).strip().lower() in {"1", "true", "yes"}:
            continue
        context = {**row, "row": row}
        fact: dict[str, Any] = {
            "id": _render_tree(templates["id"], context, row_path, line),
            "section": family.section,
            "category": family.category,
            "statement": _render_tree(templates["statement"], context, row_path, line),
            "applies_to": _render_tree(templates["applies_to"], context, row_path, line),
            "effective_from": str(row.get("effective_from") or family.effective_from),
            "holder": row.get("holder") or family.holder,
            "tags": list(family.tags),
            "family": name,
        }
        for optional in ("subject", "value", "window", "request"):
            if optional in templates:
                fact[optional] = _render_tree(templates[optional], context, row_path, line)
        if row.get("supersedes"):
            fact["supersedes"] = row["supersedes"]
        yield fact, line, row_path


def _with_default(data: LineDict, key: str, value: Any) -> LineDict:
    copy = LineDict(data)
    copy.line = data.line
    copy.key_lines = dict(getattr(data, "key_lines", {}))
    copy[key] = value
    return copy


BUILT_IN_PACKS = Path(__file__).resolve().parent.parent / "domains"
"""The folder of the domains taugen ships (``banking``, ``telecom``): one sub-folder per domain, holding
its pack (``domain.yaml``, ``facts/``, ``vocabulary.yaml``) and its code."""


def register_pack(name: str, directory: str | Path) -> Path:
    """Make the pack in ``directory`` buildable as ``taugen build NAME`` (kind ``domain_pack`` of
    :mod:`taugen.plugins`; a plugin module calls this for the packs it ships).

    Raises:
        InputError: ``directory`` holds no ``domain.yaml``.
        ValueError: ``name`` names another folder already.
    """
    directory = Path(directory).resolve()
    if not (directory / "domain.yaml").is_file():
        raise InputError(f"pack '{name}' has no domain.yaml", directory)
    return plugins.register("domain_pack", name, directory, origin_of=lambda folder: (str(folder), ""))


def packs() -> dict[str, Path]:
    """Every pack ``taugen build NAME`` knows, by name, sorted: the built-ins, then those that
    ``taugen.plugins`` modules register."""
    for folder in sorted(BUILT_IN_PACKS.iterdir()):
        if (folder / "domain.yaml").is_file():
            register_pack(folder.name, folder)
    return dict(sorted(plugins.registered("domain_pack").items()))


def load_pack(directory: str | Path) -> Pack:
    """Load and check the domain pack in ``directory``.

    Returns:
        a :class:`Pack` whose facts are all valid and mutually consistent.

    Raises:
        InputError: the first problem found, as ``file:line: id: what is wrong``.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError("pack folder not found", directory)
    config = load_domain_config(directory)
    fact_dir = directory / "facts"
    files = sorted(fact_dir.glob("*.yaml")) if fact_dir.is_dir() else []
    if not files:
        raise InputError("no fact files: facts/*.yaml is empty", directory)
    facts: dict[str, Fact] = {}
    sources: dict[str, SourceLocation] = {}
    source_files = [directory / "domain.yaml", *files]
    if (directory / "vocabulary.yaml").is_file():  # the corpus words (generators/corpus/vocabulary.py)
        source_files.append(directory / "vocabulary.yaml")
        source_files += vocabulary_tables(directory / "vocabulary.yaml", directory)
    for path in source_files:
        if not inside_pack(path, directory):
            raise InputError("file lies outside the pack folder (a symlink?)", path)
    section_ids = {section.id for section in config.sections}
    product_ids = {product.id for product in config.products}

    def add(raw: dict[str, Any], path: Path, line: int | None) -> None:
        fact_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        fact = validate_model(Fact, raw, path, fact_id, default_line=line)
        if fact.id in facts:
            first = sources[fact.id]
            raise InputError(f"duplicate fact id (first defined at {first.file.name}:{first.line})", path, line, fact.id)
        if fact.section not in section_ids:
            raise InputError(f"unknown section '{fact.section}' (domain.yaml declares: {', '.join(sorted(section_ids))})",
                             path, _key_line(raw, "section", line), fact.id)
        unknown = [p for p in fact.applies_to if product_ids and p not in product_ids]
        if unknown:
            raise InputError(f"applies_to names unknown product '{unknown[0]}'", path, _key_line(raw, "applies_to", line),
                             fact.id)
        facts[fact.id] = fact
        sources[fact.id] = SourceLocation(path, line)

    for path in files:
        data = _require_mapping(load_yaml(path), path, "a fact file")
        fact_file = validate_model(FactFile, data, path)
        raw_facts = data.get("facts", LineList())
        for index, raw in enumerate(raw_facts):
            line = raw_facts.item_lines[index] if isinstance(raw_facts, LineList) else data.line
            raw = _require_mapping(raw, path, "a fact")
            if fact_file.section and "section" not in raw:
                raw = _with_default(raw, "section", fact_file.section)
            add(raw, path, line)
        for family_data in data.get("families", LineList()):
            family_line = getattr(family_data, "line", data.line)
            family_id = family_data.get("family") if isinstance(family_data, dict) else None
            if family_id:
                sources[f"family:{family_id}"] = SourceLocation(path, family_line)
            for raw, line, row_path in _expand_family(family_data, path, fact_file.section, directory):
                add(raw, row_path, line)
                if row_path != path and row_path not in source_files:
                    source_files.append(row_path)

    graph = _supersession_graph(facts, sources, config)
    return Pack(directory=directory, config=config, facts=facts, sources=sources,
                source_files=sorted(set(source_files)), supersession=graph)


def _key_line(raw: Any, key: str, default: int | None) -> int | None:
    return raw.line_of(key) if isinstance(raw, LineDict) else default


def _supersession_graph(facts: dict[str, Fact], sources: dict[str, SourceLocation], config: DomainConfig) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(facts)
    for fact in facts.values():
        where = sources[fact.id]
        if fact.effective_from > config.snapshot_date:
            raise InputError(f"effective_from {fact.effective_from} is after the snapshot date {config.snapshot_date}",
                             where.file, where.line, fact.id)
        if fact.effective_from < config.history_start:
            raise InputError(f"effective_from {fact.effective_from} is before history_start {config.history_start}",
                             where.file, where.line, fact.id)
        if fact.decided_on and fact.decided_on > fact.effective_from:
            raise InputError("decided_on is after effective_from", where.file, where.line, fact.id)
        if fact.supersedes is None:
            continue
        if fact.supersedes not in facts:
            raise InputError(f"supersedes unknown fact '{fact.supersedes}'", where.file, where.line, fact.id)
        if fact.supersedes == fact.id:
            raise InputError("a fact cannot supersede itself", where.file, where.line, fact.id)
        if graph.out_degree(fact.supersedes):
            other = next(iter(graph.successors(fact.supersedes)))
            raise InputError(f"'{fact.supersedes}' is already superseded by '{other}'", where.file, where.line, fact.id)
        graph.add_edge(fact.supersedes, fact.id)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        cycle = None
    if cycle:
        first = cycle[0][1]
        where = sources[first]
        names = " -> ".join([edge[0] for edge in cycle] + [cycle[0][0]])
        raise InputError(f"supersession cycle: {names}", where.file, where.line, first)
    for old, new in graph.edges:
        if facts[new].effective_from <= facts[old].effective_from:
            where = sources[new]
            raise InputError(f"supersedes '{old}' but is not later (effective {facts[new].effective_from} vs "
                             f"{facts[old].effective_from})", where.file, where.line, new)
        if facts[new].section != facts[old].section:
            where = sources[new]
            raise InputError(f"supersedes '{old}' from another section", where.file, where.line, new)
    return graph
