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
from taugen.text import counted

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode="markdown",
                  help="Build, validate and lint tau-bench-family benchmark bundles.")
console = Console()
errors = Console(stderr=True)


class Difficulty(str, Enum):
    easy = "easy"
    medium = "medium"
    hard = "hard"


class Surface(str, Enum):
    sop = "sop"
    core = "core"
    hard = "hard"
    hard_client = "hard_client"


class Modality(str, Enum):
    text = "text"
    text_image = "text+image"
    text_image_audio = "text+image+audio"


class ReportFormat(str, Enum):
    text = "text"
    json = "json"


class ExecutorChoice(str, Enum):
    local = "local"
    ray = "ray"


class CheckFormat(str, Enum):
    text = "text"
    json = "json"
    junit = "junit"


def _version(value: bool) -> None:
    if value:
        import taugen

        print(f"taugen {taugen.__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print taugen's version and exit.")) -> None:
    """Build, validate and lint tau-bench-family benchmark bundles."""


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


_CACHE_OPTION = typer.Option(None, "--cache", help="Content cache folder: rendered records (reused while "
                             "nothing they read changed), texts read back from PDFs, each task's replays and "
                             "sufficiency findings, and the strong readers' summary of an unchanged bundle "
                             "(default $TAUGEN_CACHE, else ~/.cache/taugen).")
_NO_CACHE_OPTION = typer.Option(False, "--no-cache", help="Read every file afresh; read and write no cache.")
_PACK_OPTION = typer.Option(None, "--pack", help="The pack folder the bundle was built from, for a domain whose "
                            "code lives in its pack folder (taugen new-domain); built-in and installed domains "
                            "need none.")


def _use_cache(folder: Optional[Path], off: bool) -> None:
    """Apply ``--cache DIR`` / ``--no-cache`` (:mod:`taugen.content_cache`) for this process and its workers."""
    from taugen.content_cache import configure

    if off or folder is not None:
        configure(folder, enabled=not off)


