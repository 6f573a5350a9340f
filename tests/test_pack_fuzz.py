"""Property-based fuzzing of pack YAML (issue 11, item 6): whatever a pack file holds, taugen answers
with exit 0, 1 or 2, never a traceback, one ``error:`` line on exit 2, and writes nothing on an error.

Hypothesis mutates one file of a private copy of the telecom pack (small, so ``taugen lint`` takes a
fraction of a second) or of the banking pack's family file (its jinja2 templates and CSV tables): byte
flips, deletions, duplicated lines (duplicate keys), type swaps, huge values, YAML aliases and alias
bombs, control characters, and jinja2 expressions. ``taugen lint`` runs in process on every example;
``taugen build --difficulty easy`` runs on a handful, into a ``--out`` that holds an earlier bundle
which must stay byte-identical when the build fails. Runs are deterministic (``derandomize``, no
example database) and bounded (60 lint examples, 4 build examples).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
PACKS = {"telecom": REPO / "taugen" / "domains" / "telecom", "banking": REPO / "taugen" / "domains" / "banking"}
TELECOM_FILES = sorted(["domain.yaml", *(f"facts/{p.name}" for p in (PACKS["telecom"] / "facts").glob("*.yaml"))])
BANKING_FILES = ["facts/fees.yaml", "facts/fee_schedule.csv"]

SCALAR = re.compile(r"(?m)^(\s*-?\s*[A-Za-z_]+:)[ ]+(\S[^\n]*)$")

REPLACEMENTS = [
    "[]", "{}", "null", "~", "true", "0", "-1", "1e999", "2026-02-30", '""', "[a, [b, [c]]]", "{type: money}",
    "{type: money, amount: \"-5\", currency: USD}", "!!binary aGVsbG8=", "!!python/object:os.system ls", "&a x",
    "*undefined_alias", "'{{ ''.__class__.__mro__ }}'", '"{{ self.__init__.__globals__ }}"', '"{% for x in y %}"',
    '"{{ 9 ** 9 ** 9 }}"', '"{{ \'x\' * 999999999 }}"', '"\\0\\x07"', "|\n  block\n  text", ">-\n  folded",
    "? complex\n: key", "<<: *a", "'unterminated", '"unterminated', "[unclosed", "{unclosed: 1",
]
BOMB = "lol0: &l0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"lol{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 10))


@st.composite
def mutations(draw, files: list[str]) -> tuple[str, str, tuple]:
    """(file, kind, parameters) of one mutation."""
    file = draw(st.sampled_from(files))
    kind = draw(st.sampled_from(["flip", "delete", "duplicate_line", "swap_type", "huge_value", "alias",
                                 "alias_bomb", "control_char", "insert_text"]))
    position = draw(st.floats(min_value=0, max_value=1, allow_nan=False))
    if kind == "flip":
        return file, kind, (position, draw(st.integers(min_value=0, max_value=255)))
    if kind == "delete":
        return file, kind, (position, draw(st.integers(min_value=1, max_value=400)))
    if kind == "swap_type":
        return file, kind, (position, draw(st.sampled_from(REPLACEMENTS)))
    if kind == "huge_value":
        return file, kind, (position, draw(st.sampled_from([10_000, 300_000, 5_000_000])))
    if kind == "control_char":
        return file, kind, (position, draw(st.sampled_from(["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\u2028",
                                                            "\ufeff", "\ud800", "\r"])))
    if kind == "insert_text":
        return file, kind, (position, draw(st.text(max_size=30)))
    return file, kind, (position,)


def _at(text: str, position: float) -> int:
    return min(int(position * len(text)), max(len(text) - 1, 0))


def apply(pack: Path, file: str, kind: str, parameters: tuple) -> None:
    """Apply one mutation to ``pack/file`` in place."""
    path = pack / file
    data = path.read_bytes()
    position = parameters[0]
    if kind == "flip":
        index = _at(data, position)
        path.write_bytes(data[:index] + bytes([parameters[1]]) + data[index + 1:])
        return
    if kind == "delete":
        index = _at(data, position)
        path.write_bytes(data[:index] + data[index + parameters[1]:])
        return
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    line = _at(lines, position)
    if kind == "duplicate_line":
        lines.insert(line, lines[line])
    elif kind == "swap_type":
        scalars = list(SCALAR.finditer(text))
        if scalars:
            match = scalars[_at(scalars, position)]
            text = text[:match.start(2)] + parameters[1] + text[match.end(2):]
        lines = [text]
    elif kind == "huge_value":
        scalars = list(SCALAR.finditer(text))
        if scalars:
            match = scalars[_at(scalars, position)]
            text = text[:match.start(2)] + '"' + "lorem ipsum " * (parameters[1] // 12) + '"' + text[match.end(2):]
        lines = [text]
    elif kind == "alias":
        scalars = list(SCALAR.finditer(text))
        if len(scalars) >= 2:
            first, second = scalars[_at(scalars, position)], scalars[_at(scalars, 1 - position)]
            if first.start() != second.start():
                a, b = sorted([first, second], key=lambda m: m.start())
                text = (text[:a.start(2)] + "&anchor " + a.group(2) + text[a.end(2):b.start(2)] + "*anchor"
                        + text[b.end(2):])
        lines = [text]
    elif kind == "alias_bomb":
        top_level = lines[line][:1].isalpha()  # a top-level key starts here: the bomb fits before it
        lines.insert(line, BOMB) if top_level else lines.append("\n" + BOMB)
    elif kind in ("control_char", "insert_text"):
        index = _at(text, position)
        lines = [text[:index] + parameters[1] + text[index:]]
    path.write_bytes("".join(lines).encode("utf-8", "surrogatepass"))


def tree(folder: Path) -> dict[str, str | None]:
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None)
            for p in folder.rglob("*")}


def assert_clean_outcome(result, allowed: set[int]) -> None:
    """Exit in ``allowed``, no exception escaped, no traceback; exit 2 is one ``error: `` line."""
    assert result.exception is None, repr(result.exception)
    assert result.exit_code in allowed, (result.exit_code, result.stdout[-2000:], result.stderr[-2000:])
    assert "Traceback" not in result.stdout + result.stderr
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]


FUZZ = settings(max_examples=60, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@FUZZ
@given(mutation=mutations(TELECOM_FILES))
def test_lint_on_mutated_telecom_pack_exits_cleanly(mutation, cli):
    with tempfile.TemporaryDirectory(prefix="taugen-fuzz-") as scratch:
        pack = Path(scratch) / "telecom"
        shutil.copytree(PACKS["telecom"], pack)
        apply(pack, *mutation)
        before = tree(Path(scratch))
        result = cli("lint", pack)
        assert_clean_outcome(result, {0, 2})
        assert tree(Path(scratch)) == before  # lint reads only


@settings(FUZZ, max_examples=12)
@given(mutation=mutations(BANKING_FILES))
def test_lint_on_mutated_banking_families_exits_cleanly(mutation, cli):
    with tempfile.TemporaryDirectory(prefix="taugen-fuzz-") as scratch:
        pack = Path(scratch) / "banking"
        shutil.copytree(PACKS["banking"], pack)
        apply(pack, *mutation)
        result = cli("lint", pack)
        assert_clean_outcome(result, {0, 2})


@settings(FUZZ, max_examples=4)
@given(mutation=mutations(TELECOM_FILES))
def test_build_on_mutated_telecom_pack_exits_cleanly_and_writes_nothing_on_error(mutation, cli):
    with tempfile.TemporaryDirectory(prefix="taugen-fuzz-") as scratch:
        pack = Path(scratch) / "telecom"
        shutil.copytree(PACKS["telecom"], pack)
        apply(pack, *mutation)
        dist = Path(scratch) / "dist"
        earlier = dist / "telecom-easy-0.1.0"
        earlier.mkdir(parents=True)
        (earlier / "bundle.json").write_text('{"previous": true}\n')
        before = tree(dist)
        result = cli("build", pack, "--difficulty", "easy", "--out", dist)
        assert_clean_outcome(result, {0, 1, 2})
        if result.exit_code != 0:
            assert tree(dist) == before
        else:
            written = Path(re.search(r"bundle written to (\S+)", result.stdout).group(1))
            assert not [p.name for p in dist.iterdir() if p.name.startswith(".")]  # no staging, lock or old copy
            check = subprocess.run(["sha256sum", "--check", "--quiet", "SHA256SUMS"], cwd=written,
                                   capture_output=True, text=True, check=False)
            assert check.returncode == 0, check.stdout + check.stderr
