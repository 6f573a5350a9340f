"""Tests of the meeting_transcript genre.

WebVTT transcripts: determinism, placement, speakers and pace, decisions, validation.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from itertools import pairwise
from pathlib import Path

import jinja2
import pytest
import yaml

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import find_surface_form, normalise_text
from genre_contract import contract
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, RenderedArtifact, Rendition, get_genre
from taugen.generators.corpus.genres.meeting_transcript import cue_clock, parse_vtt, word_count

GENRE = "meeting_transcript"
SUFFIX = ".vtt"
IDS = ("wire_fee_domestic", "intl_wire_hold", "atm_daily_cap", "police_report_stolen")
N_RUNS = 6

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


# ------------------------------------------------------------------------------------------------
# WebVTT specifics
# ------------------------------------------------------------------------------------------------

def test_webvtt_speakers_pace_and_decisions(context):
    genre = get_genre(GENRE)
    for index in range(6):
        artifact = genre.render(make_plan(index, ids=IDS, variant=genre.variants[index % 2]), context)
        data = artifact.files[0].data.decode()
        assert data.startswith("WEBVTT\n\nNOTE\n")
        notes, cues, problems = parse_vtt(artifact.files[0].data)
        assert problems == [] and any(line.startswith("Recorded: 2026-03-") for line in notes)
        assert len({c.speaker for c in cues}) >= 2 and all(c.speaker for c in cues)
        assert all(re.fullmatch(r"<v [^>]+>.*</v>", line) for line in data.splitlines() if line.startswith("<v"))
        assert all(a.start <= b.start for a, b in pairwise(cues))
        words = sum(word_count(c.text) for c in cues)
        rate = words / sum(c.end - c.start for c in cues) * 60
        assert 110 <= rate <= 190 and abs(rate - artifact.metadata["wpm"]) < 0.2
        decisions = artifact.metadata["decisions"]
        assert len(decisions) >= 2
        for decision in decisions:
            assert decision["proposal"] < decision["rejected"] < decision["final"]
        for rendition in artifact.renditions:  # the final position of its item is the rendition, in one cue
            item = next(d for d in decisions if rendition.fact_id in d["facts"])
            assert rendition.text in cues[item["final"] - 1].text


def test_pointer_is_said_in_passing(context):
    """A sentence about a fact the meeting does not own (a pointer cue) is said verbatim, decides nothing."""
    pointer = "For that one, ask the operations lead; it isn't in anything I have."
    plan = make_plan(2, ids=("wire_fee_domestic", "police_report_stolen"),
                     statuses={"police_report_stolen": "pointer"}, texts={"police_report_stolen": pointer})
    artifact = get_genre(GENRE).render(plan, context)
    text = text_of(artifact)
    assert text.count(pointer) == 1
    assert all("police_report_stolen" not in d["facts"] or d["facts"] == [] for d in artifact.metadata["decisions"])
    assert get_genre(GENRE).validate(artifact) == []


def test_short_window_keeps_the_pace_and_ends_by_plan_end(context):
    """A window shorter than the session: the recording ends at plan.end and keeps its pace."""
    moment = dt.datetime(2026, 3, 10, 14, 30, tzinfo=TZ)
    plan = make_plan(1, ids=IDS, start=moment, end=moment)
    artifact = get_genre(GENRE).render(plan, context)
    assert artifact.timestamps[-1] <= plan.end
    assert get_genre(GENRE).validate(artifact) == []


def test_validate_flags_broken_transcripts(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(4, ids=IDS), context)
    assert genre.validate(artifact) == []
    data = artifact.files[0].data
    assert "vtt_syntax" in codes(with_data(artifact, data.replace(b"WEBVTT", b"TRANSCRIPT", 1)))

    timing_line = re.compile(rb"(\d\d):(\d\d):(\d\d\.\d{3}) --> (\d\d):(\d\d):(\d\d\.\d{3})")

    def scale(match: re.Match) -> bytes:
        h1, m1, s1, h2, m2, s2 = (float(x) for x in match.groups())
        start, end = (h1 * 3600 + m1 * 60 + s1) * 0.35, (h2 * 3600 + m2 * 60 + s2) * 0.35
        return f"{cue_clock(start)} --> {cue_clock(end)}".encode()

    assert "implausible_pace" in codes(with_data(artifact, timing_line.sub(scale, data)))
    lines = data.split(b"\n")
    timing = [i for i, line in enumerate(lines) if b"-->" in line]
    lines[timing[1]], lines[timing[2]] = lines[timing[2]], lines[timing[1]]
    assert "cues_out_of_order" in codes(with_data(artifact, b"\n".join(lines)))
    lone = re.sub(rb"<v [^>]+>", b"<v Pat Doe>", data)
    assert "speaker_count" in codes(with_data(artifact, lone))
    broken = dict(artifact.metadata["decisions"][0])
    broken["final"], broken["proposal"] = broken["proposal"], broken["final"]
    assert "decision_sequence" in codes(with_data(artifact, data, decisions=[broken]))


def test_mentions_whose_subjects_read_alike_are_all_said(context):
    # Facts of a pack may share a subject (banking: the daily and monthly "mobile check deposit limit on the
    # everyday checking debit card"): a meeting that names two of them, or names one beside the other's
    # rule, says every mention (one used to be dropped, and placement failed the build).
    def fact(fact_id: str, subject: str, amount: str, per: str) -> Fact:
        return Fact(id=fact_id, section="wires_and_transfers", category="limit", subject=subject,
                    statement=f"Mobile check deposits are limited to ${amount} per {per}.",
                    value={"type": "cap", "amount": amount, "currency": "USD", "per": per},
                    effective_from=dt.date(2025, 6, 1))

    extra = {"deposit_daily": fact("deposit_daily", "the mobile check deposit limit", "2500", "day"),
             "deposit_monthly": fact("deposit_monthly", "the mobile check deposit limit", "10000", "month"),
             "wire_fee_premier": Fact(id="wire_fee_premier", section="wires_and_transfers", category="fee",
                                      subject=FACTS["wire_fee_domestic"].subject, applies_to=["premier_checking"],
                                      statement="An outgoing domestic wire from premier checking costs $15.00.",
                                      value={"type": "money", "amount": "15.00"}, effective_from=dt.date(2025, 6, 1))}
    texts = {"deposit_daily": "We still need to settle the mobile check deposit limit for the scripts.",
             "deposit_monthly": "The mobile check deposit limit comes up again in training, by the way.",
             "wire_fee_premier": "The outgoing domestic wire fee is on the scripts list too."}
    genre = get_genre(GENRE)
    for index in range(4):
        plan = make_plan(index, ids=("wire_fee_domestic",))
        day = plan.renditions[0].date
        mentions = [Rendition(fact_id, text, "", "voiced", "mention", day) for fact_id, text in texts.items()]
        plan = dataclasses.replace(plan, renditions=plan.renditions + mentions, facts={**plan.facts, **extra})
        artifact = genre.render(plan, context)
        said = normalise_text(text_of(artifact))
        for rendition in plan.renditions:
            assert normalise_text(rendition.text) in said, (index, rendition.fact_id)
        assert genre.validate(artifact) == []


def test_a_topic_ending_in_the_agendas_own_word_is_said_once(context):
    """Retail's topic "Defective items" once gave "get through the defective items items" (retail hard seed 3
    failed the doubled-words gate); the agenda line keeps a word its slot repeats once."""
    from taugen.generators.corpus.prose import has_doubled_words

    genre = get_genre(GENRE)
    for index in range(8):
        plan = dataclasses.replace(make_plan(index, ids=IDS, variant=genre.variants[index % 2]),
                                   topic_title="Defective items")
        text = genre.extract_text(*(lambda a: (a.files, a.author_text))(genre.render(plan, context)))
        assert "defective items" in text.lower() and not has_doubled_words(text), index


def test_a_weekend_recording_is_flagged(context):
    """Issue 10 item 6: staff working sessions are held on weekdays (banking hard seed 2 had 42 of 132
    meetings recorded on a Saturday or Sunday before the planner moved them)."""
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(3, ids=IDS), context)
    data = artifact.files[0].data
    recorded = re.search(rb"Recorded: (\d{4}-\d\d-\d\d)", data)
    assert dt.date.fromisoformat(recorded.group(1).decode()).weekday() < 5
    assert "weekend_meeting" not in codes(artifact)
    saturday = data.replace(recorded.group(0), b"Recorded: 2026-03-14", 1)
    assert "weekend_meeting" in codes(with_data(artifact, saturday))
    assert "weekend_meeting" not in codes(with_data(artifact, data.replace(recorded.group(0), b"Recorded: 2026-03-16", 1)))


@pytest.mark.parametrize("index", range(4))
def test_a_session_that_cannot_fit_its_last_day_is_recorded_on_the_weekday_before(context, index):
    """A window that ends early on a Monday (08:05, before a session could start and end in office hours)
    and opens on the Friday: the session is recorded in the Friday's office hours, not over the weekend
    or in the small hours, and still ends by the window's end."""
    end = dt.datetime(2026, 3, 16, 8, 5, tzinfo=TZ)
    plan = make_plan(index, filler=True, start=dt.datetime(2026, 3, 13, 8, 0, tzinfo=TZ), end=end)
    artifact = get_genre(GENRE).render(plan, context)
    recorded = dt.datetime.fromisoformat(artifact.metadata["recorded_at"])
    assert recorded.date() == dt.date(2026, 3, 13) and dt.time(8, 30) <= recorded.time() <= dt.time(17, 0)
    assert artifact.timestamps[-1] <= end


