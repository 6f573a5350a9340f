"""What changed between two bundles, and whether their scores stay comparable.

``taugen diff OLD NEW`` compares two versions of a benchmark: the facts (added, removed, value, dates,
holder, supersession), the tasks (gold actions, user scenario, grading, initial state), the records
(added, removed, re-rendered, and which facts moved to another owner) and the split membership. It
ends with a verdict and the semantic-versioning bump the change implies (https://semver.org):

* ``major``: a result on OLD means something else on NEW: an existing task was removed or its gold,
  grading, user scenario or initial state changed, the world (``db.json``) changed, or a current
  fact's value changed (the policy itself moved). Scores are **not comparable**.
* ``minor``: the benchmark grew or its evidence moved (tasks or facts added, a task joined a split,
  a fact's owner record changed or a record carrying a fact was re-rendered). Scores on the shared
  tasks are comparable; totals are not.
* ``patch``: only text no task depends on changed (fillers, reports). Scores are comparable.
* ``none``: the two bundles hold the same content.

Each side is read as ``{relative path: bytes}`` (:data:`taugen.hashing.BundleFiles`), so the build
can compare the bundle it is about to write with the one already at the destination.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from taugen.hashing import recorded_sums, sha256_hex
from taugen.errors import InputError

BUMPS = ("none", "patch", "minor", "major")
"""Semantic-versioning bumps, weakest first."""

VERDICTS = {"none": "identical: scores are comparable",
            "patch": "comparable: no task, fact or evidence a task depends on changed",
            "minor": "comparable on the shared tasks only: the benchmark grew or its evidence moved",
            "major": "not comparable: tasks, grading, the world or the policy changed"}

_FACT_FIELDS = ("value", "effective_from", "holder", "supersedes", "superseded_by", "current", "statement",
                "client_held", "contested", "section")
"""Manifest fact fields compared; ``owner`` is reported as a move, not a change."""


@dataclass
class Change:
    """One changed item: ``subject`` (a fact, task or artifact id), ``fields`` that differ, and for each
    field the ``(old, new)`` pair in ``values`` (JSON-ready)."""

    subject: str
    fields: list[str]
    values: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class BundleDiff:
    """The difference between two bundles (every list sorted, so the report is stable).

    Attributes:
        old, new: bundle names with versions (``banking-hard-0.1.0``).
        old_version, new_version: the pack versions in ``bundle.json``.
        facts_added, facts_removed: fact ids.
        facts_changed: per fact, the manifest fields that differ (value, dates, holder, supersession).
        facts_moved: per fact whose owner record changed, ``values["owner"] = [old, new]``.
        tasks_added, tasks_removed: task ids.
        tasks_changed: per task, which parts differ: ``gold`` (evaluation actions), ``grading`` (reward
            basis, communicate_info, assertions), ``scenario`` (user scenario), ``initial_state``.
        artifacts_added, artifacts_removed, artifacts_changed: artifact ids (changed = other bytes).
        splits: per split, ``{"added": [...], "removed": [...]}`` task ids (only splits that changed).
        runtime_changed: files of ``tau2/domains/<d>/`` other than the task files whose bytes differ.
        build_changed: build settings that differ, ``{setting: [old, new]}`` (the seed, the tier, a requested
            knob such as the task count): two builds of one pack, not two versions of it, so the pack
            version need not move (no ``version_warning``), whatever the changes imply for scores.
        bump: the implied semantic-versioning bump (one of :data:`BUMPS`).
        reasons: why the bump is what it is, one line each.
        version_warning: set when the pack version moved less than the changes imply.
    """

    old: str
    new: str
    old_version: str
    new_version: str
    facts_added: list[str] = field(default_factory=list)
    facts_removed: list[str] = field(default_factory=list)
    facts_changed: list[Change] = field(default_factory=list)
    facts_moved: list[Change] = field(default_factory=list)
    tasks_added: list[str] = field(default_factory=list)
    tasks_removed: list[str] = field(default_factory=list)
    tasks_changed: list[Change] = field(default_factory=list)
    artifacts_added: list[str] = field(default_factory=list)
    artifacts_removed: list[str] = field(default_factory=list)
    artifacts_changed: list[str] = field(default_factory=list)
    splits: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    runtime_changed: list[str] = field(default_factory=list)
    build_changed: dict[str, list[Any]] = field(default_factory=dict)
    bump: str = "none"
    reasons: list[str] = field(default_factory=list)
    version_warning: str | None = None

    @property
    def comparable(self) -> bool:
        """True when scores on OLD and NEW can be compared task for task (bump below ``major``)."""
        return self.bump != "major"

    @property
    def verdict(self) -> str:
        """One line: comparable or not, and why."""
        return VERDICTS[self.bump]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (``taugen diff --format json`` and the reviewer report)."""
        return {**asdict(self), "comparable": self.comparable, "verdict": self.verdict}


