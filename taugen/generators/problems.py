"""Problem functions: the composable unit of a task (setup, solve, check).

This follows τ²-bench's telecom task generator (``BaseTask`` with init / fix functions, selection
sets, ``verify_task``), generalised: a problem declares the facts it exercises, ``setup`` puts one
customer's world into the problem state and says what the simulated user knows and wants,
``solve`` returns the gold tool calls, and ``check`` lists what is still unmet (empty once solved).
Problems that policy forbids have ``outcome`` ``refuse`` (gold: no write; the user must be told no)
or ``transfer`` (gold: a transfer to a named human team).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from taugen.authoring.pack import Pack
    from taugen.authoring.values import _Value
    from taugen.generators.environment import Toolkit

Outcome = Literal["resolve", "refuse", "transfer"]


@dataclass
class ScenarioFragment:
    """What one problem adds to the user scenario (tau2 ``StructuredUserInstructions``).

    Attributes:
        reason_for_call: one sentence, first person.
        known_info: facts the user knows and may give (ids, amounts, dates).
        task_instructions: how the user behaves, including what to accept when refused.
        unknown_info: what the user does not know.
        communicate_info: short comma-free strings the agent must say (tau2 COMMUNICATE criteria).
        withheld: for a sentence of ``unknown_info`` that keeps one value from the user (an account number),
            that value: when another problem of the same task gives the user that value in ``known_info``,
            the task's scenario drops the sentence rather than say both (a user told the number by one
            request and that they do not know it by another).
    """

    reason_for_call: str
    known_info: list[str] = field(default_factory=list)
    task_instructions: list[str] = field(default_factory=list)
    unknown_info: list[str] = field(default_factory=list)
    communicate_info: list[str] = field(default_factory=list)
    withheld: dict[str, str] = field(default_factory=dict)


@dataclass
class GoldCall:
    """One step of the reference trajectory: a tool call by ``requestor`` (tau2 ``Action``)."""

    name: str
    arguments: dict[str, Any]
    requestor: Literal["assistant", "user"] = "assistant"
    info: str | None = None
    compare_args: list[str] | None = None
    """The arguments tau2's ACTION check compares (None: all; []: none, for a step such as a calculation
    whose exact wording is the agent's own)."""


@dataclass
class ProblemContext:
    """What a problem's functions receive.

    Attributes:
        toolkit: the environment, holding the database being set up or checked.
        pack: the domain pack (fact values come from here, never from literals in code).
        customer_id: the customer the task is about.
        rng: random generator seeded from the build seed, the task id and the problem name.
        state: what ``setup`` recorded for ``solve`` and ``check`` (ids it created, amounts).
    """

    toolkit: "Toolkit"
    pack: "Pack"
    customer_id: str
    rng: random.Random
    state: dict[str, Any] = field(default_factory=dict)

    def value(self, fact_id: str) -> "_Value":
        """The typed value of a fact the problem declared.

        Raises:
            KeyError: the fact is unknown or has no value.
        """
        value = self.pack.fact(fact_id).value
        if value is None:
            raise KeyError(f"fact '{fact_id}' has no typed value")
        return value


class Problem(ABC):
    """Base class of a problem function set.

    Class attributes:
        name: snake_case id, used in task ids.
        slot: selection set: a task holds at most one problem per slot.
        facts: ids of the facts that decide the problem's gold outcome (checked against the pack at build
            time, and proven by the certificate's fact-sensitivity proof: perturbing one changes the gold).
        context_facts: ids of facts the problem follows but no typed perturbation can change (procedure
            text such as "verify the caller first"); reported, not proven.
        outcome: ``resolve``, ``refuse`` or ``transfer``.
        summary: one line for reports and ``description.purpose``.
        excludes: names of problems that cannot share a task with this one.
    """

    name: ClassVar[str]
    slot: ClassVar[str]
    facts: ClassVar[tuple[str, ...]]
    context_facts: ClassVar[tuple[str, ...]] = ()
    outcome: ClassVar[Outcome] = "resolve"
    summary: ClassVar[str] = ""
    excludes: ClassVar[tuple[str, ...]] = ()

    def applicable(self, toolkit: "Toolkit", customer_id: str) -> bool:
        """Whether this customer can carry the problem (default: always)."""
        return True

    @abstractmethod
    def setup(self, context: ProblemContext) -> ScenarioFragment:
        """Put the customer's world into the problem state; return the user's side of the story."""

    @abstractmethod
    def solve(self, context: ProblemContext) -> list[GoldCall]:
        """The gold tool calls that resolve the problem as policy requires."""

    @abstractmethod
    def check(self, context: ProblemContext) -> list[str]:
        """Conditions still unmet, in words; an empty list means solved."""

    @classmethod
    def location(cls) -> tuple[str, int]:
        """Source file and line of the class (for error messages)."""
        import inspect

        return inspect.getsourcefile(cls) or "?", inspect.getsourcelines(cls)[1]
