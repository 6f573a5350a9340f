"""The client API server of a construction bundle, started for real on a free loopback port.

* the defect-free deployment passes schemathesis against its own published contract;
* each of the nine defect kinds is seen by a scripted probe when deployed, and not without it;
* the bundle's production deployment binds every kind to operations of the contract;
* sessions are isolated and deterministic.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from taugen.build.construction.defects import DEFECT_KINDS, Defect, Deployment  # noqa: E402
from taugen.construction.bundle import ConstructionBundle  # noqa: E402
from taugen.construction.server import ApiService, running_server, service_for_bundle  # noqa: E402


@pytest.fixture(scope="module")
def bundle(built_bundle) -> ConstructionBundle:
    return ConstructionBundle.open(built_bundle("hard"))


def _busiest_account(bundle: ConstructionBundle) -> str:
    database = bundle.database("evaluation")
    counts: dict[str, int] = {}
    for transaction in database.transactions.values():
        counts[transaction.account_id] = counts.get(transaction.account_id, 0) + 1
    return max(sorted(counts), key=lambda account: counts[account])


def _service(bundle: ConstructionBundle, defects: tuple[Defect, ...] = ()) -> ApiService:
    return ApiService(bundle.toolkit_class, bundle.database("evaluation"), bundle.now, bundle.openapi,
                      Deployment(name="probe", version="probe", defects=defects))


def _defect(bundle: ConstructionBundle, kind: str, operation: str, **parameters) -> Defect:
    template = next(d for d in bundle.deployment("production").defects if d.kind == kind)
    return template.model_copy(update={"operations": (operation,), "parameters": {**template.parameters,
                                                                                    **parameters}})


def _all_pages(client, account: str, limit: int, stop_after: int = 10) -> list[str]:
    ids, cursor = [], None
    for _ in range(stop_after):
        params = {"account_id": account, "limit": limit, **({"cursor": cursor} if cursor else {})}
        page = client.get("/v1/list_transactions", params=params).json()
        ids += [item["transaction_id"] for item in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    return ids


def _verified(client, bundle: ConstructionBundle, customer_id: str) -> None:
    customer = bundle.database("evaluation").customers[customer_id]
    answer = client.post("/v1/verify_identity", json={"customer_id": customer_id, "date_of_birth":
                                                      customer.date_of_birth, "ssn_last4": customer.ssn_last4})
    assert answer.status_code == 200, answer.text


def _probe(kind: str, client, bundle: ConstructionBundle) -> object:
    """What a developer's probe script records for ``kind``; equal with and without the defect means unseen."""
    account = _busiest_account(bundle)
    database = bundle.database("evaluation")
    if kind in ("pagination", "lost_cursor", "limit_before_sort", "silent_truncation"):
        full = client.get("/v1/list_transactions", params={"account_id": account, "limit": 100}).json()
        first = client.get("/v1/list_transactions", params={"account_id": account, "limit": 4}).json()
        return {"paged": _all_pages(client, account, 2), "first_page": [i["transaction_id"] for i in first["items"]],
                "complete": [i["transaction_id"] for i in full["items"]], "cursor": full["next_cursor"]}
    if kind == "stale_read":
        account_record = database.accounts[account]
        _verified(client, bundle, account_record.customer_id)
        other = "paper" if account_record.statement_delivery == "electronic" else "electronic"
        before = client.get("/v1/get_account", params={"account_id": account}).json()["statement_delivery"]
        assert client.post("/v1/set_statement_delivery", json={"account_id": account, "delivery": other}
                           ).status_code == 200
        first = client.get("/v1/get_account", params={"account_id": account}).json()["statement_delivery"]
        second = client.get("/v1/get_account", params={"account_id": account}).json()["statement_delivery"]
        return {"changed_at_once": first != before, "changed_later": second != before}
    if kind == "non_idempotent_retry":
        card = sorted(database.cards.values(), key=lambda c: c.card_id)[0]
        _verified(client, bundle, card.customer_id)
        body = {"card_id": card.card_id, "shipping": "standard", "fee": 0.0}
        headers = {"Idempotency-Key": "probe-1"}
        first = client.post("/v1/order_replacement_card", json=body, headers=headers)
        retry = client.post("/v1/order_replacement_card", json=body, headers=headers)
        return {"first": first.status_code, "retry": retry.status_code, "same": first.json() == retry.json()}
    if kind == "wrong_status_code":
        answer = client.post("/v1/verify_identity", json={"customer_id": sorted(database.customers)[0],
                                                          "date_of_birth": "1900-01-01", "ssn_last4": "0000"})
        return {"status": answer.status_code, "error": "error" in answer.json()}
    if kind == "timezone_off_by_one":
        return client.get("/v1/get_current_time").json()["message"]
    if kind == "rounding":
        return client.get("/v1/get_account", params={"account_id": account}).json()["balance"]
    raise AssertionError(kind)


_BINDINGS = {"pagination": "list_transactions", "lost_cursor": "list_transactions",
             "limit_before_sort": "list_transactions", "silent_truncation": "list_transactions",
             "stale_read": "get_account", "non_idempotent_retry": "order_replacement_card",
             "wrong_status_code": "verify_identity", "timezone_off_by_one": "get_current_time",
             "rounding": "get_account"}


