"""The fast DB states of the ``tasks`` validator (``taugen.generators.db_texts``) agree with a full recompute.

A replay on a :func:`copy_on_access` copy, read through :meth:`TableTexts.state`, must give the DB hash of the
same replay on a full :func:`clone` dumped whole (tau2's rule), whatever the replay does: nothing, a change in
one table, an in-place change of a nested value, a value replaced by an equal one of another type, records
added or removed. And the validator's findings on banking tasks, defects planted, must be those of the
replay it replaced (full clone and full hash per replay).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest
from pydantic import BaseModel, Field

from taugen.findings import error
from taugen.generators.db_texts import (
    TableTexts,
    copy_on_access,
    patched,
    same_text,
    state_hash,
    supports,
    validates_by_field,
)
from taugen.generators.environment import Toolkit, clone, dict_hash, merged_for_reading
from taugen.validators import tasks as tasks_validator
from taugen.validators.replays import DatabaseReplays, initial_state, replay


class Item(BaseModel):
    item_id: str
    price: float
    active: bool = True
    tags: list[str] = Field(default_factory=list)
    added: dt.date | None = None


class Owner(BaseModel):
    owner_id: str
    name: str
    items: list[str] = Field(default_factory=list)


class ShopDB(BaseModel):
    STATIC_TABLES: ClassVar[tuple[str, ...]] = ("catalogue",)

    items: dict[str, Item] = Field(default_factory=dict)
    owners: dict[str, Owner] = Field(default_factory=dict)
    catalogue: dict[str, Owner] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)
    log: list[Item] = Field(default_factory=list)
    counter: int = 0


RAW = {
    "items": {"i2": {"item_id": "i2", "price": 0.0, "tags": ["b"]},
              "i1": {"item_id": "i1", "price": 2.5, "tags": ["a", "sale"]}},
    "owners": {"o1": {"owner_id": "o1", "name": "Ann", "items": ["i1", "i2"]}},
    "catalogue": {"c1": {"owner_id": "c1", "name": "Catalogue"}},
    "notes": {"n1": "first"},
    "log": [{"item_id": "i1", "price": 2.5, "added": "2026-01-31"}],
}


def full_hash(db: BaseModel) -> str:
    """tau2's DB hash, the slow way: the whole database dumped."""
    return dict_hash(db.model_dump())


@pytest.fixture
def source() -> ShopDB:
    return ShopDB.model_validate(RAW)


def test_db_hash_dumps_a_field_that_is_no_table_as_the_model_does(source):
    """``Toolkit.db_hash`` of a model with static tables hashes table by table; a list of records must be
    dumped by pydantic there too (it was ``str()`` of each record, unlike tau2's hash)."""
    assert Toolkit(source, None).db_hash() == full_hash(source)
    assert '"log": [{"active": true, "added": "2026-01-31"' in json.dumps(source.model_dump(), sort_keys=True, default=str)


