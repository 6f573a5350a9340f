"""Bad fact packs are rejected with one line ``file:line: id: what is wrong`` and exit code 2.

Every case copies the banking pack into ``tmp_path``, makes one small edit a domain expert could make,
and checks three things:

* the library: :func:`load_pack` (or :func:`load_pack_only`) raises :class:`InputError` naming the
  file, the exact line (found by searching the edited file, never hard-coded), the id and the problem;
* ``taugen lint <pack>``: exit 2, exactly one stderr line ``error: <that error>``, no traceback;
* ``taugen build <pack> --difficulty easy --out <dist>``: exit 2, and ``<dist>`` is left exactly as it
  was (an existing bundle folder with a sentinel file stays byte-identical, nothing is added).

Tests run with ``tmp_path`` as the working directory, so pack files are shown as ``banking/facts/...``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from taugen.authoring.pack import load_pack
from taugen.build.pipeline import build as build_bundle
from taugen.build.pipeline import load_pack_only, resolve_pack
from taugen.errors import InputError

FACTS = "facts"


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


# --- helpers ---------------------------------------------------------------------------------------


def edit(pack: Path, relative: str, old: str, new: str) -> Path:
    """Replace the one occurrence of ``old`` in ``pack/relative`` by ``new``; return the file."""
    path = pack / relative
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{relative}: expected exactly one {old!r}, found {text.count(old)}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def line_no(path: Path, start: str) -> int:
    """1-based number of the one line of ``path`` that is ``start`` (or, failing that, the one line
    that begins with it). Leading white space counts."""
    lines = path.read_text(encoding="utf-8").splitlines()
    exact = [i for i, line in enumerate(lines) if line.rstrip() == start.rstrip()]
    if len(exact) == 1:
        return exact[0] + 1
    begins = [i for i, line in enumerate(lines) if line.startswith(start)]
    assert len(begins) == 1, f"{path.name}: {len(begins)} lines begin with {start!r}"
    return begins[0] + 1


def line_with(path: Path, text: str) -> int:
    """1-based number of the one line of ``path`` that contains ``text``."""
    lines = [i + 1 for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if text in line]
    assert len(lines) == 1, f"{path.name}: {len(lines)} lines contain {text!r}"
    return lines[0]


def load_error(pack: Path, loader: Callable = load_pack) -> InputError:
    with pytest.raises(InputError) as info:
        loader(pack)
    return info.value


def assert_error(error: InputError, file: Path, line: int, item_id: str | None, message: str) -> None:
    """``error`` names ``file`` at ``line`` with ``item_id``, and its message matches ``message``."""
    assert error.file is not None and Path(error.file) == file, error
    assert error.line == line, error
    assert error.item_id == item_id, error
    assert re.search(message, error.message), error


def bundle_folder_name(pack: Path) -> str:
    card = yaml.safe_load((pack / "domain.yaml").read_text(encoding="utf-8"))
    return f"{card['domain']}-easy-{card['version']}"


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` (hidden ones too) with file bytes; None for folders."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


def assert_one_error_line(result, expected: str | None = None) -> str:
    """Exit 2, no traceback, and stderr is one line starting ``error: `` (equal to ``expected``)."""
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.exception is None, repr(result.exception)
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    if expected is not None:
        assert lines[0] == f"error: {expected}"
    return lines[0]


def assert_cli_rejects(cli, pack: Path, error: InputError) -> None:
    """``taugen lint`` and ``taugen build`` both refuse ``pack`` with ``error`` and write nothing."""
    shown = str(error)
    assert re.match(r"^\S+:\d+: ", shown), f"no file:line in {shown!r}"
    assert_one_error_line(cli("lint", pack), shown)

    dist = pack.parent / "dist"
    existing = dist / bundle_folder_name(pack)
    existing.mkdir(parents=True)
    (existing / "SENTINEL.txt").write_bytes(b"an earlier good bundle\n")
    (existing / "bundle.json").write_bytes(b'{"previous": true}\n')
    before = tree(dist)
    result = cli("build", pack, "--difficulty", "easy", "--out", dist)
    assert_one_error_line(result, shown)
    assert tree(dist) == before


# --- malformed YAML --------------------------------------------------------------------------------

MALFORMED = {
    # a colon inside an unquoted statement: the parser stops on that line
    "colon_in_statement": ("billing_disputes.yaml", "    statement: A credit card billing dispute of $15.00 or less",
                           "    statement: Note: a credit card billing dispute of $15.00 or less",
                           "    statement: Note: a credit card", 0, "mapping values are not allowed here"),
    # unclosed flow mapping: the parser notices at the next key, one line further down
    "unclosed_brace": ("billing_disputes.yaml", 'value: {type: money, amount: "15.00", currency: USD}',
                       'value: {type: money, amount: "15.00", currency: USD',
                       '    value: {type: money, amount: "15.00", currency: USD', 1, r"expected ',' or '\}'"),
    "unclosed_bracket": ("card_servicing.yaml",
                         '["24 hours a day"]}\n    applies_to: [debit_card, rewards_credit_card, platinum_credit_card]',
                         '["24 hours a day"]}\n    applies_to: [debit_card, rewards_credit_card, platinum_credit_card',
                         "    applies_to: [debit_card, rewards_credit_card, platinum_credit_card", 1,
                         r"expected ',' or '\]'"),
    "over_indented_key": ("billing_disputes.yaml",
                          "  - id: reg_z_small_dispute_auto_credit_2024\n    category: procedure",
                          "  - id: reg_z_small_dispute_auto_credit_2024\n      category: procedure",
                          "      category: procedure", 0, "mapping values are not allowed here"),
    "under_indented_key": ("billing_disputes.yaml",
                           ("    category: procedure\n    subject: a small credit card billing dispute\n"
                            "    statement: A credit card billing dispute of $15.00"),
                           ("    category: procedure\n   subject: a small credit card billing dispute\n"
                            "    statement: A credit card billing dispute of $15.00"),
                           "   subject: a small credit card billing dispute", 0, "expected <block end>"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_yaml(case, banking_pack, cli):
    file, old, new, at, offset, message = MALFORMED[case]
    path = edit(banking_pack, f"{FACTS}/{file}", old, new)
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, at) + offset, None, r"^malformed YAML: " + message)
    assert_cli_rejects(cli, banking_pack, error)


# --- keys ------------------------------------------------------------------------------------------


def test_unknown_key_in_fact(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml", "    supersedes: fee_dormant_account_2024",
                "    supersede: fee_dormant_account_2024")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    supersede: "), "fee_dormant_account", r"^unknown key 'supersede'$")
    assert_cli_rejects(cli, banking_pack, error)


def test_misspelt_required_key_is_reported_as_unknown_key(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml",
                "    effective_from: 2025-04-01\n    supersedes: fee_dormant_account_2024",
                "    efective_from: 2025-04-01\n    supersedes: fee_dormant_account_2024")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    efective_from:"), "fee_dormant_account", r"unknown key 'efective_from'")
    assert_cli_rejects(cli, banking_pack, error)


def test_duplicate_key_in_one_mapping(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml",
                "    effective_from: 2025-04-01\n    supersedes: fee_dormant_account_2024",
                "    effective_from: 2025-04-01\n    subject: the fee for a dormant account\n"
                "    supersedes: fee_dormant_account_2024")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    subject: the fee for a dormant account"), None,
                 r"^duplicate key 'subject'$")
    assert_cli_rejects(cli, banking_pack, error)


# --- ids and supersession --------------------------------------------------------------------------


def test_duplicate_fact_id_across_files(banking_pack, cli):
    first = banking_pack / FACTS / "account_lifecycle.yaml"
    first_line = line_no(first, "  - id: account_opening_cip")
    path = edit(banking_pack, f"{FACTS}/statements.yaml", "  - id: fee_paper_statement\n",
                "  - id: account_opening_cip\n")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "  - id: account_opening_cip"), "account_opening_cip",
                 rf"duplicate fact id .*account_lifecycle\.yaml:{first_line}\b")
    assert_cli_rejects(cli, banking_pack, error)


def test_duplicate_fact_id_inside_a_family(banking_pack, cli):
    path = banking_pack / FACTS / "wires_and_transfers.yaml"
    first_line = line_no(path, "      - {wire: domestic_wire_incoming,")
    edit(banking_pack, f"{FACTS}/wires_and_transfers.yaml", "{wire: wire_recall,", "{wire: domestic_wire_incoming,")
    second_line = line_no(path, '      - {wire: domestic_wire_incoming, wire_text: "wire recall')
    error = load_error(banking_pack)
    assert_error(error, path, second_line, "fee_domestic_wire_incoming",
                 rf"duplicate fact id .*wires_and_transfers\.yaml:{first_line}\b")
    assert_cli_rejects(cli, banking_pack, error)


def test_supersession_cycle(banking_pack, cli):
    # fee_dormant_account already supersedes fee_dormant_account_2024; close the loop
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml",
                "    effective_from: 2024-01-01\n    tags: [dormancy, fee]",
                "    effective_from: 2024-01-01\n    supersedes: fee_dormant_account\n    tags: [dormancy, fee]")
    error = load_error(banking_pack)
    lines = {fact: line_no(path, f"  - id: {fact}") for fact in ("fee_dormant_account", "fee_dormant_account_2024")}
    assert error.item_id in lines
    assert_error(error, path, lines[error.item_id], error.item_id, r"^supersession cycle: ")
    assert re.search(r"\bfee_dormant_account_2024\b", error.message)
    assert re.search(r"\bfee_dormant_account\b(?!_)", error.message)
    assert_cli_rejects(cli, banking_pack, error)


def test_supersession_backwards_in_time(banking_pack, cli):
    # the old version now starts after the version that replaces it
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml",
                "    effective_from: 2024-01-01\n    tags: [dormancy, fee]",
                "    effective_from: 2025-10-01\n    tags: [dormancy, fee]")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "  - id: fee_dormant_account"), "fee_dormant_account",
                 r"supersedes 'fee_dormant_account_2024' but is not later .*2025-04-01.*2025-10-01")
    assert_cli_rejects(cli, banking_pack, error)


def test_supersedes_unknown_fact(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml", "    supersedes: fee_dormant_account_2024",
                "    supersedes: fee_dormant_acount_2024")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "  - id: fee_dormant_account"), "fee_dormant_account",
                 r"^supersedes unknown fact 'fee_dormant_acount_2024'$")
    assert_cli_rejects(cli, banking_pack, error)


# --- dates -----------------------------------------------------------------------------------------


def test_impossible_date(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml",
                "    effective_from: 2025-04-01\n    supersedes: fee_dormant_account_2024",
                "    effective_from: 2025-02-30\n    supersedes: fee_dormant_account_2024")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    effective_from: 2025-02-30"), "fee_dormant_account",
                 r"^effective_from: .*valid date")
    assert_cli_rejects(cli, banking_pack, error)


def test_date_after_snapshot(banking_pack, cli):
    snapshot = yaml.safe_load((banking_pack / "domain.yaml").read_text(encoding="utf-8"))["snapshot_date"]
    later = snapshot + dt.timedelta(days=16)
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml",
                "    effective_from: 2025-04-01\n    supersedes: fee_dormant_account_2024",
                f"    effective_from: {later.isoformat()}\n    supersedes: fee_dormant_account_2024")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "  - id: fee_dormant_account"), "fee_dormant_account",
                 rf"^effective_from {later.isoformat()} is after the snapshot date {snapshot.isoformat()}$")
    assert_cli_rejects(cli, banking_pack, error)


# --- values, sections, products --------------------------------------------------------------------


def test_value_not_stated_by_statement(banking_pack, cli):
    # the statement says $30.00; the value says 35.00
    path = edit(banking_pack, f"{FACTS}/statements.yaml",
                'cost $30.00 per hour, with a minimum charge of one hour.\n'
                '    value: {type: money, amount: "30.00", currency: USD}',
                'cost $30.00 per hour, with a minimum charge of one hour.\n'
                '    value: {type: money, amount: "35.00", currency: USD}')
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "  - id: fee_account_research"), "fee_account_research",
                 r"statement does not state the value '\$35\.00'")
    assert_cli_rejects(cli, banking_pack, error)


def test_unknown_section(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/fees.yaml",
                "    category: waiver\n    subject: the Everyday Checking direct deposit waiver",
                "    category: waiver\n    section: savings\n    subject: the Everyday Checking direct deposit waiver")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    section: savings"), "waiver_everyday_checking_direct_deposit",
                 r"^unknown section 'savings' \(domain.yaml declares: .*\bfees\b")
    assert_cli_rejects(cli, banking_pack, error)


def test_unknown_product_in_applies_to(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/fees.yaml",
                '"500.00", currency: USD}\n    applies_to: [everyday_checking]',
                '"500.00", currency: USD}\n    applies_to: [everyday_chequing]')
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    applies_to: [everyday_chequing]"),
                 "waiver_everyday_checking_direct_deposit", r"^applies_to names unknown product 'everyday_chequing'$")
    assert_cli_rejects(cli, banking_pack, error)


def test_bad_amount_in_block_style_value_names_the_amount_line(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/account_lifecycle.yaml", 'value: {type: money, amount: "0.00", currency: USD}',
                'value:\n      type: money\n      amount: "0.005"\n      currency: USD')
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, '      amount: "0.005"'), "fee_dormant_account", r"at most 2 decimal places")
    assert_cli_rejects(cli, banking_pack, error)


# --- families: templates and tables ----------------------------------------------------------------

# (family, statement template text to break, the broken text, where rows come from)
TEMPLATES = {
    "csv_table_family": ("fee_schedule", "is ${{ amount }} {{ basis }}", "is ${{ amount  {{ basis }}",
                         "fee_schedule.csv"),
    "inline_rows_family": ("card_rate_fees", "is {{ rate }}% {{ basis }}", "is {{ rate % {{ basis }}", "fees.yaml"),
}


@pytest.mark.parametrize("case", sorted(TEMPLATES))
def test_family_template_syntax_error(case, banking_pack, cli):
    family, old, new, _ = TEMPLATES[case]
    edit(banking_pack, f"{FACTS}/fees.yaml", old, new)
    error = load_error(banking_pack)
    assert error.item_id == family
    assert error.message.startswith("template error"), error
    assert error.line is not None
    assert_cli_rejects(cli, banking_pack, error)


@pytest.mark.parametrize("case", sorted(TEMPLATES))
def test_family_template_syntax_error_names_the_statement_line(case, banking_pack):
    family, old, new, _ = TEMPLATES[case]
    path = edit(banking_pack, f"{FACTS}/fees.yaml", old, new)
    error = load_error(banking_pack)
    assert_error(error, path, line_with(path, f"    statement: \"The {{{{ fee_name }}}} on {{{{ product_label }}}} {new}"),
                 family, r"^template error")


def _first_row_line(pack: Path, case: str) -> tuple[Path, int]:
    family, _, _, source = TEMPLATES[case]
    if source.endswith(".csv"):
        path = pack / FACTS / source
        header = path.read_text(encoding="utf-8").splitlines()[0]
        return path, line_no(path, header) + 1
    path = pack / FACTS / source
    text = path.read_text(encoding="utf-8")
    block = text[text.index(f"  - family: {family}"):]
    first_row = block[block.index("    rows:\n") + len("    rows:\n"):].splitlines()[0]
    return path, line_no(path, first_row)


@pytest.mark.parametrize("case", sorted(TEMPLATES))
def test_family_template_undefined_variable(case, banking_pack, cli):
    family, old, _, _ = TEMPLATES[case]
    variable = "amount" if "amount" in old else "rate"
    edit(banking_pack, f"{FACTS}/fees.yaml", old, old.replace(f"{{{{ {variable} }}}}", "{{ amout }}"))
    error = load_error(banking_pack)
    path, line = _first_row_line(banking_pack, case)  # the first row has no column 'amout'
    assert_error(error, path, line, family, r"^template error: 'amout' is undefined")
    assert_cli_rejects(cli, banking_pack, error)


def test_family_template_runtime_error(banking_pack, cli):
    # CSV cells are text, so printf-style formatting of a column fails at render time
    edit(banking_pack, f"{FACTS}/fees.yaml", "is ${{ amount }} {{ basis }}", "is ${{ '%.2f' | format(amount) }} {{ basis }}")
    error = load_error(banking_pack)
    assert error.item_id == "fee_schedule" and error.message.startswith("template error")
    assert_cli_rejects(cli, banking_pack, error)


ROW_ERRORS = {
    "csv_row": ("fee_schedule.csv", "35.00,per item paid into overdraft,,,2025-07-01",
                "35.00,per item paid into overdraft,,,2025-06-31", "everyday_checking,Everyday Checking,overdraft,",
                "fee_everyday_checking_overdraft"),
    "inline_row": ("fees.yaml", 'version: "", effective_from: 2025-04-01,', 'version: "", effective_from: 2025-04-31,',
                   ("      - {product: platinum_credit_card, product_label: the Platinum Visa Credit Card, "
                    'fee_type: foreign_transaction, fee_name: foreign transaction fee, rate: "0"'),
                   "fee_platinum_credit_card_foreign_transaction"),
}


@pytest.mark.parametrize("case", sorted(ROW_ERRORS))
def test_invalid_family_row_names_the_row_line(case, banking_pack, cli):
    file, old, new, row_start, fact_id = ROW_ERRORS[case]
    path = edit(banking_pack, f"{FACTS}/{file}", old, new)
    line = line_with(path, new)
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].startswith(row_start)
    error = load_error(banking_pack)
    assert_error(error, path, line, fact_id, r"^effective_from: .*valid date")
    assert_cli_rejects(cli, banking_pack, error)


@pytest.mark.parametrize("change", ["missing_cell", "extra_cell"])
def test_csv_row_with_wrong_number_of_cells(change, banking_pack, cli):
    row = "atm,daily ATM withdrawal limit,everyday_checking,Everyday Checking,600.00,,2025-05-01,"
    broken = row.replace("600.00,,", "600.00,") if change == "missing_cell" else row.replace("600.00,,", "600.00,,,")
    path = edit(banking_pack, f"{FACTS}/card_limits.csv", row, broken)
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, broken), "debit_card_daily_limits",
                 r"^row has a different number of cells than the header$")
    assert_cli_rejects(cli, banking_pack, error)


# --- problems, domains, options, bundles -----------------------------------------------------------


def test_problem_names_unknown_fact(banking_pack, cli, repo_root):
    # renaming the wire row changes the id fee_domestic_wire_outgoing, which the domestic_wire problem needs
    edit(banking_pack, f"{FACTS}/wires_and_transfers.yaml", "{wire: domestic_wire_outgoing,",
         "{wire: domestic_wire_outbound,")
    load_pack(banking_pack)  # the pack itself is consistent
    problems = repo_root / "taugen" / "domains" / "banking" / "problems.py"
    source = problems.read_text(encoding="utf-8").splitlines()
    name_at = next(i for i, line in enumerate(source) if line.strip() == 'name = "domestic_wire"')
    class_line = max(i for i in range(name_at) if source[i].startswith("class ")) + 1

    error = load_error(banking_pack, load_pack_only)
    assert Path(error.file).resolve() == problems.resolve()
    assert (error.line, error.item_id) == (class_line, "domestic_wire")
    assert error.message == "problem names unknown fact 'fee_domestic_wire_outgoing'"

    lint = assert_one_error_line(cli("lint", banking_pack), str(error))
    assert f"taugen/domains/banking/problems.py:{class_line}: domestic_wire: " in lint
    dist = banking_pack.parent / "dist"
    assert_one_error_line(cli("build", banking_pack, "--difficulty", "easy", "--out", dist), str(error))
    assert not dist.exists()


def test_build_on_bad_pack_creates_no_out_folder(banking_pack, cli):
    edit(banking_pack, f"{FACTS}/account_lifecycle.yaml", "    supersedes: fee_dormant_account_2024",
         "    supersedes: fee_dormant_acount_2024")
    dist = banking_pack.parent / "dist"
    line = assert_one_error_line(cli("build", banking_pack, "--difficulty", "easy", "--out", dist))
    assert "banking/facts/account_lifecycle.yaml:" in line
    assert not dist.exists()


def test_unknown_domain(tmp_path, cli):
    with pytest.raises(InputError, match=r"unknown domain 'nosuchdomain' \(known packs: .*banking"):
        resolve_pack("nosuchdomain")
    dist = tmp_path / "dist"
    line = assert_one_error_line(cli("build", "nosuchdomain", "--difficulty", "easy", "--out", dist))
    assert line.startswith("error: unknown domain 'nosuchdomain'")
    assert not dist.exists()


def test_unknown_difficulty(tmp_path, cli):
    with pytest.raises(InputError):
        build_bundle("banking", "extreme", out=tmp_path / "lib-dist")
    assert not (tmp_path / "lib-dist").exists()
    dist = tmp_path / "dist"
    result = cli("build", "banking", "--difficulty", "extreme", "--out", dist)
    assert result.exit_code == 2  # typer's own usage error
    assert result.exception is None
    assert "Traceback" not in result.stdout + result.stderr
    assert "--difficulty" in result.stderr
    assert not dist.exists()


@pytest.mark.parametrize("what", ["pack_folder", "missing_folder"])
def test_validate_on_a_folder_that_is_not_a_bundle(what, banking_pack, cli):
    target = banking_pack if what == "pack_folder" else banking_pack.parent / "no-such-bundle"
    line = assert_one_error_line(cli("validate", target))
    assert ("not a taugen bundle" if what == "pack_folder" else "bundle folder not found") in line


def test_lint_on_missing_folder(tmp_path, cli):
    line = assert_one_error_line(cli("lint", tmp_path / "nowhere"))
    assert "pack folder not found" in line


# --- the real command line, as a process -----------------------------------------------------------


def _pack_with_unknown_supersedes(pack: Path) -> None:
    edit(pack, f"{FACTS}/account_lifecycle.yaml", "    supersedes: fee_dormant_account_2024",
         "    supersedes: fee_dormant_acount_2024")


def test_cli_process_prints_one_line_without_traceback(banking_pack, cli_subprocess):
    _pack_with_unknown_supersedes(banking_pack)
    line = line_no(banking_pack / FACTS / "account_lifecycle.yaml", "  - id: fee_dormant_account")
    result = cli_subprocess("lint", "banking", cwd=banking_pack.parent, columns=1000)
    assert_one_error_line(result, f"banking/facts/account_lifecycle.yaml:{line}: fee_dormant_account: "
                                  "supersedes unknown fact 'fee_dormant_acount_2024'")


def test_cli_error_is_one_line_at_default_width(banking_pack, cli_subprocess):
    _pack_with_unknown_supersedes(banking_pack)
    result = cli_subprocess("lint", "banking", cwd=banking_pack.parent)
    assert len(" ".join(result.stderr.split())) > 80  # long enough to wrap at 80 columns
    assert_one_error_line(result)


def test_lint_names_a_client_held_fact_whose_subject_states_its_value(banking_pack):
    """A record that points to the client names the fact's subject; a subject that holds the value gives it
    away and the discovery gate fails the build at some seeds (hard seeds 4 and 5 did, on 'merchant data
    breach'). Lint says so before a build is tried, and the shipped pack has no such fact."""
    _, notes = load_pack_only(banking_pack)
    assert not [n for n in notes if "states its client-held value" in n]
    edit(banking_pack, f"{FACTS}/card_servicing.yaml", 'key_terms: ["expedited replacement fee is not charged"]',
         'key_terms: ["merchant data breach"]')
    edit(banking_pack, f"{FACTS}/card_servicing.yaml", "caught up in that breach", "caught up in that merchant data breach")
    _, notes = load_pack_only(banking_pack)
    assert [n.split(":")[0] for n in notes if "states its client-held value ('merchant data breach')" in n] == [
        "replacement_breach_fee_waiver"]
