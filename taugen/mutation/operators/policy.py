"""Generic mutation operators for problem families (see :mod:`taugen.mutation.model` for the contract).

A problem family (:mod:`taugen.generators.families`) realises its instances with the family tools it
names (``charge_service_fee``, ``submit_service_request``, ``submit_dated_request``,
``record_procedure_step``, ``record_quote``) and hands a routed caller over with tau2's
``transfer_to_human_agents``; these operators edit those calls, reading the values from the bundle's own
facts (``author/manifest.json``), so they apply to every domain that binds the families:

* K1 — a declined over-the-limit request submitted, a dated request past its window's edge submitted,
  procedure steps out of order, a caller routed to the wrong team;
* K3 — a fee from another row of the same service or fee table, a quoted value one unit off.

A domain's own policy operators (its problems' tempting writes, its fees) are in its ``mutations`` package.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from taugen.mutation.model import MutableBundle, gold, initial_records, instructions, mutation


def _topic_rows(bundle: MutableBundle) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Current facts by the catalogue topic a problem family binds them to (from the manifest)."""
    rows: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for fact_id, fact in sorted(bundle.manifest["facts"].items()):
        if fact.get("topic") and fact.get("current"):
            rows.setdefault(fact["topic"], []).append((fact_id, fact))
    return rows


def _service_key(topic: str, products: list[str]) -> str:
    """A catalogue topic with its product words taken out: the topics of one service on different products
    (``legal-process-fee-on-basic-savings``, ``legal-process-fee-on-money-market``) share it."""
    for product in products:
        topic = topic.replace(product.replace("_", "-"), "")
    return topic


@mutation("K3", "service_fee_from_other_product_row",
          "a family fee task charges the fee of another row of the same service or fee table (another product, "
          "branch or size: the author read the wrong row of the fee matrix)")
def service_fee_from_other_product_row(bundle: MutableBundle) -> str | None:
    rows = _topic_rows(bundle)
    by_service: dict[str, set[float]] = {}
    for topic, facts in rows.items():
        for _, fact in facts:
            if (fact.get("value") or {}).get("type") == "money" and fact.get("topic_products"):
                by_service.setdefault(_service_key(topic, fact["topic_products"]), set()).add(
                    round(float(fact["value"]["amount"]), 2))
    by_table: dict[str, set[float]] = {}  # rows of one fee table (a fact family), e.g. box rent by branch and size
    for fact in bundle.manifest["facts"].values():
        if fact.get("family") and fact.get("current") and (fact.get("value") or {}).get("type") == "money":
            by_table.setdefault(fact["family"], set()).add(round(float(fact["value"]["amount"]), 2))
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        for call in gold(task):
            if call["name"] != "charge_service_fee":
                continue
            fee = round(float(call["arguments"]["fee"]), 2)
            topic = call["arguments"]["topic_id"]
            products = next((f.get("topic_products") for _, f in rows.get(topic, []) if f.get("topic_products")), None)
            others = sorted({round(float(f["value"]["amount"]), 2) for _, f in rows.get(topic, [])
                             if (f.get("value") or {}).get("type") == "money"} - {fee})
            if not (others and len(rows[topic]) > 1) and products:  # one row here: the same service's other rows
                others = sorted(by_service.get(_service_key(topic, products), set()) - {fee})
            tables = {f["family"] for _, f in rows.get(topic, []) if f.get("family")}
            if not others and len(tables) == 1:  # else another row of the fee table the fact came from
                others = sorted(by_table.get(tables.pop(), set()) - {fee})
            if others:
                call["arguments"]["fee"] = others[0]
                return task["id"]
    return None


@mutation("K1", "limit_request_just_over_submitted",
          "a declined over-the-limit request is submitted anyway (the author read the cap as a floor)")
def limit_request_just_over_submitted(bundle: MutableBundle) -> str | None:
    rows = _topic_rows(bundle)
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        for index, call in enumerate(gold(task)):
            if call["name"] != "submit_service_request":
                continue
            caps = [f for _, f in rows.get(call["arguments"]["topic_id"], []) if (f.get("value") or {}).get("type") == "cap"]
            if len(caps) > 1:  # product rows of one limit: the row of the account's product
                product = (initial_records(bundle, task, "accounts").get(call["arguments"]["account_id"]) or {}).get("product")
                caps = [f for f in caps if product in (f.get("applies_to") or [])]
            caps = [f["value"] for f in caps]
            if len(caps) == 1:
                call["arguments"]["amount"] = round(float(caps[0]["amount"]) * 1.1 + 1, 2)
                return task["id"]
    return None


