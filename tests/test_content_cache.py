"""The content cache: a hit returns exactly what computing afresh returns, a damaged entry is recomputed,
concurrent writers never expose half an entry, and ``off`` reads and writes nothing."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from taugen import content_cache
from taugen.content_cache import configure, content_key, load, store


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(content_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(content_cache, "_configured", [])
    return tmp_path / "cache"


def _entry(root: Path, namespace: str, key: str) -> Path:
    return root / namespace / key[:2] / key


def test_a_stored_payload_comes_back(cache):
    key = content_key("v1", b"%PDF-1.4 bytes")
    assert load("pages", key) is None
    store("pages", key, b'["page one", "page two"]')
    assert load("pages", key) == b'["page one", "page two"]'
    assert _entry(cache, "pages", key).read_bytes()[32:] == b'["page one", "page two"]'


def test_keys_are_length_prefixed():
    assert content_key("ab", "c") != content_key("a", "bc")
    assert content_key("ab", "c") == content_key(b"ab", b"c")


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty"])
def test_a_damaged_entry_is_a_miss_and_is_deleted(cache, damage):
    key = content_key("v1", b"data")
    store("pages", key, b"payload that matters")
    path = _entry(cache, "pages", key)
    raw = path.read_bytes()
    path.write_bytes({"flip": raw[:-1] + bytes([raw[-1] ^ 1]), "truncate": raw[:-4], "empty": b""}[damage])
    assert load("pages", key) is None
    assert not path.exists()


def test_off_reads_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(content_cache, "_configured", [])
    monkeypatch.setenv(content_cache.CACHE_ENV, "off")
    store("pages", content_key("x"), b"payload")
    assert load("pages", content_key("x")) is None
    configure(tmp_path / "chosen")
    assert content_cache.cache_root() == tmp_path / "chosen"
    configure(None, enabled=False)
    assert content_cache.cache_root() is None
    monkeypatch.setattr(content_cache, "_configured", [])


def _hammer(arguments: tuple[str, int]) -> list[bool]:
    folder, worker = arguments
    configure(folder)
    seen = []
    for round_ in range(200):
        payload = b"x" * (10_000 + (round_ % 7))  # same key, payloads of several lengths: only whole ones may show
        store("race", "k" * 64, payload)
        found = load("race", "k" * 64)
        seen.append(found is None or (len(found) in range(10_000, 10_007) and set(found) == {ord("x")}))
    return seen


def test_concurrent_writers_never_expose_a_partial_entry(tmp_path):
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.map(_hammer, [(str(tmp_path), worker) for worker in range(4)])
    assert all(all(round_) for round_ in results)
    assert not [p for p in (tmp_path / "race").rglob(".*")]  # no temporary file is left behind


def test_pdf_page_texts_from_the_cache_equal_a_fresh_read(cache, built_bundle):
    from taugen.build.files import read_bundle
    from taugen.generators.corpus.genres import pdf_document

    files = read_bundle(built_bundle("easy"))
    data = next(d for p, d in sorted(files.items()) if p.endswith(".pdf"))
    pdf_document._PAGES_CACHE.clear()
    fresh = pdf_document._pages_text(data)
    assert fresh and all(isinstance(page, str) for page in fresh)
    entries = list((cache / "pdf-pages").rglob("*"))
    assert [e for e in entries if e.is_file()]
    pdf_document._PAGES_CACHE.clear()
    assert pdf_document._pages_text(data) == fresh  # from disk
    for entry in (e for e in entries if e.is_file()):
        entry.write_bytes(b"garbage")  # a damaged entry is read afresh, never used
    pdf_document._PAGES_CACHE.clear()
    assert pdf_document._pages_text(data) == fresh


def test_a_record_stamped_on_the_business_clock_comes_back_and_getattr_never_does(cache):
    """A record's timestamps carry the business's IANA zone (``America/Chicago``), which plain pickles build
    through ``builtins.getattr``: no entry may name it, so every such record missed the cache. The zone is
    written by its key and rebuilt."""
    import datetime as dt
    import pickle
    from zoneinfo import ZoneInfo

    stamps = [dt.datetime(2026, 1, 15, 9, 30, tzinfo=ZoneInfo("America/Chicago")),
              dt.datetime(2026, 7, 15, 9, 30, tzinfo=ZoneInfo("America/Chicago"))]
    content_cache.store_object("render-result", "k", {"timestamps": stamps})
    back = content_cache.load_object("render-result", "k")["timestamps"]
    assert back == stamps and [s.utcoffset() for s in back] == [dt.timedelta(hours=-6), dt.timedelta(hours=-5)]
    payload = content_cache.dumps(stamps)  # the zone by its key, never the getattr a plain pickle writes
    assert b"America/Chicago" in payload and b"getattr" not in payload
    store("render-result", "plain", pickle.dumps(stamps, protocol=pickle.HIGHEST_PROTOCOL))  # names getattr
    assert content_cache.load_object("render-result", "plain") is None
