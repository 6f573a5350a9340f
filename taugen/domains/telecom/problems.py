"""Telecom problem functions: one taugen :class:`Problem` per τ²-bench telecom issue.

Each problem's ``setup`` runs its *break* calls on tau2's telecom environment (tau2 ``init_funcs``:
device switches through the user toolkit, suspensions and usage through the agent toolkit, with
sanity assertions that must hold right after), ``solve`` returns the gold tool calls with their
requestor (tau2 ``fix_funcs``), and ``check`` lists the task's graded env assertions that do not
hold. Problems whose outcome is ``transfer`` cannot be fixed under policy: a task holding one is
solved by a transfer to a human agent, and every other fix is withheld.

Amounts come from the pack (refuel cap, network mode, whether a suspension may be lifted after the
contract end); ids come from the environment (the caller's customer, line and overdue bill are looked
up from the phone number, as the agent would).

Facts: a problem's ``facts`` are the typed facts its gold reads (or that decide whether it can be fixed);
the build proves that perturbing each changes the task's gold (``compose.decisive_facts`` says which a
task declares). ``context_facts`` are the ones it follows that no typed perturbation can move: procedure
text (which tool fixes what), the plan figures (the world's plans are tau2's database, which the pack's
plan facts must match: ``build.check_pack_matches_world``), the one-bill cap (tau2's payment tool
enforces it), the free roaming charge (nothing in a task is charged for roaming) and the other typed facts
:data:`TYPED_CONTEXT` explains (the order of a procedure or of the workflow's checks, tau2's data model,
what a phone check reports).
"""

from __future__ import annotations

from typing import Any, ClassVar

from taugen.domains.telecom.env import (
    AssertionFailed,
    EnvCall,
    TelecomToolkit,
    tau2_classes,
)
from taugen.generators.problems import (
    GoldCall,
    Problem,
    ProblemContext,
    ScenarioFragment,
)

OVERDUE_BILL_ID = "B1234321"
"""Id of the bill the suspension breaks create (tau2 uses this id; the service assertions name it)."""
SUBJECT_LINE = "L1002"
"""The caller's line in the world (John Smith's premium line)."""


# ---------------------------------------------------------------------------- helpers
def _toolkit(context: ProblemContext) -> TelecomToolkit:
    return context.toolkit  # type: ignore[return-value]


def caller(context: ProblemContext) -> tuple[Any, Any]:
    """The caller's customer and line, found from the phone number in the user's surroundings."""
    env = _toolkit(context).env
    phone = env.user_tools.db.surroundings.phone_number
    return env.tools.get_customer_by_phone(phone), env.tools._get_line_by_phone(phone)


def _ids(context: ProblemContext) -> dict[str, str]:
    customer, line = caller(context)
    return {"customer_id": customer.customer_id, "line_id": line.line_id}


def user(func_name: str, assert_value: bool | None = None, message: str | None = None, **arguments: Any) -> EnvCall:
    return EnvCall("user", func_name, arguments, assert_value, message)


def agent(func_name: str, assert_value: bool | None = None, message: str | None = None, **arguments: Any) -> EnvCall:
    return EnvCall("assistant", func_name, arguments, assert_value, message)


def refuel_gb(context: ProblemContext) -> float:
    """The most data an agent may refuel (``data_refuel_max``), in GB."""
    return float(context.value("data_refuel_max").amount)  # type: ignore[attr-defined]


def speed_mode(context: ProblemContext) -> str:
    """The network mode the manual prescribes for full speed (``network_mode_for_speed``)."""
    return context.value("network_mode_for_speed").value  # type: ignore[attr-defined]


class TelecomProblem(Problem):
    """A telecom issue: break calls, fix calls (None when policy forbids a fix), extra assertions.

    Class attributes beyond :class:`Problem`:
        description: tau2's one-line description of the issue (``description.info``).
        abroad: the issue puts the caller abroad (the scenario says so).
    """

    description: ClassVar[str] = ""
    abroad: ClassVar[bool] = False

    def breaks(self, context: ProblemContext) -> list[EnvCall]:
        """Calls that put the environment in the problem state, with sanity assertions among them."""
        raise NotImplementedError

    def fixes(self, context: ProblemContext) -> list[GoldCall] | None:
        """Gold calls that fix the problem on the broken environment; None when it cannot be fixed."""
        raise NotImplementedError

    def extra_assertions(self, context: ProblemContext) -> list[EnvCall]:
        """Graded assertions the problem adds when the task succeeds (computed on the broken state)."""
        return []

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        apply_breaks(_toolkit(context), self.breaks(context), context.state.setdefault("init", []), self.name)
        return ScenarioFragment(reason_for_call="")

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        return self.fixes(context) or []

    def check(self, context: ProblemContext) -> list[str]:
        return _toolkit(context).unmet(context.state.get("assertions", []))


