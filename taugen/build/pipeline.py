"""The build: pack → world → tasks → corpus → validation → bundle, one stage after another.

``build()`` is what ``taugen build`` calls. It reports progress through a callback (the CLI draws it)
and returns a :class:`BuildResult`; it writes the bundle only when no validator found an error.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from taugen.authoring.pack import BUILT_IN_PACKS, Pack, load_pack, packs
from taugen.build.assemble import assemble_bundle, bundle_name, seal
from taugen.build.files import check_destination, check_output_folder, write_atomically
from taugen.content_cache import content_key
from taugen.hashing import BundleFiles, json_bytes
from taugen.build.report import report_json, report_markdown
from taugen.errors import InputError
from taugen.generators.corpus.genre import RenderContext, genres
from taugen.hashing import stable_seed
from taugen.generators.corpus.planner import owner_genres, plan_corpus
from taugen.generators.corpus.render import render_corpus, render_policy, render_workers, template_environment
from taugen.generators.corpus.vocabulary import load_vocabulary
from taugen.generators.domain import import_environment, load_domain
from taugen.generators.tasks import compose_tasks, task_space
from taugen.generators.tiers import tier
from taugen.validators.bundle_view import BundleView
from taugen.findings import Finding, has_errors
from taugen.manifest import check_manifest
from taugen.validators.realism import gates_are_errors, repairable
from taugen.validators.registry import run_validators

if TYPE_CHECKING:
    from taugen.executors import Executor
    from taugen.generators.llm import LLMSettings

PACKS_DIR = BUILT_IN_PACKS
Progress = Callable[[str, str], None]
"""``progress(stage, detail)``: called when a stage starts and as it advances."""


@dataclass
class BuildResult:
    """What a build did.

    Attributes:
        name: the bundle name (``<domain>-<tier>-<version>``).
        path: where the bundle was written (None when validation failed and nothing was written).
        counts: facts, tasks, artifacts per genre, tokens ... (as in ``bundle.json``).
        findings: every validator finding.
        timings: seconds per stage, in order.
        llm: with ``--llm``, the ledger's totals plus ``cache_hits`` (responses read from the cache).
        repairs: what the build re-drew to meet the realism gates (as ``achieved.repairs`` in
            ``bundle.json``): ``corpus_redraws`` (and ``corpus_redraw_reason``), ``artifact_redraws``.
        reuse: what came from the content cache (:mod:`taugen.content_cache`): ``records`` rendered for the
            corpus shipped and ``records_reused``, those taken from the render cache
            (:mod:`taugen.generators.corpus.render_cache`) because nothing they read had changed.
    """

    name: str
    path: Path | None
    counts: dict
    findings: list[Finding]
    timings: dict[str, float] = field(default_factory=dict)
    repairs: dict = field(default_factory=dict)
    llm: dict | None = None
    reuse: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not has_errors(self.findings)


def resolve_pack(domain: str) -> Path:
    """A pack folder from a built-in domain name or a path.

    Raises:
        InputError: neither a folder nor a built-in pack.
    """
    as_path = Path(domain)
    if as_path.is_dir():
        return as_path
    known = packs()
    if domain in known:
        return known[domain]
    raise InputError(f"unknown domain '{domain}' (known packs: {', '.join(known)}; or give a pack folder)")


class _Stages:
    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress or (lambda stage, detail: None)
        self.timings: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.progress(name, "")
        started = time.perf_counter()
        try:
            yield
        finally:
            # a stage run again (a re-drawn corpus) adds to its time
            self.timings[name] = round(self.timings.get(name, 0.0) + time.perf_counter() - started, 3)


def build(domain: str, difficulty: str, seed: int = 0, out: Path = Path("dist"),
          progress: Progress | None = None, surface: str | None = None, modality: str | None = None,
          previous: Path | None = None, llm: "LLMSettings | None" = None, seeded: bool = False,
          tasks: int | None = None, readers: bool = True, executor: "Executor | None" = None,
          max_calls: int | None = None) -> BuildResult:
    """Build a validated, versioned bundle.

    Args:
        domain: a built-in pack name (``banking``) or a pack folder.
        difficulty: ``easy`` | ``medium`` | ``hard``.
        seed: the build seed; same pack + seed + taugen version ⇒ byte-identical bundle.
        out: the folder the bundle folder is written into.
        progress: optional callback for stage progress.
        surface: evidence surface overriding the tier's (``sop``, ``core``, ``hard``, ``hard_client``).
        modality: modality profile overriding the tier's (``text``, ``text+image``, ``text+image+audio``).
        previous: an earlier bundle to check the pack version against (default: the bundle already at
            the destination, if any); a change that breaks comparability without a major or minor
            version bump adds a ``versioning`` warning (:mod:`taugen.build.diff`).
        llm: optionally, a model that re-voices the voiced renditions (:mod:`taugen.generators.corpus.llm_voice`);
            its ledger goes to ``author/llm_ledger.json``. None keeps the offline template path.
        seeded: ship the construction kit's seeded starting implementation instead of the empty scaffold.

        tasks: how many tasks to pick from the task space (default: the tier's ``tasks``).
        readers: at hard, measure the corpus with the strong readers (:mod:`taugen.validators.readers`, about
            a minute on 2 cores) into ``bundle.json`` ``realism.readers``; they are report only, so a build
            that does not need the numbers may skip them (``realism.readers`` then says so).
        max_calls: the audio budget overriding the tier's (call recordings that state rules; half as many
            more hold none; see :class:`~taugen.generators.tiers.TierPreset`).
        executor: where the corpus render, the strong readers and the validators run their units
            (:mod:`taugen.executors`; default: this process and forked workers). The bytes are the same
            whichever runs them; the caller closes it.

    The bundle goes to ``out / <name>`` in one atomic step under a write lock (see
    :mod:`taugen.build.files`); ``out`` is checked before any work and is not touched when the build
    fails.

    Raises:
        InputError: ``out`` is a file or cannot be written, bad pack, unknown domain or tier, the bundle
            path is a file; another build kept the bundle's write lock too long; the disk refused the
            write; litellm is missing for ``llm``, or a replay miss (the CLI exits 2).
    """
    check_output_folder(out)
    try:
        preset = tier(difficulty).with_overrides(surface=surface, modality=modality, max_calls=max_calls)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    if tasks is not None:
        if tasks < 1:
            raise InputError(f"--tasks must be at least 1, not {tasks}")
        from dataclasses import replace

        preset = replace(preset, tasks=tasks)
    stages = _Stages(progress)
    with stages.stage("authoring"):
        pack = load_pack(resolve_pack(domain))
        vocabulary = load_vocabulary(pack.directory, [section.id for section in pack.config.sections])
        definition = load_domain(pack.config, str(pack.directory / "domain.yaml"), pack.directory)
    destination = out / bundle_name(pack, preset)
    check_destination(destination)
    with stages.stage("world"):
        world = definition.build_world(pack.config, seed)
    available = genres()
    with stages.stage("plan"):
        plan = plan_corpus(pack, preset, seed, available, surface=surface, vocabulary=vocabulary)
    with stages.stage("tasks"):
        tasks, unexercisable, space_size = _compose(definition, pack, world, preset, seed, plan)
        composed_for = _special_facts(plan)
    templates = template_environment()
    context = RenderContext(config=pack.config, templates=templates, build_seed=seed, tier=preset.name,
                            facts=pack.facts, vocabulary=vocabulary)
    speakers = {name: genre.llm_speaker for name, genre in available.items() if getattr(genre, "llm_speaker", None)}
    repairs: dict[str, object] = {"corpus_redraws": 0, "artifact_redraws": []}
    llm_client = None
    for corpus_round in range(MAX_CORPUS_REDRAWS + 1):
        repairs["artifact_redraws"] = []
        with stages.stage("corpus"):
            if corpus_round:
                plan = plan_corpus(pack, preset, stable_seed(seed, "corpus redraw", corpus_round), available,
                                   surface=surface, vocabulary=vocabulary)
            if llm is not None:
                from taugen.generators.corpus.llm_voice import voice_plan
                from taugen.generators.llm import LLMClient

                llm_client = LLMClient(llm)  # a fresh ledger per drawn corpus: it describes the corpus shipped
                stages.progress("corpus", f"voicing renditions with {llm.model}")
                plan = voice_plan(plan, pack, llm_client, speakers)
            context.owner_genres = owner_genres(plan)  # a record names its own genre's subjects first
            reuse = {"records": len(plan.artifacts), "records_reused": 0}
            rendered, extract = _render(plan, context, available, stages, executor, reuse)
            policy_text = render_policy(pack, definition, plan, templates)
        if corpus_round and definition.compose is None and _special_facts(plan) != composed_for:
            with stages.stage("tasks"):  # the re-drawn corpus holds other facts back: compose for those
                tasks, unexercisable, space_size = _compose(definition, pack, world, preset, seed, plan)
                composed_for = _special_facts(plan)
        with stages.stage("assemble"):
            assembled = assemble_bundle(pack, definition, preset, seed, world.model_dump(mode="json"), tasks, plan,
                                        rendered, policy_text, extract, templates, seeded=seeded, repairs=repairs,
                                        unexercisable=unexercisable, task_space_size=space_size)
        with stages.stage("repair"):
            corpus_gates: list[str] = []
            for artifact_round in range(1, MAX_ARTIFACT_REDRAWS + 1):
                redraw, corpus_gates = repairable(_view(assembled.files, extract))
                if not redraw:
                    break
                rendered, extract = _redraw(rendered, extract, redraw, artifact_round, context, available,
                                            bunched_genres(corpus_gates))
                repairs["artifact_redraws"] = sorted(set(repairs["artifact_redraws"]) | set(redraw))  # type: ignore[arg-type]
                assembled = assemble_bundle(pack, definition, preset, seed, world.model_dump(mode="json"), tasks,
                                            plan, rendered, policy_text, extract, templates, seeded=seeded,
                                            repairs=repairs, unexercisable=unexercisable,
                                            task_space_size=space_size)
            else:
                corpus_gates = repairable(_view(assembled.files, extract))[1]
        if not corpus_gates or corpus_round == MAX_CORPUS_REDRAWS or not gates_are_errors(preset.name):
            break  # below hard the realism gates are warnings: a re-drawn corpus is not worth its time
        repairs["corpus_redraws"] = corpus_round + 1
        repairs["corpus_redraw_reason"] = corpus_gates
    if llm_client is not None:
        _attach_llm_ledger(assembled.files, llm_client.ledger.as_dict())
    if gates_are_errors(preset.name):
        with stages.stage("readers"):  # once, on the corpus shipped (not on every re-drawn one)
            _attach_readers(assembled.files, extract, measure=readers, executor=executor)
    with stages.stage("validate"):
        # The render workers already read every delivered file back with the genre's reader: reuse it.
        findings = validate_files(assembled.files, "<build>", lambda name: stages.progress("validate", name),
                                  texts=extract, workers=render_workers(len(extract)), executor=executor)
    findings += version_findings(assembled.files, previous or destination)
    files = _with_report(assembled.files, findings, assembled.name)
    written = None
    if not has_errors(findings):
        with stages.stage("write"):
            def waiting(pid: int | None) -> None:
                stages.progress("write", f"waiting for another build's write{f' (pid {pid})' if pid else ''}")

            try:
                write_atomically(seal(files), destination, on_wait=waiting)
            except OSError as exc:  # disk full, read-only now, ...: the destination is untouched
                raise InputError(f"cannot write the bundle: {exc.strerror or exc}", destination) from None
            written = destination
    return BuildResult(name=assembled.name, path=written, counts=assembled.counts, findings=findings,
                       timings=stages.timings, repairs=dict(repairs), reuse=reuse,
                       llm={**llm_client.ledger.as_dict(), "cache_hits": llm_client.ledger.cache_hits,
                            "entries": len(llm_client.ledger.entries)} if llm_client is not None else None)


def _special_facts(plan) -> set[str]:
    """The facts a corpus plan holds back from the records or puts in dispute (they must decide tasks)."""
    return set(plan.client_held) | set(plan.contested)


def _compose(definition, pack: Pack, world, preset, seed: int, plan) -> tuple[list, dict | None, dict | None]:
    """``(tasks, unexercisable facts with reasons, task space size)``: the domain's own composer, or the
    task space compiled from the facts, where the plan's client-held and contested facts must decide
    tasks too (even when their value is free text)."""
    if definition.compose is not None:
        reasons = definition.unexercisable(pack) if definition.unexercisable is not None else None
        return definition.compose(definition, pack, world, preset, seed), reasons, None
    space = task_space(definition, pack, world, seed, special=_special_facts(plan))
    return compose_tasks(definition, pack, world, preset, seed, space=space), space.unexercisable, space.size(preset)


def _attach_readers(files: BundleFiles, texts: dict[str, str], measure: bool = True,
                    executor: "Executor | None" = None) -> None:
    """Put what the strong readers (:mod:`taugen.validators.readers`) measure on the shipped records into
    ``bundle.json`` under ``realism.readers`` (``{"skipped": ...}`` without ``measure``: the build was
    asked not to). Report only: their targets are not met yet (issue 10), so they gate nothing;
    the reviewer report shows them beside the gates. ``executor`` runs the readers (default: locally)."""
    import json

    bundle = json.loads(files["bundle.json"])
    bundle["realism"]["readers"] = (readers_summary(files, texts, executor) if measure
                                    else {"skipped": "built with --no-readers"})
    files["bundle.json"] = json_bytes(bundle)


READERS_CACHE = "readers"
"""Content cache namespace of the strong readers' summaries (:func:`readers_summary`)."""


