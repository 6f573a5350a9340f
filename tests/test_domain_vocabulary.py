"""A domain's corpus vocabulary lives in its pack (``<pack>/vocabulary.yaml``), not in generic genre code.

* a bad vocabulary file is one ``file:line: section: what is wrong`` error (exit 2 through ``taugen lint``);
* a pack without the file gets every genre's neutral words (documented default), which name no domain;
* the telecom pack's records no longer say the banking things generic genre code used to hard-code.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from taugen.errors import InputError
from taugen.generators.corpus.vocabulary import (
    VOCABULARY_FILE,
    DomainVocabulary,
    load_vocabulary,
    strings_in,
    vocabulary_sections,
)

REPO = Path(__file__).resolve().parents[1]
TELECOM_PACK = REPO / "taugen" / "domains" / "telecom"
BANKING_PACK = REPO / "taugen" / "domains" / "banking"

LEAKED_BANKING_WORDS = ("online banking", "teller", "overdraft", "branch", "debit card", "credit card",
                        "checking account", "deposit", "cardholder", "wire", "banking", "bank")
"""Banking words that generic genre code used to put into every pack's records (telecom bundles said
"Live chat (online banking)", "Card Services", "Head of Branch Operations")."""


def _pack_with_vocabulary(tmp_path: Path, text: str) -> Path:
    pack = tmp_path / "telecom"
    shutil.copytree(TELECOM_PACK, pack)
    (pack / VOCABULARY_FILE).write_text(text, encoding="utf-8")
    return pack


def test_builtin_packs_declare_complete_vocabularies():
    """Both built-in packs give every registered section, so none of their records falls back to neutral."""
    for pack in (BANKING_PACK, TELECOM_PACK):
        vocabulary = load_vocabulary(pack)
        assert set(vocabulary.sections) == set(vocabulary_sections()), pack.name
        assert vocabulary.source == pack / VOCABULARY_FILE
        # the words change the records, so the file is a source of the bundle (bundle.json "sources")
        from taugen.authoring.pack import load_pack

        assert VOCABULARY_FILE in load_pack(pack).sha256_by_file()


def test_misspelt_key_is_one_line_error_at_its_line(tmp_path):
    pack = _pack_with_vocabulary(tmp_path, "common:\n  site: store\n  sites: stores\n  online: the app\n"
                                           "  business: operator\n  business_description: a mobile operator\n"
                                           "workplace:\n  teams: [Network Operations]\n  owner_team: [Billing]\n"
                                           "  business_titles: [Head of Stores]\n")
    with pytest.raises(InputError) as caught:
        load_vocabulary(pack)
    assert str(caught.value).endswith("vocabulary.yaml:9: workplace: unknown key 'owner_team'")
    assert "\n" not in str(caught.value)


def test_missing_key_is_one_line_error(tmp_path):
    pack = _pack_with_vocabulary(tmp_path, "common:\n  site: store\n  online: the app\n")
    with pytest.raises(InputError) as caught:
        load_vocabulary(pack)
    assert str(caught.value).endswith("vocabulary.yaml:2: common: missing required key 'sites'")


@pytest.mark.parametrize(("text", "message"), [
    ("shop_floor:\n  teams: [A]\n", "vocabulary.yaml:1: unknown section 'shop_floor' (sections: "),
    ("common: [store]\n", "vocabulary.yaml:1: common: a vocabulary section must be a mapping of pool name to phrases"),
    ("- common\n", "vocabulary.yaml:1: vocabulary.yaml must be a YAML mapping of section name to words"),
    ("workplace:\n  teams: []\n  owner_teams: [A]\n  business_titles: [B]\n",
     "vocabulary.yaml:2: workplace: teams: Tuple should have at least 1 item after validation, not 0"),
    ("common:\n  site: '{town} store'\n  sites: stores\n  online: the app\n",
     ("vocabulary.yaml:2: common: site: phrase '{town} store' uses the unknown placeholder {town} (placeholders "
      "here: none")),
    (("common:\n  site: store\n  sites: stores\n  online: the app\n  business: carrier\n"
      "  business_description: a mobile carrier\n"),
     ("vocabulary.yaml:5: common: business: uses the authoring word 'carrier', which the leakage check "
      "refuses in delivered records")),
])
def test_bad_vocabulary_is_refused_with_what_is_wrong(tmp_path, text, message):
    pack = _pack_with_vocabulary(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_vocabulary(pack)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_yaml_that_would_run_code_is_refused(tmp_path):
    pack = _pack_with_vocabulary(tmp_path, "common: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(InputError):
        load_vocabulary(pack)


def test_lint_reports_a_bad_vocabulary_and_exits_2(tmp_path, cli):
    pack = _pack_with_vocabulary(tmp_path, "common:\n  site: store\n  sites: stores\n  onlien: the app\n")
    result = cli("lint", pack)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.exception is None
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert lines[0].endswith("vocabulary.yaml:4: common: unknown key 'onlien'")


def test_pack_without_vocabulary_gets_neutral_words(tmp_path):
    """The documented default: no file (a new pack's skeleton) means every genre's neutral words."""
    pack = tmp_path / "telecom"
    shutil.copytree(TELECOM_PACK, pack)
    (pack / VOCABULARY_FILE).unlink()
    vocabulary = load_vocabulary(pack)
    assert vocabulary == DomainVocabulary()
    assert vocabulary.source is None
    for name, section in vocabulary_sections().items():
        assert vocabulary.words(name) is section.neutral


def test_neutral_words_name_no_domain():
    """The neutral vocabulary is generic business language: none of the banking words generic code used
    to carry (nor telecom's)."""
    words = " ".join(strings_in([section.neutral.model_dump() for section in vocabulary_sections().values()]))
    for word in (*LEAKED_BANKING_WORDS, "card", "store", "roaming", "sim"):
        assert not re.search(rf"\b{re.escape(word)}\b", words, re.IGNORECASE), word


def _surname_in_a_name(text: str, match: re.Match[str]) -> bool:
    """Whether ``match`` is a surname inside a person's or a firm's name the corpus drew from Faker ("Amy
    Branch", "Kline Lynch and Branch": Faker's US surnames hold "Branch"): the word capitalised, one of Faker's
    US surnames, right after one of its US first names or surnames (", " or " and " between surnames). A name
    is not a banking word a genre hard-coded; "Head of Branch Operations" still counts."""
    from faker.providers.person.en_US import Provider

    word = match.group(0)
    before = re.search(r"\b([A-Z][a-z]+)(?:,| and)?\s+$", text[:match.start()])
    return (word[0].isupper() and word in Provider.last_names and before is not None
            and (before.group(1) in Provider.first_names or before.group(1) in Provider.last_names))


@pytest.mark.parametrize("seed", [1, pytest.param(0, marks=pytest.mark.slow)])  # a whole corpus each: one in CI
def test_telecom_hard_records_say_no_banking_words(seed):
    """Every record of telecom's hard corpus (planned and rendered as ``taugen build telecom -d hard`` does,
    read back as a reader gets it) is free of the banking words generic genres used to hard-code; a word
    may appear only where the telecom facts themselves use it."""
    from taugen.authoring.pack import load_pack
    from taugen.generators.corpus.genre import RenderContext, genres
    from taugen.generators.corpus.planner import plan_corpus
    from taugen.generators.corpus.render import render_corpus, template_environment
    from taugen.generators.tiers import tier

    pack = load_pack(TELECOM_PACK)
    available = genres()
    plan = plan_corpus(pack, tier("hard"), seed, available)
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=seed, tier="hard",
                            facts=pack.facts, vocabulary=load_vocabulary(TELECOM_PACK))
    texts: dict[str, str] = {}
    rendered = render_corpus(plan, context, available, texts=texts)
    fact_text = " ".join(f"{fact.statement} {fact.subject or ''} {' '.join(fact.voiced)}"
                         for fact in pack.facts.values()).lower()
    allowed = {word for word in LEAKED_BANKING_WORDS if re.search(rf"\b{re.escape(word)}\b", fact_text)}
    leaks = []
    for artifact in rendered:
        artifact_id = artifact.plan.artifact_id
        text = texts.get(artifact_id) or available[artifact.plan.genre].extract_text(artifact.files,
                                                                                      artifact.author_text)
        for word in LEAKED_BANKING_WORDS:
            if word in allowed:
                continue
            for match in re.finditer(rf"\b{re.escape(word)}\b", text, re.IGNORECASE):
                if _surname_in_a_name(text, match):
                    continue
                leaks.append(f"{artifact_id}: ...{text[max(0, match.start() - 60):match.end() + 30]}...")
    assert len(rendered) > 100
    assert not leaks, "\n".join(leaks[:20])


@pytest.mark.parametrize("template", ["kit/README.md.j2", "kit/construction_README.md.j2", "policy/policy.md.j2",
                                      "author/client_prompt.md.j2", "kit/framework/README.md.j2",
                                      "kit/framework/scenario_contract.md.j2"])
def test_bundle_documents_describe_the_packs_business(template):
    """The kit, policy and client prompt say what the pack's business is (telecom's kit used to call
    Northstar Mobile "a US community bank")."""
    from taugen.authoring.pack import load_pack
    from taugen.generators.corpus.render import template_environment
    from taugen.generators.corpus.vocabulary import business_words

    words = business_words(load_pack(TELECOM_PACK))
    assert words == {"business": "operator", "business_description": "a US mobile operator"}
    environment = template_environment()
    source = environment.loader.get_source(environment, template)[0]
    assert not re.search(r"\bbank\b", source)
    assert "{{ business" in source


def test_by_section_pools_name_only_the_packs_sections():
    """Every ``*_by_section`` key of the built-in packs is a section of their domain.yaml (a misspelt id
    would silently give that section the neutral words)."""
    from taugen.authoring.pack import load_pack

    for pack_dir in (BANKING_PACK, TELECOM_PACK):
        ids = [section.id for section in load_pack(pack_dir).config.sections]
        vocabulary = load_vocabulary(pack_dir, ids)
        keyed = [pool for section in vocabulary.sections.values() for name, pool in section
                 if name.endswith("_by_section")]
        assert keyed and all(set(pool) <= set(ids) for pool in keyed), pack_dir.name


def _lint_error_after(tmp_path, cli, source, old: str, new: str, marker: str) -> str:
    """``taugen lint`` on a copy of pack ``source`` whose vocabulary has ``old`` replaced by ``new``: asserts
    exit code 2 and one error line naming the vocabulary file at the line of ``marker`` (a line of the
    edited file); returns that line."""
    pack = tmp_path / source.name
    shutil.copytree(source, pack)
    path = pack / VOCABULARY_FILE
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = path.read_text(encoding="utf-8").splitlines().index(marker) + 1
    result = cli("lint", pack)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and f"vocabulary.yaml:{line}:" in lines[0]
    return lines[0]


def test_lint_refuses_a_dispute_section_that_is_not_a_section(tmp_path, cli):
    """A ``*_sections`` list names sections too: a misspelt dispute section would silently send every rule
    of it to servicing cases."""
    error = _lint_error_after(tmp_path, cli, BANKING_PACK, "  dispute_sections:\n  - error_resolution\n",
                              "  dispute_sections:\n  - error_resolutions\n", "  dispute_sections:")
    assert "dispute_sections: 'error_resolutions' is not a section of domain.yaml" in error


def test_a_dispute_case_cites_only_a_rule_of_a_dispute_section():
    """Drawn by value type alone, a dispute ledger's resolution note cited only rules that govern no dispute
    (a custodial account's transfer age) and billing-dispute rules sat in servicing cases; the layout now
    follows the rule's section."""
    from taugen.authoring.pack import load_pack
    from taugen.generators.corpus.genre import genres
    from taugen.generators.corpus.planner import plan_corpus
    from taugen.generators.tiers import tier

    pack = load_pack(BANKING_PACK)
    vocabulary = load_vocabulary(pack.directory, [s.id for s in pack.config.sections])
    allowed = set(vocabulary.words("case_ledger_export").dispute_sections)
    plan = plan_corpus(pack, tier("hard"), 4, genres(), vocabulary=vocabulary)
    cited = [(a.variant, pack.facts[r.fact_id].section) for a in plan.artifacts if a.genre == "case_ledger_export"
             for r in a.renditions if r.owns]
    assert {variant for variant, _ in cited} == {"disputes", "service_cases"}
    assert all((variant == "disputes") == (section in allowed) for variant, section in cited), cited


def test_lint_refuses_a_by_section_key_that_is_not_a_section(tmp_path, cli):
    error = _lint_error_after(tmp_path, cli, TELECOM_PACK, "\n    billing:\n", "\n    biling:\n", "    biling:")
    assert "'biling' is not a section of domain.yaml (sections: " in error
    # without the pack's sections (a genre test's context) the same file still loads
    pack = tmp_path / TELECOM_PACK.name
    assert load_vocabulary(pack).source == pack / VOCABULARY_FILE


def test_a_pool_can_be_read_from_a_column_of_a_pack_table():
    """``{table, column}`` reads a pool from one of the pack's CSV tables (the branches the facts already
    list are written once): the column's non-empty cells, each once, in file order."""
    import csv

    vocabulary = load_vocabulary(BANKING_PACK)
    with open(BANKING_PACK / "facts" / "branches.csv", newline="", encoding="utf-8") as handle:
        branches = [row["branch_name"] for row in csv.DictReader(handle)]
    assert vocabulary.common.site_names == tuple(dict.fromkeys(branches))
    assert len(vocabulary.common.site_names) == 40
    assert "Alabama" in vocabulary.common.regions and "the District of Columbia" in vocabulary.common.regions
    assert load_vocabulary(TELECOM_PACK).common.site_names == ()  # optional: a pack may name no site


_COMMON = ("common:\n  site: store\n  sites: stores\n  online: the app\n  business: operator\n"
           "  business_description: a mobile operator\n")


@pytest.mark.parametrize(("pool", "message"), [
    ("{table: facts/nowhere.csv, column: name}", "table 'facts/nowhere.csv' is not a file inside the pack folder"),
    ("{table: ../banking/facts/branches.csv, column: branch_name}", "must be a path inside the pack folder"),
    ("{table: /etc/passwd, column: root}", "must be a path inside the pack folder"),
    ("{table: stores.csv, column: town}", "has no column 'town' (columns: store, name)"),
    ("{table: empty.csv, column: name}", "column 'name' of table 'empty.csv' has no value"),
])
def test_a_bad_table_pool_is_a_one_line_error_at_its_line(tmp_path, pool, message):
    pack = _pack_with_vocabulary(tmp_path, _COMMON + f"  site_names: {pool}\n")
    (pack / "stores.csv").write_text("store,name\nnorth,North Point\n", encoding="utf-8")
    (pack / "empty.csv").write_text("store,name\nnorth,\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_vocabulary(pack)
    assert message in str(caught.value)
    assert "vocabulary.yaml:7" in str(caught.value) and "\n" not in str(caught.value)


def test_a_table_pool_names_the_packs_sites_in_its_records(tmp_path):
    """A telecom pack that lists its stores in a table gets them back as ``site_names``, and the table
    counts among the pack's source files (``bundle.json`` ``sources``)."""
    pack = _pack_with_vocabulary(tmp_path, _COMMON + "  site_names: {table: stores.csv, column: name}\n")
    (pack / "stores.csv").write_text("store,name\nnorth,North Point\nsouth,South Gate\nnorth2,North Point\n",
                                     encoding="utf-8")
    assert load_vocabulary(pack).common.site_names == ("North Point", "South Gate")
    from taugen.authoring.pack import load_pack

    assert "stores.csv" in load_pack(pack).sha256_by_file()  # its bytes are a source of the bundle