def apply_breaks(toolkit: TelecomToolkit, calls: list[EnvCall], record: list[EnvCall], name: str) -> None:
    """Run break calls; record the non-assertion ones (tau2 keeps assertions out of the stored
    ``initialization_actions``); a failing sanity assertion raises :class:`AssertionFailed`."""
    for call in calls:
        if call.is_assertion:
            if not toolkit.run(call):
                raise AssertionFailed(f"{name}: after setup, {call.describe()} does not hold"
                                      + (f" ({call.message})" if call.message else ""))
        else:
            toolkit.run(call)
            record.append(call)


# ---------------------------------------------------------------------------- opening
class CallerOnLine(Problem):
    """Every task opens with it: the simulated user is the customer on the subject line (tau2's
    ``set_surrounding``). Its facts are the ones the agent needs to find the customer."""

    name = "caller_on_line"
    slot = "caller"
    facts = ()
    context_facts = ("customer_lookup_methods", "customer_lookup_name_needs_dob", "identify_customer_first")
    summary = "The caller is the customer on the subject line."

    def setup(self, context: ProblemContext) -> ScenarioFragment:
        toolkit = _toolkit(context)
        line = toolkit.env.tools._get_line_by_id(SUBJECT_LINE)
        customer = toolkit.env.tools.get_customer_by_phone(line.phone_number)
        context.state.update(name=customer.full_name, phone_number=line.phone_number)
        call = user("set_user_info", name=customer.full_name, phone_number=line.phone_number)
        apply_breaks(toolkit, [call], context.state.setdefault("init", []), self.name)
        return ScenarioFragment(reason_for_call="",
                                known_info=[f"You are {customer.full_name} with phone number {line.phone_number}."])

    def solve(self, context: ProblemContext) -> list[GoldCall]:
        return []

    def check(self, context: ProblemContext) -> list[str]:
        return []


# ---------------------------------------------------------------------------- service
class AirplaneModeOn(TelecomProblem):
    name = "airplane_mode_on"
    slot = "airplane_mode"
    facts = ()
    context_facts = ("airplane_mode_blocks_service", "airplane_mode_fix", "airplane_mode_check",
                     "no_service_status_bar_signs", "service_fix_verify")
    description = "Airplane mode is on."
    summary = "Airplane mode is on: the user turns it off."

    def breaks(self, context):
        return [user("turn_airplane_mode_on"), user("assert_airplane_mode_status", True, expected_status=True),
                user("assert_service_status", True, "Airplane mode is on but service is not broken",
                     expected_status="no_service")]

    def fixes(self, context):
        return [GoldCall("toggle_airplane_mode", {}, "user")]


class UnseatSimCard(TelecomProblem):
    name = "unseat_sim_card"
    slot = "sim_seating"
    facts = ()
    context_facts = ("sim_missing_fix", "sim_problem_causes", "sim_reseat_check_active", "service_fix_verify")
    description = "SIM card is unseated."
    summary = "The SIM card is not seated: the user reseats it."

    def breaks(self, context):
        return [user("unseat_sim_card"),
                user("assert_service_status", True, "SIM card is unseated but service is not broken",
                     expected_status="no_service")]

    def fixes(self, context):
        return [GoldCall("reseat_sim_card", {}, "user")]


class LockSimCardPin(TelecomProblem):
    name = "lock_sim_card_pin"
    slot = "sim_lock"
    facts = ()
    context_facts = ("sim_locked_escalate", "sim_problem_causes", "transfer_when_out_of_scope", "transfer_procedure",
                     "transfer_hold_message")
    outcome = "transfer"
    description = "SIM card is locked with a PIN"
    summary = "The SIM card is PIN-locked: only a human agent can help."

    def breaks(self, context):
        return [user("lock_sim_card", mode="pin"),
                user("assert_service_status", True, "SIM card is locked with pin but service is not broken",
                     expected_status="no_service")]

    def fixes(self, context):
        return None


