"""Render a planned corpus, and the policy document, through the registered genres."""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

import jinja2

from taugen.authoring.pack import Pack
from taugen.errors import InputError
from taugen.content_cache import cache_root
from taugen.executors import Executor, LocalExecutor, local_workers
from taugen.generators.corpus.fact_reads import TracedFacts, TracedOwners, index_of, reads_hold
from taugen.generators.corpus.genre import ArtifactPlan, Genre, RenderContext, RenderedArtifact
from taugen.generators.corpus.planner import CorpusPlan
from taugen.generators.corpus.render_cache import entry_key, job_key, lookup
from taugen.generators.corpus.render_cache import store as store_entry
from taugen.generators.corpus.vocabulary import business_words
from taugen.generators.domain import DomainDefinition


def template_environment() -> jinja2.Environment:
    """The jinja2 environment over ``taugen/templates`` every genre renders with."""
    return jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                              autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _render_one(artifact_plan: ArtifactPlan, context: RenderContext, available: dict[str, Genre]) -> RenderedArtifact:
    genre = available[artifact_plan.genre]
    try:
        return genre.render(artifact_plan, context)
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(f"template error: {exc.message}", f"taugen/templates/{exc.name or '?'}", exc.lineno,
                         artifact_plan.artifact_id) from None
    except jinja2.UndefinedError as exc:
        raise InputError(f"template error: {exc.message}", f"taugen/templates/{artifact_plan.genre}", None,
                         artifact_plan.artifact_id) from None


def _work(job: tuple, index: int):
    """Render plan ``index`` of ``job`` (``(plans, context, available, cache job key or None)``) wherever an
    executor runs it, or take it from the render cache (:mod:`taugen.generators.corpus.render_cache`) when
    nothing it read has changed; return ``(files, author text, renditions, timestamps, metadata, text read
    back, seconds, reused)``, or None when it failed (the caller renders it again to raise the real error)."""
    plans, context, available, cache = job
    artifact_plan = plans[index]
    started = time.perf_counter()
    key = None
    if cache is not None:
        key = entry_key(cache, artifact_plan)
        found = lookup(key, lambda reads: reads_hold(reads, context.facts, index_of(context.facts),
                                                     context.owner_genres, *_memos(job)))
        if found is not None:
            return (*found, time.perf_counter() - started, True)
        traced = TracedFacts(context.facts, index_of(context.facts), *_memos(job))
        context = dataclasses.replace(context, facts=traced, owner_genres=TracedOwners(context.owner_genres,
                                                                                         traced.reads))
    try:
        artifact = _render_one(artifact_plan, context, available)
        text = available[artifact_plan.genre].extract_text(artifact.files, artifact.author_text)
    except Exception:  # noqa: BLE001 - the caller renders it again to raise the real error
        return None
    result = (artifact.files, artifact.author_text, artifact.renditions, artifact.timestamps, artifact.metadata, text)
    if key is not None:
        store_entry(key, context.facts.reads, result)
    return (*result, time.perf_counter() - started, False)


_MEMO: list = [None, {}, {}]


def _memos(job: tuple) -> tuple[dict, dict]:
    """The digest memos shared by the cache checks of one job in this process (facts' digests, lookups'
    answers), emptied when another job starts."""
    if _MEMO[0] is not job:
        _MEMO[:] = [job, {}, {}]
    return _MEMO[1], _MEMO[2]


def render_workers(count: int) -> int:
    """Worker processes for ``count`` artifacts rendered locally: ``TAUGEN_WORKERS`` if set, else the CPU
    count (at most four), and 1 for small corpora or where ``fork`` is unavailable
    (:func:`taugen.executors.local_workers`)."""
    return local_workers(count)


