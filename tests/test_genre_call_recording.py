"""Tests of the call_recording genre: deterministic telephone-quality WAV plus author-side transcript."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import re
import shutil
import time
import wave
from pathlib import Path

import jinja2
import numpy as np
import pytest
import yaml
from pydub import AudioSegment

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import (
    ArtifactPlan,
    RenderContext,
    RenderedArtifact,
    RenderedFile,
    Rendition,
    get_genre,
)
from taugen.generators.corpus.genres import call_recording
from taugen.generators.corpus.genres.support_transcript import PHONE_TURN, parse_turns
from taugen.generators.corpus.vocabulary import load_vocabulary

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")

DOMAIN = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking" / "domain.yaml"
TZ = dt.timezone(dt.timedelta(hours=-5))


@pytest.fixture(scope="module")
def context() -> RenderContext:
    config = DomainConfig(**yaml.safe_load(DOMAIN.read_text(encoding="utf-8")))
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True)
    return RenderContext(config=config, templates=env, build_seed=11, tier="test",
                         vocabulary=load_vocabulary(DOMAIN.parent))


@pytest.fixture(scope="module")
def facts() -> dict[str, Fact]:
    old = Fact(id="hold_period_2025", section="wires_and_transfers", category="deadline",
               statement="Incoming international wires are held for 3 business days.",
               subject="hold on incoming international wires",
               value={"type": "duration", "amount": 3, "unit": "business_days"}, effective_from=dt.date(2025, 1, 1))
    fee = Fact(id="wire_fee_domestic", section="wires_and_transfers", category="fee",
               statement="An outgoing domestic wire costs $25.00.", subject="outgoing domestic wire fee",
               value={"type": "money", "amount": "25.00"}, effective_from=dt.date(2026, 3, 1))
    hold = Fact(id="hold_period", section="wires_and_transfers", category="deadline",
                statement="Incoming international wires are held for 2 business days.",
                subject="hold on incoming international wires",
                value={"type": "duration", "amount": 2, "unit": "business_days"}, effective_from=dt.date(2026, 2, 1),
                supersedes="hold_period_2025")
    return {fact.id: fact for fact in (old, fee, hold)}


def make_plan(facts, index: int = 0, ids=("hold_period_2025", "wire_fee_domestic"), *,
              filler: bool = False, length_words: int = 200) -> ArtifactPlan:
    """A call plan; ``length_words`` is the length the planner would ask for (200 words: a call of about a
    minute and a half)."""
    renditions = [] if filler else [
        Rendition(fid, facts[fid].statement, facts[fid].value.canonical(), "canonical",
                  "superseded" if fid.endswith("_2025") else "current",
                  dt.date(2026, 3, 4)) for fid in ids]
    return ArtifactPlan(artifact_id=f"call_recording_{index:03d}", genre="call_recording",
                        topic="wires_and_transfers", topic_title="Wires and transfers",
                        start=dt.datetime(2026, 2, 2, 8, tzinfo=TZ), end=dt.datetime(2026, 3, 13, 17, tzinfo=TZ),
                        renditions=renditions, facts=dict(facts), seed=7000 + index, length_words=length_words)


@pytest.fixture(scope="module")
def rendered(context, facts) -> tuple[ArtifactPlan, RenderedArtifact, float]:
    plan = make_plan(facts)
    began = time.perf_counter()
    artifact = get_genre("call_recording").render(plan, context)
    return plan, artifact, time.perf_counter() - began


def test_render_is_deterministic_and_fast(context, facts, rendered):
    _plan, artifact, seconds = rendered
    again = get_genre("call_recording").render(make_plan(facts), context)
    assert artifact.files[0].data == again.files[0].data
    assert artifact.author_text == again.author_text and artifact.metadata == again.metadata
    assert seconds < 2.0, f"render took {seconds:.2f} s"


@pytest.mark.parametrize("filler", [False, True])
def test_calls_grow_to_the_planned_length_with_the_steps_of_a_service_call(context, facts, filler):
    from taugen.generators.corpus.genres.support_conversation import build_conversation

    lengths = []
    for target in (150, 320, 470):
        plan = make_plan(facts, 3, filler=filler, length_words=target)
        conversation = build_conversation(plan, context, "phone", max_turns=call_recording.MAX_TURNS,
                                          max_words=target)
        call_recording.extend_call(conversation, plan, context, target)
        turns = conversation.turns
        assert all(a.role != b.role for a, b in zip(turns, turns[1:]))  # speakers alternate on a phone line
        assert turns[0].role == "agent" and len(turns) <= call_recording.MAX_TURNS
        for rendition in plan.renditions:  # the renditions stay verbatim, each in one agent turn
            assert sum(rendition.text in t.text for t in turns if t.role == "agent") == 1
        lengths.append(sum(len(t.text.split()) for t in turns))
    assert lengths == sorted(lengths) and lengths[0] < 260 and lengths[-1] >= 440
    # at espeak's pace with pauses (about 170 words a minute) the longest call lasts two and a half minutes or more
    assert lengths[-1] / 170 >= 2.5


def test_band_limit_matches_pydubs_first_order_filters():
    from pydub import AudioSegment as Segment

    samples = np.random.default_rng(3).normal(0, 3000, 16000).astype("<i2")
    segment = Segment(data=samples.tobytes(), sample_width=2, frame_rate=8000, channels=1)
    reference = np.frombuffer(segment.high_pass_filter(300).low_pass_filter(3400).raw_data, dtype="<i2")
    ours = call_recording.band_limit(samples, 8000)
    # pydub truncates to integers between its two filters; that is the only difference (a few units)
    assert np.max(np.abs(reference - ours)) <= 3.0


def test_wav_is_telephone_quality(rendered):
    _, artifact, _ = rendered
    assert [f.suffix for f in artifact.files] == [".wav"]
    with wave.open(io.BytesIO(artifact.files[0].data), "rb") as reader:
        assert reader.getnchannels() == 1
        assert reader.getframerate() == 8000
        assert reader.getsampwidth() == 2
        duration = reader.getnframes() / reader.getframerate()
        samples = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
    assert 1.0 < duration <= call_recording.MAX_SECONDS
    assert duration == pytest.approx(artifact.metadata["audio"]["duration_s"], abs=0.01)
    words = sum(len(t.text.split()) for t in parse_turns(artifact.author_text)[0])
    assert 100 <= words / (duration / 60) <= 260
    # speech is present, and the quiet stretches carry low-level line noise (never exact digital silence)
    assert np.abs(samples).max() > 3000
    first_turn_start = artifact.metadata["audio"]["turn_spans_ms"][0][0] * 8
    lead_in = samples[: max(first_turn_start - 200, 100)]
    assert 0 < lead_in.std() < 200
    # the band limit: little energy far below 300 Hz compared with the voice band
    spectrum = np.abs(np.fft.rfft(samples.astype(float)))
    freqs = np.fft.rfftfreq(samples.size, 1 / 8000)
    assert spectrum[freqs < 80].mean() < spectrum[(freqs > 400) & (freqs < 3000)].mean()


def test_transcript_states_renditions(rendered, facts):
    plan, artifact, _ = rendered
    genre = get_genre("call_recording")
    text = genre.extract_text(artifact.files, artifact.author_text)
    assert text == artifact.author_text
    turns, bad = parse_turns(text)
    assert bad == [] and 4 <= len(turns) <= call_recording.MAX_TURNS
    assert all(PHONE_TURN.match(line) for line in text.splitlines() if line.startswith("Turn "))
    for rendition in plan.renditions:
        assert text.count(rendition.text) == 1
        assert find_surface_form(facts[rendition.fact_id].value, text) is not None
        number = artifact.metadata["rendition_turns"][rendition.fact_id]
        assert turns[number - 1].speaker == artifact.metadata["speakers"][0]
    numbers = artifact.metadata["rendition_turns"]
    assert numbers["hold_period_2025"] < numbers["wire_fee_domestic"]
    voices = artifact.metadata["voices"]
    assert voices["agent"]["voice"] != voices["customer"]["voice"]
    stamps = artifact.timestamps
    assert len(stamps) == 2 and plan.start <= stamps[0] < stamps[1] <= plan.end
    assert (stamps[1] - stamps[0]).total_seconds() == pytest.approx(artifact.metadata["audio"]["duration_s"], abs=1)
    assert genre.validate(artifact) == []


@pytest.mark.parametrize("index", range(4))
def test_lone_superseded_before_its_successor_reads_as_current(context, facts, index):
    """The planner's shape: a call dated before the successor took effect (February 1) that owns only the
    old version (the successor is not in the plan): stated as the rule in force, with no history framing
    and no word about the coming change."""
    old = facts["hold_period_2025"]
    plan = ArtifactPlan(artifact_id=f"call_recording_{20 + index:03d}", genre="call_recording",
                        topic="wires_and_transfers", topic_title="Wires and transfers",
                        start=dt.datetime(2026, 1, 12, 8, tzinfo=TZ), end=dt.datetime(2026, 1, 20, 17, tzinfo=TZ),
                        renditions=[Rendition(old.id, old.statement, old.value.canonical(), "canonical",
                                              "superseded", dt.date(2026, 1, 15))],
                        facts={old.id: old}, seed=7100 + index)
    genre = get_genre("call_recording")
    artifact = genre.render(plan, context)
    text = genre.extract_text(artifact.files, artifact.author_text)
    assert text.count(old.statement) == 1
    assert find_surface_form(old.value, text) is not None
    turns, bad = parse_turns(text)
    assert bad == []
    number = artifact.metadata["rendition_turns"][old.id]
    assert turns[number - 1].speaker == artifact.metadata["speakers"][0]
    assert not re.search(r"\b(no longer|earlier version|older|previous|until|superseded|has since|history|"
                         r"before|up to|replac\w*|changes on|chang(?:ed|ing)|used to|anymore)\b",
                         text, re.IGNORECASE), text
    as_current = genre.render(dataclasses.replace(plan, renditions=[dataclasses.replace(r, status="current")
                                                                    for r in plan.renditions]), context)
    assert as_current.files[0].data == artifact.files[0].data  # spoken exactly as a current rule
    assert genre.validate(artifact) == []


def test_filler_call_has_no_values(context, facts):
    genre = get_genre("call_recording")
    artifact = genre.render(make_plan(facts, 5, filler=True), context)
    body = artifact.author_text.split("\n\n", 1)[1]
    assert "$" not in body and "%" not in body
    assert not re.search(r"\b\d+\s*(business |calendar )?days?\b", body, re.IGNORECASE)
    assert genre.validate(artifact) == []


def test_validate_catches_wrong_rate_and_bad_audio(rendered):
    _, artifact, _ = rendered
    genre = get_genre("call_recording")
    audio = AudioSegment.from_wav(io.BytesIO(artifact.files[0].data)).set_frame_rate(16000)
    buffer = io.BytesIO()
    audio.export(buffer, format="wav")

    def variant(data: bytes, author_text: str | None = None) -> RenderedArtifact:
        return RenderedArtifact(plan=artifact.plan, files=[RenderedFile(".wav", data)],
                                author_text=artifact.author_text if author_text is None else author_text,
                                renditions=artifact.renditions, timestamps=artifact.timestamps,
                                metadata=artifact.metadata)

    assert "wav_rate" in {f.code for f in genre.validate(variant(buffer.getvalue()))}
    assert "unreadable_wav" in {f.code for f in genre.validate(variant(b"RIFF0000WAVEjunk"))}
    stereo = io.BytesIO()
    AudioSegment.from_wav(io.BytesIO(artifact.files[0].data)).set_channels(2).export(stereo, format="wav")
    assert "wav_channels" in {f.code for f in genre.validate(variant(stereo.getvalue()))}
    padded = artifact.author_text + "".join(f"Turn {n} \u2014 Caller: " + "word " * 60 + "\n" for n in range(99, 102))
    codes = {f.code for f in genre.validate(variant(artifact.files[0].data, padded))}
    assert "implausible_speech_rate" in codes and "turn_numbering" in codes


def test_missing_espeak_is_a_clear_error(context, facts, monkeypatch):
    monkeypatch.setattr(call_recording.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="espeak-ng"):
        get_genre("call_recording").render(make_plan(facts), context)


def test_speakable_money():
    assert call_recording.speakable("It costs $25.00 \u2014 or $1,250.50.") == \
        "It costs 25 dollars, or 1250 dollars and 50 cents."
    assert call_recording.speakable("Just $0.50 today.") == "Just 50 cents today."


def test_no_voice_variant_draws_noise_from_rand():
    """espeak-ng (1.51, Debian's) synthesises a variant's ``breath`` aspiration noise and the ``klatt``
    voices' noise with the C library's rand(), so those turns are not reproducible byte for byte (a loaded
    build once wrote an f3 agent turn differently). The genre's variants have neither line."""
    version = call_recording.subprocess.run([call_recording.espeak_executable(), "--version"], capture_output=True,
                                            text=True, check=True).stdout
    data = Path(re.search(r"Data at: (\S+)", version).group(1))
    variants = {variant for _language, variant, _gender in call_recording.AGENT_VOICES + call_recording.CUSTOMER_VOICES}
    lines = {}
    for variant in sorted(variants):
        text = (data / "voices" / "!v" / variant).read_text(encoding="utf-8", errors="replace")
        lines[variant] = [line.split()[0] for line in text.splitlines() if line.split()]
        assert text.split()[:2] == ["language", "variant"] and "name" in lines[variant], variant  # a variant file
    assert {variant: [key for key in keys if key in ("breath", "breathw", "klatt")] for variant, keys in lines.items()} \
        == {variant: [] for variant in variants}
    assert len(variants) == 9
    breathy = (data / "voices" / "!v" / "f3").read_text(encoding="utf-8", errors="replace")
    assert "\nbreath " in breathy  # the check reads what it means to (f3, used before, has the line)


def test_a_caller_on_hold_hears_only_the_line_for_a_minute_or_more(context, facts):
    """A call in which the agent puts the caller on hold holds a quiet stretch of 45 s or more after the
    caller agrees (named in ``audio.wait_spans_ms``); the speech rate leaves the waits out, and the validator
    finds a wait that is not quiet, or one outside the recording."""
    genre = get_genre("call_recording")
    for index in range(30):
        plan = make_plan(facts, index, length_words=470)
        artifact = genre.render(plan, context)
        waits = artifact.metadata["audio"]["wait_spans_ms"]
        if any(end - start >= 45_000 for start, end in waits):
            break
    else:
        pytest.fail("no call of 30 put its caller on hold")
    assert genre.validate(artifact) == []
    spans = artifact.metadata["audio"]["turn_spans_ms"]
    start, end = next((s, e) for s, e in waits if e - s >= 45_000)
    before = max(i for i, span in enumerate(spans) if span[1] <= start)
    assert spans[before][1] == start and spans[before + 1][0] == end  # between two turns, nobody speaking
    turns = parse_turns(artifact.author_text)[0]
    assert turns[before].speaker != turns[before + 1].speaker
    duration = artifact.metadata["audio"]["duration_s"]
    speech = duration - sum(e - s for s, e in waits) / 1000
    words = sum(len(turn.text.split()) for turn in turns)
    assert call_recording.WPM_RANGE[0] <= words / (speech / 60) <= call_recording.WPM_RANGE[1]

    def claiming(wait_spans):
        metadata = {**artifact.metadata, "audio": {**artifact.metadata["audio"], "wait_spans_ms": wait_spans}}
        return dataclasses.replace(artifact, metadata=metadata)

    assert "wait_not_quiet" in {f.code for f in genre.validate(claiming(waits + [spans[0]]))}
    outside = [[int(duration * 1000) + 10, int(duration * 1000) + 5000]]
    assert "wait_outside_recording" in {f.code for f in genre.validate(claiming(outside))}
