"""The ``taugen`` command: thin wrappers that parse options, call the stages and draw results.

Exit codes: 0 ok, 1 validation findings (errors), 2 bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import json
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from taugen.errors import InputError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Build, validate and lint tau-bench-family benchmark bundles.")
console = Console()
errors = Console(stderr=True)


class Difficulty(str, Enum):
    easy = "easy"
    medium = "medium"
    hard = "hard"


def _fail_input(error: InputError) -> None:
    # Plain print, not rich: one line whatever the terminal width, so logs and scripts can grep it.
    print(f"error: {error}", file=sys.stderr)
    raise typer.Exit(2)


def _findings_table(findings, limit: int = 30) -> Table:
    table = Table(title="Findings", show_lines=False)
    for column in ("severity", "check", "code", "subject", "message"):
        table.add_column(column, overflow="fold", no_wrap=column in ("severity", "code"))  # codes stay greppable
    for finding in findings[:limit]:
        table.add_row(finding.severity, finding.check, finding.code, finding.subject, finding.message)
    return table


@app.command()
def build(
    domain: str = typer.Argument(..., help="Built-in domain (banking) or a pack folder."),
    difficulty: Difficulty = typer.Option(Difficulty.medium, "--difficulty", "-d", help="Tier preset."),
    seed: int = typer.Option(0, "--seed", help="Build seed: same pack + seed gives the same bytes."),
    out: Path = typer.Option(Path("dist"), "--out", help="Folder to write the bundle folder into."),
    surface: Optional[str] = typer.Option(None, "--surface", help="Evidence surface overriding the tier's: "
                                          "sop, core, hard or hard_client."),
    modality: Optional[str] = typer.Option(None, "--modality", help="Modality profile overriding the tier's: "
                                           "text, text+image or text+image+audio."),
    tasks: Optional[int] = typer.Option(None, "--tasks", help="How many tasks to pick from the task space "
                                        "(default: the tier's)."),
) -> None:
    """Build a validated, versioned bundle (tau2 runtime files, agent kit, author reports)."""
    from taugen.build.pipeline import build as run_build

    started = time.perf_counter()
    try:
        with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), TextColumn("{task.fields[detail]}"),
                      TimeElapsedColumn(), console=console, transient=True) as progress:
            task = progress.add_task("starting", detail="")

            def report(stage: str, detail: str) -> None:
                progress.update(task, description=stage, detail=detail)

            result = run_build(domain, difficulty.value, seed=seed, out=out, progress=report, surface=surface,
                               modality=modality, tasks=tasks)
    except InputError as error:
        _fail_input(error)
        return
    counts = result.counts
    summary = Table(title=f"taugen build {result.name}", show_header=False)
    summary.add_column("what")
    summary.add_column("value", overflow="fold")
    summary.add_row("facts", f"{counts['facts']} ({counts['facts_current']} current, {counts['supersession_arcs']} "
                             f"supersession arcs, {counts['client_held']} client-held)")
    summary.add_row("tasks", f"{counts['tasks']} (problems per task {counts['problems_per_task']})")
    if counts.get("task_space"):
        cover = counts["task_coverage"]
        summary.add_row("task space", f"{counts['task_space']['problem_instances']} problem instances, "
                                      f"{counts['task_space']['compositions']:,} compositions")
        summary.add_row("fact coverage", f"{cover['typed_record_facts']['exercised']} of "
                                         f"{cover['typed_record_facts']['facts']} typed record-held facts decide a task; "
                                         f"test-split fact load {cover['construction_fact_load']}")
    summary.add_row("artifacts", f"{counts['artifacts']} ({counts['carriers']} carriers, {counts['fillers']} fillers)")
    for genre, number in counts["artifacts_per_genre"].items():
        summary.add_row(f"  {genre}", f"{number} artifacts, {counts['tokens_per_genre'].get(genre, 0):,} tokens")
    summary.add_row("tokens", f"{counts['tokens']:,}")
    for stage, seconds in result.timings.items():
        summary.add_row(f"stage {stage}", f"{seconds:.2f} s")
    summary.add_row("total", f"{time.perf_counter() - started:.2f} s")
    console.print(summary)
    if not result.ok:
        console.print(_findings_table([f for f in result.findings if f.severity == "error"]))
        errors.print(f"build failed: {sum(f.severity == 'error' for f in result.findings)} error findings; "
                     "no bundle was written")
        raise typer.Exit(1)
    console.print(f"bundle written to [bold]{result.path}[/bold]")


@app.command()
def validate(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build."),
    output_format: str = typer.Option("text", "--format", help="text or json"),
) -> None:
    """Re-run every validator on a built bundle, from its files."""
    from taugen.build.files import read_bundle, sha256sums
    from taugen.build.pipeline import validate_files
    from taugen.build.report import report_json
    from taugen.validators.findings import error as error_finding

    try:
        files = read_bundle(bundle)
        findings = validate_files(files, str(bundle))
    except InputError as exc:
        _fail_input(exc)
        return
    recorded = files.get("SHA256SUMS", b"")
    actual = sha256sums({p: d for p, d in files.items() if p != "SHA256SUMS"})
    if recorded != actual:
        findings.insert(0, error_finding("integrity", "sha256sums_mismatch", "SHA256SUMS",
                                         "files differ from SHA256SUMS (edited, added or removed since the build)"))
    if output_format == "json":
        console.print_json(json.dumps(report_json(findings, bundle.name)))
    else:
        count = sum(f.severity == "error" for f in findings)
        if findings:
            console.print(_findings_table(findings, limit=200))
        console.print(f"{'FAIL' if count else 'PASS'}: {count} errors, "
                      f"{sum(f.severity == 'warning' for f in findings)} warnings in {bundle}")
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


@app.command()
def report(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build."),
    out: Optional[Path] = typer.Option(None, "--out", help="HTML file (default: <bundle>/../<name>-report.html)."),
    mutants: Optional[Path] = typer.Option(None, "--mutants", help="The --out folder of taugen mutate on this "
                                                                   "bundle: adds the kill rate per kind."),
) -> None:
    """Write a self-contained HTML reviewer report (and its data as JSON) beside a bundle."""
    from taugen.build.report_html import write_report

    started = time.perf_counter()
    try:
        paths = write_report(bundle, out, mutants)
    except InputError as exc:
        _fail_input(exc)
        return
    console.print(f"report written to [bold]{paths.html}[/bold] (data: {paths.json}, "
                  f"{time.perf_counter() - started:.2f} s)", soft_wrap=True)


@app.command()
def lint(pack_dir: Path = typer.Argument(..., help="A fact pack folder (holds domain.yaml).")) -> None:
    """Load and check a fact pack only: fast feedback for domain experts."""
    from taugen.build.pipeline import load_pack_only

    started = time.perf_counter()
    try:
        pack, notes = load_pack_only(pack_dir)
    except InputError as exc:
        _fail_input(exc)
        return
    sections = {}
    for fact in pack.facts.values():
        sections[fact.section] = sections.get(fact.section, 0) + 1
    console.print(f"ok: {len(pack.facts)} facts in {len(sections)} sections, {len(pack.arcs())} supersession arcs, "
                  f"{sum(f.holder == 'client' for f in pack.facts.values())} client-held "
                  f"({time.perf_counter() - started:.2f} s)")
    for note in notes:
        console.print(f"  {note}")


@app.command()
def schema(out: Optional[Path] = typer.Option(None, "--out", help="Write the JSON Schemas into this folder.")) -> None:
    """Export JSON Schema for domain.yaml and fact files (for editor completion)."""
    from taugen.authoring.models import DomainConfig, Fact, FactFamily, FactFile

    schemas = {"domain.schema.json": DomainConfig.model_json_schema(), "fact.schema.json": Fact.model_json_schema(),
               "family.schema.json": FactFamily.model_json_schema(),
               "fact-file.schema.json": FactFile.model_json_schema()}
    if out is None:
        console.print_json(json.dumps(schemas["fact.schema.json"]))
        return
    out.mkdir(parents=True, exist_ok=True)
    for name, data in schemas.items():
        (out / name).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    console.print(f"wrote {len(schemas)} schemas to {out}")


@app.command("tau2-check")
def tau2_check(bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build.")) -> None:
    """Grade every task in tau2's own runtime: gold replay must score 1.0, an empty run 0.0 (no LLM)."""
    from taugen.build import tau2_runtime

    started = time.perf_counter()
    tau2_runtime.silence_tau2_logs()
    try:
        tau2_runtime.require_tau2()
    except tau2_runtime.Tau2NotInstalled:
        print("error: tau2 is not installed: install taugen[tau2]", file=sys.stderr)
        raise typer.Exit(2)
    try:
        rows = tau2_runtime.check_bundle(bundle)
    except InputError as exc:
        _fail_input(exc)
        return
    except ValueError as exc:
        print(f"error: {bundle}: {exc}", file=sys.stderr)
        raise typer.Exit(2)
    table = Table(title=f"tau2 replay of {bundle.name}")
    for column in ("task", "gold", "empty", "result"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row.task_id, f"{row.gold:.1f}", f"{row.empty:.1f}", "ok" if row.ok else "MISMATCH")
    console.print(table)
    failed = sum(not row.ok for row in rows)
    console.print(f"{'FAIL' if failed else 'PASS'}: {len(rows) - failed} of {len(rows)} tasks score gold 1.0 and "
                  f"empty 0.0 in tau2 ({time.perf_counter() - started:.2f} s)")
    if failed:
        raise typer.Exit(1)