class BreakApnSettings(TelecomProblem):
    name = "break_apn_settings"
    slot = "apn"
    facts = ()
    context_facts = ("apn_incorrect_fix", "apn_reset_needs_reboot", "apn_incorrect_loses_service", "service_fix_verify")
    description = "APN settings are broken"
    summary = "The APN settings are broken: reset them and reboot."

    def breaks(self, context):
        return [user("break_apn_settings"),
                user("assert_service_status", True, "APN settings are broken but service is not broken",
                     expected_status="no_service")]

    def fixes(self, context):
        return [GoldCall("reset_apn_settings", {}, "user"), GoldCall("reboot_device", {}, "user")]


def pay_and_resume(context: ProblemContext) -> list[GoldCall]:
    """Gold calls that lift a suspension for an overdue bill: request payment of the caller's overdue
    bill, the user pays, resume the line, the user reboots.

    Raises:
        LookupError: the caller's account has no overdue bill.
    """
    customer, line = caller(context)
    tools = _toolkit(context).env.tools
    overdue = tau2_classes()["BillStatus"].OVERDUE
    bill_id = next((b for b in customer.bill_ids if tools._get_bill_by_id(b).status == overdue), None)
    if bill_id is None:
        raise LookupError("no overdue bill on the caller's account")
    return [GoldCall("send_payment_request", {"customer_id": customer.customer_id, "bill_id": bill_id}),
            GoldCall("make_payment", {}, "user"),
            GoldCall("resume_line", {"customer_id": customer.customer_id, "line_id": line.line_id}),
            GoldCall("reboot_device", {}, "user")]


def may_resume_after_contract_end(context: ProblemContext) -> bool:
    """Whether an agent may lift a suspension once the line's contract has ended
    (``no_resume_after_contract_end``: its boolean says whether that is allowed; the pack says no)."""
    return bool(context.value("no_resume_after_contract_end").value)  # type: ignore[attr-defined]


class _Suspension(TelecomProblem):
    slot = "suspension"
    contract_ended: ClassVar[bool] = False

    def breaks(self, context):
        ids = _ids(context)
        return [agent("suspend_line_for_overdue_bill", **ids, new_bill_id=OVERDUE_BILL_ID,
                      contract_ended=self.contract_ended),
                user("simulate_network_search"),
                user("assert_service_status", True, "User is suspended for an overdue bill but service is not broken",
                     expected_status="no_service"),
                agent("assert_overdue_bill_exists", True, "Overdue bill does not exist",
                      customer_id=ids["customer_id"], overdue_bill_id=OVERDUE_BILL_ID),
                agent("assert_line_status", True, "Line is not suspended", **ids,
                      expected_status=tau2_classes()["LineStatus"].SUSPENDED)]


class OverdueBillSuspension(_Suspension):
    name = "overdue_bill_suspension"
    facts = ()
    context_facts = ("suspension_for_overdue_bill", "resume_after_overdue_paid", "overdue_payment_steps",
                     "one_bill_awaiting_payment", "reboot_after_resume", "suspended_line_no_service",
                     "payment_request_sets_awaiting", "payment_on_acceptance", "payment_marks_bill_paid",
                     "service_fix_verify")
    description = "Line is suspended for an overdue bill"
    summary = "The line is suspended for an overdue bill: request payment, resume the line, reboot."

    def fixes(self, context):
        return pay_and_resume(context)


class ContractEndSuspension(_Suspension):
    name = "contract_end_suspension"
    facts = ("no_resume_after_contract_end",)
    context_facts = ("suspension_for_overdue_bill", "suspension_for_contract_end", "suspension_unliftable_escalate",
                     "transfer_when_out_of_scope", "transfer_procedure", "transfer_hold_message")
    outcome = "transfer"
    contract_ended = True
    description = "Line is suspended for an overdue bill and a contract end"
    summary = "The line is suspended and its contract has ended: only a human agent can lift it."

    def fixes(self, context):
        """None (transfer) while policy forbids lifting a suspension after the contract end; the overdue
        bill's payment and resume where it allows it (the fact decides whether the task is a transfer)."""
        return pay_and_resume(context) if may_resume_after_contract_end(context) else None


