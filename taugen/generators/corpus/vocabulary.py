"""A domain's corpus vocabulary: the domain words that generic genre code draws from.

Genre code knows a genre (its structure, its register, its generic phrasing); the words that belong to
one business (its teams, staff titles, channels, products, the reasons its customers get in touch) live
in the pack, in ``<pack>/vocabulary.yaml``, one top-level section per genre (or shared helper such as
``prose``)::

    # taugen/domains/telecom/vocabulary.yaml
    support_transcript:
      phone_teams: [customer care, technical support, billing support]
      chat_channels: [Live chat (My Account app), Web chat]
      reasons_by_section:
        roaming: ["my data stopped working when I landed abroad", ...]
      ...
    email_thread:
      titles: {business: [Network Operations Manager, ...], vendor: [...], partner: [...]}
      ...

Each section is validated by the pydantic model its genre registers with :func:`register_vocabulary`
(unknown keys, missing keys, empty pools and unknown ``{placeholders}`` are errors), so a plug-in genre
adds its own section without editing this module. A section the file does not have, or a pack without a
``vocabulary.yaml`` at all, takes the genre's **neutral** vocabulary: generic words of any customer-facing
business ("customer care", "the account team"), so a skeleton pack builds a corpus that says nothing
wrong, only nothing specific. A section that is present must be complete: a genre never speaks half in
the pack's words and half in neutral ones.

Pack data never runs code: the file is read with the same safe, line-tracking YAML loader as the facts,
and a problem is one :class:`~taugen.errors.InputError` line, ``vocabulary.yaml:LINE: SECTION: what is
wrong`` (exit 2).

Order matters: genres draw from the pools with seeded ``random.choice`` / ``sample``, so a pool's order is
part of the corpus a seed produces; the models keep YAML lists as tuples in file order.

A pool may also be read from a column of one of the pack's CSV tables, so that a list the facts already
hold is written once (a bank's branches, the states it serves)::

    common:
      site_names: {table: facts/branches.csv, column: branch_name}

The table path is relative to the pack folder and must stay inside it; the pool is the column's non-empty
cells, each once, in file order.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from taugen import plugins
from taugen.errors import InputError

VOCABULARY_FILE = "vocabulary.yaml"
"""Name of the vocabulary file in a pack folder (beside ``domain.yaml``)."""

Pool = Annotated[tuple[str, ...], Field(min_length=1)]
"""A non-empty list of interchangeable phrases, kept in file order (draws depend on it)."""

PairPool = Annotated[tuple[tuple[str, str], ...], Field(min_length=1)]
"""A non-empty list of ``[first, second]`` pairs (question and answer, title and body)."""


class GenreVocabulary(BaseModel):
    """Base of one genre's vocabulary section: strict (unknown keys are errors) and read only.

    Subclasses declare their pools as fields and, in :attr:`placeholders`, which ``{names}`` each field's
    phrases may use (the genre fills those in with ``str.format``); a phrase using any other name is an
    error at load time, not a ``KeyError`` mid-build. Fields not listed there may use no placeholder.
    (:func:`load_vocabulary` also refuses a pack's phrase that uses an authoring word.)
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    placeholders: ClassVar[Mapping[str, frozenset[str]]] = {}

    @field_validator("*")
    @classmethod
    def _known_placeholders(cls, value: Any, info: ValidationInfo) -> Any:
        allowed = cls.placeholders.get(info.field_name or "", frozenset())
        for phrase in strings_in(value):
            try:
                names = {name for _text, name, _spec, _conv in string.Formatter().parse(phrase) if name is not None}
            except ValueError as exc:
                raise ValueError(f"phrase {phrase!r} is not a valid template: {exc}") from None
            unknown = sorted(name for name in names if name not in allowed)
            if unknown:
                offered = ", ".join("{" + name + "}" for name in sorted(allowed)) or "none"
                raise ValueError(f"phrase {phrase!r} uses the unknown placeholder {{{unknown[0]}}} "
                                 f"(placeholders here: {offered}; write a literal brace as {{{{ or }}}})")
        return value


@functools.cache
def _authoring_words() -> re.Pattern[str]:
    """The leakage check's authoring words (``carrier``, ``filler``, ...) as one case-insensitive pattern."""
    from taugen.text import AUTHOR_WORDS

    words = "|".join(re.escape(word) for word in AUTHOR_WORDS)
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{words})(?![A-Za-z0-9_])", re.IGNORECASE)


