"""Mutation operators (see :mod:`taugen.validators.mutation.model` for the contract)."""

from __future__ import annotations

from taugen.validators.mutation.model import MutableBundle, gold, instructions, mutation  # noqa: F401


@mutation("K19", "task_copied_under_new_id", "a task is copied verbatim under a new id")
def task_copied_under_new_id(bundle: MutableBundle) -> str | None:
    import copy

    original = sorted(bundle.tasks, key=lambda t: t["id"])[0]
    twin = copy.deepcopy(original)
    twin["id"] = original["id"] + "[COPY:1]"
    bundle.tasks.append(twin)
    bundle.splits["base"].append(twin["id"])
    return twin["id"]


@mutation("K12", "reward_basis_emptied", "a task's reward basis is emptied, so nothing is graded")
def reward_basis_emptied(bundle: MutableBundle) -> str | None:
    task = sorted(bundle.tasks, key=lambda t: t["id"])[0]
    task["evaluation_criteria"]["reward_basis"] = []
    return task["id"]