@app.command()
def build(
    domain: str = typer.Argument(..., help="A built-in domain (banking, telecom, airline or retail), an installed one, or a pack folder."),
    difficulty: Difficulty = typer.Option(Difficulty.medium, "--difficulty", "-d", help="Tier preset."),
    seed: int = typer.Option(0, "--seed", help="Build seed: same pack + seed gives the same bytes."),
    out: Path = typer.Option(Path("dist"), "--out", help="Folder to write the bundle folder into."),
    surface: Optional[Surface] = typer.Option(None, "--surface", help="Evidence surface overriding the tier's."),
    modality: Optional[Modality] = typer.Option(None, "--modality", help="Modality profile overriding the tier's."),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", help="Audio budget overriding the tier's: "
                                            "call recordings that state rules (half as many more hold none)."),
    previous: Optional[Path] = typer.Option(None, "--previous", help="An earlier bundle to check the pack version "
                                            "against (default: the bundle already at the destination)."),
    llm: Optional[str] = typer.Option(None, "--llm", help="A litellm model that re-voices the voiced renditions "
                                      "(needs taugen\\[llm]); checked, else the template stays."),
    llm_replay: bool = typer.Option(False, "--llm-replay", help="Build only from the LLM request cache; a miss "
                                    "is an error (byte-identical to the recording build)."),
    llm_budget: Optional[float] = typer.Option(None, "--llm-budget", help="Stop calling the model once this many "
                                               "US dollars are spent (templates are kept after)."),
    llm_cache: Optional[Path] = typer.Option(None, "--llm-cache", help="LLM request cache folder (default "
                                             "~/.cache/taugen/llm)."),
    seeded: bool = typer.Option(False, "--seeded", help="Construction kit (medium, hard): ship a starting "
                                "implementation with planted defects instead of the empty scaffold."),
    tasks: Optional[int] = typer.Option(None, "--tasks", help="How many tasks to pick from the task space "
                                        "(default: the tier's)."),
    readers: bool = typer.Option(True, "--readers/--no-readers", help="At hard, measure the records with the "
                                 "strong readers into bundle.json (report only; about a minute)."),
    cache: Optional[Path] = _CACHE_OPTION,
    no_cache: bool = _NO_CACHE_OPTION,
    executor: ExecutorChoice = typer.Option(ExecutorChoice.local, "--executor", help="Where the corpus render, "
                                            "readers and validators run: local (forked workers) or ray "
                                            "(needs taugen\\[ray]); same bytes."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="With --executor ray: an existing Ray "
                                              "cluster (auto, ray://HOST:10001); default a local Ray."),
) -> None:
    """Build a validated, versioned bundle (tau2 runtime files, agent kit, author reports)."""
    from taugen.build.files import check_output_folder
    from taugen.build.pipeline import build as run_build
    from taugen.executors import make_executor

    started = time.perf_counter()
    _use_cache(cache, no_cache)
    settings = None
    if llm is not None:
        from taugen.generators.llm import LLMSettings

        settings = LLMSettings(model=llm, cache_dir=llm_cache, replay=llm_replay, budget_usd=llm_budget)
    elif llm_replay or llm_budget is not None or llm_cache is not None:
        print("error: --llm-replay, --llm-budget and --llm-cache need --llm MODEL", file=sys.stderr)
        raise typer.Exit(2)
    try:
        with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), TextColumn("{task.fields[detail]}"),
                      TimeElapsedColumn(), console=console, transient=True) as progress:
            task = progress.add_task("starting", detail="")

            def report(stage: str, detail: str) -> None:
                progress.update(task, description=stage, detail=detail)

            check_output_folder(out)  # before starting Ray: bad input costs no cluster start
            if executor != ExecutorChoice.local or ray_address is not None:
                report("starting", f"connecting to Ray{f' at {ray_address}' if ray_address else ''}")
            with make_executor(executor.value, ray_address) as runner:
                result = run_build(domain, difficulty.value, seed=seed, out=out, progress=report,
                                   surface=surface.value if surface else None,
                                   modality=modality.value if modality else None, previous=previous, llm=settings,
                                   seeded=seeded, tasks=tasks, readers=readers, executor=runner,
                                   max_calls=max_calls)
    except InputError as error:
        _fail_input(error)
        return
    counts = result.counts
    summary = Table(title=f"taugen build {result.name}", show_header=False)
    summary.add_column("what")
    summary.add_column("value", overflow="fold")
    summary.add_row("facts", f"{counts['facts']} ({counts['facts_current']} current, "
                             f"{counted(counts['supersession_arcs'], 'supersession arc')}, "
                             f"{counts['client_held']} client-held)")
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
        summary.add_row(f"  {genre}", f"{counted(number, 'artifact')}, "
                                      f"{counted(counts['tokens_per_genre'].get(genre, 0), 'token')}")
    summary.add_row("tokens", f"{counts['tokens']:,}")
    if result.llm is not None:
        summary.add_row("llm", f"{result.llm['model']}: {result.llm['requests']} requests "
                               f"({result.llm['cache_hits']} from the cache), ${result.llm['spent_usd']:.4f}, "
                               f"outcomes {result.llm['outcomes']}")
    if result.reuse.get("records_reused"):
        summary.add_row("render cache", f"{result.reuse['records_reused']:,} of {result.reuse['records']:,} records "
                                        "reused (nothing they read had changed)")
    for stage, seconds in result.timings.items():
        summary.add_row(f"stage {stage}", f"{seconds:.2f} s")
    summary.add_row("total", f"{time.perf_counter() - started:.2f} s")
    console.print(summary)
    if not result.ok:
        console.print(_findings_table([f for f in result.findings if f.severity == "error"]))
        errors.print(f"build failed: {sum(f.severity == 'error' for f in result.findings)} error findings; "
                     "no bundle was written")
        raise typer.Exit(1)
    for finding in result.findings:
        if finding.check == "versioning":
            errors.print(f"warning: {finding.message}", soft_wrap=True)
    warned = [f for f in result.findings if f.severity == "warning" and f.check != "versioning"]
    if warned:  # the bundle is written, but a reviewer should see what the validators noted
        shown = "; ".join(f"{f.code} {f.subject}" for f in warned[:5]) + ("; ..." if len(warned) > 5 else "")
        errors.print(f"note: {counted(len(warned), 'validator warning')} ({shown}); see author/validation.md "
                     "or taugen report", soft_wrap=True)
    console.print(f"bundle written to [bold]{result.path}[/bold]")


