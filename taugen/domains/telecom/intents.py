"""The three telecom intents (tau2 ``TaskManager`` instances): what the caller wants, which problem
slots may stand between them and it, and what the grader asserts.

* ``service_issue``: "No Service"; slots airplane mode, SIM seating, SIM lock, APN, suspension.
* ``mobile_data_issue``: data off or slow; airplane mode as a prerequisite distractor, then roaming,
  data switch, data saver, network mode, VPN, data usage. At least one mobile-data problem.
* ``mms_issue``: MMS fails; service and mobile-data problems as prerequisites, then network mode,
  Wi-Fi Calling, MMS APN, app permissions. At least one MMS problem.

Slot order is tau2's selection-set order: it fixes the order of the task product, hence which
persona each task gets. The user text is tau2's, with two corrections: the grounding sentence names
the user's real status tool (``check_status_bar``; tau2 says ``get_status_bar``, which no toolkit has)
and amounts come from the pack's facts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from taugen.authoring.pack import Pack
from taugen.domains.telecom.env import EnvCall
from taugen.domains.telecom.problems import OVERDUE_BILL_ID

EXCELLENT_SPEED_MBPS = 200
"""What tau2's simulated speed test returns when nothing slows the line (an oracle constant)."""

TOOL_CALL_INFO_CHECK = ("If the tool call does not return updated status information, you might need to perform "
                        "another tool call to get the updated status.")
TOOL_CALL_GROUNDING = """
Whenever the agent asks you about your device, always ground your responses on the results of tool calls. 
For example: If the agent asks what the status bar shows, always ground your response on the results of the `{status_tool}` tool call. If the agent asks if you are able to send an MMS message, always ground your response on the results of the `can_send_mms` tool call.
Never make up the results of tool calls, always ground your responses on the results of tool calls.
If you are unsure about whether an action is necessary, always ask the agent for clarification.
"""
STATUS_TOOL = "check_status_bar"
FRUSTRATION = ("If the agent suggests actions that don't immediately fix the issue, follow their guidance but express "
               "mild frustration after the first unsuccessful attempt.")


@dataclass(frozen=True)
class Intent:
    """One intent.

    Attributes:
        name: the id prefix (``[name]``).
        purpose: ``description.purpose``.
        slots: problem slots in tau2's selection-set order.
        required_from: index of the first slot of the intent's own problems; a task needs at least one
            problem from ``slots[required_from:]`` (0: any non-empty combination).
        texts: ``(pack) -> {reason_for_call, known_info, task_instructions, ticket}``; known_info and
            ticket are templates over ``{name}``, ``{phone_number}``, ``{location}``.
        assertions: ``(expected_success) -> graded env assertions``.
    """

    name: str
    purpose: str
    slots: tuple[str, ...]
    required_from: int
    texts: Callable[[Pack], dict[str, str]]
    assertions: Callable[[bool], list[EnvCall]]


def _grounding() -> str:
    return f"{TOOL_CALL_INFO_CHECK} {TOOL_CALL_GROUNDING.format(status_tool=STATUS_TOOL)}"


def _gb(pack: Pack) -> str:
    return f"{float(pack.fact('data_refuel_max').value.amount)} GB"  # type: ignore[union-attr]


def _speed(pack: Pack) -> tuple[str, str]:
    value = pack.fact("speed_goal_excellent").value
    goal = value.value  # type: ignore[union-attr]
    below = [option for option in value.options if option != goal]  # type: ignore[union-attr]
    return goal, ", ".join(below[:-1]) + f" or {below[-1]}"


# ---------------------------------------------------------------------------- service
def _service_texts(pack: Pack) -> dict[str, str]:
    return {
        "reason_for_call": "Your phone has been showing 'No Service' for the past few hours.",
        "known_info": "You are {name} with phone number {phone_number}.",
        "task_instructions": f"{FRUSTRATION} You will consider the issue resolved when the status bar shows that you "
                             "have signal. Always check the status bar if the agent asks you for status information. "
                             f"If the agent asks you to pay a bill, you accept. {_grounding()}",
        "ticket": "The user is experiencing issues with their phone service. They are unable to make or receive "
                  "calls, and the status bar shows 'No Service'. Customer name: {name}, phone number: {phone_number}. "
                  "They gave permission to pay all their overdue bills. They will consider the issue resolved when "
                  "the status bar shows that they have signal.",
    }