def render_corpus(plan: CorpusPlan, context: RenderContext, available: dict[str, Genre],
                  on_artifact: Callable[[RenderedArtifact], None] | None = None,
                  texts: dict[str, str] | None = None,
                  seconds: dict[str, float] | None = None,
                  executor: Executor | None = None, stats: dict | None = None) -> list[RenderedArtifact]:
    """Render every artifact of ``plan`` in order, through ``executor`` (default: a
    :class:`~taugen.executors.LocalExecutor`, forked worker processes when the corpus is large).

    Each artifact is rendered from its own seeded plan, so the bytes do not depend on which process or
    machine rendered it or in which order; results come back in plan order and ``on_artifact`` is called in
    that order. When ``texts`` is given, it receives each artifact's text as its genre reads it back from
    the delivered files (read where it was rendered); ``seconds`` receives the time each artifact took to
    render and read back, or take from the cache (for benchmarks); ``stats["reused_ids"]`` lists the records
    taken from the render cache (:mod:`taugen.generators.corpus.render_cache`). An artifact that fails where
    it was rendered is rendered again in this process, so that its real error is raised here.

    Raises:
        InputError: a template fails (reported with the template's name and line).
    """
    executor = executor or LocalExecutor()
    rendered: list[RenderedArtifact] = []
    job = (plan.artifacts, context, available, job_key(context, list(available)) if cache_root() is not None else None)
    results = executor.map(_work, job, range(len(plan.artifacts)), chunksize=2)
    # strict: the executor is resumed after the last result, so a local pool is closed and joined, not
    # terminated (its workers then remove what they started: a browser and its profile folder)
    for artifact_plan, result in zip(plan.artifacts, results, strict=True):
        if result is None:  # replay here so that the real error (file, line) is raised
            artifact = _render_one(artifact_plan, context, available)
            if texts is not None:
                texts[artifact_plan.artifact_id] = available[artifact_plan.genre].extract_text(artifact.files,
                                                                                               artifact.author_text)
        else:
            files, author_text, renditions, timestamps, metadata, text, spent, reused = result
            if reused and stats is not None:
                stats.setdefault("reused_ids", []).append(artifact_plan.artifact_id)
            artifact = RenderedArtifact(plan=artifact_plan, files=files, author_text=author_text,
                                        renditions=renditions, timestamps=timestamps, metadata=metadata)
            if texts is not None:
                texts[artifact_plan.artifact_id] = text
            if seconds is not None:
                seconds[artifact_plan.artifact_id] = spent
        rendered.append(artifact)
        if on_artifact is not None:
            on_artifact(artifact)
    return rendered


def render_policy(pack: Pack, domain: DomainDefinition, plan: CorpusPlan, templates: jinja2.Environment) -> str:
    """The policy document (tau2 ``policy.md``, kit ``policy.md``) as markdown.

    On the ``sop`` surface it states every current fact by section and lists superseded versions in a
    change history; otherwise it is demoted to the working preamble and a pointer to the records.
    """
    config = pack.config
    preamble = domain.policy_preamble.format(brand=config.brand, now=pack.now.strftime("%Y-%m-%d %H:%M %Z").strip()
                                             or pack.now.isoformat())
    sections = []
    history = []
    if plan.policy_owns:
        for section in config.sections:
            statements = [f.statement for f in pack.facts.values()
                          if f.section == section.id and pack.is_current(f.id)]
            if statements:
                sections.append({"title": section.title, "summary": section.summary, "statements": statements})
        for fact in pack.facts.values():
            if (not pack.is_current(fact.id) and fact.effective_from <= pack.now.date()
                    and fact.id in plan.history_facts):  # the tier's share of arcs shown with history
                newer = pack.facts[pack.superseded_by(fact.id)]  # type: ignore[index]
                history.append({"until": f"{newer.effective_from:%B %d, %Y}", "statement": fact.statement})
    try:
        template = templates.get_template("policy/policy.md.j2")
        return template.render(brand=config.brand, preamble=preamble.strip(), owns_facts=plan.policy_owns,
                               sections=sections, history=history, **business_words(pack))
    except jinja2.TemplateError as exc:
        raise InputError(f"template error: {exc}", "taugen/templates/policy/policy.md.j2",
                         getattr(exc, "lineno", None)) from None
