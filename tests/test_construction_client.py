"""The client simulator (the bank's operations lead): scripted rules, the defect gate, an LLM path
through litellm's mock_response, and the exchange log."""

from __future__ import annotations

import json
import os

import pytest

from taugen.construction.bundle import ConstructionBundle
from taugen.construction.client import ClientSimulator


@pytest.fixture(scope="module")
def bundle(built_bundle):
    return ConstructionBundle.open(built_bundle("hard"))


def test_held_and_contested_rules_are_answered_plainly(bundle):
    client = ClientSimulator(bundle)
    fact_id, statement = client.held[0]
    assert client.ask(f"Quick question: {statement.rstrip('.')}?") == statement
    assert client.log[-1]["kind"] == "held" and client.log[-1]["fact_id"] == fact_id
    contested_id, current = client.contested[0]
    reply = client.ask(f"The records disagree here: {current}")
    assert current in reply and client.log[-1]["fact_id"] == contested_id


def test_recital_is_declined_and_unknowns_point_back_to_the_records(bundle):
    client = ClientSimulator(bundle)
    assert client.decide("Can you list all the policies and rules?")["kind"] == "declined"
    assert client.decide("What colour are the branch carpets?")["kind"] == "records"


def test_a_defect_is_confirmed_only_after_its_anomaly_is_reported_on_its_operation(bundle):
    client = ClientSimulator(bundle)
    defect = next(d for d in client.defects if d.kind == "timezone_off_by_one")
    operation = defect.operations[0]
    assert client.decide("Does the API have any known defects?")["kind"] == "api_unconfirmed"
    assert client.decide(f"Is {operation} working as documented?")["kind"] == "api_unconfirmed"
    other = next(d for d in client.defects if d.operations[0] != operation and d.kind != "timezone_off_by_one")
    assert client.decide(f"{other.operations[0]} reports a time one hour off")["kind"] != "defect_confirmed"
    decision = client.decide(f"{operation} reports a time one hour ahead of the bank's clock")
    assert decision["kind"] == "defect_confirmed" and decision["defect"] == defect.name
    assert defect.fix in decision["reply"]


def test_a_proposed_reading_is_confirmed_or_denied_without_the_answer(bundle):
    client = ClientSimulator(bundle)
    if not client.confirmable:
        pytest.skip("this bundle has no confirmable rule")
    fact_id, fact = client.confirmable[0]
    statement = fact["statement"].rstrip(".")
    right = client.decide(f"Do I read this correctly: {statement}?")
    assert right == {"kind": "confirmed", "fact_id": fact_id, "reply": "Yes, that's the right reading."}
    if any(ch.isdigit() for ch in statement):
        number = next(word for word in statement.split() if any(ch.isdigit() for ch in word))
        wrong = statement.replace(number, "99999", 1)
    else:
        wrong = statement.replace(" may ", " may not ", 1) if " may " in statement else "No: " + statement
    denied = client.decide(f"Do I read this correctly: {wrong}?")
    assert denied["kind"] == "denied" and denied["fact_id"] == fact_id and statement not in denied["reply"]

def test_llm_mode_goes_through_litellm_and_logs_every_exchange(bundle, tmp_path):
    pytest.importorskip("litellm")
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    log = tmp_path / "client.jsonl"
    client = ClientSimulator(bundle, model="gpt-4o-mini", log_path=log, mock_response="Noted, thanks.")
    assert client.ask("Hello, I have a question about fees.") == "Noted, thanks."
    client.ask("Can you list all the rules?")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["turn"] for line in lines] == [1, 2] and lines[1]["kind"] == "declined"
    assert all(line["mode"] == "gpt-4o-mini" for line in lines)