def readers_summary(files: BundleFiles, texts: dict[str, str], executor: "Executor | None" = None) -> dict:
    """:func:`taugen.validators.readers.summary` of the bundle ``files`` (with the records' ``texts`` read
    back), as JSON data, from the content cache when one was stored for exactly these inputs.

    The readers read the records, their texts and the manifest, and nothing else; the key holds every file
    of the bundle as it stands before the summary is attached (path and bytes), every text, and
    :func:`~taugen.content_cache.code_version` (taugen's code, the Python version and the
    installed distributions, scikit-learn among them), so a rebuild of an unchanged pack reuses the
    summary and any change of a record, a task or the code measures again. A damaged entry is a miss
    (:func:`taugen.content_cache.load`). Raises ImportError without scikit-learn."""
    import json

    from taugen import content_cache
    from taugen.validators.readers import summary

    key = content_key(content_cache.code_version(), *(part for path in sorted(files) for part in (path, files[path])),
                      *(part for record in sorted(texts) for part in (record, texts[record])))
    stored = content_cache.load(READERS_CACHE, key)
    if stored is not None:
        try:
            return json.loads(stored)
        except ValueError:  # a checksum-valid entry that is not JSON: written by something else, measure again
            pass
    measured = json.loads(json_bytes(summary(_view(files, texts), executor=executor)))
    content_cache.store(READERS_CACHE, key, json_bytes(measured))
    return measured