@app.command()
def validate(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build."),
    output_format: ReportFormat = typer.Option(ReportFormat.text, "--format", help="Report format."),
    cache: Optional[Path] = _CACHE_OPTION,
    no_cache: bool = _NO_CACHE_OPTION,
    pack: Optional[Path] = _PACK_OPTION,
) -> None:
    """Re-run every validator on a built bundle, from its files (progress on stderr). Texts read back from
    PDFs are taken from the content cache when the same bytes were read before (``--no-cache``: never)."""
    from taugen.build.files import read_bundle
    from taugen.hashing import sums_differences
    from taugen.build.pipeline import load_bundle_code, validate_files
    from taugen.build.report import report_json
    from taugen.generators.corpus.render import render_workers
    from taugen.findings import error as error_finding
    from taugen.validators.registry import validators

    started = time.perf_counter()
    _use_cache(cache, no_cache)
    try:
        with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), TextColumn("{task.fields[detail]}"),
                      TimeElapsedColumn(), console=errors, transient=True, disable=not errors.is_terminal) as bar:
            task = bar.add_task("reading the bundle", detail="", total=None)
            files = read_bundle(bundle)
            load_bundle_code(files, str(bundle), pack)
            names = list(validators())
            bar.update(task, description="validating", total=len(names), detail=f"{len(files)} files")
            done = [0]

            def on_validator(name: str) -> None:
                done[0] += 1
                bar.update(task, completed=done[0], description=f"validator {done[0]}/{len(names)}", detail=name)

            findings = validate_files(files, str(bundle), on_validator, workers=render_workers(len(files)))
    except InputError as exc:
        _fail_input(exc)
        return
    differing = sums_differences(files)
    if differing:
        findings.insert(0, error_finding("integrity", "sha256sums_mismatch", "SHA256SUMS",
                                         f"files differ from SHA256SUMS since the build ({len(differing)}): "
                                         + ", ".join(differing[:5]) + (", ..." if len(differing) > 5 else ""),
                                         "; ".join(differing)))
    if output_format == ReportFormat.json:
        console.print_json(json.dumps(report_json(findings, bundle.name)))
    else:
        count = sum(f.severity == "error" for f in findings)
        if findings:
            console.print(_findings_table(findings, limit=200))
        console.print(f"{'FAIL' if count else 'PASS'}: {count} errors, "
                      f"{sum(f.severity == 'warning' for f in findings)} warnings in {bundle} "
                      f"({time.perf_counter() - started:.1f} s)")
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


@app.command()
def report(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build."),
    out: Optional[Path] = typer.Option(None, "--out", help="HTML file (default: <bundle>/../<name>-report.html)."),
    mutants: Optional[Path] = typer.Option(None, "--mutants", help="The --out folder of taugen mutate on this "
                                                                   "bundle: adds the kill rate per kind."),
    against: Optional[Path] = typer.Option(None, "--against", help="An earlier bundle: adds what changed since "
                                                                   "it and whether scores stay comparable."),
    scores: Optional[list[Path]] = typer.Option(None, "--scores", help="A score JSON of taugen evaluate --save-to "
                                                "on this bundle (repeat for the reference, empty and seeded)."),
) -> None:
    """Write a self-contained HTML reviewer report (and its data as JSON) beside a bundle."""
    from taugen.build.report_html import write_report

    started = time.perf_counter()
    try:
        paths = write_report(bundle, out, mutants, against, scores)
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
    console.print(f"ok: {counted(len(pack.facts), 'fact')} in {counted(len(sections), 'section')}, "
                  f"{counted(len(pack.arcs()), 'supersession arc')}, "
                  f"{sum(f.holder == 'client' for f in pack.facts.values())} client-held "
                  f"({time.perf_counter() - started:.2f} s)")
    for note in notes:
        console.print(f"  {note}")


