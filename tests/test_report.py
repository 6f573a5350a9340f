"""The HTML reviewer report: content, escaping, no network resources, and a headless Chromium run.

The browser part opens the report from disk in headless Chromium (Debian package ``chromium``;
``scripts/setup.sh --test`` installs it), takes a screenshot and dumps the DOM: the page's own script
sets ``<body data-ready="1">`` when it has run and writes any script error, failed resource or
content-security-policy violation into ``#report-js-errors``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from taugen.hashing import sha256sums
from taugen.build.report_html import collect_report, render_html, write_report
from taugen.cli import app

CHROMIUM = Path("/usr/bin/chromium")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
RESOURCE_ATTRIBUTES = {"src", "href", "xlink:href", "action", "formaction", "poster", "data", "srcset", "background"}


class _Page(HTMLParser):
    """Collects text, element ids, resource references and tag-nesting errors of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.ids: list[str] = []
        self.references: list[str] = []
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.append(value)
            if name in RESOURCE_ATTRIBUTES and value is not None:
                self.references.append(value)
            if name == "style" and value:
                self.styles.append(value)
        self._in_style = tag == "style"
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        self._in_style = False
        if not self.stack or self.stack[-1] != tag:
            open_tag = self.stack[-1] if self.stack else None
            self.problems.append(f"</{tag}> closes <{open_tag}> at line {self.getpos()[0]}")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)
        self.text.append(data)


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


@pytest.fixture(scope="module")
def hard_bundle(built_bundle) -> Path:
    return built_bundle("hard")