# ---------------------------------------------------------------------------- reading a side
def _json(files: Mapping[str, bytes], path: str, label: str) -> Any:
    if path not in files:
        raise InputError(f"not a complete taugen bundle: {path} is missing", label)
    try:
        return json.loads(files[path])
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not valid JSON ({exc})", label) from None


@dataclass
class _Side:
    label: str
    bundle: dict[str, Any]
    manifest: dict[str, Any]
    tasks: dict[str, dict[str, Any]]
    splits: dict[str, list[str]]
    digests: dict[str, str]
    runtime_dir: str

    @classmethod
    def read(cls, files: Mapping[str, bytes], label: str) -> "_Side":
        bundle = _json(files, "bundle.json", label)
        domain = bundle.get("domain")
        if not isinstance(domain, str):
            raise InputError("bundle.json has no domain", label)
        runtime_dir = f"tau2/domains/{domain}"
        manifest = _json(files, "author/manifest.json", label)
        tasks = {task["id"]: task for task in _json(files, f"{runtime_dir}/tasks.json", label)}
        split_path = f"{runtime_dir}/split_tasks.json"
        splits = _json(files, split_path, label) if split_path in files else {}
        digests = _digests(files)
        return cls(label, bundle, manifest, tasks, splits, digests, runtime_dir)


def _digests(files: Mapping[str, bytes]) -> dict[str, str]:
    """sha256 per file: from ``SHA256SUMS`` when the mapping carries it (a bundle read from disk with
    :func:`read_summary`), else computed (a bundle still in memory)."""
    if "SHA256SUMS" in files:
        return recorded_sums(files["SHA256SUMS"])
    return {path: sha256_hex(data) for path, data in files.items()}


SUMMARY_FILES = ("bundle.json", "SHA256SUMS", "author/manifest.json", "author/task_facts.json")
"""What a diff reads of a bundle on disk, besides the tau2 task and split files (digests of the rest
come from ``SHA256SUMS``)."""


def read_summary(directory: Path) -> dict[str, bytes]:
    """The files of a bundle folder that a diff needs, without reading every record.

    Raises:
        InputError: the folder is not a taugen bundle.
    """
    directory = Path(directory)
    if not (directory / "bundle.json").is_file():
        raise InputError("not a taugen bundle: bundle.json is missing", directory)
    files = {name: (directory / name).read_bytes() for name in SUMMARY_FILES if (directory / name).is_file()}
    try:
        domain = json.loads(files["bundle.json"])["domain"]
    except (ValueError, KeyError, TypeError):
        raise InputError("bundle.json is not valid (no domain)", directory) from None
    for name in ("tasks.json", "split_tasks.json"):
        path = directory / "tau2" / "domains" / str(domain) / name
        if path.is_file():
            files[f"tau2/domains/{domain}/{name}"] = path.read_bytes()
    return files


# ---------------------------------------------------------------------------- comparing
def _changes(old: Mapping[str, Any], new: Mapping[str, Any], parts: Mapping[str, Callable[[dict], Any]]) -> list[Change]:
    changes = []
    for subject in sorted(set(old) & set(new)):
        differing = {name: [read(old[subject]), read(new[subject])] for name, read in parts.items()
                     if read(old[subject]) != read(new[subject])}
        if differing:
            changes.append(Change(subject, sorted(differing), differing))
    return changes


_TASK_PARTS: dict[str, Callable[[dict], Any]] = {
    "gold": lambda task: (task.get("evaluation_criteria") or {}).get("actions"),
    "grading": lambda task: {key: value for key, value in (task.get("evaluation_criteria") or {}).items()
                             if key != "actions"},
    "scenario": lambda task: task.get("user_scenario"),
    "initial_state": lambda task: task.get("initial_state"),
}


def _artifact_digest(side: _Side, artifact: Mapping[str, Any]) -> str:
    paths = sorted(entry["path"] for entry in artifact.get("files", []))
    source = artifact.get("author_source")
    return sha256_hex("\n".join(f"{path} {side.digests.get(path, '-')}" for path in
                                [*paths, *([source] if source else [])]).encode())