@app.command("new-domain")
def new_domain_command(
    name: str = typer.Argument(..., help="The domain's name: snake_case; it names the folder and its Python "
                                         "package."),
    out: Path = typer.Option(Path("."), "--out", help="Folder to write the domain folder NAME into."),
) -> None:
    """Write a working domain skeleton into OUT/NAME (one folder: the pack beside its code). It builds,
    validates and mutates at every tier; grow it from there. Never overwrites."""
    from taugen.authoring.new_domain import new_domain

    try:
        folder = new_domain(name, out)
    except InputError as exc:
        _fail_input(exc)
        return
    written = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    console.print(f"wrote {folder} ({len(written)} files: {', '.join(written)})", soft_wrap=True)
    console.print(f"next: taugen lint {folder} && taugen build {folder} --difficulty easy", soft_wrap=True)


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
def tau2_check(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build."),
    output_format: CheckFormat = typer.Option(CheckFormat.text, "--format", help="Report format (junit: JUnit XML "
                                              "for CI, one test case per task)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the json or junit report to this file."),
) -> None:
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
    failed = sum(not row.ok for row in rows)
    if output_format != CheckFormat.text:
        text = tau2_runtime.render_check(rows, output_format.value, str(bundle))
        if output is not None:
            output.write_text(text, encoding="utf-8")
            print(f"wrote {output}")
        else:
            sys.stdout.write(text)
        raise typer.Exit(1 if failed else 0)
    table = Table(title=f"tau2 replay of {bundle.name}")
    for column in ("task", "gold", "empty", "result"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row.task_id, f"{row.gold:.1f}", f"{row.empty:.1f}", "ok" if row.ok else "MISMATCH")
    console.print(table)
    console.print(f"{'FAIL' if failed else 'PASS'}: {len(rows) - failed} of {len(rows)} tasks score gold 1.0 and "
                  f"empty 0.0 in tau2 ({time.perf_counter() - started:.2f} s)")
    if failed:
        raise typer.Exit(1)


class AgentChoice(str, Enum):
    llm = "llm"
    gold = "gold"
    empty = "empty"


class UserChoice(str, Enum):
    llm = "llm"
    scripted = "scripted"


class PolicyChoice(str, Enum):
    bundle = "bundle"
    full = "full"


def _json_option(text: Optional[str], name: str) -> dict:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{name} is not valid JSON: {exc.msg}") from None
    if not isinstance(value, dict):
        raise InputError(f"{name} must be a JSON object, e.g. '{{\"temperature\": 0}}'")
    return value