def _attach_llm_ledger(files: BundleFiles, ledger: dict) -> None:
    """Put the LLM ledger into ``author/`` and the model and its outcome into ``bundle.json``."""
    import json

    files["author/llm_ledger.json"] = json_bytes(ledger)
    bundle = json.loads(files["bundle.json"])
    bundle["requested"]["llm"] = {"model": ledger["model"], "budget_usd": ledger["budget_usd"]}
    bundle["achieved"]["llm"] = {key: ledger[key] for key in ("requests", "outcomes", "spent_usd")}
    files["bundle.json"] = json_bytes(bundle)


def version_findings(files: BundleFiles, previous: Path) -> list[Finding]:
    """A ``versioning`` warning when ``files`` change what ``previous`` (a bundle folder) measured more
    than the pack version says (see :func:`taugen.build.diff.version_warning`); nothing when there is no
    readable bundle there."""
    from taugen.build.diff import diff_bundles, read_summary
    from taugen.findings import warning

    if not (previous / "bundle.json").is_file():
        return []
    try:
        result = diff_bundles(read_summary(previous), files, str(previous), "<build>")
    except InputError:
        return []  # an unreadable or foreign earlier bundle is not this build's problem
    if result.version_warning is None:
        return []
    return [warning("versioning", "version_bump_missing", result.new, result.version_warning,
                    evidence="; ".join(result.reasons), rule="semver: a change that breaks score comparability "
                    "needs a major (or, before 1.0, a minor) version bump")]