@app.command()
def mutate(
    bundle: Path = typer.Argument(..., help="A good bundle folder written by taugen build."),
    out: Path = typer.Option(..., "--out", help="Folder for the mutant bundles and kill_report.json."),
    kind: Optional[list[str]] = typer.Option(None, "--kind", help="Only these defect kinds (repeatable, e.g. K3)."),
) -> None:
    """Plant realistic defects of every kind K1-K20 into a bundle, validate each mutant and print the
    kill rate per kind (exit 1 when a mutant survives or the clean bundle has errors, 2 on bad input)."""
    from taugen.build.files import read_bundle
    from taugen.validators.mutation.model import KINDS
    from taugen.validators.mutation.runner import run_mutation, write_mutants

    wanted = {k.upper() for k in kind} if kind else None
    if wanted and wanted - set(KINDS):
        print(f"error: --kind must be K1..K20, not {', '.join(sorted(wanted - set(KINDS)))}", file=sys.stderr)
        raise typer.Exit(2)
    started = time.perf_counter()
    try:
        files = read_bundle(bundle)
        with console.status("validating the clean bundle and each mutant") as status:
            def progress(result) -> None:
                verdict = "n/a" if not result.applicable else ("killed" if result.killed else "SURVIVED")
                status.update(f"{result.operator.mutant_id}: {verdict}")

            result = run_mutation(files, str(bundle), wanted, progress)
        write_mutants(result, bundle, out)
    except InputError as exc:
        _fail_input(exc)
        return
    table = Table(title=f"Kill rate per kind ({bundle.name})")
    for column in ("kind", "operators", "applicable", "killed", "kill rate"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    for name, row in result.per_kind().items():
        if row["operators"]:
            rate = f"{row['killed'] / row['applicable']:.0%}" if row["applicable"] else "-"
            table.add_row(name, str(row["operators"]), str(row["applicable"]), str(row["killed"]), rate)
    console.print(table)
    for survivor in result.survivors:
        console.print(f"SURVIVED {survivor.operator.mutant_id} ({survivor.mutant.subject}): "
                      f"{survivor.operator.description}", soft_wrap=True)
    for finding in result.clean_errors:
        console.print(f"clean bundle error: {finding.check} {finding.code} {finding.subject}: {finding.message}",
                      soft_wrap=True)
    applicable = sum(r.applicable for r in result.results)
    if applicable < len(result.results):
        console.print(f"{len(result.results) - applicable} operators do not apply to this bundle (they edit parts "
                      "or problems it does not have) and are not counted", soft_wrap=True)
    console.print(f"{sum(r.killed for r in result.results)} of {applicable} mutants killed "
                  f"({result.kill_rate():.1%}); {len(result.clean_errors)} errors on the clean bundle; "
                  f"mutants and kill_report.json in {out} ({time.perf_counter() - started:.1f} s)", soft_wrap=True)
    if result.survivors or result.clean_errors:
        raise typer.Exit(1)


@app.command("lint-tasks")
def lint_tasks(
    folder: Path = typer.Argument(..., help="A tau2 domain folder: tasks.json (or tasks/task_*.json), "
                                            "split_tasks.json, optionally db.json/db.toml, the policy."),
    output_format: str = typer.Option("text", "--format", help="text, json or junit"),
    tasks_file: Optional[str] = typer.Option(None, "--tasks", help="The task file when the folder holds several "
                                                                   "(e.g. tasks_small.json)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    no_replay: bool = typer.Option(False, "--no-replay", help="Data checks only: do not replay gold in tau2."),
) -> None:
    """Check any tau2 task folder for task-authoring defects K1-K20 (exit 1 on errors, 2 on bad input)."""
    from taugen.validators import foreign

    if output_format not in foreign.FORMATS:
        print(f"error: --format must be one of {', '.join(foreign.FORMATS)}, not {output_format!r}", file=sys.stderr)
        raise typer.Exit(2)
    try:
        findings = foreign.lint_task_folder(folder, tasks_file, replay=not no_replay)
        subjects = foreign.task_ids(folder, tasks_file)
    except InputError as exc:
        _fail_input(exc)
        return
    text = foreign.render(findings, output_format, str(folder), subjects)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        print(f"wrote {output}")
    else:
        sys.stdout.write(text)
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


def main() -> None:
    """Entry point of the ``taugen`` console script."""
    try:
        app()
    except InputError as error:  # pragma: no cover - commands catch their own; this is a last guard
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