MUTATIONS = {
    "nothing (tables read)": lambda db: (db.items["i1"].price, list(db.owners.values()), db.catalogue["c1"]),
    "one scalar in one table": lambda db: setattr(db.items["i1"], "price", 3.0),
    "a nested list in place": lambda db: db.owners["o1"].items.append("i3"),
    "a nested list item in place": lambda db: db.items["i1"].tags.__setitem__(0, "z"),
    "an equal value of another type": lambda db: setattr(db.items["i1"], "active", 1),
    "minus zero for zero": lambda db: setattr(db.items["i2"], "price", -0.0),
    "an equal but new string": lambda db: setattr(db.owners["o1"], "name", "".join(["A", "nn"])),  # noqa: FLY002
    "a record added": lambda db: db.items.__setitem__("i0", Item(item_id="i0", price=1.0)),
    "a record removed": lambda db: db.items.pop("i2"),
    "a table replaced": lambda db: setattr(db, "notes", {"n2": "second"}),
    "a plain-value table": lambda db: db.notes.__setitem__("n1", "changed"),
    "a date": lambda db: setattr(db.items["i1"], "added", dt.date(2026, 2, 1)),
    "a list of records in place": lambda db: setattr(db.log[0], "price", 1.0),
    "a scalar field": lambda db: setattr(db, "counter", 1),
    # every way a tool may reach a record of a table (copied one record at a time on a copy_on_access copy)
    "a record through values()": lambda db: setattr(sorted(db.items.values(), key=lambda i: i.item_id)[0], "price", 9.0),
    "a record through items()": lambda db: [setattr(r, "price", 7.0) for k, r in db.items.items() if k == "i2"],
    "a record through get()": lambda db: db.owners.get("o1").items.append("i9"),
    "a record through setdefault()": lambda db: setattr(db.items.setdefault("i1", None), "price", 8.0),
    "a record through dict(table)": lambda db: setattr(dict(db.items)["i1"], "price", 4.0),
    "a record through {**table}": lambda db: setattr({**db.items}["i2"], "price", 4.5),
    "a record through table | {}": lambda db: setattr((db.items | {})["i2"], "price", 4.25),
    "a record through copy()": lambda db: db.owners.copy()["o1"].items.clear(),
    "a record through copy.copy()": lambda db: copy.copy(db.owners)["o1"].items.clear(),
    "a popped record changed": lambda db: setattr(db.items.pop("i1"), "price", 5.0),
    "a record from popitem() changed": lambda db: setattr(db.items.popitem()[1], "price", 5.5),
    "records added by update()": lambda db: db.items.update({"i9": Item(item_id="i9", price=1.0)}, i8=Item(item_id="i8", price=2.0)),
    "records added by |=": lambda db: db.items.__ior__({"i7": Item(item_id="i7", price=1.0)}),
    "a record replaced by an equal one": lambda db: db.items.__setitem__("i1", db.items["i1"].model_copy()),
    "a record deleted": lambda db: db.items.__delitem__("i1"),
    "a table cleared": lambda db: db.items.clear(),
}


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")  # the int put in a bool field, on purpose
@pytest.mark.parametrize("mutation", MUTATIONS, ids=list(MUTATIONS))
def test_replay_state_hashes_as_a_full_recompute(source, mutation):
    texts = TableTexts()
    start = texts.state(source)
    before = full_hash(source)
    fast, slow = copy_on_access(source), clone(source)
    MUTATIONS[mutation](fast)
    MUTATIONS[mutation](slow)
    state = texts.state(fast)
    assert state_hash(ShopDB, state) == full_hash(slow) == Toolkit(slow, None).db_hash()
    assert (state == start) == (full_hash(slow) == before)
    assert full_hash(source) == before  # the copy never reaches the source
    assert state_hash(ShopDB, start) == before


def test_a_replay_that_changes_nothing_keeps_the_start_texts(source):
    texts = TableTexts()
    start = texts.state(source)
    fast = copy_on_access(source)
    MUTATIONS["nothing (tables read)"](fast)
    assert set(fast.__dict__) == {"items", "owners", "catalogue"}  # only the tables read were taken
    assert fast.items is not source.items and fast.catalogue is source.catalogue  # static: shared, as clone does
    assert all(mine is theirs for mine, theirs in zip(texts.state(fast), start))


def test_a_read_table_copies_only_the_records_reached(source):
    """A table read on a copy_on_access copy holds the source's own records until a reader reaches one: only
    that one is copied, the source is never changed, and the table's text is the source's own string."""
    texts = TableTexts()
    start = texts.state(source)
    fast = copy_on_access(source)
    assert fast.items.shared == {"i1", "i2"} and len(fast.items) == 2 and "i1" in fast.items
    assert sorted(fast.items) == ["i1", "i2"] and fast.items.shared == {"i1", "i2"}  # keys are not records
    assert all(mine is theirs for mine, theirs in zip(texts.state(fast), start))
    fast.items["i1"].price = 99.0
    assert fast.items.shared == {"i2"} and dict.__getitem__(fast.items, "i2") is source.items["i2"]
    assert fast.items["i1"] is not source.items["i1"] and source.items["i1"].price == 2.5
    state = texts.state(fast)
    items = texts_index(ShopDB, "items")
    assert all(mine is theirs for index, (mine, theirs) in enumerate(zip(state, start)) if index != items)
    assert '"price": 99.0' in state[items] and '"price": 99.0' not in start[items]
    assert json.loads(json.dumps(fast.items, default=lambda m: m.model_dump()))["i1"]["price"] == 99.0
    assert fast.model_dump()["items"]["i2"] == source.items["i2"].model_dump()