def strings_in(value: Any):
    """Every string inside ``value`` (nested tuples, lists and mappings), in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)


class RolePools(GenreVocabulary):
    """One pool per side of a record's conversation: the business itself, a vendor, a partner."""

    business: Pool
    vendor: Pool
    partner: Pool

    def for_role(self, role: str) -> tuple[str, ...]:
        """The pool of ``role`` (``business``, ``vendor`` or ``partner``); the business's for any other."""
        return getattr(self, role) if role in ("vendor", "partner") else self.business


class CommonWords(GenreVocabulary):
    """Domain nouns many genres drop into generic phrasing (section ``common``).

    Genres put them in as placeholders: ``{site}`` / ``{Site}`` (capitalised) / ``{sites}``, ``{online}``; the
    bundle's kit, policy and client prompt say ``business`` and ``business_description``.

    Attributes:
        site: where customers are served in person, singular ("branch", "store").
        sites: its plural ("branches", "stores").
        site_names: the business's own sites by name, as in "the {name} branch" ("Maple Grove"): records
            name real sites where a customer or a colleague says where something happened (none: a
            made-up town). Often read from a fact table (see the module docstring).
        regions: where the business's customers live (states, provinces), as in "I've moved to {region}"
            (none: made-up towns only).
        online: the customer's online self-service, as a noun phrase after "in" ("online banking",
            "the My Account app").
        business: what kind of business it is, one noun, in "the bank's records" ("bank", "operator").
        business_description: the business in a few words, after its brand ("a US community bank").
        published_in: by kind of figure (:data:`~taugen.generators.corpus.renditions.PUBLISHED_KINDS`),
            where the business publishes such figures: for ``money``, ``percent`` and ``cap`` as written after
            "is" ("set out in the fee schedule"), for ``duration``, ``date``, ``time`` and ``hours`` as a noun
            phrase said after "by", "within" or "during" ("the period set out in the account terms"). A
            record that names a rule without stating it may give the rule's own sentence with the figure
            deferred there (:func:`~taugen.generators.corpus.renditions.deferred_statement`); a kind left
            out is never deferred.
    """

    site: str = Field(min_length=1)
    sites: str = Field(min_length=1)
    online: str = Field(min_length=1)
    business: str = Field(min_length=1)
    business_description: str = Field(min_length=1)
    site_names: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    published_in: dict[Literal["money", "percent", "cap", "duration", "date", "time", "hours"], str] = Field(
        default_factory=lambda: {"money": "set out in the price list", "percent": "shown on the rates page",
                                 "cap": "set out in the terms", "duration": "the period set out in the terms",
                                 "date": "the date given in the published notice",
                                 "time": "the time shown on the published schedule",
                                 "hours": "the hours shown on the published schedule"})

    def terms(self) -> dict[str, str]:
        """The placeholder values: ``{"site": ..., "Site": ..., "sites": ..., "online": ...}``."""
        return {"site": self.site, "Site": self.site[:1].upper() + self.site[1:], "sites": self.sites,
                "online": self.online}


@dataclass(frozen=True)
class VocabularySection:
    """One registered section: its model and the neutral words used when a pack does not give it."""

    name: str
    model: type[GenreVocabulary]
    neutral: GenreVocabulary