@pytest.mark.parametrize("planned", [660, 740, 820, 900, 935])
def test_a_planned_length_picks_the_agenda_that_comes_closest(context, planned):
    """Issue 10 item 3: meetings take planned lengths (``length_words``, tokens of the transcript text,
    dealt by the planner over ``MEETING_TOKENS``), so how much a carrier's rules or a filler's mentions
    fill a session no longer sets its length (banking hard seed 6: fillers 508 words, carriers 477,
    p = 0.04, before). The kept session is within the token budget and 60 tokens of the plan, holds every
    rendition and validates; the drafts it is chosen from (brief, fewer actions, as drawn; one to seven
    agenda items) give at least ten different lengths."""
    from taugen.generators.corpus.genres.meeting_transcript import _BRIEF, MEETING_TOKENS
    from taugen.generators.corpus.genres.workplace import TOKEN_BUDGET, token_count

    genre = get_genre(GENRE)
    assert genre.spread_words == MEETING_TOKENS and MEETING_TOKENS[1] < TOKEN_BUDGET
    for ids in (("wire_fee_domestic",), IDS[:3]):
        plan = dataclasses.replace(make_plan(5, ids=ids), length_words=planned)
        artifact = genre.render(plan, context)
        tokens = token_count(artifact.author_text)
        drafts = [token_count(genre._render(plan, context, shrink, agenda=agenda).author_text)
                  for shrink in (_BRIEF, 1, 0) for agenda in range(1, 8)]
        assert tokens <= TOKEN_BUDGET
        assert abs(tokens - planned) <= 60, (ids, planned, tokens, sorted(drafts))
        assert len(set(drafts)) >= 10  # the agenda sizes and optional lines give a real choice of lengths
        check_placed(artifact)
        assert genre.validate(artifact) == []


def test_a_window_without_office_hours_ends_the_session_at_its_weekday_end(context):
    """Banking hard seed 6 planned a meeting from Sunday 08:00 to Monday 08:00 (the world's now is Monday
    10:30): no weekday office hours fit, and the session used to land anywhere in the window (a Sunday).
    It now runs just before the window's end, on the Monday."""
    plan = make_plan(2, filler=True, start=dt.datetime(2026, 3, 15, 8, 0, tzinfo=TZ),
                     end=dt.datetime(2026, 3, 16, 8, 0, tzinfo=TZ))
    artifact = get_genre(GENRE).render(plan, context)
    recorded = dt.datetime.fromisoformat(artifact.metadata["recorded_at"])
    assert recorded.date() == dt.date(2026, 3, 16) and recorded.hour == 7
    assert artifact.timestamps[-1] <= plan.end and "weekend_meeting" not in codes(artifact)