@app.command("run")
def run_agents(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build (banking, telecom, ...)."),
    agent: AgentChoice = typer.Option(AgentChoice.llm, "--agent", help="llm (tau2's LLM agent), or the offline "
                                      "gold (replays each task's gold calls) or empty (never calls a tool)."),
    agent_llm: Optional[str] = typer.Option(None, "--agent-llm", help="litellm model of the agent, e.g. gpt-4.1."),
    agent_llm_args: Optional[str] = typer.Option(None, "--agent-llm-args", help="JSON litellm arguments of the "
                                                 "agent (default {\"temperature\": 0.0})."),
    user: Optional[UserChoice] = typer.Option(None, "--user", help="llm (tau2's user simulator) or scripted (a "
                                              "deterministic user answering from the scenario); default llm when "
                                              "--user-llm is given, else scripted."),
    user_llm: Optional[str] = typer.Option(None, "--user-llm", help="litellm model of the user simulator."),
    user_llm_args: Optional[str] = typer.Option(None, "--user-llm-args", help="JSON litellm arguments of the user."),
    num_trials: int = typer.Option(1, "--num-trials", "-k", help="Trials per task (k of pass^k)."),
    split: Optional[str] = typer.Option(None, "--split", help="A split of split_tasks.json (default base: all)."),
    task_ids: Optional[list[str]] = typer.Option(None, "--task-ids", help="Only these task ids (repeatable, or "
                                                 "comma-separated)."),
    max_concurrency: int = typer.Option(1, "--max-concurrency", help="Simulations run at once."),
    save_to: Optional[Path] = typer.Option(None, "--save-to", help="Results JSON file (tau2's Results; default "
                                           "runs/<bundle>_<agent>_<user>_<time>.json)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing --save-to file."),
    seed: int = typer.Option(300, "--seed", help="tau2's run seed (trial seeds are drawn from it)."),
    policy: PolicyChoice = typer.Option(PolicyChoice.bundle, "--policy", help="bundle: the bundle's policy (demoted "
                                        "at medium/hard); full: plus every current fact (finished-agent benchmark)."),
    max_steps: int = typer.Option(200, "--max-steps", help="tau2's step limit per simulation."),
) -> None:
    """Run an agent on a bundle's tasks with tau2's orchestrator, user simulator and evaluator; print
    pass^1..pass^k and the average reward per split and write tau2's results JSON."""
    from taugen.build import tau2_runtime

    tau2_runtime.silence_tau2_logs()
    try:
        tau2_runtime.require_tau2()
    except tau2_runtime.Tau2NotInstalled:
        print("error: tau2 is not installed: install taugen[tau2]", file=sys.stderr)
        raise typer.Exit(2)
    from taugen.build.tau2_run import RunSettings, run_bundle

    started = time.perf_counter()
    try:
        ids = [part for value in task_ids or [] for part in value.split(",") if part] or None
        settings = RunSettings(
            agent=agent.value, user=(user.value if user else ("llm" if user_llm else "scripted")),
            agent_llm=agent_llm, user_llm=user_llm,
            agent_llm_args=_json_option(agent_llm_args, "--agent-llm-args") if agent_llm_args else {"temperature": 0.0},
            user_llm_args=_json_option(user_llm_args, "--user-llm-args") if user_llm_args else {"temperature": 0.0},
            num_trials=num_trials, split=split, task_ids=ids, max_concurrency=max_concurrency, save_to=save_to,
            overwrite=overwrite, seed=seed, policy=policy.value, max_steps=max_steps)
        with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), TextColumn("{task.fields[detail]}"),
                      TimeElapsedColumn(), console=console, transient=True, disable=not console.is_terminal) as bar:
            task = bar.add_task("running", detail="")

            def report(done: int, total: int, simulation) -> None:
                reward = simulation.reward_info.reward if simulation.reward_info else 0.0
                bar.update(task, description=f"{done}/{total} simulations",
                           detail=f"{simulation.task_id}: reward {reward:.1f}")

            outcome = run_bundle(bundle, settings, report)
    except InputError as exc:
        _fail_input(exc)
        return
    note_style = "bold yellow" if outcome.policy.demoted else "green"
    console.print(f"[{note_style}]{outcome.policy.note}[/{note_style}]", soft_wrap=True)
    ks = range(1, settings.num_trials + 1)
    table = Table(title=f"taugen run {bundle.name}: agent {settings.agent}"
                        f"{' ' + settings.agent_llm if settings.agent == 'llm' else ''}, user {settings.user}"
                        f"{' ' + settings.user_llm if settings.user == 'llm' else ''}, policy {settings.policy}")
    for column in ("split", "tasks", "simulations", "avg reward", *(f"pass^{k}" for k in ks)):
        table.add_column(column, justify="left" if column == "split" else "right")
    for row in outcome.splits:
        table.add_row(row.split, str(row.tasks), str(row.simulations), f"{row.avg_reward:.3f}",
                      *(f"{row.pass_hat_k[k]:.3f}" if k in row.pass_hat_k else "-" for k in ks))
    console.print(table)
    console.print(f"results (tau2 Results JSON) written to [bold]{outcome.path}[/bold] "
                  f"({time.perf_counter() - started:.1f} s)", soft_wrap=True)