# ---------------------------------------------------------------------------- mobile data
class _Roaming(TelecomProblem):
    slot = "roaming"
    abroad = True
    description = "User is abroad and roaming is off"
    roaming_on_device: ClassVar[bool] = False
    line_roaming: ClassVar[bool] = True

    def breaks(self, context):
        ids = _ids(context)
        calls = [user("set_user_location", abroad=True)]
        if self.roaming_on_device:
            calls += [user("turn_roaming_on"), user("assert_mobile_roaming_status", True, expected_status=True)]
        else:
            calls += [user("turn_roaming_off"), user("assert_mobile_roaming_status", True, expected_status=False)]
        if self.line_roaming:
            calls.append(agent("enable_roaming", **ids))
        else:
            calls += [agent("disable_roaming", **ids), user("simulate_network_search"),
                      user("assert_internet_speed", True, expected_speed=0, expected_desc="No Connection")]
        return calls

    def fixes(self, context):
        calls = []
        if not self.line_roaming:
            calls.append(GoldCall("enable_roaming", _ids(context)))
        if not self.roaming_on_device:
            calls.append(GoldCall("toggle_roaming", {}, "user"))
        return calls


class AbroadRoamingEnabledOff(_Roaming):
    name = "user_abroad_roaming_enabled_off"
    facts = ()
    context_facts = ("roaming_device_toggle", "roaming_ask_if_traveling", "data_fix_retest")
    summary = "Abroad, the line may roam but data roaming is off on the phone: the user turns it on."


class AbroadRoamingDisabledOn(_Roaming):
    name = "user_abroad_roaming_disabled_on"
    facts = ()
    context_facts = ("roaming_enable_when_traveling", "roaming_free_of_charge", "roaming_line_check",
                     "roaming_line_needed_abroad", "roaming_ask_if_traveling", "data_fix_retest")
    roaming_on_device = True
    line_roaming = False
    summary = "Abroad, data roaming is on but the line is not roaming enabled: the agent enables it at no cost."


class AbroadRoamingDisabledOff(_Roaming):
    name = "user_abroad_roaming_disabled_off"
    facts = ()
    context_facts = ("roaming_enable_when_traveling", "roaming_free_of_charge", "roaming_line_check",
                     "roaming_device_toggle", "roaming_line_needed_abroad", "roaming_ask_if_traveling",
                     "roaming_check_order", "data_fix_retest")
    line_roaming = False
    summary = "Abroad, neither the line nor the phone allows roaming: enable both."


class DataModeOff(TelecomProblem):
    name = "data_mode_off"
    slot = "data_mode"
    facts = ()
    context_facts = ("mobile_data_disabled_fix", "mobile_data_without_wifi", "data_fix_retest")
    description = "Data mode is off"
    summary = "Mobile data is switched off: the user turns it on."

    def breaks(self, context):
        return [user("turn_data_off"), user("assert_mobile_data_status", True, expected_status=False)]

    def fixes(self, context):
        return [GoldCall("toggle_data", {}, "user")]


class DataSaverModeOn(TelecomProblem):
    name = "data_saver_mode_on"
    slot = "data_saver"
    facts = ()
    context_facts = ("data_saver_fix", "data_saver_slows_data", "slow_fix_retest")
    description = "Data saver mode is on"
    summary = "Data saver is on and slows data: the user turns it off."

    def breaks(self, context):
        return [user("turn_data_saver_mode_on"), user("assert_mobile_data_saver_mode_status", True, expected_status=True)]

    def fixes(self, context):
        return [GoldCall("toggle_data_saver_mode", {}, "user")]


class BadNetworkPreference(TelecomProblem):
    name = "bad_network_preference"
    slot = "network_mode"
    facts = ("network_mode_for_speed",)
    context_facts = ("mms_needs_3g", "old_network_modes_slow", "slow_fix_retest")
    description = "Bad network preference"
    summary = "The phone prefers 2G: the user sets 4G/5G preferred."

    def breaks(self, context):
        return [user("set_network_mode_preference", mode="2g_only")]

    def fixes(self, context):
        return [GoldCall("set_network_mode_preference", {"mode": speed_mode(context)}, "user")]


class BadVpn(TelecomProblem):
    name = "bad_vpn"
    slot = "vpn"
    facts = ()
    context_facts = ("vpn_poor_fix", "vpn_can_slow_data", "slow_fix_retest")
    description = "Bad vpn"
    summary = "A poor VPN slows data: the user disconnects it."

    def breaks(self, context):
        return [user("break_vpn"), user("assert_internet_not_excellent", True)]

    def fixes(self, context):
        return [GoldCall("disconnect_vpn", {}, "user")]