def texts_index(db_model, name: str) -> int:
    return sorted(db_model.model_fields).index(name)


def test_only_the_changed_table_gets_a_new_text(source):
    texts = TableTexts()
    start = dict(zip(sorted(ShopDB.model_fields), texts.state(source)))
    fast = copy_on_access(source)
    fast.items["i1"].tags.append("new")
    assert fast.owners["o1"].name == "Ann"  # read, not changed
    after = dict(zip(sorted(ShopDB.model_fields), texts.state(fast)))
    assert [name for name in after if after[name] is not start[name]] == ["items"]
    assert '"tags": ["a", "sale", "new"]' in after["items"] and '"tags": ["a", "sale"]' in start["items"]


def test_same_text_vouches_only_for_the_same_values(source):
    copied = clone(source)
    assert same_text(copied.items["i1"], source.items["i1"])
    assert same_text(copied.owners["o1"], source.owners["o1"])
    copied.items["i1"].price = float("2.5")  # equal, but another float object: not vouched for (dumped again)
    assert not same_text(copied.items["i1"], source.items["i1"])
    copied.owners["o1"].items.append("i9")
    assert not same_text(copied.owners["o1"], source.owners["o1"])
    assert not same_text([float("1")], [float("1")]) and same_text(["a"], ["a"])  # new floats; one string object


def test_patched_equals_validating_the_merged_database(source):
    patch = {"items": {"i1": {"price": 9.0}, "i9": {"item_id": "i9", "price": 1.0}}, "notes": {"n2": "x"}}
    assert supports(ShopDB) and validates_by_field(ShopDB)
    fast = patched(source, RAW, patch)
    slow = ShopDB.model_validate(merged_for_reading(RAW, patch))
    assert fast == slow and full_hash(fast) == full_hash(slow)
    assert list(fast.items) == list(slow.items) == ["i2", "i1", "i9"]
    assert fast.items["i2"] is source.items["i2"] and fast.owners is source.owners  # left alone: shared
    assert fast.items["i1"].price == 9.0 and source.items["i1"].price == 2.5
    with pytest.raises(ValueError):
        patched(source, RAW, {"unknown_table": {}})


# ----------------------------------------------------------------- the validator on banking tasks


def reference_findings(toolkit_class, view, specs, task, certificate):
    """The certificate findings of one task as the validator computed them before issue 14: every replay on
    a full clone of a freshly validated starting database, every state a full DB hash."""
    findings = []
    task_id = task["id"]
    if certificate is None or not certificate.get("ok"):
        findings.append(error("certificate", "not_certified", task_id, "the task has no passing certificate",
                              evidence=json.dumps(certificate)[:400],
                              rule="check fails after setup, passes after gold, every write needed, "
                                   "do-nothing fails"))
    patch = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data")
    actions = (task.get("evaluation_criteria") or {}).get("actions") or []
    initial = initial_state(toolkit_class, view.db, patch)
    start = toolkit_class(initial, view.now)
    final, errors = replay(toolkit_class, initial, actions, view.now)
    for message in errors:
        findings.append(error("certificate", "gold_tool_error", task_id, message,
                              rule="no gold step raises a tool error (tau2 only warns and skips it)"))
    if final.db_hash() == start.db_hash():
        findings.append(error("certificate", "do_nothing_passes", task_id,
                              "the gold actions leave the DB as it started: a do-nothing run gets reward 1"))
    if certificate and certificate.get("gold_hash") != final.db_hash():
        findings.append(error("certificate", "gold_hash_mismatch", task_id,
                              "replaying the gold actions does not reach the certified DB state"))
    for index in [i for i, a in enumerate(actions) if specs[a["name"]].kind != "read"]:
        reduced, _ = replay(toolkit_class, initial, actions[:index] + actions[index + 1:], view.now)
        if reduced.db_hash() == final.db_hash():
            findings.append(error("certificate", "unneeded_write", task_id,
                                  f"dropping {actions[index]['action_id']} leaves the graded DB unchanged"))
    return findings