@app.command("tau2", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def tau2_passthrough(
    bundle: Path = typer.Argument(..., help="A bundle folder written by taugen build."),
    args: Optional[list[str]] = typer.Argument(None, help="tau2's own command line after --, e.g. -- run "
                                               "--domain banking --agent-llm gpt-4.1 --user-llm gpt-4.1."),
) -> None:
    """Run any tau2 command (run, view, evaluate-trajs, domain ...) with the bundle's domain registered
    (telecom: tau2's telecom reads the bundle's files). Results go to ./tau2-results unless --results-dir."""
    from taugen.build import tau2_runtime

    try:
        tau2_runtime.require_tau2()
    except tau2_runtime.Tau2NotInstalled:
        print("error: tau2 is not installed: install taugen[tau2]", file=sys.stderr)
        raise typer.Exit(2)
    from taugen.build.tau2_run import tau2_cli

    try:
        code = tau2_cli(bundle, list(args or []))
    except InputError as exc:
        _fail_input(exc)
        return
    raise typer.Exit(code)


@app.command()
def mutate(
    bundle: Path = typer.Argument(..., help="A good bundle folder written by taugen build."),
    out: Path = typer.Option(..., "--out", help="Folder for the mutant bundles and kill_report.json."),
    kind: Optional[list[str]] = typer.Option(None, "--kind", help="Only these defect kinds (repeatable, e.g. K3)."),
    pack: Optional[Path] = _PACK_OPTION,
) -> None:
    """Plant realistic defects of every kind K1-K20 into a bundle, validate each mutant and print the
    kill rate per kind (exit 1 when a mutant survives or the clean bundle has errors, 2 on bad input)."""
    from taugen.build.files import read_bundle
    from taugen.build.pipeline import load_bundle_code
    from taugen.mutation.model import KINDS
    from taugen.mutation.runner import run_mutation, write_mutants

    wanted = {k.upper() for k in kind} if kind else None
    if wanted and wanted - set(KINDS):
        print(f"error: --kind must be K1..K20, not {', '.join(sorted(wanted - set(KINDS)))}", file=sys.stderr)
        raise typer.Exit(2)
    started = time.perf_counter()
    try:
        files = read_bundle(bundle)
        load_bundle_code(files, str(bundle), pack)
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
                      "or problems it does not have, or their edit would be no defect of their kind there) "
                      "and are not counted", soft_wrap=True)
    console.print(f"{sum(r.killed for r in result.results)} of {applicable} mutants killed "
                  f"({result.kill_rate():.1%}); {len(result.clean_errors)} errors on the clean bundle; "
                  f"mutants and kill_report.json in {out} ({time.perf_counter() - started:.1f} s)", soft_wrap=True)
    if result.survivors or result.clean_errors:
        raise typer.Exit(1)


@app.command()
def diff(
    old: str = typer.Argument(..., help="The earlier bundle folder (or a pack folder / built-in domain name)."),
    new: str = typer.Argument(..., help="The later bundle folder (or a pack, built at the other side's tier "
                                        "and seed)."),
    output_format: ReportFormat = typer.Option(ReportFormat.text, "--format", help="Report format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    difficulty: Optional[Difficulty] = typer.Option(None, "--difficulty", "-d", help="Tier to build a pack side "
                                                    "at (default: the bundle side's)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed to build a pack side at (default: the bundle "
                                                            "side's)."),
) -> None:
    """What changed between two versions of a benchmark (facts, tasks, records, splits), whether scores
    stay comparable, and the version bump it implies (exit 0; 1 when the pack version moved too little)."""
    from taugen.build import diff as bundle_diff

    level = difficulty.value if difficulty else None
    try:
        old_files = bundle_diff.read_side(old, None, level, seed) if (Path(old) / "bundle.json").is_file() else None
        new_files = bundle_diff.read_side(new, old_files, level, seed)
        if old_files is None:
            old_files = bundle_diff.read_side(old, new_files, level, seed)
        result = bundle_diff.diff_bundles(old_files, new_files, old, new)
    except InputError as exc:
        _fail_input(exc)
        return
    except bundle_diff.PackDoesNotBuild as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(1)
    text = (json.dumps(result.as_dict(), indent=2, sort_keys=True) + "\n" if output_format == ReportFormat.json
            else bundle_diff.render_text(result))
    if output is not None:
        output.write_text(text, encoding="utf-8")
        print(f"wrote {output}")
    else:
        sys.stdout.write(text)
    if result.version_warning:
        raise typer.Exit(1)


