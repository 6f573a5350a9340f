"""The LLM stage: request cache, replay, budget, ledger and the checked re-voicing of renditions.

Every model call goes through the real litellm code path with its ``mock_response`` argument; nothing
reaches the network.
"""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import re

import pytest

pytest.importorskip("litellm")

from taugen.authoring.models import Fact  # noqa: E402
from taugen.generators.corpus.genre import ArtifactPlan, Rendition  # noqa: E402
from taugen.generators.corpus.llm_voice import check_voicing  # noqa: E402
from taugen.generators.llm import (  # noqa: E402
    LLMClient, LLMReplayMiss, LLMSettings, RequestCache, request_key,
)

MODEL = "gpt-4o-mini"  # in litellm's local cost map, so recorded costs are real numbers
from bundle_fixtures import TEST_TASKS  # noqa: E402

QUOTED = re.compile(r'in one sentence: "(.*?)"(?: Keep| Do not)', re.S)


def _fee_fact() -> Fact:
    return Fact.model_validate({
        "id": "fee_everyday_checking_stop_payment", "section": "fees", "category": "fee",
        "subject": "a stop payment on Everyday Checking",
        "statement": "The stop payment fee on Everyday Checking is $30.00 per request.",
        "value": {"type": "money", "amount": "30.00", "currency": "USD"}, "effective_from": "2024-01-01"})


def _artifact(fact: Fact, text: str, form: str) -> tuple[ArtifactPlan, Rendition]:
    rendition = Rendition(fact_id=fact.id, text=text, value_form=form, register="voiced", status="current",
                          date=dt.date(2025, 3, 3))
    start = dt.datetime(2025, 3, 3, 9, 0, tzinfo=dt.timezone.utc)
    plan = ArtifactPlan(artifact_id="support_transcript_001", genre="support_transcript", topic="fees",
                        topic_title="Fee schedule", start=start, end=start + dt.timedelta(minutes=9),
                        renditions=[rendition], facts={fact.id: fact}, seed=1)
    return plan, rendition


def test_check_voicing_applies_the_rendition_rules():
    fact = _fee_fact()
    plan, rendition = _artifact(fact, "We charge thirty dollars for a stop payment on Everyday Checking.",
                                "thirty dollars")
    assert check_voicing("Stopping a check there costs you thirty dollars each time.", rendition, plan) == \
        ("thirty dollars", "")
    assert check_voicing("Stopping a check there costs a small fee.", rendition, plan) == (None, "value missing")
    assert check_voicing("It is thirty dollars, or 45 for two checks.", rendition, plan) == (None, "new number")
    assert check_voicing("The stop payment fee on Everyday Checking is thirty dollars.", rendition, plan)[1] == \
        "copies the statement"
    assert check_voicing("Thirty dollars.", rendition, plan) == (None, "2 words")
    assert check_voicing("Per the fact fee_everyday_checking_stop_payment it is thirty dollars.", rendition,
                         plan) == (None, "authoring words")


def test_cache_round_trip_and_corrupt_entries_are_misses(tmp_path):
    cache = RequestCache(tmp_path)
    key = request_key(MODEL, [{"role": "user", "content": "hello"}], {"temperature": 0})
    assert cache.get(key) is None
    cache.put(key, {"text": "hi", "cost_usd": 0.5})
    assert cache.get(key)["text"] == "hi"
    path = next(tmp_path.rglob(f"{key}.json"))
    path.write_text(path.read_text()[:10])  # truncated by a crash
    assert cache.get(key) is None
    path.write_text(json.dumps({"key": "0" * 64, "text": "someone else's"}))
    assert cache.get(key) is None
    assert key != request_key(MODEL, [{"role": "user", "content": "hello"}], {"temperature": 0.7})


def _hammer(directory: str, worker: int) -> None:
    cache = RequestCache(directory)
    for round_ in range(40):
        cache.put("ab" + "c" * 62, {"text": f"worker {worker} round {round_} " + "x" * 2000})