@pytest.mark.parametrize("kind", DEFECT_KINDS)
def test_each_defect_kind_is_seen_by_a_probe_and_absent_without_it(bundle, kind):
    defect = _defect(bundle, kind, _BINDINGS[kind])
    observed = {}
    for label, defects in (("clean", ()), ("defect", (defect,))):
        with running_server(_service(bundle, defects)) as url, httpx.Client(base_url=url) as client:
            observed[label] = _probe(kind, client, bundle)
    clean, deployed = observed["clean"], observed["defect"]
    assert clean != deployed
    if kind in ("pagination", "lost_cursor", "limit_before_sort", "silent_truncation"):
        assert clean["paged"] == clean["complete"] and clean["first_page"] == clean["complete"][:4]
        assert len(clean["complete"]) >= 5 and clean["cursor"] is None
    if kind == "pagination":
        mode = defect.parameters["mode"]
        assert (len(deployed["paged"]) < len(clean["paged"])) if mode == "drop" else \
            (len(deployed["paged"]) > len(set(deployed["paged"])))
    if kind == "lost_cursor":
        assert deployed["paged"][:2] == deployed["paged"][2:4]
    if kind == "limit_before_sort":
        assert sorted(deployed["first_page"]) != sorted(clean["first_page"])
    if kind == "silent_truncation":
        assert len(deployed["complete"]) == 3 and deployed["cursor"] is None
    if kind == "stale_read":
        assert clean == {"changed_at_once": True, "changed_later": True}
        assert deployed == {"changed_at_once": False, "changed_later": True}
    if kind == "non_idempotent_retry":
        assert clean == {"first": 200, "retry": 200, "same": True}
        assert deployed["first"] == 504 and deployed["retry"] == 409
    if kind == "wrong_status_code":
        assert clean == {"status": 422, "error": True} and deployed == {"status": 200, "error": True}
    if kind == "timezone_off_by_one":
        assert dt.datetime.fromisoformat(deployed) - dt.datetime.fromisoformat(clean) == dt.timedelta(hours=1)
        assert clean == bundle.now.isoformat()
    if kind == "rounding":
        assert deployed == round(clean) and deployed != clean or clean == round(clean)


def test_production_deployment_binds_all_nine_kinds_to_contract_operations(bundle):
    deployment = bundle.deployment("production")
    operations = {op["operationId"] for methods in bundle.openapi["paths"].values() for op in methods.values()}
    assert sorted(d.kind for d in deployment.defects) == sorted(DEFECT_KINDS)
    for defect in deployment.defects:
        assert defect.operations and set(defect.operations) <= operations
        assert defect.fix and defect.disclosure and defect.workaround
    manifest = bundle.json("kit/framework/deployment_manifest.json")
    assert manifest["client_api"]["known_issues"] == [d.name for d in deployment.defects]
    kit_manifest_text = (bundle.path / "kit/framework/deployment_manifest.json").read_text()
    assert not any(kind in kit_manifest_text for kind in DEFECT_KINDS if "_" in kind)


def test_sessions_are_isolated_and_fresh(bundle):
    service = service_for_bundle(bundle, "clean", "evaluation")
    database = bundle.database("evaluation")
    customer = database.customers[sorted(database.customers)[0]]
    with running_server(service) as url, httpx.Client(base_url=url) as client:
        answer = client.post("/v1/verify_identity", headers={"X-Session-Key": "a"}, json={
            "customer_id": customer.customer_id, "date_of_birth": customer.date_of_birth,
            "ssn_last4": customer.ssn_last4})
        assert answer.status_code == 200
    assert len(service.session_database("a").verifications) == len(database.verifications) + 1
    assert len(service.session_database("b").verifications) == len(database.verifications)


def test_server_starts_and_stops_on_a_free_port(bundle):
    service = service_for_bundle(bundle, "clean")
    with running_server(service) as url:
        assert httpx.get(f"{url}/openapi.json").json()["openapi"] == "3.1.0"
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/openapi.json", timeout=2)


def _has_enums(bundle: ConstructionBundle) -> bool:
    return "enum" in str([spec.as_openai_function() for spec in bundle.toolkit_class.tool_specs().values()])


def test_clean_deployment_passes_schemathesis(bundle, tmp_path):
    schemathesis = pytest.importorskip("schemathesis")
    assert schemathesis
    service = service_for_bundle(bundle, "clean", "evaluation")
    with running_server(service) as url:
        run = subprocess.run([sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json", "--checks", "all",
                              "--max-examples", "5", "--seed", "1", "--suppress-health-check", "all", "--no-color",
                              "--report-dir", str(tmp_path)],
                             capture_output=True, text=True, timeout=900, cwd=tmp_path,
                             env={**os.environ, "NO_COLOR": "1"})
    if run.returncode != 0 and not _has_enums(bundle):
        # Without enums in the tool parameter specs a value a tool refuses (department "") is schema-valid;
        # that, and nothing else, may fail until the tool specs carry their Literal values.
        failures = {line.strip() for line in run.stdout.splitlines() if line.strip().startswith("- ST")}
        assert failures == {"- ST202 Schema-valid request rejected"}, run.stdout[-4000:]
        pytest.xfail("positive_data_acceptance needs enums in the tool parameter specs")
    assert run.returncode == 0, run.stdout[-4000:]
