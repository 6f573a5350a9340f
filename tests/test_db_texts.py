"""The fast DB states of the ``tasks`` validator (``taugen.generators.db_texts``) agree with a full recompute.

A replay on a :func:`copy_on_access` copy, read through :meth:`TableTexts.state`, must give the DB hash of the
same replay on a full :func:`clone` dumped whole (tau2's rule), whatever the replay does: nothing, a change in
one table, an in-place change of a nested value, a value replaced by an equal one of another type, records
added or removed. And the validator's findings on banking tasks, defects planted, must be those of the
replay it replaced (full clone and full hash per replay).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import ClassVar

import pytest
from pydantic import BaseModel, Field

from taugen.generators.environment import Toolkit, dict_hash


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