@app.command("lint-tasks")
def lint_tasks(
    folder: Path = typer.Argument(..., help="A tau2 domain folder: tasks.json (or tasks/task_*.json), "
                                            "split_tasks.json, optionally db.json/db.toml, the policy."),
    output_format: CheckFormat = typer.Option(CheckFormat.text, "--format", help="Report format (junit: JUnit XML)."),
    tasks_file: Optional[str] = typer.Option(None, "--tasks", help="The task file when the folder holds several "
                                                                   "(e.g. tasks_small.json)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report to this file."),
    no_replay: bool = typer.Option(False, "--no-replay", help="Data checks only: do not replay gold in tau2."),
) -> None:
    """Check any tau2 task folder for task-authoring defects K1-K20 (exit 1 on errors, 2 on bad input)."""
    from taugen.validators import foreign

    try:
        findings = foreign.lint_task_folder(folder, tasks_file, replay=not no_replay)
        subjects = foreign.task_ids(folder, tasks_file)
    except InputError as exc:
        _fail_input(exc)
        return
    text = foreign.render(findings, output_format.value, str(folder), subjects)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        print(f"wrote {output}")
    else:
        sys.stdout.write(text)
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


@app.command("serve-api")
def serve_api(
    bundle: Path = typer.Argument(..., help="A construction bundle (medium or hard)."),
    port: int = typer.Option(8000, "--port", help="Loopback port to listen on."),
    deployment: Optional[str] = typer.Option(None, "--deployment", help="Deployment name (default: the one the "
                                             "kit's manifest names; 'clean' has no defects)."),
    database: str = typer.Option("development", "--database", help="development (the kit's seed) or evaluation."),
) -> None:
    """Serve the bundle's client API (OpenAPI contract, per-session state, the deployment's defects)."""
    from taugen.construction.bundle import ConstructionBundle
    from taugen.construction.server import serve, service_for_bundle

    try:
        if database not in ("development", "evaluation"):
            raise InputError(f"--database must be development or evaluation, not {database!r}")
        service = service_for_bundle(ConstructionBundle.open(bundle), deployment, database)
    except InputError as error:
        _fail_input(error)
        return
    errors.print(f"serving {service.deployment.name} ({len(service.deployment.defects)} defects) on "
                 f"http://127.0.0.1:{port}  (contract: /openapi.yaml)")
    serve(service, port)


@app.command()
def evaluate(
    bundle: Path = typer.Argument(..., help="A construction bundle (medium or hard)."),
    workspace: str = typer.Option(..., "--workspace", help="A workspace folder (tools.py, agent.py), "
                                  "'reference' (the oracle) or 'seeded' (the bundle's seeded start)."),
    trials: int = typer.Option(1, "--trials", help="Conversations per task (pass^k up to k = trials)."),
    user: str = typer.Option("scripted", "--user", help="scripted (offline) or llm:<model>."),
    deployment: Optional[str] = typer.Option(None, "--deployment", help="Client API deployment."),
    save_to: Optional[Path] = typer.Option(None, "--save-to", help="Write the score JSON here."),
    agent_llm_args: Optional[str] = typer.Option(None, "--agent-llm-args", help="JSON litellm arguments added to "
                                                 "every completion the agent asks for (e.g. an api_base, or "
                                                 "litellm's offline mock_response)."),
) -> None:
    """Score a built agent on the bundle's sealed test split (tau2 orchestrator, metered credits)."""
    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.evaluate import evaluate as run_evaluation

    silence_tau2_logs()
    try:
        llm_args = _json_option(agent_llm_args, "--agent-llm-args") if agent_llm_args else None
        result = run_evaluation(bundle, workspace, trials=trials, user=user, deployment=deployment,
                                llm_args=llm_args)
    except InputError as error:
        _fail_input(error)
        return
    _print_score(result, save_to)


