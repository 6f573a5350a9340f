"""Tests of the channel_export genre.

Slack-style channel exports: determinism, placement, threads and reactions, validation.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
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

GENRE = "channel_export"
SUFFIX = ".json"
IDS = ("wire_fee_domestic", "intl_wire_hold", "police_report_stolen")
N_RUNS = 6

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


# ------------------------------------------------------------------------------------------------
# Slack export specifics
# ------------------------------------------------------------------------------------------------

def test_export_threads_reactions_and_members(context):
    genre = get_genre(GENRE)
    for index in range(6):
        artifact = genre.render(make_plan(index, ids=IDS, variant=genre.variants[index % 2]), context)
        document = json.loads(artifact.files[0].data)
        channel, members, messages = document["channel"], document["members"], document["messages"]
        assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,79}", channel["name"]) and channel["id"].startswith("C")
        ids = {m["id"] for m in members}
        assert set(channel["members"]) == ids and all(i.startswith("U") for i in ids)
        stamps = [m["ts"] for m in messages]
        assert all(re.fullmatch(r"\d{10}\.\d{6}", ts) for ts in stamps)
        assert stamps == sorted(stamps, key=float) and len(set(stamps)) == len(stamps)
        assert channel["created"] <= float(stamps[0])
        by_ts = {m["ts"]: m for m in messages}
        for message in messages:
            assert message["user"] in ids
            if message.get("thread_ts") not in (None, message["ts"]):
                parent = by_ts[message["thread_ts"]]
                assert message["ts"] in [r["ts"] for r in parent["replies"]]
            for reaction in message.get("reactions", []):
                assert reaction["count"] == len(reaction["users"]) and set(reaction["users"]) <= ids
        assert any("replies" in m for m in messages)
        if genre.variants[index % 2] == "shared":
            assert channel["is_ext_shared"] and len({m["team_id"] for m in members}) == 2
        # every stating message is in the export, as posted
        for fact_id, ts in artifact.metadata["posts"].items():
            assert FACTS[fact_id].statement in by_ts[ts]["text"].replace("&amp;", "&")


def test_slack_escaping_round_trips(context):
    text = "Wires to Alder & Finch <partners> are reviewed by the wire desk."
    plan = make_plan(1, ids=("police_report_stolen",), texts={"police_report_stolen": text})
    artifact = get_genre(GENRE).render(plan, context)
    raw = artifact.files[0].data.decode()
    assert "Alder &amp; Finch &lt;partners&gt;" in raw and text not in raw
    assert text in text_of(artifact)


def test_pointer_is_posted_in_passing(context):
    pointer = "No idea on that one, best to ask the operations lead."
    plan = make_plan(2, ids=("wire_fee_domestic", "police_report_stolen"),
                     statuses={"police_report_stolen": "pointer"}, texts={"police_report_stolen": pointer})
    artifact = get_genre(GENRE).render(plan, context)
    text = text_of(artifact)
    assert normalise_text(pointer) in normalise_text(text)
    line = next(line for line in text.splitlines() if normalise_text(pointer) in normalise_text(line))
    assert not re.search(r"approved|current terms|schedule|sign-off|current rule", line, re.IGNORECASE)
    assert "police_report_stolen" not in artifact.metadata["posts"]
    assert get_genre(GENRE).validate(artifact) == []


def test_validate_flags_broken_exports(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(3, ids=IDS), context)
    assert genre.validate(artifact) == []
    document = json.loads(artifact.files[0].data)

    def broken(change) -> set[str]:
        copy = json.loads(json.dumps(document))
        change(copy)
        return codes(with_data(artifact, json.dumps(copy).encode()))

    reply = next(i for i, m in enumerate(document["messages"]) if m.get("thread_ts") not in (None, m["ts"]))
    assert "orphan_reply" in broken(lambda d: d["messages"][reply].update(thread_ts="1000000000.000001"))
    assert "unknown_user" in broken(lambda d: d["messages"][0].update(user="UNOBODY"))
    reacted = next(i for i, m in enumerate(document["messages"]) if m.get("reactions"))
    assert "bad_reaction" in broken(lambda d: d["messages"][reacted]["reactions"][0].update(count=99))
    assert "messages_out_of_order" in broken(lambda d: d["messages"].reverse())
    assert "bad_ts" in broken(lambda d: d["messages"][0].update(ts="yesterday"))
    parent = next(i for i, m in enumerate(document["messages"]) if "reply_count" in m)
    assert "thread_mismatch" in broken(lambda d: d["messages"][parent].update(reply_count=7))
    assert "json_unreadable" in codes(with_data(artifact, b"{not json"))


def test_no_message_is_stamped_after_the_export_ends(context):
    """A message's ``ts`` is its time plus microseconds: an export whose window ends on a whole second (banking
    hard seed 14 ended one exactly at the world's now) stamps every message at or before that end."""
    genre = get_genre(GENRE)
    end = dt.datetime(2026, 3, 13, 10, 30, tzinfo=TZ)
    for index in range(12):
        plan = make_plan(index, ids=IDS, start=end - dt.timedelta(minutes=40), end=end,
                         variant=genre.variants[index % 2])
        messages = json.loads(genre.render(plan, context).files[0].data)["messages"]
        assert max(float(m["ts"]) for m in messages) <= end.timestamp(), index


def test_a_topic_ending_in_a_purpose_word_is_not_doubled(context):
    """A shared channel's purpose names its topic; telecom's "How agents work" once gave "for how agents work
    work." (a doubled word the realism gate refuses, at telecom hard seeds 0 and 2)."""
    genre = get_genre(GENRE)
    purposes = set()
    for index in range(8):
        plan = dataclasses.replace(make_plan(index, ids=IDS, variant="shared"), topic_title="How agents work")
        document = json.loads(genre.render(plan, context).files[0].data)
        purposes.add(document["channel"]["purpose"]["value"])
    assert purposes and all("work work" not in purpose for purpose in purposes)
    assert any("how agents work" in purpose for purpose in purposes)
