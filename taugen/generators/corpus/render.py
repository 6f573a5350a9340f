"""Render a planned corpus, and the policy document, through the registered genres."""

from __future__ import annotations

from typing import Callable

import jinja2

from taugen.authoring.pack import Pack
from taugen.errors import InputError
from taugen.generators.corpus.genre import Genre, RenderContext, RenderedArtifact
from taugen.generators.corpus.planner import CorpusPlan
from taugen.generators.domain import DomainDefinition


def template_environment() -> jinja2.Environment:
    """The jinja2 environment over ``taugen/templates`` every genre renders with."""
    return jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                              autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render_corpus(plan: CorpusPlan, context: RenderContext, available: dict[str, Genre],
                  on_artifact: Callable[[RenderedArtifact], None] | None = None) -> list[RenderedArtifact]:
    """Render every artifact of ``plan`` in order.

    Raises:
        InputError: a template fails (reported with the template's name and line).
    """
    rendered = []
    for artifact_plan in plan.artifacts:
        genre = available[artifact_plan.genre]
        try:
            artifact = genre.render(artifact_plan, context)
        except jinja2.TemplateSyntaxError as exc:
            raise InputError(f"template error: {exc.message}", f"taugen/templates/{exc.name or '?'}", exc.lineno,
                             artifact_plan.artifact_id) from None
        except jinja2.UndefinedError as exc:
            raise InputError(f"template error: {exc.message}", f"taugen/templates/{artifact_plan.genre}", None,
                             artifact_plan.artifact_id) from None
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
            if not pack.is_current(fact.id) and fact.effective_from <= pack.now.date():
                newer = pack.facts[pack.superseded_by(fact.id)]  # type: ignore[index]
                history.append({"until": f"{newer.effective_from:%B %d, %Y}", "statement": fact.statement})
    try:
        template = templates.get_template("policy/policy.md.j2")
        return template.render(brand=config.brand, preamble=preamble.strip(), owns_facts=plan.policy_owns,
                               sections=sections, history=history)
    except jinja2.TemplateError as exc:
        raise InputError(f"template error: {exc}", "taugen/templates/policy/policy.md.j2",
                         getattr(exc, "lineno", None)) from None
