"""The build: pack → world → tasks → corpus → validation → bundle, one stage after another.

``build()`` is what ``taugen build`` calls. It reports progress through a callback (the CLI draws it)
and returns a :class:`BuildResult`; it writes the bundle only when no validator found an error.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from taugen.authoring.pack import Pack, load_pack
from taugen.build.assemble import assemble_bundle, bundle_name, seal
from taugen.build.files import BundleFiles, json_bytes, write_atomically
from taugen.build.report import report_json, report_markdown
from taugen.errors import InputError
from taugen.generators.corpus.genre import RenderContext, genres
from taugen.generators.corpus.planner import plan_corpus
from taugen.generators.corpus.render import render_corpus, render_policy, template_environment
from taugen.generators.domain import load_domain
from taugen.generators.tasks import compose_tasks, task_space
from taugen.generators.tiers import tier
from taugen.validators.bundle_view import BundleView
from taugen.validators.findings import Finding, has_errors
from taugen.validators.registry import run_validators

PACKS_DIR = Path(__file__).resolve().parent.parent / "facts"
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
    """

    name: str
    path: Path | None
    counts: dict
    findings: list[Finding]
    timings: dict[str, float] = field(default_factory=dict)

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
    built_in = PACKS_DIR / domain
    if (built_in / "domain.yaml").is_file():
        return built_in
    known = sorted(p.name for p in PACKS_DIR.iterdir() if (p / "domain.yaml").is_file())
    raise InputError(f"unknown domain '{domain}' (built-in packs: {', '.join(known)}; or give a pack folder)")


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
            self.timings[name] = round(time.perf_counter() - started, 3)


def build(domain: str, difficulty: str, seed: int = 0, out: Path = Path("dist"),
          progress: Progress | None = None, surface: str | None = None, modality: str | None = None,
          tasks: int | None = None) -> BuildResult:
    """Build a validated, versioned bundle.

    Args:
        domain: a built-in pack name (``banking``) or a pack folder.
        difficulty: ``easy`` | ``medium`` | ``hard``.
        seed: the build seed; same pack + seed + taugen version ⇒ byte-identical bundle.
        out: the folder the bundle folder is written into.
        progress: optional callback for stage progress.
        surface: evidence surface overriding the tier's (``sop``, ``core``, ``hard``, ``hard_client``).
        modality: modality profile overriding the tier's (``text``, ``text+image``, ``text+image+audio``).
        tasks: how many tasks to pick from the task space (default: the tier's ``tasks``).

    Raises:
        InputError: bad pack, unknown domain or tier (the CLI exits 2).
    """
    try:
        preset = tier(difficulty).with_overrides(surface=surface, modality=modality)
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
        definition = load_domain(pack.config, str(pack.directory / "domain.yaml"))
    with stages.stage("world"):
        world = definition.build_world(pack.config, seed)
    available = genres()
    with stages.stage("plan"):
        plan = plan_corpus(pack, preset, seed, available, surface=surface)
    with stages.stage("tasks"):
        unexercisable, space_size = None, None
        if definition.compose is not None:
            tasks = definition.compose(definition, pack, world, preset, seed)
        else:  # client-held and contested facts must decide tasks too, even when their value is free text
            space = task_space(definition, pack, world, seed, special=set(plan.client_held) | set(plan.contested))
            unexercisable, space_size = space.unexercisable, space.size(preset)
            tasks = compose_tasks(definition, pack, world, preset, seed, space=space)
    templates = template_environment()
    with stages.stage("corpus"):
        context = RenderContext(config=pack.config, templates=templates, build_seed=seed, tier=preset.name)
        total = len(plan.artifacts)
        done = [0]

        def advanced(_artifact) -> None:
            done[0] += 1
            stages.progress("corpus", f"{done[0]}/{total}")

        read_back: dict[str, str] = {}
        rendered = render_corpus(plan, context, available, advanced, texts=read_back)
        policy_text = render_policy(pack, definition, plan, templates)
        extract = {a.plan.artifact_id: read_back[a.plan.artifact_id] if a.plan.artifact_id in read_back
                   else available[a.plan.genre].extract_text(a.files, a.author_text) for a in rendered}
    with stages.stage("assemble"):
        assembled = assemble_bundle(pack, definition, preset, seed, world.model_dump(mode="json"), tasks, plan,
                                    rendered, policy_text, extract, templates, unexercisable, space_size)
    with stages.stage("validate"):
        # The render workers already read every delivered file back with the genre's reader: reuse it.
        findings = validate_files(assembled.files, "<build>", lambda name: stages.progress("validate", name),
                                  texts=extract)
    files = _with_report(assembled.files, findings, assembled.name)
    destination = out / bundle_name(pack, preset)
    written = None
    if not has_errors(findings):
        with stages.stage("write"):
            write_atomically(seal(files), destination)
            written = destination
    return BuildResult(name=assembled.name, path=written, counts=assembled.counts, findings=findings,
                       timings=stages.timings)


def validate_files(files: BundleFiles, source: str, on_validator: Callable[[str], None] | None = None,
                   texts: dict[str, str] | None = None) -> list[Finding]:
    """Run every validator over bundle files (the validation report itself is ignored).

    ``texts`` (artifact id → text read back from its delivered files by the genre's own reader) spares
    validators a second read of the same bytes during a build; ``taugen validate`` leaves it out.
    """
    content = {path: data for path, data in files.items()
               if not path.startswith("author/validation.") and path != "SHA256SUMS"}
    view = BundleView(content, source=source, _text_cache=dict(texts or {}))
    return run_validators(view, on_validator)


def _with_report(files: BundleFiles, findings: list[Finding], name: str) -> BundleFiles:
    with_report = dict(files)
    with_report["author/validation.json"] = json_bytes(report_json(findings, name))
    with_report["author/validation.md"] = report_markdown(findings, name).encode()
    return with_report


def load_pack_only(directory: str | Path) -> tuple[Pack, list[str]]:
    """Load a pack and check its problems' facts, for ``taugen lint``; returns the pack and notes."""
    pack = load_pack(directory)
    from taugen.generators.tasks import check_problem_facts

    definition = load_domain(pack.config, str(pack.directory / "domain.yaml"))
    check_problem_facts(definition, pack)
    notes = []
    problems = [definition.opening, *definition.problems]
    if definition.families is not None:
        from taugen.generators.families import instantiate

        problems += instantiate(pack, definition.families(pack))[0]
    unused = set(pack.facts) - {f for p in problems for f in p.facts}
    notes.append(f"{len(pack.facts) - len(unused)} facts decide problems (hand-written or family instances), "
                 f"{len(unused)} are corpus-only")
    return pack, notes