def test_concurrent_writers_never_leave_a_corrupt_entry(tmp_path):
    processes = [multiprocessing.Process(target=_hammer, args=(str(tmp_path), n)) for n in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    entry = RequestCache(tmp_path).get("ab" + "c" * 62)
    assert entry is not None and entry["text"].startswith("worker ")
    assert not list(tmp_path.rglob("*.tmp"))


def test_client_caches_replays_and_keeps_to_the_budget(tmp_path):
    messages = [{"role": "user", "content": "Say hello."}]
    live = LLMClient(LLMSettings(MODEL, cache_dir=tmp_path, mock_response=lambda prompt: "Hello there, friend."))
    first = live.complete(messages)
    again = live.complete(messages)
    assert (first.text, first.cached, again.cached) == ("Hello there, friend.", False, True)
    assert first.cost_usd > 0 and live.ledger.requests == 2 and live.ledger.cache_hits == 1
    assert live.ledger.spent_usd == pytest.approx(2 * first.cost_usd)
    replay = LLMClient(LLMSettings(MODEL, cache_dir=tmp_path, replay=True))
    assert replay.complete(messages).text == "Hello there, friend."
    with pytest.raises(LLMReplayMiss, match="no cached response"):
        replay.complete([{"role": "user", "content": "Something never asked."}])
    capped = LLMClient(LLMSettings(MODEL, cache_dir=tmp_path / "other", budget_usd=first.cost_usd / 2,
                                   mock_response=lambda prompt: "Fine."))
    assert capped.complete(messages) is not None  # the first call is allowed, and it spends the budget
    assert capped.ledger.exhausted and capped.complete([{"role": "user", "content": "More?"}]) is None


def test_errors_after_retries_fall_back_to_the_template(tmp_path):
    from taugen.authoring.pack import load_pack
    from taugen.build.pipeline import PACKS_DIR
    from taugen.generators.corpus.llm_voice import voice_plan
    from taugen.generators.corpus.planner import CorpusPlan

    fact = _fee_fact()
    artifact, rendition = _artifact(fact, "We charge thirty dollars for a stop payment on Everyday Checking.",
                                    "thirty dollars")
    client = LLMClient(LLMSettings(MODEL, cache_dir=tmp_path, num_retries=0,
                                   mock_response=lambda prompt: Exception("service unavailable")))
    voiced = voice_plan(CorpusPlan(surface="core", artifacts=[artifact]), load_pack(PACKS_DIR / "banking"), client)
    assert voiced.artifacts[0].renditions == [rendition]
    assert client.ledger.entries == [{"artifact": "support_transcript_001", "fact": fact.id, "outcome": "fallback",
                                      "reason": "error: InternalServerError"}]


def _paraphrase(prompt: str) -> str:
    """A deterministic stand-in model answer: the planned sentence behind an opener, and every fifth
    answer one that breaks a rule (it adds a number), so both outcomes occur."""
    original = QUOTED.search(prompt).group(1)
    if sum(map(ord, original)) % 5 == 0:
        return f"{original} If in doubt, ring extension 5512."
    return f"Just so you are aware, {original[:1].lower()}{original[1:]}"


def test_medium_build_with_the_llm_then_replayed_byte_for_byte(tmp_path):
    from taugen.build.pipeline import build

    cache = tmp_path / "cache"
    live = build("banking", "medium", out=tmp_path / "live", tasks=TEST_TASKS,
                 llm=LLMSettings(MODEL, cache_dir=cache, mock_response=_paraphrase))
    assert live.ok, [f for f in live.findings if f.severity == "error"][:3]
    ledger = json.loads((live.path / "author" / "llm_ledger.json").read_text())
    assert ledger["model"] == MODEL and ledger["requests"] == len(ledger["entries"]) > 20
    assert ledger["outcomes"]["voiced"] > 0 and ledger["outcomes"]["fallback"] > 0
    assert {e["reason"] for e in ledger["entries"] if e["outcome"] == "fallback"} == {"new number"}
    # one request per distinct prompt; a rule restated (an echo) in the words another record of a genre with
    # the same speaker uses repeats a prompt, which the build's own cache answers
    distinct = len(list(cache.glob("*/*.json")))
    assert ledger["spent_usd"] > 0 and live.llm["cache_hits"] == ledger["requests"] - distinct < ledger["requests"] // 5
    sources = "\n".join(p.read_text() for p in (live.path / "author" / "sources").glob("*.txt"))
    assert sources.count("Just so you are aware, ") >= ledger["outcomes"]["voiced"] // 2
    bundle = json.loads((live.path / "bundle.json").read_text())
    assert bundle["requested"]["llm"]["model"] == MODEL
    assert bundle["achieved"]["llm"]["outcomes"] == ledger["outcomes"]
    replayed = build("banking", "medium", out=tmp_path / "replayed", tasks=TEST_TASKS, llm=LLMSettings(MODEL, cache_dir=cache,
                                                                                      replay=True))
    assert replayed.ok and replayed.llm["cache_hits"] == ledger["requests"]
    assert (replayed.path / "SHA256SUMS").read_bytes() == (live.path / "SHA256SUMS").read_bytes()


def test_cli_refuses_llm_options_without_a_model(tmp_path):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "taugen", "build", "banking", "-d", "easy", "--llm-replay",
                          "--out", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 2 and "need --llm MODEL" in run.stderr
    assert not any(tmp_path.iterdir())