def _overage(context: ProblemContext, refuelled: float) -> float:
    """Usage just past the caller's allowance (plan limit plus data already refuelled)."""
    _, line = caller(context)
    plan = _toolkit(context).env.tools._get_plan_by_id(line.plan_id)
    return round(plan.data_limit_gb + refuelled + 0.1, 1)


class DataUsageExceeded(TelecomProblem):
    name = "data_usage_exceeded"
    slot = "data_usage"
    facts = ("data_refuel_max",)
    context_facts = ("data_limit_exceeded_no_data", "data_refuel_steps", "plan_p1002_data_limit",
                     "plan_p1002_refuel_price", "data_exceeded_user_chooses", "refuel_price_computation")
    description = "Data usage exceeded"
    summary = "The plan's data allowance is used up: the agent refuels the maximum."

    def breaks(self, context):
        ids = _ids(context)
        return [agent("set_data_usage", **ids, data_used_gb=_overage(context, 0.0)),
                user("assert_mobile_data_usage_exceeded", True, expected_status=True)]

    def fixes(self, context):
        return [GoldCall("refuel_data", {**_ids(context), "gb_amount": refuel_gb(context)})]

    def extra_assertions(self, context):
        _, line = caller(context)
        return [agent("assert_data_refueling_amount", True, **_ids(context),
                      expected_amount=line.data_refueling_gb + refuel_gb(context))]


class DataUsageExceededNoRefuel(TelecomProblem):
    name = "data_usage_exceeded_no_refuel"
    slot = "data_usage"
    facts = ("data_refuel_max",)
    context_facts = ("data_limit_exceeded_no_data", "data_exceeded_no_fix_escalate", "transfer_when_out_of_scope",
                     "transfer_procedure", "transfer_hold_message")
    outcome = "transfer"
    description = "Data usage exceeded"
    summary = "The allowance is used up and the maximum refuel was already added: only a human agent can help."

    def breaks(self, context):
        ids = _ids(context)
        amount = refuel_gb(context)
        return [agent("refuel_data", **ids, gb_amount=amount),
                agent("set_data_usage", **ids, data_used_gb=_overage(context, amount)),
                user("assert_mobile_data_usage_exceeded", True, expected_status=True)]

    def fixes(self, context):
        return None


# ---------------------------------------------------------------------------- MMS
class BadWifiCalling(TelecomProblem):
    name = "bad_wifi_calling"
    slot = "wifi_calling"
    facts = ()
    context_facts = ("wifi_calling_mms_fix", "wifi_calling_can_block_mms", "mms_fix_retest")
    description = "Bad wifi calling"
    summary = "Wi-Fi Calling with MMS over Wi-Fi blocks MMS: the user turns Wi-Fi Calling off."

    def breaks(self, context):
        return [user("set_wifi_calling", enabled=True, mms_over_wifi=True)]

    def fixes(self, context):
        return [GoldCall("toggle_wifi_calling", {}, "user")]


class BreakApnMmsSetting(TelecomProblem):
    name = "break_apn_mms_setting"
    slot = "apn_mms"
    facts = ()
    context_facts = ("mmsc_missing_fix", "apn_reset_needs_reboot", "mmsc_url_required", "mms_fix_retest")
    description = "Break apn mms setting"
    summary = "The MMSC URL is missing from the APN: reset the APN and reboot."

    def breaks(self, context):
        return [user("break_apn_mms_setting")]

    def fixes(self, context):
        return [GoldCall("reset_apn_settings", {}, "user"), GoldCall("reboot_device", {}, "user")]


MESSAGING_APP = "messaging"


class _AppPermission(TelecomProblem):
    slot = "app_permissions"
    facts = ()
    context_facts = ("messaging_app_permissions", "messaging_app_required_permissions", "mms_fix_retest")
    permissions: ClassVar[tuple[str, ...]] = ()

    def breaks(self, context):
        return [user("remove_app_permission", app_name=MESSAGING_APP, permission=p) for p in self.permissions]

    def fixes(self, context):
        return [GoldCall("grant_app_permission", {"app_name": MESSAGING_APP, "permission": p}, "user")
                for p in self.permissions]