def register_vocabulary(name: str, model: type[GenreVocabulary], neutral: GenreVocabulary) -> type[GenreVocabulary]:
    """Declare the vocabulary section ``name`` (a genre's registry name, or a shared helper's).

    ``neutral`` is the section a pack without it gets; it must be an instance of ``model``.

    Returns:
        ``model``, so a genre module can write ``Words = register_vocabulary("x", XWords, NEUTRAL)``.

    Raises:
        ValueError: ``name`` is taken by another model.
        TypeError: ``neutral`` is not a ``model``.
    """
    if not isinstance(neutral, model):
        raise TypeError(f"the neutral vocabulary of '{name}' is not a {model.__name__}")
    plugins.register("vocabulary_section", name, VocabularySection(name, model, neutral),
                     origin_of=lambda section: plugins.origin(section.model))
    return model


def vocabulary_sections() -> dict[str, VocabularySection]:
    """Every registered section by name (importing the built-in genres registers theirs)."""
    from taugen.generators.corpus import prose  # noqa: F401  (registers the shared 'prose' section)
    from taugen.generators.corpus import renditions  # noqa: F401  (registers the shared 'spoken' section)
    from taugen.generators.corpus.genre import genres

    genres()
    return dict(sorted(plugins.registered("vocabulary_section").items()))


@dataclass(frozen=True)
class DomainVocabulary:
    """The corpus vocabulary of one pack.

    Attributes:
        sections: the sections the pack's ``vocabulary.yaml`` gives, by section name, validated.
        source: the file they were read from, or None (no file: every section is neutral).
    """

    sections: Mapping[str, GenreVocabulary] = field(default_factory=dict)
    source: Path | None = None

    @property
    def common(self) -> CommonWords:
        """The ``common`` section: nouns many genres share (see :class:`CommonWords`)."""
        return self.words("common")  # type: ignore[return-value]

    def words(self, name: str) -> GenreVocabulary:
        """The section ``name``: the pack's, else the registered neutral one.

        Raises:
            KeyError: no section ``name`` is registered (a genre asks for words it never declared).
        """
        if name in self.sections:
            return self.sections[name]
        section = plugins.lookup("vocabulary_section", name) or vocabulary_sections()[name]
        return section.neutral


def business_words(pack) -> dict[str, str]:
    """``{"business": "bank", "business_description": "a US community bank"}`` of ``pack`` (a loaded
    :class:`~taugen.authoring.pack.Pack`), for the bundle's kit, policy and client prompt templates."""
    common = load_vocabulary(pack.directory).common
    return {"business": common.business, "business_description": common.business_description}


NEUTRAL_VOCABULARY = DomainVocabulary()
"""A vocabulary with no section of its own: every genre speaks in its neutral words."""


