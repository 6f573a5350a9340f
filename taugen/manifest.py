"""The answer key between build and validate: ``author/manifest.json`` as a typed model (floor 0).

The build assembles the manifest and writes it only through :func:`manifest_bytes`, which checks it
against :class:`Manifest`; a bundle view reads it back through :func:`read_manifest`, which checks it
again, so a hand-edited or truncated manifest is one clear error instead of a validator crashing on a
missing key. Validators read the checked data as plain JSON (``view.manifest``).

Dates and times stay the ISO 8601 strings the file holds (``2026-03-16``, ``2026-03-16T10:30:00-05:00``);
a fact's ``value`` and ``window`` are the pack's typed values as JSON (see
:mod:`taugen.authoring.values`), and an artifact's ``metadata`` is its genre's own (each genre's docstring).
Every model refuses keys it does not know.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taugen.errors import InputError
from taugen.hashing import json_bytes

MANIFEST_PATH = "author/manifest.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ManifestFact(_Strict):
    """One fact as the build placed it: the pack's fields plus where it lives and how it is found."""

    section: str
    category: str
    statement: str
    subject: str | None
    value: dict[str, Any] | None
    applies_to: list[str]
    holder: str
    effective_from: str
    supersedes: str | None
    superseded_by: str | None
    current: bool
    owner: str | None = Field(description="The artifact that carries the fact, or None (the policy only).")
    client_held: bool
    contested: bool
    discovery_tier: str | None
    history_omitted: bool
    window: dict[str, Any] | None = None
    family: str | None = Field(None, description="The fact table the fact was expanded from.")
    topic: str | None = Field(None, description="The domain's service topic (families), when it has one.")
    topic_products: list[str] | None = None


class ManifestFile(_Strict):
    """One delivered file of an artifact."""

    path: str
    role: str
    suffix: str


class ManifestEcho(_Strict):
    """A rule that another artifact owns, restated with its value (see
    :mod:`taugen.generators.corpus.echoes`): placement finds its words and value, and it owns nothing."""

    fact_id: str
    register_: str = Field(alias="register", description="``canonical`` or ``voiced``.")
    text: str
    value_form: str
    date: str

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ManifestRendition(ManifestEcho):
    """A sentence of an artifact that states a fact's value (the placement validator finds it): the
    artifact owns the fact, as ``current`` or ``superseded``."""

    status: str


class ManifestCue(_Strict):
    """A sentence that points at, qualifies, mentions or contradicts a fact without owning it."""

    fact_id: str
    kind: str
    text: str
    value_form: str
    date: str


class ManifestArtifact(_Strict):
    """One record of the corpus."""

    genre: str
    variant: str
    topic: str
    carrier: bool
    start: str
    end: str
    timestamps: list[str]
    files: list[ManifestFile]
    author_source: str | None
    target_words: int
    renditions: list[ManifestRendition]
    cues: list[ManifestCue]
    echoes: list[ManifestEcho] = Field(default_factory=list)
    metadata: dict[str, Any]


class ArcVersion(_Strict):
    """One version of a superseded rule and the record that carries it (None: no record states this
    version, e.g. a tier that renders no history)."""

    fact_id: str
    status: str
    genre: str | None
    owner: str | None
    effective_from: str
    decision_date: str
    record_date: str | None


class Arc(_Strict):
    """A supersession arc: the versions of one rule, oldest first."""

    arc_id: str
    history_rendered: bool
    versions: list[ArcVersion]


class RouteHop(_Strict):
    """A sentence in one record that names another record (by kind and date) as where a rule is."""

    from_: str = Field(alias="from")
    to: str
    text: str
    anchor_title: str
    anchor_date: str

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Route(_Strict):
    """An evidence route to a fact, one hop or more."""

    id: str
    fact_id: str
    hops: list[RouteHop]


class Discovery(_Strict):
    """How a client-held fact can be discovered: the tier and the sentence that hints at it, if any."""

    tier: str
    artifact: str
    text: str


class Decoy(_Strict):
    """A record's sentence that states another value for a contested fact."""

    artifact: str
    text: str
    value: dict[str, Any]
    value_form: str


class Contested(_Strict):
    """A fact whose records disagree: the owner holds the current statement, decoys the others."""

    owner: str
    current: str
    decoys: list[Decoy]


class Overlay(_Strict):
    """A record whose client-held rules were removed (it may stop being a carrier)."""

    artifact: str
    removed: list[str]
    carrier_after: bool


class Substitution(_Strict):
    """A record planned in one genre and rendered in another (modality profile or call budget)."""

    artifact: str
    from_genre: str
    from_variant: str
    to_genre: str
    to_variant: str
    reason: str


class Manifest(_Strict):
    """``author/manifest.json``: what the build placed where, for the validators and reviewers."""

    domain: str
    environment: str = Field(description="The domain's Python module, as domain.yaml names it.")
    tier: str
    surface: str
    modality: str
    now: str
    snapshot_date: str
    history_start: str
    facts: dict[str, ManifestFact]
    artifacts: dict[str, ManifestArtifact]
    client_held: list[str]
    client_confirmable: list[str]
    arcs: list[Arc]
    discovery: dict[str, Discovery]
    contested: dict[str, Contested]
    routes: list[Route]
    modality_substitutions: list[Substitution]
    client_overlay: list[Overlay]


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top)"
    return f"{where}: {first['msg']} ({error.error_count()} problem{'s' if error.error_count() != 1 else ''})"


def check_manifest(data: Any, source: str | None = None) -> None:
    """Check manifest JSON data against :class:`Manifest` (``source``: the bundle, for the message).

    Raises:
        InputError: naming the first field that is missing, unknown or of the wrong type.
    """
    try:
        Manifest.model_validate(data)
    except ValidationError as error:
        raise InputError(f"{MANIFEST_PATH} is not a valid manifest: {_first_error(error)}", source) from None


def manifest_bytes(data: dict[str, Any]) -> bytes:
    """The manifest file's bytes (canonical JSON of ``data``) after :func:`check_manifest`.

    Raises:
        InputError: ``data`` is not a valid manifest (a build defect, reported in one line).
    """
    check_manifest(data)
    return json_bytes(data)


def read_manifest(data: bytes, source: str | None = None) -> dict[str, Any]:
    """Parse and check a manifest file; returns the JSON data.

    Raises:
        InputError: the bytes are not JSON, or not a valid manifest (``source`` names the bundle).
    """
    try:
        parsed = json.loads(data)
    except json.JSONDecodeError as exc:
        raise InputError(f"{MANIFEST_PATH} is not valid JSON: {exc.msg}", source, exc.lineno) from None
    check_manifest(parsed, source)
    return parsed