class BreakAppSmsPermission(_AppPermission):
    name = "break_app_sms_permission"
    permissions = ("sms",)
    description = "Break app sms permission"
    summary = "The messaging app lacks the SMS permission: the user grants it."


class BreakAppStoragePermission(_AppPermission):
    name = "break_app_storage_permission"
    permissions = ("storage",)
    description = "Break app storage permission"
    summary = "The messaging app lacks the storage permission: the user grants it."


class BreakAppBothPermissions(_AppPermission):
    name = "break_app_both_permissions"
    permissions = ("sms", "storage")
    description = "Break app both permissions"
    summary = "The messaging app lacks the SMS and storage permissions: the user grants both."


_PROCEDURE_ORDER = ("the order of an agent procedure: tau2 grades a telecom task by its final database and phone "
                    "state, and no problem's gold is built from this order")
_PATH_ORDER = ("the workflow's order of checks: a task's gold is its problems' fixes (tau2's fix calls), which do "
               "not read this order, and tau2 grades the final state, not the order of the checks")
_DATA_MODEL = ("describes tau2's telecom data model (its statuses, types and fields are tau2's own), and no task's "
               "gold or graded assertion reads this number")
_PHONE_REPORT = ("describes what a phone check reports (tau2's device tools compute it), and no task's gold or "
                 "graded assertion turns on it")

TYPED_CONTEXT = {
    "plan": "the world's plans are tau2's database (the plan facts must match it: check_pack_matches_world), "
            "so a task reads its plan's figures from the database, not from this fact",
    "one_bill_awaiting_payment": "tau2's send_payment_request enforces the one-bill rule itself, and no task "
                                 "holds a second bill a request could be refused for",
    "roaming_free_of_charge": "enabling roaming charges nothing in tau2's tools, and no task's gold or "
                              "graded assertion carries a roaming charge",
    "speed_goal_excellent": "the mobile-data scenario states it, but the graded speed assertion is tau2's "
                            "(excellent at 200 Mbps), and no gold call turns on it",
    "one_tool_call_at_a_time": "a rule of the conversation's turns: no task's gold or graded assertion counts "
                               "tool calls per turn",
    "overdue_payment_steps": _PROCEDURE_ORDER,
    "data_refuel_steps": _PROCEDURE_ORDER,
    "plan_change_steps": _PROCEDURE_ORDER,
    "roaming_check_order": _PATH_ORDER,
    "no_service_path_order": _PATH_ORDER,
    "unavailable_data_path_order": _PATH_ORDER,
    "slow_data_path_order": _PATH_ORDER,
    "mms_path_order": _PATH_ORDER,
    "account_statuses": _DATA_MODEL,
    "line_statuses": _DATA_MODEL,
    "device_types": _DATA_MODEL,
    "payment_method_types": _DATA_MODEL,
    "payment_method_last_digits": _DATA_MODEL,
    "speed_test_levels": _PHONE_REPORT,
    "signal_strength_bars": _PHONE_REPORT,
    "messaging_app_required_permissions": "each app-permission problem names the permissions it removes and its "
                                          "gold grants exactly those, not a number read from this fact",
    "issue_classification": "a task's scenario describes the symptom, but its gold is the problems' fixes, "
                            "whatever path the agent names",
    "wifi_data_not_covered": "no task breaks Wi-Fi, so no task's gold turns on whether the mobile data path "
                             "covers it",
}
"""Why a telecom fact with a typed value decides no task (``plan`` stands for every ``plan_*`` fact; a family
name, e.g. ``signal_strength_bars``, for every fact of the family): it is context, and
:func:`taugen.domains.telecom.build.unexercisable` reports the reason."""


PROBLEMS: tuple[type[TelecomProblem], ...] = (
    # Within a slot, members are in tau2's selection-set order (it fixes task order, hence personas).
    AirplaneModeOn, UnseatSimCard, LockSimCardPin, BreakApnSettings, OverdueBillSuspension, ContractEndSuspension,
    AbroadRoamingEnabledOff, AbroadRoamingDisabledOn, AbroadRoamingDisabledOff, DataModeOff, DataSaverModeOn,
    BadNetworkPreference, BadVpn, DataUsageExceeded, DataUsageExceededNoRefuel,
    BadWifiCalling, BreakApnMmsSetting, BreakAppSmsPermission, BreakAppStoragePermission, BreakAppBothPermissions,
)