@pytest.fixture(scope="module")
def hard_report(hard_bundle, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "banking-hard-0.3.0-report.html"
    paths = write_report(hard_bundle, out)
    return paths, paths.html.read_text(encoding="utf-8")


def test_report_lists_every_fact_and_task(hard_bundle, hard_report):
    paths, html = hard_report
    page = _parse(html)
    assert page.problems == [] and page.stack == []
    text = " ".join(page.text)
    manifest = json.loads((hard_bundle / "author/manifest.json").read_text())
    tasks = json.loads((hard_bundle / "tau2/domains/banking/tasks.json").read_text())
    missing_facts = [fact_id for fact_id in manifest["facts"] if fact_id not in text]
    missing_tasks = [task["id"] for task in tasks if task["id"] not in text]
    assert missing_facts == [] and missing_tasks == []
    assert len(set(page.ids)) == len(page.ids), "element ids repeat"
    links = {ref[1:] for ref in page.references if ref.startswith("#") and len(ref) > 1}
    assert links <= set(page.ids), f"links to missing anchors: {sorted(links - set(page.ids))[:5]}"
    for check in ("chronology", "coverage", "leakage", "placement", "structure", "tasks"):
        assert check in text
    assert text.count("client-held: no artifact carries it") == len(manifest["client_held"])
    assert html.count("<svg") >= 5


def test_report_has_no_network_resources(hard_report):
    _, html = hard_report
    page = _parse(html)
    remote = [ref for ref in page.references if re.match(r"\s*(https?:)?//", ref, re.I)]
    assert remote == []
    css = "\n".join(page.styles)
    assert "@import" not in css and not re.search(r"url\(\s*['\"]?\s*(https?:)?//", css, re.I)
    assert "default-src 'none'" in html  # the page's Content-Security-Policy blocks any fetch anyway


def test_report_is_written_beside_the_bundle_with_its_json(hard_bundle, hard_report, tmp_path):
    paths, _ = hard_report
    data = json.loads(paths.json.read_text())
    assert paths.json == paths.html.with_suffix(".json")
    assert len(data["facts"]) == len(json.loads((hard_bundle / "author/manifest.json").read_text())["facts"])
    assert data["integrity"]["ok"] and data["validation"]["passed"]
    copy = tmp_path / hard_bundle.name
    shutil.copytree(hard_bundle, copy)
    result = CliRunner().invoke(app, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "banking-hard-0.3.0-report.html").is_file()
    assert (tmp_path / "banking-hard-0.3.0-report.json").is_file()
    files = {p.relative_to(copy).as_posix(): p.read_bytes() for p in sorted(copy.rglob("*")) if p.is_file()}
    assert files.pop("SHA256SUMS") == sha256sums(files), "the report touched the bundle"
    inside = CliRunner().invoke(app, ["report", str(copy), "--out", str(copy / "report.html")])
    assert inside.exit_code == 2 and "outside the bundle" in inside.output
    assert CliRunner().invoke(app, ["report", str(tmp_path / "nowhere")]).exit_code == 2


def test_report_is_deterministic(hard_bundle, hard_report):
    paths, html = hard_report
    assert render_html(collect_report(hard_bundle, paths.html)) == html


def test_findings_show_evidence_and_rule_escaped(hard_bundle, tmp_path):
    copy = tmp_path / hard_bundle.name
    shutil.copytree(hard_bundle, copy)
    task_id = json.loads((copy / "tau2/domains/banking/tasks.json").read_text())[0]["id"]
    fact_id = next(iter(json.loads((copy / "author/manifest.json").read_text())["facts"]))
    validation = json.loads((copy / "author/validation.json").read_text())
    validation["findings"] = [
        {"check": "certificate", "code": "gold_tool_error", "severity": "error", "subject": task_id,
         "message": "gold call <b>failed</b>", "evidence": '<script>alert("x")</script> & more',
         "rule": "gold calls must run without error"},
        {"check": "placement", "code": "value_not_found", "severity": "warning", "subject": fact_id,
         "message": "value not found", "evidence": "excerpt <img src=x onerror=alert(1)>", "rule": "DESIGN.md §7"},
        {"check": "structure", "code": "bad_pdf", "severity": "error", "subject": "pdf_document_001",
         "message": "the PDF does not open", "evidence": "", "rule": ""},
    ]
    validation["passed"] = False
    (copy / "author/validation.json").write_text(json.dumps(validation))
    html = write_report(copy).html.read_text()
    page = _parse(html)
    assert page.problems == []
    links = {ref[1:] for ref in page.references if ref.startswith("#") and len(ref) > 1}
    assert {"finding-1", "finding-2", "finding-3", "artifact-pdf_document_001"} <= links <= set(page.ids)
    assert '<script>alert("x")' not in html and "<img src=x" not in html and "<b>failed</b>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more" in html
    text = " ".join(page.text)
    assert "gold calls must run without error" in text and "DESIGN.md §7" in text
    assert "files differ from SHA256SUMS since the build (1): edited: author/validation.json" in text  # the edit, named
    assert "FAIL" in text


def test_excerpt_and_bar_chart_helpers():
    from taugen.build.report_html import _excerpt, bar_chart, format_value

    source = "Intro line.\nThe wire fee is\n  $25.00 for domestic wires. " + "More text follows here. " * 20
    found = _excerpt(source, "The wire fee is $25.00 for domestic wires.", width=20)
    assert found["found"] and found["match"] == "The wire fee is $25.00 for domestic wires."
    assert found["before"].startswith("Intro") and found["after"].endswith("…")
    assert _excerpt(source, "not in the text")["found"] is False
    chart = bar_chart("t", {"a": 10, "b": 0, "c": 5})
    lengths = [bar["length"] for bar in chart["bars"]]
    assert lengths[1] == 0 and lengths[0] == 2 * lengths[2]
    assert format_value({"type": "money", "amount": "25.00", "currency": "USD"}) == "money: amount=25.00; currency=USD"


def _chromium(*args: str, user_data: Path, timeout: int = 60) -> subprocess.CompletedProcess:
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={user_data}", "--enable-logging=stderr", "--v=0", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def _page_console(stderr: str) -> list[str]:
    """Console messages the page logged (Chromium writes them to stderr as ``INFO:CONSOLE... source: file://``)."""
    return [line for line in stderr.splitlines() if "CONSOLE" in line and "file://" in line]


@pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium (/usr/bin/chromium) is not installed: "
                    "apt-get install chromium, or run scripts/setup.sh --test")
def test_report_renders_in_headless_chromium(hard_report, tmp_path):
    from PIL import Image

    paths, _ = hard_report
    url = paths.html.as_uri()
    dump = _chromium("--dump-dom", url, user_data=tmp_path / "profile-dom")
    assert dump.returncode == 0, dump.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dump.stdout)
    assert body and 'data-ready="1"' in body.group(0), "the page's script did not finish"
    assert 'id="report-js-errors"' not in dump.stdout, re.findall(r'id="report-js-errors"[^>]*>([^<]*)', dump.stdout)
    assert _page_console(dump.stderr) == []
    assert re.search(r'id="facts-count">\d+ of \d+ shown', dump.stdout)

    filtered = _chromium("--dump-dom", f"{url}?filter=client-held", user_data=tmp_path / "profile-filter")
    shown = re.search(r'id="facts-count">(\d+) of (\d+) shown', filtered.stdout)
    assert shown and 0 < int(shown.group(1)) < int(shown.group(2)), "the text filter did not filter the fact table"

    screenshot = tmp_path / "report.png"
    shot = _chromium(f"--screenshot={screenshot}", "--window-size=1400,2000", url, user_data=tmp_path / "profile-png")
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert _page_console(shot.stderr) == []
    assert screenshot.is_file() and screenshot.stat().st_size > 10_000
    with Image.open(screenshot) as image:
        assert image.size == (1400, 2000)
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colours is None or len(colours) > 50, "the screenshot is (nearly) one colour"