def diff_bundles(old_files: Mapping[str, bytes], new_files: Mapping[str, bytes], old_label: str = "OLD",
                 new_label: str = "NEW") -> BundleDiff:
    """Compare two bundles given as ``{relative path: bytes}``.

    Args:
        old_files, new_files: the two bundles' files (as :func:`taugen.build.files.read_bundle` gives).
        old_label, new_label: how errors name each side (its folder).

    Returns:
        the :class:`BundleDiff`, with the implied bump and the verdict.

    Raises:
        InputError: a side lacks ``bundle.json``, the manifest or the task file, or they are of
            different domains.
    """
    old, new = _Side.read(old_files, old_label), _Side.read(new_files, new_label)
    if old.bundle["domain"] != new.bundle["domain"]:
        raise InputError(f"bundles of different domains ({old.bundle['domain']} and {new.bundle['domain']}) "
                         "cannot be compared", new_label)
    result = BundleDiff(old=old.bundle.get("name", old_label), new=new.bundle.get("name", new_label),
                        old_version=str(old.bundle.get("version", "")), new_version=str(new.bundle.get("version", "")))
    old_facts, new_facts = old.manifest.get("facts", {}), new.manifest.get("facts", {})
    result.facts_added = sorted(set(new_facts) - set(old_facts))
    result.facts_removed = sorted(set(old_facts) - set(new_facts))
    result.facts_changed = _changes(old_facts, new_facts, {name: (lambda fact, name=name: fact.get(name))
                                                            for name in _FACT_FIELDS})
    result.facts_moved = _changes(old_facts, new_facts, {"owner": lambda fact: fact.get("owner")})
    result.tasks_added = sorted(set(new.tasks) - set(old.tasks))
    result.tasks_removed = sorted(set(old.tasks) - set(new.tasks))
    result.tasks_changed = _changes(old.tasks, new.tasks, _TASK_PARTS)
    old_artifacts, new_artifacts = old.manifest.get("artifacts", {}), new.manifest.get("artifacts", {})
    result.artifacts_added = sorted(set(new_artifacts) - set(old_artifacts))
    result.artifacts_removed = sorted(set(old_artifacts) - set(new_artifacts))
    result.artifacts_changed = sorted(
        artifact_id for artifact_id in set(old_artifacts) & set(new_artifacts)
        if _artifact_digest(old, old_artifacts[artifact_id]) != _artifact_digest(new, new_artifacts[artifact_id]))
    for split in sorted(set(old.splits) | set(new.splits)):
        before, after = set(old.splits.get(split, [])), set(new.splits.get(split, []))
        if before != after:
            result.splits[split] = {"added": sorted(after - before), "removed": sorted(before - after)}
    task_files = {f"{old.runtime_dir}/tasks.json", f"{old.runtime_dir}/split_tasks.json"}
    runtime = {path for path in set(old.digests) | set(new.digests)
               if path.startswith(old.runtime_dir + "/") and path not in task_files}
    result.runtime_changed = sorted(path for path in runtime if old.digests.get(path) != new.digests.get(path))
    result.build_changed = _build_settings(old.bundle, new.bundle)
    _judge(result, old_facts, new_facts, old_artifacts, new_artifacts, old.tasks)
    return result


