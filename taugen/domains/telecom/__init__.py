"""The telecom domain: τ²-bench's telecom task space as taugen problem functions.

The world and the tools are tau2's own (``TelecomEnvironment``, adapted in :mod:`.env`); the problems
(:mod:`.problems`) are tau2's issues; the intents (:mod:`.intents`) are tau2's task managers; the task
space, certificates and tau2 emission are in :mod:`.compose`; :mod:`.build` plugs them into
``taugen build`` and :mod:`.check` into ``taugen validate``.
"""

from taugen.generators.domain import DomainDefinition
from taugen.domains.telecom.build import (
    build_world,
    compose_for_build,
    runtime_files,
    unexercisable,
)
from taugen.domains.telecom.check import check_tasks
from taugen.domains.telecom.env import TelecomToolkit
from taugen.domains.telecom.personas import PERSONAS
from taugen.domains.telecom.problems import PROBLEMS, CallerOnLine

POLICY_PREAMBLE = """You are a customer service agent for {brand}. You help users with technical support, overdue bill
payment, line suspension and plan options.

- The current time is {now}.
- Make only one tool call at a time; when you make a tool call, do not reply to the user in the same turn.
- First identify the customer from the phone number the user gives, and the line that number belongs to.
- The user's phone is in their hands, not yours: you guide the user to check and change settings on
  their device with the device actions described in the technical support manual.
- Transfer the user to a human agent with transfer_to_human_agents only when policy sends the case there
  or nothing within your actions can resolve it; then tell the user they are being transferred.
"""

REQUEST_WORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "refuel": (r"\brefuel\w*", ("refuel",)),
}
"""The carrier's own requests for the K10/K11 scenario check (``DomainDefinition.request_words``): a user
asks to refuel data, and ``refuel_data`` carries it out."""

DOMAIN = DomainDefinition(
    name="telecom",
    toolkit=TelecomToolkit,
    build_world=build_world,
    opening=CallerOnLine,
    problems=PROBLEMS,
    personas=PERSONAS,
    policy_preamble=POLICY_PREAMBLE,
    customer_table="agent",
    compose=compose_for_build,
    runtime_files=runtime_files,
    check_tasks=check_tasks,
    unexercisable=unexercisable,
    request_words=REQUEST_WORDS,
)