def _service_assertions(expected_success: bool) -> list[EnvCall]:
    if expected_success:
        return [EnvCall("user", "assert_service_status", {"expected_status": "connected"}, True,
                        "Service status is not as expected"),
                EnvCall("assistant", "assert_no_overdue_bill", {"overdue_bill_id": OVERDUE_BILL_ID}, True,
                        "Overdue bill is not as expected")]
    return [EnvCall("user", "assert_service_status", {"expected_status": "no_service"}, True)]


# ---------------------------------------------------------------------------- mobile data
def _mobile_texts(pack: Pack) -> dict[str, str]:
    goal, below = _speed(pack)
    gb = _gb(pack)
    return {
        "reason_for_call": f"You mobile data is not working properly. It either stops working or is very slow. You "
                           f"want to fix it and absolutely want to get {goal} internet speed on your phone. You are not "
                           f"willing to accept any other internet speed ({below}). You do not have access to wifi.",
        "known_info": "You are {name} with phone number {phone_number}. You are currently {location}.",
        "task_instructions": f"{FRUSTRATION} You will consider the issue resolved only when speed test returns {goal} "
                             f"internet speed and nothing else. If it returns {below}, you will not consider the issue "
                             f"resolved. You are willing to refuel {gb} of data if necessary, but you do not want to "
                             f"change your mobile data plan. {_grounding()}",
        "ticket": "The user is experiencing issues with their mobile data. They are unable to use their phone to browse "
                  "the internet, and the status bar shows 'No Service'. Customer name: {name}, phone number: "
                  "{phone_number}, current location: {location}. They will consider the issue resolved when speed "
                  f"test returns {goal} internet speed. They will not change their mobile data plan but they will "
                  f"refuel {gb} of data if necessary.",
    }


def _mobile_assertions(expected_success: bool) -> list[EnvCall]:
    speed, desc = (EXCELLENT_SPEED_MBPS, "excellent") if expected_success else (0, None)
    return [EnvCall("user", "assert_mobile_data_status", {"expected_status": expected_success}, True),
            EnvCall("user", "assert_internet_speed", {"expected_speed": speed, "expected_desc": desc}, True)]


# ---------------------------------------------------------------------------- MMS
def _mms_texts(pack: Pack) -> dict[str, str]:
    return {
        "reason_for_call": "You are unable to send MMS messages using your messaging app for the past few hours. You "
                           "want to fix it and successfully send an MMS message.",
        "known_info": "You are {name} with phone number {phone_number}. You are currently {location}.",
        "task_instructions": f"{FRUSTRATION} You are willing to refuel {_gb(pack)} of data if necessary, but you do "
                             f"not want to change your mobile data plan. {_grounding()}",
        "ticket": "The user has been unable to send MMS messages using their messaging app for the past few hours. "
                  "Customer name: {name}, phone number: {phone_number}, current location: {location}. They will "
                  "consider the issue resolved when an MMS message can be successfully sent.",
    }


def _mms_assertions(expected_success: bool) -> list[EnvCall]:
    return [EnvCall("user", "assert_can_send_mms", {"expected_status": expected_success}, True)]


INTENTS: tuple[Intent, ...] = (
    # tau2's create_tasks builds mobile data, then service, then MMS.
    Intent("mobile_data_issue", "Test resolution path: Mobile Data/Slow Internet Issues.",
           ("airplane_mode", "roaming", "data_mode", "data_saver", "network_mode", "vpn", "data_usage"), 1,
           _mobile_texts, _mobile_assertions),
    Intent("service_issue", "Test resolution path: No Service/Connection Issues.",
           ("airplane_mode", "sim_seating", "sim_lock", "apn", "suspension"), 0, _service_texts, _service_assertions),
    Intent("mms_issue", "Test resolution path: MMS (Picture/Group Messaging) Issues.",
           ("airplane_mode", "sim_seating", "data_mode", "data_usage", "roaming", "network_mode", "wifi_calling",
            "apn_mms", "app_permissions"), 5, _mms_texts, _mms_assertions),
)
INTENT_BY_NAME = {intent.name: intent for intent in INTENTS}
