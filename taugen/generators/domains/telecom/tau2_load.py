"""Load a telecom bundle with tau2's own telecom loader and grade its gold path with tau2 itself.

Run as ``python -m taugen.generators.domains.telecom.tau2_load <bundle>`` (a fresh process: tau2 keeps
its data paths in module constants). It sets ``TAU2_DATA_DIR`` to the bundle (read by tau2 releases
that honour it) and points the path constants of ``tau2.domains.telecom`` at the bundle's
``tau2/domains/telecom`` (this tau2 hard-codes its package data). Then, with tau2's code only:
``get_tasks`` for every split, ``get_environment`` (db.toml, user_db.toml, both policy files) and, for
every task, ``set_state`` with its initialization actions, the gold actions by requestor, and every
env assertion. Prints one JSON object: counts and the problems met.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def check(bundle: Path) -> dict:
    os.environ["TAU2_DATA_DIR"] = str(bundle)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from loguru import logger

    logger.remove()
    from tau2.domains.telecom import environment, utils

    old_root = Path(utils.TELECOM_DATA_DIR)
    new_root = bundle / "tau2" / "domains" / "telecom"
    for module in (utils, environment):
        for name, value in list(vars(module).items()):
            if isinstance(value, Path) and (value == old_root or old_root in value.parents):
                setattr(module, name, new_root / value.relative_to(old_root))
    report: dict = {"problems": []}
    splits = environment.get_tasks_split()
    report["splits"] = {name: len(environment.get_tasks(name)) for name in splits}
    tasks = environment.get_tasks(None)
    report["tasks"] = len(tasks)
    env = environment.get_environment()
    report["policy_chars"] = len(env.get_policy())
    passed = 0
    for task in tasks:
        env = environment.get_environment()
        env.set_state(task.initial_state.initialization_data, task.initial_state.initialization_actions, [])
        try:
            for action in task.evaluation_criteria.actions or []:
                env.make_tool_call(action.name, requestor=action.requestor, **action.arguments)
                env.sync_tools()
        except Exception as exc:  # noqa: BLE001
            report["problems"].append(f"{task.id}: gold {type(exc).__name__}: {exc}")
            continue
        failed = [a.func_name for a in task.evaluation_criteria.env_assertions or []
                  if not env.run_env_assertion(a, raise_assertion_error=False)]
        if failed:
            report["problems"].append(f"{task.id}: assertions fail after gold: {failed}")
        else:
            passed += 1
    report["gold_passes"] = passed
    return report


if __name__ == "__main__":
    print(json.dumps(check(Path(sys.argv[1]).resolve())))