MAX_CORPUS_REDRAWS = 2
"""How many times a build re-plans its corpus (with a seed derived from the build seed) when the plan it
drew fails a realism gate that no single record can fix (a length distribution, the probe)."""
MAX_ARTIFACT_REDRAWS = 4
"""How many rounds of re-rendering single records (with a derived seed) a build spends on a repeated
opening, a repeated long sentence, a doubled word or a genre whose lengths bunch."""


def _render(plan, context: RenderContext, available: dict, stages: _Stages, executor: "Executor | None" = None,
            reuse: dict[str, int] | None = None):
    """Render ``plan`` through ``executor``; returns ``(rendered, texts)`` with each artifact's text as its
    genre reads it back. ``reuse["records_reused"]`` counts the records taken from the render cache."""
    total = len(plan.artifacts)
    done = [0]

    def advanced(_artifact) -> None:
        done[0] += 1
        stages.progress("corpus", f"{done[0]}/{total}")

    read_back: dict[str, str] = {}
    stats: dict = {}
    rendered = render_corpus(plan, context, available, advanced, texts=read_back, executor=executor, stats=stats)
    if reuse is not None:
        reuse["records_reused"] = len(stats.get("reused_ids", ()))
    extract = {a.plan.artifact_id: read_back[a.plan.artifact_id] if a.plan.artifact_id in read_back
               else available[a.plan.genre].extract_text(a.files, a.author_text) for a in rendered}
    return rendered, extract