def load_vocabulary(pack_dir: str | Path, section_ids: Iterable[str] | None = None) -> DomainVocabulary:
    """Read and check ``<pack_dir>/vocabulary.yaml``; a pack without one gets the neutral vocabulary.

    ``section_ids`` are the pack's policy sections (``domain.yaml`` ``sections``): when given, every key of
    a pool whose name ends in ``_by_section``, and every item of a list whose name ends in ``_sections``,
    must be one of them (a misspelt section id would otherwise
    silently fall back to the neutral words).

    Returns:
        a :class:`DomainVocabulary` whose ``sections`` are the file's, each validated by its model.

    Raises:
        InputError: one line, ``vocabulary.yaml:LINE: SECTION: what is wrong``: not a mapping, a section
            no genre declares, an unknown or missing key, an empty pool, a pair that is not two phrases,
            an unknown placeholder, a ``*_by_section`` key that is not a section id of ``section_ids``; or
            the YAML itself is unsafe or malformed.
    """
    from taugen.authoring.pack import inside_pack, validate_model
    from taugen.authoring.yaml_lines import LineDict, load_yaml

    pack_dir = Path(pack_dir)
    path = pack_dir / VOCABULARY_FILE
    if not path.exists():
        return DomainVocabulary()
    if not inside_pack(path, pack_dir) or not path.is_file():
        raise InputError("vocabulary file must be a regular file inside the pack folder", path)
    data = load_yaml(path)
    if data is None:
        return DomainVocabulary(source=path)
    if not isinstance(data, LineDict):
        raise InputError("vocabulary.yaml must be a YAML mapping of section name to words", path,
                         getattr(data, "line", 1))
    known = vocabulary_sections()
    sections: dict[str, GenreVocabulary] = {}
    allowed = set(section_ids) if section_ids is not None else None
    for name, words in data.items():
        line = data.line_of(name)
        if name not in known:
            raise InputError(f"unknown section '{name}' (sections: {', '.join(known)})", path, line)
        if not isinstance(words, LineDict):
            raise InputError("a vocabulary section must be a mapping of pool name to phrases", path, line, name)
        words = _pools_from_tables(words, pack_dir, path, name)
        sections[name] = validate_model(known[name].model, words, path, name, default_line=line)
        for key, value in words.items():
            authoring = next((found for phrase in strings_in(value) if (found := _authoring_words().search(phrase))),
                             None)
            if authoring is not None:  # it would fail the leakage check once a record says it
                raise InputError(f"{key}: uses the authoring word {authoring.group(0).lower()!r}, which the "
                                 "leakage check refuses in delivered records", path, words.line_of(key), name)
            by_section = key.endswith("_by_section") and isinstance(value, LineDict)  # keyed by section
            listed = key.endswith("_sections") and isinstance(value, list)  # a list of sections
            if allowed is not None and (by_section or listed):
                for section in value:
                    if section not in allowed:
                        line = value.line_of(section) if by_section else words.line_of(key)
                        raise InputError(f"{key}: '{section}' is not a section of domain.yaml (sections: "
                                         f"{', '.join(sorted(allowed))})", path, line, name)
    return DomainVocabulary(sections=sections, source=path)


def _pools_from_tables(words, pack_dir: Path, path: Path, section: str):
    """``words`` (a section's mapping from the YAML) with every ``{table, column}`` pool replaced by the
    column's non-empty cells, each once, in file order.

    Raises:
        InputError: at the pool's line: the table path is absolute, climbs out with ``..``, lies outside
            the pack or is not a file; the CSV is malformed, too large or not UTF-8; the column is not in
            its header; the column has no value.
    """
    import csv
    import io

    from taugen.authoring.pack import TABLE_POOL_KEYS, pack_table, read_table_text
    from taugen.authoring.yaml_lines import LineDict

    tables = {key: value for key, value in words.items() if isinstance(value, Mapping) and set(value) == TABLE_POOL_KEYS}
    if not tables:
        return words
    resolved = LineDict(words)
    resolved.line = words.line
    resolved.key_lines = dict(getattr(words, "key_lines", {}))
    for key, spec in tables.items():
        line = words.line_of(key)
        name, column = str(spec["table"]), str(spec["column"])
        table = pack_table(name, pack_dir)
        if table is None:
            raise InputError(f"{key}: table '{name}' must be a path inside the pack folder, relative to it", path,
                             line, section)
        if not table.is_file():
            raise InputError(f"{key}: table '{name}' is not a file inside the pack folder", path, line, section)
        reader = csv.DictReader(io.StringIO(read_table_text(table, key), newline=""))
        try:
            header = [cell.strip() for cell in reader.fieldnames or []]
            if column not in header:
                raise InputError(f"{key}: table '{name}' has no column '{column}' (columns: {', '.join(header)})",
                                 path, line, section)
            cells = [(row.get(column) or "").strip() for row in
                     ({(k or "").strip(): v for k, v in raw.items()} for raw in reader)]
        except csv.Error as exc:
            raise InputError(f"{key}: table '{name}' is malformed CSV: {exc}", path, line, section) from None
        pool = tuple(dict.fromkeys(cell for cell in cells if cell))
        if not pool:
            raise InputError(f"{key}: column '{column}' of table '{name}' has no value", path, line, section)
        resolved[key] = pool
    return resolved


register_vocabulary("common", CommonWords, CommonWords(site="office", sites="offices", online="your online account",
                                                      business="business", business_description="a US business"))
