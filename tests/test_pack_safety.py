"""Pack input cannot run code or hang (issue 11, item 6).

A fact pack is data written by people: its family templates render sandboxed and bounded, its YAML is
refused quickly when it holds control characters, alias bombs, self-referring aliases, deep nesting or
too many bytes, and a family table must be a file inside the pack. Every case is a one-line
``file:line: id: problem`` error (exit 2) from both ``taugen lint`` and ``taugen build``, and the build
writes nothing. Cases copy the banking pack (``banking_pack``) and run in ``tmp_path``.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from taugen.authoring.pack import load_pack
from taugen.authoring.sandbox import MAX_OUTPUT_CHARS, PackTemplateEnvironment, render_bounded
from taugen.authoring.yaml_lines import MAX_ALIAS_EXPANSION, MAX_YAML_BYTES, MAX_YAML_DEPTH, load_yaml
from taugen.errors import InputError
from test_bad_input import FACTS, assert_cli_rejects, assert_error, edit, line_no, line_with, load_error

RATE_STATEMENT = "is {{ rate }}% {{ basis }}."


@pytest.fixture(autouse=True)
def _work_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _first_inline_row_line(pack: Path, family: str = "card_rate_fees") -> tuple[Path, int]:
    path = pack / FACTS / "fees.yaml"
    text = path.read_text(encoding="utf-8")
    block = text[text.index(f"  - family: {family}"):]
    first_row = block[block.index("    rows:\n") + len("    rows:\n"):].splitlines()[0]
    return path, line_no(path, first_row)


# --- templates: sandboxed -------------------------------------------------------------------------

ESCAPES = {
    # the classic jinja2 escape: from a string to every class of the interpreter
    "subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    # from the template object to the module globals and builtins, then open() a file
    "builtins_open": "{{ self.__init__.__globals__['__builtins__']['open']('PWNED', 'w').write('x') }}",
    # from a global function to its module's globals (os would be one step away)
    "function_globals": "{{ range.__globals__['os'].system('touch PWNED') }}",
    # a row value's class, through the attribute filter-free getattr path
    "row_class": "{{ rate.__class__.__base__ }}",
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_template_cannot_reach_python_internals(case, banking_pack, cli, tmp_path):
    edit(banking_pack, f"{FACTS}/fees.yaml", RATE_STATEMENT, "is {{ rate }}% {{ basis }}" + ESCAPES[case] + ".")
    error = load_error(banking_pack)
    path, row_line = _first_inline_row_line(banking_pack)
    assert_error(error, path, row_line, "card_rate_fees",
                 r"^template error: not allowed in a fact pack: access to attribute '__\w+__' of '\w+' object is unsafe")
    assert not (tmp_path / "PWNED").exists()
    if case == "builtins_open":  # lint and build, as a user runs them (one case: each runs the whole load)
        assert_cli_rejects(cli, banking_pack, error)
        assert not (tmp_path / "PWNED").exists()


def test_template_cannot_mutate_row_data(banking_pack):
    edit(banking_pack, f"{FACTS}/fees.yaml", RATE_STATEMENT, "is {{ rate }}% {{ basis }}{{ row.update({'rate': '9'}) }}.")
    error = load_error(banking_pack)
    path, row_line = _first_inline_row_line(banking_pack)
    assert_error(error, path, row_line, "card_rate_fees", r"access to attribute 'update' of 'dict' object is unsafe")


BOUNDS = {
    "repeat": ("{{ basis * 10000000 }}", r"repeating a value 10,000,000 times makes more than 10,000 items"),
    "ljust": ("{{ basis.ljust(1000000000) }}", r"argument 1000000000 is larger than 10,000"),
    "format_width": ("{{ '{:>999999999}'.format(rate) }}",
                     r"format string '\{:>999999999\}' asks for a field wider than 9,999 characters"),
    "printf_width": ("{{ '%999999999s' % rate }}", r"format string '%999999999s' asks for a field wider than 9,999"),
    "power": ("{{ 10 ** 100000000 }}", r"exponent 100000000 is larger than 64"),
    "range": ("{{ range(100000000) | list | length }}", r"argument 100000000 is larger than 10,000"),
}


@pytest.mark.parametrize("case", sorted(BOUNDS))
def test_template_that_would_exhaust_memory_is_refused_quickly(case, banking_pack, cli):
    template, message = BOUNDS[case]
    edit(banking_pack, f"{FACTS}/fees.yaml", RATE_STATEMENT, "is {{ rate }}% {{ basis }}" + template + ".")
    started = time.perf_counter()
    error = load_error(banking_pack)
    assert time.perf_counter() - started < 60  # the whole pack load; without the bound it runs out of memory
    path, row_line = _first_inline_row_line(banking_pack)
    assert_error(error, path, row_line, "card_rate_fees", r"^template error: " + message)
    if case == "repeat":
        assert_cli_rejects(cli, banking_pack, error)


@pytest.mark.parametrize("construct,message", [
    ("{% for a in basis %}{% for b in basis %}{% endfor %}{% endfor %}", r"nested loops are not allowed"),
    ("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", r"a macro is not allowed"),
    ("{% include 'fees.yaml' %}", r"an include is not allowed"),
    ("{{ basis | center(50) }}", r"No filter named 'center'"),
])
def test_template_constructs_outside_the_pack_subset_are_refused_at_the_statement_line(construct, message,
                                                                                        banking_pack):
    path = edit(banking_pack, f"{FACTS}/fees.yaml", RATE_STATEMENT, "is {{ rate }}% {{ basis }}" + construct + ".")
    error = load_error(banking_pack)
    assert_error(error, path, line_with(path, construct), "card_rate_fees", r"^template error: " + message)


def test_sandbox_still_renders_what_the_built_in_packs_use():
    environment = PackTemplateEnvironment()
    row = {"band": "1-3,4-6", "settle_days": "1", "note": "", "amount": "35.00"}
    assert render_bounded(environment.compile_pack_template("{{ band.split(',')[0] }}"), row) == "1-3"
    assert render_bounded(environment.compile_pack_template(
        "{{ 'day' if settle_days == '1' else 'days' }}"), row) == "day"
    assert render_bounded(environment.compile_pack_template("${{ amount }}{% if note %}, {{ note }}{% endif %}"),
                          row) == "$35.00"
    assert render_bounded(environment.compile_pack_template("{{ '%s!' | format(amount) }}"), row) == "35.00!"
    with pytest.raises(Exception, match="longer than"):
        render_bounded(environment.compile_pack_template("{% for i in range(10000) %}" + "x" * 20 + "{% endfor %}"),
                       {})
    assert MAX_OUTPUT_CHARS < 10000 * 20


def test_built_in_packs_load_under_the_sandbox(repo_root):
    assert len(load_pack(repo_root / "taugen" / "domains" / "banking").facts) > 1000
    assert len(load_pack(repo_root / "taugen" / "domains" / "telecom").facts) > 50


# --- YAML: control characters, aliases, nesting, size ----------------------------------------------

STATEMENT_LINE = "    statement: A credit card billing dispute of $15.00 or less"


@pytest.mark.parametrize("character,name", [("\x00", "U+0000 (NUL)"), ("\x07", "U+0007 (BEL)"),
                                            ("\x1b", "U+001B (ESC)"), ("\x7f", "U+007F (DEL)"),
                                            ("\x9b", "U+009B")])
def test_raw_control_character_in_yaml_is_one_line_with_its_line(character, name, banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/billing_disputes.yaml", STATEMENT_LINE,
                STATEMENT_LINE.replace("of $15.00", f"of{character} $15.00"))
    error = load_error(banking_pack)
    assert_error(error, path, line_with(path, character), None,
                 "^" + re.escape(f"file holds the control character {name}, which YAML does not allow") + "$")
    if character == "\x00":
        assert_cli_rejects(cli, banking_pack, error)


def test_escaped_control_character_in_a_quoted_value_is_refused(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/billing_disputes.yaml", STATEMENT_LINE,
                '    statement: "A credit card billing dispute\\0 of $15.00 or less is credited permanently."\n'
                '    note_was: "')
    # keep the YAML valid: the rest of the old statement now sits in a second quoted key's value
    text = path.read_text(encoding="utf-8").replace(
        '    note_was: " is credited permanently without asking the merchant for evidence.',
        '    # was: is credited permanently without asking the merchant for evidence.')
    path.write_text(text, encoding="utf-8")
    error = load_error(banking_pack)
    assert_error(error, path, line_with(path, "dispute\\0 of"), None, r"^text holds the control character U\+0000")
    assert_cli_rejects(cli, banking_pack, error)


def _bomb(levels: int = 12, width: int = 9) -> str:
    lines = ['      l0: &l0 [' + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"      l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + f"\n      all: *l{levels - 1}"


def test_alias_bomb_in_a_family_value_is_refused_quickly(banking_pack, cli):
    # 9**12 (about 2.8e11) strings once expanded; without the limit `taugen lint` never finishes
    path = edit(banking_pack, f"{FACTS}/fees.yaml", 'value: {type: percent, value: "{{ rate }}"}',
                'value:\n      type: percent\n      value: "{{ rate }}"\n' + _bomb())
    started = time.perf_counter()
    with pytest.raises(InputError) as info:
        load_yaml(path)
    assert time.perf_counter() - started < 5
    error = info.value
    assert error.line is not None and line_no(path, "      l0: &l0 [") <= error.line <= line_no(path, "      all: *l11")
    assert f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} extra values" in error.message
    assert_cli_rejects(cli, banking_pack, load_error(banking_pack))


def test_modest_aliases_are_still_allowed(tmp_path):
    path = tmp_path / "aliases.yaml"
    path.write_text("base: &base {currency: USD, per: day}\nitems:\n" +
                    "".join(f"  - {{<<: *base, amount: {i}}}\n" for i in range(200)), encoding="utf-8")
    data = load_yaml(path)
    assert len(data["items"]) == 200 and data["items"][199] == {"currency": "USD", "per": "day", "amount": 199}


def test_alias_that_contains_itself_is_refused(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/billing_disputes.yaml", STATEMENT_LINE,
                "    voiced: &loop [small claims, *loop]\n" + STATEMENT_LINE)
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    voiced: &loop [small claims, *loop]"), None,
                 r"^a YAML alias refers to a value that contains it$")
    assert_cli_rejects(cli, banking_pack, error)


def test_deep_nesting_is_refused_at_its_line(banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/billing_disputes.yaml", STATEMENT_LINE,
                "    voiced: " + "[" * 5000 + "]" * 5000 + "\n" + STATEMENT_LINE)
    error = load_error(banking_pack)
    assert_error(error, path, line_with(path, "[[[["), None, rf"^YAML nesting is deeper than {MAX_YAML_DEPTH} levels$")
    assert_cli_rejects(cli, banking_pack, error)


def test_oversized_yaml_file_is_refused_without_parsing(banking_pack, cli):
    path = banking_pack / FACTS / "billing_disputes.yaml"
    with path.open("a", encoding="utf-8") as handle:
        handle.write("# " + "x" * (MAX_YAML_BYTES + 10) + "\n")
    started = time.perf_counter()
    with pytest.raises(InputError, match=rf"larger than the {MAX_YAML_BYTES:,} a pack file may be"):
        load_yaml(path)
    assert time.perf_counter() - started < 1
    error = load_error(banking_pack)
    assert Path(error.file) == path and error.line is None
    assert cli("lint", banking_pack).exit_code == 2


def test_yaml_that_is_not_utf8_names_the_line(banking_pack, cli):
    path = banking_pack / FACTS / "billing_disputes.yaml"
    data = path.read_bytes().replace(b"of $15.00 or less", b"of \xff$15.00 or less", 1)
    path.write_bytes(data)
    error = load_error(banking_pack)
    assert_error(error, path, data[:data.index(b"\xff")].count(b"\n") + 1, None,
                 r"^file is not UTF-8 text \(byte 0xff cannot be decoded\)$")
    assert_cli_rejects(cli, banking_pack, error)


# --- family tables: inside the pack, clean text -----------------------------------------------------


@pytest.mark.parametrize("table,message", [
    ("/etc/passwd", r"must be a file name relative to this YAML file"),
    ("../../../../../../etc/passwd", r"must not climb out of the pack \('\.\.'\)"),
    ("../domain.yaml", r"must not climb out of the pack"),
])
def test_family_table_outside_the_pack_is_refused(table, message, banking_pack, cli):
    path = edit(banking_pack, f"{FACTS}/fees.yaml", "    table: fee_schedule.csv", f"    table: {table}")
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, f"    table: {table}"), "fee_schedule", message)
    if table == "/etc/passwd":
        assert_cli_rejects(cli, banking_pack, error)


def test_family_table_symlink_escaping_the_pack_is_refused(banking_pack, cli, tmp_path):
    outside = tmp_path / "outside.csv"
    table = banking_pack / FACTS / "fee_schedule.csv"
    outside.write_bytes(table.read_bytes())
    table.unlink()
    os.symlink(outside, table)
    path = banking_pack / FACTS / "fees.yaml"
    error = load_error(banking_pack)
    assert_error(error, path, line_no(path, "    table: fee_schedule.csv"), "fee_schedule",
                 r"^family table 'fee_schedule.csv' lies outside the pack folder$")
    assert_cli_rejects(cli, banking_pack, error)


def test_fact_file_symlink_escaping_the_pack_is_refused(banking_pack, tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("section: fees\nfacts: []\n", encoding="utf-8")
    link = banking_pack / FACTS / "zz_linked.yaml"
    os.symlink(outside, link)
    error = load_error(banking_pack)
    assert Path(error.file) == link and error.message == "file lies outside the pack folder (a symlink?)"


@pytest.mark.parametrize("bad,message", [
    (b"\x00", r"^table holds the control character U\+0000 \(NUL\)$"),
    (b"\x01", r"^table holds the control character U\+0001$"),
    (b"\xff", r"^file is not UTF-8 text \(byte 0xff cannot be decoded\)$"),
    (b"\xc3", r"^file is not UTF-8 text \(byte 0xc3 cannot be decoded\)$"),
])
def test_csv_table_with_bad_bytes_names_the_row_line(bad, message, banking_pack, cli):
    path = banking_pack / FACTS / "fee_schedule.csv"
    row = b"everyday_checking,Everyday Checking,monthly_maintenance,monthly maintenance fee,12.00,"
    data = path.read_bytes()
    assert data.count(row) == 1
    path.write_bytes(data.replace(row, row.replace(b"Everyday Checking,", b"Everyday" + bad + b" Checking,")))
    bad_line = next(i + 1 for i, line in enumerate(path.read_bytes().split(b"\n")) if bad in line)
    error = load_error(banking_pack)
    assert_error(error, path, bad_line, "fee_schedule", message)
    if bad == b"\x00":
        assert_cli_rejects(cli, banking_pack, error)


def test_csv_table_with_an_oversized_cell_is_one_line(banking_pack, cli):
    path = banking_pack / FACTS / "fee_schedule.csv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("per statement cycle,unless a waiver applies,_2024",
                                 "per statement cycle,\"" + "y" * 200_000 + "\",_2024", 1), encoding="utf-8")
    error = load_error(banking_pack)
    assert_error(error, path, 2, "fee_schedule", r"^malformed CSV: field larger than field limit")
    assert_cli_rejects(cli, banking_pack, error)