@app.command("local-test")
def local_test(
    bundle: Path = typer.Argument(..., help="A construction bundle (medium or hard)."),
    workspace: str = typer.Option(..., "--workspace", help="A workspace folder, 'reference' or 'seeded'."),
    scenario: Path = typer.Option(..., "--scenario", help="A scenario file (framework/scenario_contract.md)."),
    user: str = typer.Option("scripted", "--user", help="scripted (offline) or llm:<model>."),
    save_to: Optional[Path] = typer.Option(None, "--save-to", help="Write the score JSON here."),
    agent_llm_args: Optional[str] = typer.Option(None, "--agent-llm-args", help="JSON litellm arguments added to "
                                                 "every completion the agent asks for."),
) -> None:
    """Run one developer-authored scenario against a workspace on the development seed."""
    from taugen.build.tau2_runtime import silence_tau2_logs
    from taugen.construction.evaluate import local_test as run_local_test

    silence_tau2_logs()
    try:
        llm_args = _json_option(agent_llm_args, "--agent-llm-args") if agent_llm_args else None
        result = run_local_test(bundle, workspace, scenario, user=user, llm_args=llm_args)
    except InputError as error:
        _fail_input(error)
        return
    _print_score(result, save_to)


@app.command()
def client(
    bundle: Path = typer.Argument(..., help="A construction bundle (medium or hard)."),
    message: Optional[str] = typer.Option(None, "--message", help="One message; without it, an interactive session."),
    model: Optional[str] = typer.Option(None, "--model", help="A litellm model; without it, the scripted client."),
    log: Path = typer.Option(Path("client_log.jsonl"), "--log", help="JSONL file every exchange is appended to."),
) -> None:
    """Talk to the bank's operations lead (held rules, contested records, readings, API defects)."""
    from taugen.construction.bundle import ConstructionBundle
    from taugen.construction.client import ClientSimulator

    try:
        simulator = ClientSimulator(ConstructionBundle.open(bundle), model=model, log_path=log)
    except InputError as error:
        _fail_input(error)
        return
    if message is not None:
        print(simulator.ask(message))
        return
    while True:
        try:
            line = input("you> ").strip()
        except EOFError:
            break
        if line in ("", "exit", "quit"):
            break
        print(f"client> {simulator.ask(line)}")


def _print_score(result: dict, save_to: Optional[Path]) -> None:
    table = Table(title="score", show_header=False)
    for key in ("mean_reward", "final_score", "mean_budget_fraction", "conversations"):
        table.add_row(key, str(result[key]))
    table.add_row("pass_hat_k", json.dumps(result["pass_hat_k"]))
    table.add_row("latency", json.dumps(result["latency"]))
    if "reference" in result:  # the oracle says how it decided: at run time, or by a counted fallback
        counts = result["reference"]
        table.add_row("reference", f"{counts['decided']} of {counts['conversations']} decided at run time, "
                      f"{counts['fallback']} fallback, {counts['undecided']} undecided")
    console.print(table)
    if save_to is not None:
        save_to.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        console.print(f"wrote {save_to}")


def main() -> None:
    """Entry point of the ``taugen`` console script."""
    try:
        app()
    except InputError as error:  # pragma: no cover - commands catch their own; this is a last guard
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