@pytest.fixture(scope="module")
def banking_tasks():
    """Banking medium tasks of seed 0 as the bundle holds them, with their certificates, and the bundle's DB."""
    from taugen.authoring.pack import load_pack
    from taugen.generators.domain import load_domain
    from taugen.generators.tasks import compose_tasks
    from taugen.generators.tiers import tier

    pack = load_pack(Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking")
    domain = load_domain(pack.config)
    world = domain.build_world(pack.config, 0)
    records = compose_tasks(domain, pack, world, replace(tier("medium"), tasks=8), 0)
    tasks = [record.to_tau2(domain.name) for record in records]
    certificates = {record.task_id: record.certificate.as_dict() for record in records}
    view = SimpleNamespace(db=world.model_dump(mode="json"), now=pack.now)
    return domain.toolkit, view, tasks, certificates


def planted(tasks, certificates, specs):
    """The tasks, and copies with defects planted: a write repeated, the writes dropped, a wrong gold hash."""
    variants = [(task, certificates[task["id"]]) for task in tasks]
    for task in tasks[:3]:
        actions = task["evaluation_criteria"]["actions"]
        writes = [a for a in actions if specs[a["name"]].kind != "read"]
        repeated = copy.deepcopy(task)
        repeated["id"] += "-repeated"
        repeated["evaluation_criteria"]["actions"].append(dict(copy.deepcopy(writes[-1]), action_id="again"))
        reads_only = copy.deepcopy(task)
        reads_only["id"] += "-reads-only"
        reads_only["evaluation_criteria"]["actions"] = [a for a in actions if specs[a["name"]].kind == "read"]
        variants += [(repeated, certificates[task["id"]]), (reads_only, certificates[task["id"]]),
                     (task, dict(certificates[task["id"]], gold_hash="0" * 64)), (task, None)]
    return variants


def test_validator_findings_are_those_of_full_replays(banking_tasks):
    toolkit_class, view, tasks, certificates = banking_tasks
    specs = toolkit_class.tool_specs()
    replays = DatabaseReplays(toolkit_class, view.db, view.now)
    assert replays.fast  # banking's database takes the fast path
    codes = []
    for task, certificate in planted(tasks, certificates, specs):
        fast = tasks_validator._replay_findings(replays, specs, task, certificate)
        slow = reference_findings(toolkit_class, view, specs, task, certificate)
        assert [f.model_dump() for f in fast] == [f.model_dump() for f in slow], task["id"]
        codes += [f.code for f in fast]
    assert codes.count("gold_hash_mismatch") >= 6 and codes.count("do_nothing_passes") >= 3
    assert "unneeded_write" in codes and "not_certified" in codes
    assert not any(tasks_validator._replay_findings(replays, specs, task, certificates[task["id"]])
                   for task in tasks)  # the composed tasks themselves are sound


def test_validator_states_match_db_hashes_on_banking(banking_tasks):
    toolkit_class, view, tasks, certificates = banking_tasks
    replays = DatabaseReplays(toolkit_class, view.db, view.now)
    for task in tasks:
        patch = task["initial_state"]["initialization_data"]["agent_data"]
        initial = replays.initial(patch)
        full = initial_state(toolkit_class, view.db, patch)
        assert initial == full and replays.hash(replays.state(initial)) == toolkit_class(full, view.now).db_hash()
        state, _ = replays.run(initial, task["evaluation_criteria"]["actions"])
        assert replays.hash(state) == certificates[task["id"]]["gold_hash"]


def test_a_broken_database_fails_as_validating_it_whole_does(banking_tasks):
    """A starting database that does not validate raises the error of validating the merged database whole
    (the validator reports it as it always did), not the error of validating a part of it."""
    toolkit_class, view, tasks, _ = banking_tasks
    task = next(t for t in tasks if t["initial_state"]["initialization_data"]["agent_data"])
    patch = task["initial_state"]["initialization_data"]["agent_data"]
    broken = copy.deepcopy(view.db)
    account = next(iter(broken["accounts"].values()))
    account["balance"] = "not a number"
    with pytest.raises(Exception) as whole:
        initial_state(toolkit_class, broken, patch)
    with pytest.raises(Exception) as fast:
        DatabaseReplays(toolkit_class, broken, view.now).initial(patch)
    assert str(fast.value) == str(whole.value) and "not a number" in str(fast.value)