@mutation("K3", "quote_off_by_one_unit",
          "a quoted figure is one unit off what the fact says (an off-by-one reading of a deadline, count or rate; "
          "windows and counts first)")
def quote_off_by_one_unit(bundle: MutableBundle) -> str | None:
    import re

    rows = _topic_rows(bundle)
    for types in (("duration", "count"), ("percent", "cap", "money")):  # a window or count where the bundle has one
        for task in sorted(bundle.tasks, key=lambda t: t["id"]):
            for call in gold(task):
                if call["name"] != "record_quote":
                    continue
                facts = rows.get(call["arguments"]["topic_id"], [])
                if len(facts) == 1 and (facts[0][1].get("value") or {}).get("type") in types:
                    value = str(call["arguments"]["value"])
                    match = re.search(r"\d+", value)
                    if match:
                        call["arguments"]["value"] = value[:match.start()] + str(int(match.group()) + 1) \
                            + value[match.end():]
                        return task["id"]
    return None


@mutation("K1", "window_request_past_its_edge_submitted",
          "a dated request whose event lies just past its window's edge is submitted anyway, the scenario dated "
          "to match (the author counted the deadline off by two units)")
def window_request_past_its_edge_submitted(bundle: MutableBundle) -> str | None:
    from taugen.generators.families import spoken_date
    from taugen.generators.policy import ManifestFacts, window_edge

    rows = _topic_rows(bundle)
    facts = ManifestFacts(bundle.manifest["facts"])
    today = dt.datetime.fromisoformat(bundle.manifest["now"]).date()
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        for call in gold(task):
            if call["name"] != "submit_dated_request":
                continue
            windows = [fact_id for fact_id, f in rows.get(call["arguments"]["topic_id"], [])
                       if f.get("window") and (f.get("value") or {}).get("type") == "duration"]
            if len(windows) != 1:
                continue
            value, window = facts.value(windows[0]), facts.window(windows[0])
            old = dt.date.fromisoformat(call["arguments"]["event_date"])
            new = window_edge(value, today, inside=window["within"] == "refused")
            text = instructions(task)
            if spoken_date(old) not in (text.get("known_info") or ""):
                continue
            text["known_info"] = text["known_info"].replace(spoken_date(old), spoken_date(new))
            call["arguments"]["event_date"] = new.isoformat()
            return task["id"]
    return None


@mutation("K1", "procedure_steps_out_of_order",
          "the gold records two neighbouring steps of a procedure in the wrong order (the author followed the "
          "order the catalogue lists the steps in, or an older version of the procedure)")
def procedure_steps_out_of_order(bundle: MutableBundle) -> str | None:
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        steps = [call for call in gold(task) if call["name"] == "record_procedure_step"]
        for first, second in zip(steps, steps[1:]):
            if first["arguments"]["topic_id"] == second["arguments"]["topic_id"] \
                    and first["arguments"]["step"] != second["arguments"]["step"]:
                first["arguments"]["step"], second["arguments"]["step"] = \
                    second["arguments"]["step"], first["arguments"]["step"]
                return task["id"]
    return None


@mutation("K1", "routed_to_the_wrong_team",
          "the gold transfers a caller whose request a routing fact sends to one team to another team (the author "
          "remembered last year's routing, or the team that handles most calls)")
def routed_to_the_wrong_team(bundle: MutableBundle) -> str | None:
    from taugen.generators.families import routed_by_facts
    from taugen.generators.policy import ManifestFacts

    facts = ManifestFacts(bundle.manifest["facts"])
    for task in sorted(bundle.tasks, key=lambda t: t["id"]):
        scenario = " ".join(str(value) for value in instructions(task).values() if value)
        routed = routed_by_facts(facts, scenario)
        for call in gold(task):
            if call["name"] != "transfer_to_human_agents" or call["arguments"].get("department") not in routed:
                continue
            options = facts.value(routed[call["arguments"]["department"]][0]).options
            other = next((o for o in options if o not in routed), None)
            if other is None:
                continue
            call["arguments"]["department"] = other
            return task["id"]
    return None
