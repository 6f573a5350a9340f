"""A domain is one folder: no stage names a built-in domain's facts, problems or tools.

Everything domain-specific lives in ``taugen/domains/<domain>/`` (facts, world, tools, problems, policy as
code, corpus vocabulary, mutation operators); the stages (everything else under ``taugen/``) read it through
the pack, the registry and the environment module a bundle names. This test collects the names from the
data at test time (every built-in pack's fact ids, its domain's problem names and its agent and user tool
names) and fails on any of them in a stage module: in code, strings, docstrings and comments alike (a
docstring that names a bank's tool is a stage that knows the bank).

Two kinds of tool name are a stage's own, not a domain's, and are allowed: the tools the generic problem
families realise their instances with (:func:`taugen.generators.families.family_rules` names them; a domain
that binds the families implements them), and a tool every built-in domain has (tau2's
``transfer_to_human_agents`` convention).
"""

from __future__ import annotations

import importlib
import io
import re
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "taugen"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

NOT_YET_MOVED: dict[tuple[str, str], str] = {}
"""Names a stage still holds, each with why it has not moved yet: the one list to shorten, never to grow."""


def domain_names() -> dict[str, set[str]]:
    """Every built-in domain's fact ids, problem names and tool names → ``{"banking fact", ...}``, without
    the tool names a stage owns (see the module docstring)."""
    from taugen.authoring.pack import BUILT_IN_PACKS, load_domain_config, load_pack, packs
    from taugen.generators.families import family_rules

    names: dict[str, set[str]] = {}
    tools_by_domain = []
    for name, folder in sorted(packs().items()):
        if folder.parent != BUILT_IN_PACKS:
            continue
        domain = importlib.import_module(load_domain_config(folder).environment).DOMAIN
        tools = set(domain.toolkit.tool_specs())
        tools |= set(getattr(domain.toolkit, "user_tool_specs", dict)())
        tools_by_domain.append(tools)
        found = [(fact_id, "fact") for fact_id in load_pack(folder).facts]
        found += [(problem.name, "problem") for problem in domain.problems]
        found += [(tool, "tool") for tool in tools]
        for word, what in found:
            names.setdefault(word, set()).add(f"{name} {what}")
    shared = set.intersection(*tools_by_domain)
    families = {tool for rule in family_rules(None, None) for tool in rule.tools}
    for tool in shared | families:
        names[tool] = {what for what in names.get(tool, set()) if not what.endswith(" tool")}
    return {word: whats for word, whats in names.items() if whats}


def named_in(source: str, names: dict[str, set[str]]) -> list[tuple[int, str]]:
    """``(line, name)`` of every name of ``names`` in the code, strings and comments of ``source``."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT):
            found += [(token.start[0], word) for word in _WORD.findall(token.string) if word in names]
    return found


def stage_modules() -> list[Path]:
    """Every module under ``taugen/`` outside ``taugen/domains/``."""
    return [path for path in sorted(PACKAGE.rglob("*.py")) if "domains" not in path.relative_to(PACKAGE).parts]


@pytest.fixture(scope="module")
def names() -> dict[str, set[str]]:
    return domain_names()


def test_the_names_come_from_both_built_in_domains(names):
    kinds = {what for whats in names.values() for what in whats}
    assert {"banking fact", "banking problem", "banking tool", "telecom fact", "telecom problem",
            "telecom tool"} <= kinds
    assert "transfer_to_human_agents" not in names and "charge_service_fee" not in names  # a stage's own tools


def test_no_stage_names_a_domains_facts_problems_or_tools(names):
    found = [f"{path.relative_to(PACKAGE.parent)}:{line} names {word} ({', '.join(sorted(names[word]))})"
             for path in stage_modules() for line, word in named_in(path.read_text(encoding="utf-8"), names)
             if (str(path.relative_to(PACKAGE.parent)), word) not in NOT_YET_MOVED]
    assert found == []


def test_the_guard_sees_a_name_in_code_strings_and_comments(names):
    source = 'x = bundle.task("stop_payment")\n# refunds with refund_fee\ndef open_dispute():\n    """f."""\n'
    assert [word for _, word in named_in(source, names)] == ["stop_payment", "refund_fee", "open_dispute"]
