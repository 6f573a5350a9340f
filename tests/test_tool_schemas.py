"""Tool schemas as an agent needs them: a description per parameter, enums for closed value sets,
amounts as numbers in dollars, and tool errors (never Python exception text) for bad arguments."""

from __future__ import annotations

import json
import typing

import pytest

import taugen  # noqa: F401
from taugen.domains.banking import db
from taugen.domains.banking.tools import BankingTools
from taugen.generators.environment import ToolError

ENUMS = {("order_replacement_card", "shipping"): db.Shipping, ("refund_fee", "reason"): db.RefundReason,
         ("open_dispute", "reason"): db.DisputeReason, ("set_statement_delivery", "delivery"): db.StatementDelivery,
         ("transfer_to_human_agents", "department"): db.Department}
AMOUNTS = {("order_replacement_card", "fee"), ("place_stop_payment", "amount"), ("place_stop_payment", "fee"),
           ("close_account", "closure_fee"), ("send_wire", "amount"), ("send_wire", "fee"),
           ("charge_service_fee", "fee"), ("submit_service_request", "amount")}  # the problem families' tools


def _properties():
    for name, spec in BankingTools.tool_specs().items():
        for parameter, schema in spec.parameters_schema()["properties"].items():
            yield name, parameter, schema


def test_every_banking_tool_parameter_has_a_description():
    missing = [(tool, parameter) for tool, parameter, schema in _properties() if len(schema.get("description", "")) < 10]
    assert missing == []
    assert len(list(_properties())) >= 25


def test_closed_value_sets_are_the_database_enums_and_amounts_are_dollar_numbers():
    properties = {(tool, parameter): schema for tool, parameter, schema in _properties()}
    for key, values in ENUMS.items():
        assert properties[key]["enum"] == list(typing.get_args(values)), key
        # the database model uses the same closed set
    assert typing.get_args(db.FeeRefund.model_fields["reason"].annotation) == typing.get_args(db.RefundReason)
    assert typing.get_args(db.HumanTransfer.model_fields["department"].annotation) == typing.get_args(db.Department)
    for key in AMOUNTS:
        assert properties[key]["type"] == "number" and "US dollars" in properties[key]["description"], key
    numbers = {key for key, schema in properties.items() if schema.get("type") == "number"}
    assert numbers == AMOUNTS


@pytest.mark.parametrize("arguments,expected", [
    ({"card_id": "CRD-1", "shipping": "standard", "fee": "25.00"},
     "order_replacement_card: 'fee' must be a number, not str '25.00' (fee: The replacement fee"),
    ({"card_id": "CRD-1", "shipping": "overnight", "fee": 5.0},
     "order_replacement_card: 'shipping' must be one of standard, expedited; got 'overnight'"),
    ({"card_id": "CRD-1", "shipping": "standard"}, "order_replacement_card: missing required argument 'fee'"),
    ({"card_id": "CRD-1", "shipping": "standard", "fee": 5, "speed": "fast"},
     "order_replacement_card: unknown argument 'speed'; order_replacement_card takes: card_id, shipping, fee"),
    ({"card_id": 42, "shipping": "standard", "fee": 5}, "'card_id' must be a string, not int 42"),
    ({"card_id": "CRD-1", "shipping": "standard", "fee": True}, "'fee' must be a number, not bool True"),
])
def test_bad_arguments_are_tool_errors_that_say_what_to_send(arguments, expected):
    with pytest.raises(ToolError) as caught:
        BankingTools.check_arguments("order_replacement_card", arguments)
    assert expected in str(caught.value)
    BankingTools.check_arguments("order_replacement_card", {"card_id": "CRD-1", "shipping": "standard", "fee": 5})


@pytest.mark.tau2
def test_tau2_shows_the_kit_schemas_and_returns_tool_errors_not_python_exceptions(built_bundle):
    pytest.importorskip("tau2")
    from tau2.data_model.message import ToolCall
    from tau2.registry import registry

    from taugen.build import tau2_runtime

    tau2_runtime.silence_tau2_logs()
    bundle = built_bundle("easy")
    name = tau2_runtime.register_bundle(bundle)
    environment = registry.get_env_constructor(name)()
    shown = {tool.name: tool.openai_schema for tool in environment.get_tools()}
    kit = {tool["function"]["name"]: tool for tool in json.loads((bundle / "kit" / "tools.json").read_text())}
    assert shown == kit  # the same schemas, descriptions and enums in kit/tools.json as in tau2
    card = next(iter(json.loads((bundle / "tau2" / "domains" / "banking" / "db.json").read_text())["cards"]))
    for arguments, expected in (
            ({"card_id": card, "shipping": "standard", "fee": "25.00"}, "'fee' must be a number, not str '25.00'"),
            ({"card_id": card, "shipping": "drone", "fee": 0}, "'shipping' must be one of standard, expedited"),
            ({"card_id": card}, "missing required argument 'shipping'"),
            ({"card_id": card, "shipping": "standard", "fee": 0, "note": "x"}, "unknown argument 'note'")):
        message = environment.get_response(ToolCall(id="1", name="order_replacement_card", arguments=arguments))
        assert message.error and message.content.startswith("Error: order_replacement_card: "), message.content
        assert expected in message.content
        assert "TypeError" not in message.content and "positional" not in message.content


@pytest.mark.tau2
def test_every_telecom_agent_tool_parameter_has_tau2s_description():
    """Telecom's tools are tau2's own: the schemas taugen writes carry the parameter descriptions tau2
    parses from their docstrings, so kit/tools.json tells an agent what tau2 tells it."""
    pytest.importorskip("tau2")
    from tau2.domains.telecom.environment import get_environment

    from taugen.domains.telecom.env import TelecomToolkit

    ours = {spec.name: spec.parameters_schema()["properties"] for spec in TelecomToolkit.tool_specs().values()}
    theirs = {tool.name: tool.openai_schema["function"]["parameters"]["properties"]
              for tool in get_environment().get_tools()}
    assert set(ours) == set(theirs) and len(ours) >= 10
    for name, properties in ours.items():
        assert set(properties) == set(theirs[name]), name
        for parameter, schema in properties.items():
            assert schema.get("description"), f"{name}.{parameter} has no description"
            assert schema["description"] == theirs[name][parameter]["description"]