def test_report_shows_the_mutation_kill_rate_of_the_bundle(built_bundle, tmp_path):
    from taugen.build.files import read_bundle
    from taugen.errors import InputError
    from taugen.mutation.runner import run_mutation, write_mutants

    easy = built_bundle("easy")
    mutation = run_mutation(read_bundle(easy), str(easy), kinds={"K19"}, workers=1)  # 3 mutants: a kill table, quickly
    write_mutants(mutation, easy, tmp_path / "mutants")
    paths = write_report(easy, tmp_path / "report.html", tmp_path / "mutants")
    html = paths.html.read_text(encoding="utf-8")
    data = json.loads(paths.json.read_text(encoding="utf-8"))
    killed = {kind: row["killed"] for kind, row in mutation.per_kind().items() if row["operators"]}
    assert [(row["kind"], row["killed"]) for row in data["mutation"]["kinds"]] == sorted(
        killed.items(), key=lambda item: int(item[0][1:]))
    assert data["mutation"]["kill_rate"] == round(mutation.kill_rate(), 4)
    assert all(r.operator.mutant_id in html for r in mutation.results)
    assert html.count('<span class="badge pass">killed</span>') == sum(r.killed for r in mutation.results)
    with pytest.raises(InputError, match="kill_report.json"):
        write_report(easy, tmp_path / "other.html", tmp_path)
    assert not (tmp_path / "other.html").exists()
    assert "id=\"mutation\"" not in write_report(easy, tmp_path / "plain.html").html.read_text(encoding="utf-8")


def test_report_marks_knobs_that_miss_the_request_and_names_the_client(hard_bundle, hard_report):
    from taugen.build.report_html import knob_status

    paths, html = hard_report
    data = json.loads(paths.json.read_text())
    status = {row["knob"]: row["status"] for row in data["knobs"]}
    meta = json.loads((hard_bundle / "bundle.json").read_text())
    voiced = (meta["requested"]["voiced_share"], meta["achieved"]["voiced_share"])
    assert status["voiced_share"] == ("missed" if voiced[1] < 0.95 * voiced[0] else "met")
    assert status["surface"] == "met" and status["personas"] == "met" and status["problems_per_task"] == "met"
    assert status["long_documents"] == "not compared"
    missed = [row["knob"] for row in data["knobs"] if row["status"] == "missed"]
    assert html.count('title="the achieved value misses the request">missed</span>') == len(missed)
    assert knob_status("max_calls", 8, 9) == "missed" and knob_status("max_calls", 8, 0) == "met"
    assert knob_status("filler_ratio", 0.25, 14.0) == "missed" and knob_status("filler_ratio", 2.2, 2.25) == "met"
    assert knob_status("surface", "hard", "core") == "missed"
    assert "holder: the bank&#39;s operations lead" in html or "holder: the bank's operations lead" in html
    assert "the customer states it" not in html


def test_report_links_record_paths_to_the_bundle_files(hard_bundle, hard_report):
    paths, html = hard_report
    from taugen.bundle_layout import RECORDS_DIR

    links = set(re.findall(rf'href="([^"#]+/{RECORDS_DIR}/[^"]+)"', html))
    assert len(links) > 100
    for link in sorted(links)[:50]:
        assert (paths.html.parent / link).resolve().is_file(), link


@pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium (/usr/bin/chromium) is not installed")
def test_report_cuts_no_column_at_1400_px(hard_report, tmp_path):
    """Every table cell's content fits its column in a 1,400 px wide window (measured by the browser)."""
    paths, html = hard_report
    probe = """<script>
window.addEventListener('load', function () { setTimeout(function () {
  var cut = [];
  document.querySelectorAll('table.data td, table.data th, .kv td').forEach(function (cell) {
    if (cell.scrollWidth > cell.clientWidth + 1) cut.push(cell.textContent.trim().slice(0, 40));
  });
  document.body.setAttribute('data-cut', String(cut.length));
  document.body.setAttribute('data-cut-sample', cut.slice(0, 3).join(' | '));
  document.body.setAttribute('data-page-width', String(document.documentElement.scrollWidth));
}, 200); });
</script></body>"""
    page = paths.html.with_name("probe.html")
    page.write_text(html.replace("</body>", probe), encoding="utf-8")
    dump = _chromium("--window-size=1400,2000", "--virtual-time-budget=3000", "--dump-dom", page.as_uri(),
                     user_data=tmp_path / "profile-probe")
    body = re.search(r"<body[^>]*>", dump.stdout)
    assert body and 'data-cut="' in body.group(0), dump.stderr[-2000:]
    assert 'data-cut="0"' in body.group(0), body.group(0)
    width = int(re.search(r'data-page-width="(\d+)"', body.group(0)).group(1))
    assert width <= 1400