def _build_settings(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The build settings two ``bundle.json`` differ in: ``seed``, ``tier`` and each requested knob."""
    changed = {key: [old.get(key), new.get(key)] for key in ("seed", "tier") if old.get(key) != new.get(key)}
    before, after = old.get("requested") or {}, new.get("requested") or {}
    changed.update({f"requested {key}": [before.get(key), after.get(key)] for key in sorted(set(before) | set(after))
                    if before.get(key) != after.get(key) and "tier" not in changed})
    return changed


def _exercised(tasks: Mapping[str, Any], task_facts: Mapping[str, list[str]]) -> set[str]:
    return {fact for task_id in tasks for fact in task_facts.get(task_id, [])}


def _judge(result: BundleDiff, old_facts: Mapping[str, Any], new_facts: Mapping[str, Any],
           old_artifacts: Mapping[str, Any], new_artifacts: Mapping[str, Any], old_tasks: Mapping[str, Any]) -> None:
    """Set ``bump`` and ``reasons`` from what changed (see the module docstring for the rules)."""
    major, minor, patch = [], [], []
    if result.tasks_removed:
        major.append(f"{len(result.tasks_removed)} tasks removed")
    by_part: dict[str, int] = {}
    for change in result.tasks_changed:
        for part in change.fields:
            by_part[part] = by_part.get(part, 0) + 1
    major += [f"{count} tasks changed their {part.replace('_', ' ')}" for part, count in sorted(by_part.items())]
    world = [path for path in result.runtime_changed if path.endswith(("/db.json", "/db.toml", "/user_db.toml"))]
    if world:
        major.append(f"the world changed ({', '.join(world)})")
    policy_moves = [c.subject for c in result.facts_changed if "value" in c.fields and old_facts[c.subject].get("current")]
    if policy_moves:
        major.append(f"{len(policy_moves)} current facts changed value")
    removed_current = [fact for fact in result.facts_removed if old_facts[fact].get("current")]
    if removed_current:
        major.append(f"{len(removed_current)} current facts removed")
    if result.tasks_added:
        minor.append(f"{len(result.tasks_added)} tasks added")
    joined = sum(len(change["added"]) for change in result.splits.values())
    if joined:
        minor.append(f"{joined} split memberships added")
    if result.facts_added:
        minor.append(f"{len(result.facts_added)} facts added")
    other_fact_changes = [c.subject for c in result.facts_changed if c.subject not in policy_moves]
    if other_fact_changes:
        minor.append(f"{len(other_fact_changes)} facts changed dates, holder, wording or supersession")
    if result.facts_moved:
        minor.append(f"{len(result.facts_moved)} facts moved to another record")
    carriers_changed = [a for a in result.artifacts_changed
                        if old_artifacts[a].get("carrier") or new_artifacts[a].get("carrier")]
    carriers_changed += [a for a in result.artifacts_added if new_artifacts[a].get("carrier")]
    carriers_changed += [a for a in result.artifacts_removed if old_artifacts[a].get("carrier")]
    if carriers_changed:
        minor.append(f"{len(carriers_changed)} records carrying facts added, removed or re-rendered")
    fillers = (len(result.artifacts_changed) + len(result.artifacts_added) + len(result.artifacts_removed)
               - len(carriers_changed))
    if fillers:
        patch.append(f"{fillers} filler records added, removed or re-rendered")
    other_runtime = [path for path in result.runtime_changed if path not in world]
    if other_runtime:
        patch.append(f"runtime files changed ({', '.join(other_runtime)})")
    result.bump = "major" if major else "minor" if minor else "patch" if patch else "none"
    result.reasons = major or minor or patch
    if result.build_changed:  # two builds of one pack: its version says nothing about a seed or a knob
        settings = ", ".join(f"{key} {a} -> {b}" for key, (a, b) in result.build_changed.items())
        result.reasons = [f"built with other settings ({settings})", *result.reasons]
        result.version_warning = None
    else:
        result.version_warning = version_warning(result.old_version, result.new_version, result.bump)


def _semver(text: str) -> tuple[int, int, int] | None:
    parts = text.split("-")[0].split("+")[0].split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def version_bump(old_version: str, new_version: str) -> str | None:
    """The bump from ``old_version`` to ``new_version`` (``major`` ... ``none``); None if either is not
    ``MAJOR.MINOR.PATCH`` or the version went backwards."""
    old, new = _semver(old_version), _semver(new_version)
    if old is None or new is None or new < old:
        return None
    if new[0] > old[0]:
        return "major"
    if new[1] > old[1]:
        return "minor"
    if new[2] > old[2]:
        return "patch"
    return "none"


def version_warning(old_version: str, new_version: str, implied: str) -> str | None:
    """A one-line warning when the pack version moved less than the changes imply (semver), else None.

    Before 1.0.0 semver allows anything; taugen still asks for at least a minor bump for a change that
    breaks comparability, as Cargo and npm read ``0.x`` versions.
    """
    actual = version_bump(old_version, new_version)
    if actual is None:
        return f"pack version went from {old_version} to {new_version}, which is not a forward semver step"
    needed = implied
    if needed == "major" and _semver(new_version) and _semver(new_version)[0] == 0:
        needed = "minor"  # 0.x: a minor bump is the breaking one
    if BUMPS.index(actual) < BUMPS.index(needed) and needed in ("minor", "major"):
        return (f"the changes imply a {implied} version bump but the pack version went from {old_version} to "
                f"{new_version} ({actual}); bump `version:` in domain.yaml")
    return None


# ---------------------------------------------------------------------------- rendering
def _limited(items: list[str], limit: int) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


def render_text(result: BundleDiff, limit: int = 12) -> str:
    """A human-readable summary: counts per section with the first ``limit`` ids, then the verdict."""
    lines = [f"taugen diff {result.old} -> {result.new}"]
    if result.build_changed:
        lines.append("build settings differ: " + ", ".join(f"{key} {json.dumps(a)} -> {json.dumps(b)}"
                                                            for key, (a, b) in result.build_changed.items())
                     + " (two builds of the pack, not two versions: the pack version need not move)")

    def section(title: str, items: list[str]) -> None:
        if items:
            lines.append(f"  {title} ({len(items)}): {_limited(items, limit)}")

    lines.append("facts:")
    section("added", result.facts_added)
    section("removed", result.facts_removed)
    for change in result.facts_changed[:limit]:
        detail = "; ".join(f"{name} {json.dumps(change.values[name][0])} -> {json.dumps(change.values[name][1])}"
                           for name in change.fields if name != "statement")
        lines.append(f"  changed {change.subject}: {detail or 'statement reworded'}")
    if len(result.facts_changed) > limit:
        lines.append(f"  ... {len(result.facts_changed) - limit} more changed facts")
    section("moved to another record", [f"{c.subject} ({c.values['owner'][0]} -> {c.values['owner'][1]})"
                                        for c in result.facts_moved])
    lines.append("tasks:")
    section("added", result.tasks_added)
    section("removed", result.tasks_removed)
    for part in _TASK_PARTS:
        section(f"{part.replace('_', ' ')} changed", [c.subject for c in result.tasks_changed if part in c.fields])
    lines.append("records:")
    section("added", result.artifacts_added)
    section("removed", result.artifacts_removed)
    section("re-rendered", result.artifacts_changed)
    for split, change in result.splits.items():
        section(f"split {split} gained", change["added"])
        section(f"split {split} lost", change["removed"])
    section("runtime files changed", result.runtime_changed)
    lines.append(f"verdict: {result.verdict}")
    lines.append(f"implied version bump: {result.bump} ({'; '.join(result.reasons) or 'nothing changed'}); "
                 f"pack version {result.old_version} -> {result.new_version}")
    if result.version_warning:
        lines.append(f"warning: {result.version_warning}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- a bundle or a pack
class PackDoesNotBuild(Exception):
    """A pack given to ``taugen diff`` fails its build (its validators found errors); ``findings`` holds them."""

    def __init__(self, pack: str, findings: list) -> None:
        errors = [f for f in findings if f.severity == "error"]
        super().__init__(f"{pack}: the pack does not build ({len(errors)} error findings; run taugen build)")
        self.findings = findings


def read_side(target: str, reference: Mapping[str, bytes] | None = None, difficulty: str | None = None,
              seed: int | None = None) -> dict[str, bytes]:
    """The files of one side of a diff: a bundle folder as it is, or a pack (a folder holding
    ``domain.yaml`` or a built-in domain name) built at the tier and seed of ``reference``.

    Args:
        target: a bundle folder, a pack folder or a built-in domain name.
        reference: the other side's files (a bundle): a pack is built at its tier and seed, with the task
            count, evidence surface, modality and audio budget the bundle's build requested (a surface the
            build resolved, ``hard`` to ``hard_client``, resolves again).
        difficulty, seed: override the tier and seed a pack is built at.

    Raises:
        InputError: ``target`` is neither a bundle nor a pack, or a pack side has no tier to build at.
        PackDoesNotBuild: the pack's build has error findings.
    """
    import tempfile

    path = Path(target)
    if (path / "bundle.json").is_file():
        return read_summary(path)
    reference_bundle = json.loads(reference["bundle.json"]) if reference and "bundle.json" in reference else {}
    difficulty = difficulty or reference_bundle.get("tier")
    if difficulty is None:
        raise InputError("a pack can only be compared with a bundle, or with --difficulty given", target)
    seed = seed if seed is not None else int(reference_bundle.get("seed", 0))
    # The pack is built as the reference was requested (task count, evidence surface, modality, audio
    # budget), so a difference is the pack's edit, not a build option; an explicit other tier takes that
    # tier's defaults. A surface the build resolved (the tier's ``hard`` became ``hard_client`` because the
    # pack has client-held facts) is left to resolve again: passed as ``hard`` it would turn the client
    # overlay off, and every client-held fact would read as moved into the records.
    requested = reference_bundle.get("requested") or {}
    achieved = reference_bundle.get("achieved") or {}
    options: dict[str, Any] = {}
    if difficulty == reference_bundle.get("tier"):
        options = {key: requested[key] for key in ("tasks", "surface", "modality", "max_calls")
                   if requested.get(key) is not None}
        if achieved.get("surface") not in (None, requested.get("surface")):
            options.pop("surface", None)
    # the strong readers are report only: a reference built without them is rebuilt without them
    if ((reference_bundle.get("realism") or {}).get("readers") or {}).get("skipped"):
        options["readers"] = False
    from taugen.build.pipeline import build

    with tempfile.TemporaryDirectory(prefix="taugen-diff-") as scratch:
        result = build(target, difficulty, seed=seed, out=Path(scratch), **options)
        if result.path is None:
            raise PackDoesNotBuild(target, result.findings)
        return read_summary(result.path)