def bunched_genres(corpus_gates: list[str]) -> set[str]:
    """The genres named by failed length gates (``length_distribution:<genre>``) in ``corpus_gates``."""
    return {gate.split(":", 1)[1] for gate in corpus_gates if gate.startswith("length_distribution:")}


LENGTH_CANDIDATES = 6
"""How many candidate plans (derived seeds, or planned lengths) a build renders when it re-draws a record to
spread its genre's lengths (:func:`_redraw`): the first that lands in a bucket with room is kept."""


def _redraw(rendered: list, extract: dict[str, str], artifact_ids: list[str], round_number: int,
            context: RenderContext, available: dict,
            bunched: set[str] | frozenset[str] = frozenset()) -> tuple[list, dict[str, str]]:
    """Render ``artifact_ids`` again from their plans with a seed derived from the plan's seed and the
    round (the renditions, dates and genre stay; the wording, names and order the genre draws change).

    A record of a ``bunched`` genre (its lengths fail the gate) is re-drawn into a length bucket with
    room: it is rendered from up to :data:`LENGTH_CANDIDATES` candidate plans, in order, and keeps the
    first whose length falls in a bucket holding less than the gate's share of the genre (and, while
    the genre takes too few buckets, one no record takes yet), else the candidate whose bucket holds
    fewest (earliest of equals). A record without a planned length gets its length from what its genre
    draws: its candidates are derived seeds. A record with one (``length_words``, a genre that declares
    ``spread_words``) comes back near that length whatever its seed: its candidates are planned lengths,
    the middles of the buckets its variant's range reaches, least-filled first (a seeded order among
    equals). Buckets count the genre's records that are not re-drawn and those already placed."""
    from taugen.text import count_tokens
    from taugen.validators.realism import BUCKET, MAX_MODAL_SHARE

    wanted = set(artifact_ids)
    members = {genre: [a.plan.artifact_id for a in rendered if a.plan.genre == genre] for genre in bunched}
    filled = {genre: Counter(count_tokens(extract[a]) // BUCKET for a in ids if a not in wanted)
              for genre, ids in members.items()}
    replaced = []
    texts = dict(extract)
    for artifact in rendered:
        if artifact.plan.artifact_id in wanted:
            plan = dataclasses.replace(artifact.plan, seed=stable_seed(artifact.plan.seed, "redraw", round_number))
            genre = available[plan.genre]
            if plan.genre in bunched:
                artifact, texts[plan.artifact_id] = _into_room(plan, genre, context, filled[plan.genre],
                                                               int(MAX_MODAL_SHARE * len(members[plan.genre])))
            else:
                artifact = genre.render(plan, context)
                texts[plan.artifact_id] = genre.extract_text(artifact.files, artifact.author_text)
        replaced.append(artifact)
    return replaced, texts


def _length_candidates(plan, genre, counts: Counter) -> list:
    """The plans :func:`_into_room` tries for a record of a bunched genre: planned lengths at the middles
    of the least-filled buckets its variant's range reaches (seeded order among equals) when it has a
    planned length, else its own plan and seeds derived from it."""
    from taugen.generators.corpus.planner import spread_range
    from taugen.validators.realism import BUCKET

    bounds = spread_range(genre, plan.variant) if plan.length_words else None
    if bounds is None:
        return [plan] + [dataclasses.replace(plan, seed=stable_seed(plan.seed, "length", k))
                         for k in range(1, LENGTH_CANDIDATES)]
    low, high = bounds
    rng = random.Random(stable_seed(plan.seed, "length"))
    reach = {bucket: rng.random() for bucket in range(low // BUCKET, high // BUCKET + 1)}
    order = sorted(reach, key=lambda bucket: (counts[bucket], reach[bucket]))[:LENGTH_CANDIDATES]
    return [dataclasses.replace(plan, length_words=min(max(b * BUCKET + BUCKET // 2, low), high)) for b in order]


def _into_room(plan, genre, context: RenderContext, counts: Counter, cap: int):
    """Render :func:`_length_candidates` of ``plan`` in order and return ``(artifact, text)`` of the first
    whose length falls in a bucket holding fewer than ``cap`` records of the genre (``counts``: records per
    bucket, updated with the one kept) and, while the genre takes too few buckets, one no record takes
    yet; else of the candidate whose bucket holds fewest (earliest of equals)."""
    from taugen.text import count_tokens
    from taugen.validators.realism import BUCKET, MIN_DISTINCT

    need_new = len(counts) < MIN_DISTINCT
    best = None
    for tried in _length_candidates(plan, genre, counts):
        drawn = genre.render(tried, context)
        text = genre.extract_text(drawn.files, drawn.author_text)
        bucket = count_tokens(text) // BUCKET
        score = (counts[bucket] >= cap, need_new and counts[bucket] > 0, counts[bucket])
        if best is None or score < best[0]:
            best = (score, drawn, text, bucket)
        if not any(score[:2]):
            break
    _score, artifact, text, bucket = best
    counts[bucket] += 1
    return artifact, text


def _view(files: BundleFiles, texts: dict[str, str]) -> BundleView:
    return BundleView(dict(files), source="<build>", _text_cache=dict(texts))


def validate_files(files: BundleFiles, source: str, on_validator: Callable[[str], None] | None = None,
                   texts: dict[str, str] | None = None, workers: int = 1,
                   executor: "Executor | None" = None) -> list[Finding]:
    """Run every validator over bundle files (the validation report itself is ignored).

    ``texts`` (artifact id → text read back from its delivered files by the genre's own reader) spares
    validators a second read of the same bytes during a build; ``taugen validate`` leaves it out.
    ``workers`` > 1 runs the validators side by side in forked processes (same findings; see
    :func:`~taugen.validators.registry.run_validators`); an ``executor`` runs them wherever it runs units.
    Per-task results (certificate replays, gold replays, sufficiency) are kept in the content cache and read
    back for tasks validated before (:func:`taugen.validators.memo.persisted`).

    Raises:
        InputError: the bundle has no valid manifest (every validator reads it: one line, not a crash each).
    """
    from taugen.validators.memo import persisted

    content = {path: data for path, data in files.items()
               if not path.startswith("author/validation.") and path != "SHA256SUMS"}
    view = BundleView(content, source=source, _text_cache=dict(texts or {}))
    check_manifest(view.manifest, source)  # once, before any validator reads it
    with persisted(view.manifest.get("environment")):
        return run_validators(view, on_validator, workers=workers, executor=executor)


def load_bundle_code(files: BundleFiles, source: str, pack_dir: str | Path | None = None) -> str | None:
    """Make the domain code a bundle was built with importable in this process, before validating it.

    A bundle names its domain's code by module (``author/manifest.json`` → ``environment``), never by a
    path on the build machine, so the same pack and seed give the same bytes wherever they are built. A
    built-in or installed domain imports by that name. A domain whose package is its pack folder, outside
    any installed package (``taugen new-domain``), is found from ``pack_dir`` (``--pack DIR``: the folder the
    bundle was built from; its ``domain.yaml`` must name the same domain and module), else from a pack
    registered under that folder's name (:func:`taugen.authoring.pack.packs`). The code itself is not hashed
    into the bundle: ``pack_dir`` must hold the code the bundle was built with.

    Returns:
        the module name, or None when the bundle has no manifest naming one (validators report that).

    Raises:
        InputError: ``pack_dir`` is not the bundle's pack, or the module cannot be imported (the message
            says to give ``--pack``).
    """
    import importlib.util
    import json

    try:
        manifest = json.loads(files["author/manifest.json"])
        module, domain = manifest["environment"], manifest["domain"]
    except (KeyError, ValueError, TypeError):
        return None
    if not isinstance(module, str) or not module:
        return None
    top = module.split(".")[0]
    if pack_dir is not None:
        from taugen.authoring.pack import load_domain_config

        config = load_domain_config(Path(pack_dir))
        if (config.domain, config.environment) != (domain, module):
            raise InputError(f"--pack {pack_dir} is domain '{config.domain}' with code '{config.environment}'; "
                             f"the bundle was built from domain '{domain}' with code '{module}'", source)
        import_environment(module, pack_dir, Path(pack_dir) / "domain.yaml")
        return module
    try:
        importable = top in sys.modules or importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        importable = False
    if not importable:
        folder = next((f for f in packs().values() if f.name == top and (f / "__init__.py").is_file()), None)
        if folder is None:
            raise InputError(f"the bundle's domain code '{module}' is not importable here: give the pack folder it "
                             f"was built from with --pack DIR (or put that folder's parent on PYTHONPATH)", source)
        import_environment(module, folder, folder / "domain.yaml")
    return module


def _with_report(files: BundleFiles, findings: list[Finding], name: str) -> BundleFiles:
    with_report = dict(files)
    with_report["author/validation.json"] = json_bytes(report_json(findings, name))
    with_report["author/validation.md"] = report_markdown(findings, name).encode()
    return with_report


def load_pack_only(directory: str | Path) -> tuple[Pack, list[str]]:
    """Load a pack and check its problems' facts, for ``taugen lint``; returns the pack and notes."""
    pack = load_pack(directory)
    load_vocabulary(pack.directory, [section.id for section in pack.config.sections])  # its errors are the pack's too
    from taugen.generators.tasks import check_problem_facts

    definition = load_domain(pack.config, str(pack.directory / "domain.yaml"), pack.directory)
    check_problem_facts(definition, pack)
    notes = []
    problems = [definition.opening, *definition.problems]
    if definition.families is not None:
        from taugen.generators.families import instantiate

        instances, _, reasons = instantiate(pack, definition.families(pack))
        problems += instances
        notes += [f"{fact_id}: its window is not compiled into tasks: {reason}" for fact_id, reason in
                  sorted(reasons.items()) if pack.facts[fact_id].window is not None and pack.is_current(fact_id)]
    from taugen.authoring.values import find_surface_form

    for fact in pack.facts.values():  # a pointer to the client names the subject: it must not state the value
        said = find_surface_form(fact.value, fact.subject) if fact.value is not None and fact.subject else None
        if said and fact.holder == "client":
            notes.append(f"{fact.id}: its subject states its client-held value ({said!r}), so a record that points "
                         "to the client for it would give the value away and the discovery gate fails the build; "
                         "word the subject or the value differently")
    notes += misspelt_categories(pack)
    unused = set(pack.facts) - {f for p in problems for f in p.facts}
    notes.append(f"{len(pack.facts) - len(unused)} facts decide problems (hand-written or family instances), "
                 f"{len(unused)} are corpus-only")
    return pack, notes


RARE_CATEGORY = 2
"""A category this few of a pack's facts use is checked against the pack's common ones (:func:`misspelt_categories`)."""
COMMON_CATEGORY = 5


def misspelt_categories(pack: Pack) -> list[str]:
    """Notes on categories that look like a misspelling of a common one: used by at most
    :data:`RARE_CATEGORY` facts and spelt within a similarity ratio of 0.8 (difflib) of a category at least
    :data:`COMMON_CATEGORY` facts use ("fees" beside "fee"). Categories are open (a pack may add its own), so
    this is a note, not an error; but the category decides which task family a fact compiles into (a fee
    is charged, any other amount quoted), so a misspelt one silently changes the tasks."""
    import difflib

    uses: dict[str, list[str]] = {}
    for fact in pack.facts.values():
        uses.setdefault(fact.category, []).append(fact.id)
    common = sorted(category for category, ids in uses.items() if len(ids) >= COMMON_CATEGORY)
    notes = []
    for category, ids in sorted(uses.items()):
        if len(ids) > RARE_CATEGORY:
            continue
        close = difflib.get_close_matches(category, common, n=1, cutoff=0.8)
        if close:
            notes.append(f"{', '.join(sorted(ids))}: category '{category}' is used by {len(ids)} fact"
                         f"{'s' if len(ids) != 1 else ''} and reads like '{close[0]}' ({len(uses[close[0]])} facts); "
                         "a misspelt category changes which task family the fact compiles into")
    return notes
