"""Render a planned corpus, and the policy document, through the registered genres."""

from __future__ import annotations

import multiprocessing
import os
import time
from typing import Callable

import jinja2

from taugen.authoring.pack import Pack
from taugen.errors import InputError
from taugen.generators.corpus.genre import ArtifactPlan, Genre, RenderContext, RenderedArtifact
from taugen.generators.corpus.planner import CorpusPlan
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


_JOB: tuple | None = None  # (plans, context, available), inherited by forked workers


def _work(index: int):
    """Render plan ``index`` in a worker; return what the parent needs (or the error to replay)."""
    plans, context, available = _JOB  # type: ignore[misc]
    artifact_plan = plans[index]
    started = time.perf_counter()
    try:
        artifact = _render_one(artifact_plan, context, available)
        text = available[artifact_plan.genre].extract_text(artifact.files, artifact.author_text)
    except Exception:  # noqa: BLE001 - the parent renders it again to raise the real error
        return index, None
    return index, (artifact.files, artifact.author_text, artifact.renditions, artifact.timestamps,
                   artifact.metadata, text, time.perf_counter() - started)


def render_workers(count: int) -> int:
    """Worker processes for ``count`` artifacts: ``TAUGEN_WORKERS`` if set, else the CPU count (at most
    four), and 1 for small corpora or where ``fork`` is unavailable."""
    if count < 40 or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    configured = os.environ.get("TAUGEN_WORKERS")
    if configured:
        return max(1, int(configured))
    return max(1, min(4, os.cpu_count() or 1))


def render_corpus(plan: CorpusPlan, context: RenderContext, available: dict[str, Genre],
                  on_artifact: Callable[[RenderedArtifact], None] | None = None,
                  texts: dict[str, str] | None = None,
                  seconds: dict[str, float] | None = None) -> list[RenderedArtifact]:
    """Render every artifact of ``plan`` in order, across worker processes when the corpus is large.

    Each artifact is rendered from its own seeded plan, so the bytes do not depend on which process
    rendered it or in which order. When ``texts`` is given, it receives each artifact's text as its
    genre reads it back from the delivered files (read in the worker that rendered it); ``seconds``
    receives the time each artifact took to render and read back (for benchmarks).

    Raises:
        InputError: a template fails (reported with the template's name and line).
    """
    global _JOB
    rendered: list[RenderedArtifact] = []
    workers = render_workers(len(plan.artifacts))
    if workers == 1:
        for artifact_plan in plan.artifacts:
            started = time.perf_counter()
            artifact = _render_one(artifact_plan, context, available)
            if texts is not None or seconds is not None:
                text = available[artifact_plan.genre].extract_text(artifact.files, artifact.author_text)
                if texts is not None:
                    texts[artifact_plan.artifact_id] = text
                if seconds is not None:
                    seconds[artifact_plan.artifact_id] = time.perf_counter() - started
            rendered.append(artifact)
            if on_artifact is not None:
                on_artifact(artifact)
        return rendered
    _JOB = (plan.artifacts, context, available)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for index, result in pool.imap(_work, range(len(plan.artifacts)), chunksize=2):
                artifact_plan = plan.artifacts[index]
                if result is None:  # replay here so that the real error (file, line) is raised
                    artifact = _render_one(artifact_plan, context, available)
                else:
                    files, author_text, renditions, timestamps, metadata, text, spent = result
                    artifact = RenderedArtifact(plan=artifact_plan, files=files, author_text=author_text,
                                                renditions=renditions, timestamps=timestamps, metadata=metadata)
                    if texts is not None:
                        texts[artifact_plan.artifact_id] = text
                    if seconds is not None:
                        seconds[artifact_plan.artifact_id] = spent
                rendered.append(artifact)
                if on_artifact is not None:
                    on_artifact(artifact)
            pool.close()  # let the workers exit on their own, so they stop what they started (a browser)
            pool.join()
    finally:
        _JOB = None
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
