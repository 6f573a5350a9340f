"""The real banking pack loads, is consistent, and the pack-level commands work on it."""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import re
from pathlib import Path

import pytest

from taugen.authoring.pack import Pack, load_pack
from taugen.authoring.values import find_surface_form
from taugen.authoring.yaml_lines import load_yaml


@pytest.fixture(scope="module")
def banking() -> Pack:
    """The real banking pack, loaded once for the module."""
    return load_pack(Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking")


def test_pack_loads_with_expected_size(banking):
    assert banking.config.domain == "banking"
    assert len(banking.facts) >= 200
    assert len({fact.section for fact in banking.facts.values()}) >= 6
    assert len(banking.arcs()) >= 15
    assert sum(fact.holder == "client" for fact in banking.facts.values()) >= 10
    assert list(banking.facts) == [fact.id for fact in banking.facts.values()]


def test_every_section_is_declared_and_used(banking):
    declared = [section.id for section in banking.config.sections]
    used = {fact.section for fact in banking.facts.values()}
    assert used <= set(declared)
    assert used == set(declared)


def test_every_numeric_value_is_stated_in_its_statement(banking):
    numeric = [fact for fact in banking.facts.values() if fact.value is not None and fact.value.numbers()]
    assert len(numeric) >= 100
    for fact in numeric:
        assert find_surface_form(fact.value, fact.statement) is not None, (fact.id, fact.statement)


def test_arcs_go_forward_in_time(banking):
    arcs = banking.arcs()
    assert arcs == sorted(arcs, key=lambda chain: (-len(chain), chain[0]))
    seen: set[str] = set()
    for chain in arcs:
        assert len(chain) >= 2
        assert not seen & set(chain), "a fact belongs to two arcs"
        seen |= set(chain)
        for old, new in itertools.pairwise(chain):
            assert banking.superseded_by(old) == new
            assert banking.facts[new].supersedes == old
            assert banking.facts[new].effective_from > banking.facts[old].effective_from
            assert banking.facts[new].section == banking.facts[old].section
        assert banking.superseded_by(chain[-1]) is None
        assert banking.facts[chain[0]].supersedes is None
    assert any(len(chain) >= 3 for chain in arcs)


def test_is_current_for_a_superseded_fact_and_its_successor(banking):
    old, new = "fee_everyday_checking_overdraft_2024", "fee_everyday_checking_overdraft"
    assert banking.superseded_by(old) == new
    assert banking.facts[new].effective_from <= banking.now.date()
    assert banking.is_current(old) is False
    assert banking.is_current(new) is True
    current = {fact.id for fact in banking.current_facts()}
    assert new in current and old not in current


def test_exactly_one_current_version_per_arc(banking):
    for chain in banking.arcs():
        in_force = [fact_id for fact_id in chain if banking.is_current(fact_id)]
        assert len(in_force) == 1, chain
        # the one in force is the newest that has started
        started = [fact_id for fact_id in chain if banking.facts[fact_id].effective_from <= banking.now.date()]
        assert in_force == started[-1:]


def test_dates_stay_inside_the_history(banking):
    config = banking.config
    for fact in banking.facts.values():
        assert config.history_start <= fact.effective_from <= config.snapshot_date, fact.id


def test_families_are_expanded(banking):
    from_families = [fact for fact in banking.facts.values() if fact.family]
    families = {fact.family for fact in from_families}
    assert len(from_families) >= 50
    assert {"fee_schedule", "card_rate_fees", "debit_card_daily_limits", "wire_fees"} <= families
    ids = [fact.id for fact in from_families]
    assert len(ids) == len(set(ids))
    for fact in from_families:
        assert "{" not in fact.id and "{{" not in fact.statement, fact.id
        assert banking.location(f"family:{fact.family}") is not None


def test_csv_family_has_one_fact_per_row(banking):
    directory = banking.directory / "facts"
    with (directory / "fee_schedule.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    facts = [fact for fact in banking.facts.values() if fact.family == "fee_schedule"]
    assert len(facts) == len(rows)
    for row in rows:
        fact = banking.facts[f"fee_{row['product']}_{row['fee_type']}{row['version']}"]
        assert str(fact.value.amount) == row["amount"]
        location = banking.location(fact.id)
        assert location.file.name == "fee_schedule.csv"


def test_sources_point_at_the_fact(banking):
    fact_id = "fee_dormant_account"
    location = banking.location(fact_id)
    lines = location.file.read_text(encoding="utf-8").splitlines()
    assert lines[location.line - 1].strip() == f"- id: {fact_id}"


def test_sha256_by_file_covers_every_source(banking):
    digests = banking.sha256_by_file()
    directory = banking.directory
    expected = {"domain.yaml"} | {p.relative_to(directory).as_posix() for p in (directory / "facts").glob("*.yaml")}
    expected |= {p.relative_to(directory).as_posix() for p in (directory / "facts").glob("*.csv")}
    expected |= {"vocabulary.yaml"}  # the corpus words change the records too
    assert set(digests) == expected
    for relative, digest in digests.items():
        assert digest == hashlib.sha256((directory / relative).read_bytes()).hexdigest()
        assert re.fullmatch(r"[0-9a-f]{64}", digest)


def test_copied_pack_loads_the_same(banking, banking_pack):
    copy = load_pack(banking_pack)
    assert list(copy.facts) == list(banking.facts)
    assert copy.sha256_by_file() == banking.sha256_by_file()
    assert copy.arcs() == banking.arcs()


def test_yaml_loader_keeps_lines(banking):
    path = banking.directory / "domain.yaml"
    data = load_yaml(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for key in ("domain", "now", "sections"):
        assert lines[data.line_of(key) - 1].startswith(f"{key}:")
    assert isinstance(data["now"], str)  # dates stay text until pydantic parses them


def test_lint_real_pack(banking, cli, repo_root, monkeypatch):
    monkeypatch.chdir(repo_root)
    result = cli("lint", "taugen/domains/banking")
    assert result.exit_code == 0, result.stderr
    assert result.exception is None
    assert result.stderr == ""
    sections = len({fact.section for fact in banking.facts.values()})
    client = sum(fact.holder == "client" for fact in banking.facts.values())
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"ok: {len(banking.facts):,} facts in {sections} sections, {len(banking.arcs())} "
                            f"supersession arcs, {client} client-held (")
    assert re.search(r"facts decide problems \(hand-written or family instances\), \d+\s+are\s+corpus-only", result.stdout)


def test_lint_notes_a_category_that_reads_like_a_misspelt_common_one(cli, repo_root, tmp_path):
    """A new user changed ``category: fee`` to ``fees`` on one fact: it linted "ok" and silently turned a
    charged fee into a quoted amount (the category picks the task family). Categories are open, so lint
    says it in a note (exit 0), naming the fact and the common category it reads like."""
    import shutil

    pack = tmp_path / "banking"
    shutil.copytree(repo_root / "taugen" / "domains" / "banking", pack)
    path = pack / "facts" / "account_lifecycle.yaml"
    text = path.read_text(encoding="utf-8")
    old = "  - id: fee_early_account_closure\n    category: fee\n"
    assert old in text
    path.write_text(text.replace(old, old.replace("category: fee", "category: fees")), encoding="utf-8")
    result = cli("lint", pack)
    assert result.exit_code == 0, result.stderr
    said = " ".join(result.stdout.split())  # the console may wrap a long note
    assert said.count("category 'fees'") == 1
    assert "fee_early_account_closure: category 'fees' is used by 1 fact and reads like 'fee'" in said, said
    clean = cli("lint", repo_root / "taugen" / "domains" / "banking")
    assert "category '" not in clean.stdout  # no built-in pack has one


def test_schema_export(tmp_path, cli):
    out = tmp_path / "schemas"
    result = cli("schema", "--out", out)
    assert result.exit_code == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["domain.schema.json", "fact-file.schema.json", "fact.schema.json", "family.schema.json"]
    schemas = {name: json.loads((out / name).read_text(encoding="utf-8")) for name in names}
    for name, schema in schemas.items():
        assert schema["type"] == "object", name
        assert "properties" in schema, name
    for name in ("fact.schema.json", "family.schema.json"):
        assert {"statement", "value"} <= set(schemas[name]["properties"]), name
    assert {"id", "section", "effective_from"} <= set(schemas["fact.schema.json"]["required"])
    assert {"domain", "sections", "snapshot_date"} <= set(schemas["domain.schema.json"]["properties"])
    assert schemas["fact.schema.json"]["additionalProperties"] is False


def test_schema_accepts_the_real_facts(banking, tmp_path, cli):
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "schemas"
    assert cli("schema", "--out", out).exit_code == 0
    schema = json.loads((out / "fact.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for fact in list(banking.facts.values())[::7]:
        document = fact.model_dump(mode="json", exclude_none=True)
        errors = sorted(validator.iter_errors(document), key=str)
        assert not errors, (fact.id, errors[0].message if errors else None)
    bad = {**next(iter(banking.facts.values())).model_dump(mode="json", exclude_none=True), "efective_from": "2024-01-01"}
    assert list(validator.iter_errors(bad))


def test_schema_without_out_prints_the_fact_schema(cli):
    result = cli("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert {"statement", "value"} <= set(schema["properties"])
