"""Tests of the support_transcript genre (chat and phone variants)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
from itertools import pairwise
from pathlib import Path

import jinja2
import pytest
import yaml

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
from taugen.generators.corpus.genres.support_transcript import (
    CHAT_TURN,
    PHONE_TURN,
    parse_turns,
)
from taugen.generators.corpus.vocabulary import load_vocabulary

DOMAIN = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking" / "domain.yaml"
TZ = dt.timezone(dt.timedelta(hours=-5))
BANNED = re.compile(r"\b(facts?|fact id|renditions?|carriers?|fillers?|answer key|distractors?|taugen)\b",
                    re.IGNORECASE)


@pytest.fixture(scope="module")
def context() -> RenderContext:
    config = DomainConfig(**yaml.safe_load(DOMAIN.read_text(encoding="utf-8")))
    env = jinja2.Environment(loader=jinja2.PackageLoader("taugen", "templates"), undefined=jinja2.StrictUndefined,
                             autoescape=False, trim_blocks=True, lstrip_blocks=True)
    return RenderContext(config=config, templates=env, build_seed=11, tier="test",
                         vocabulary=load_vocabulary(DOMAIN.parent))


@pytest.fixture(scope="module")
def facts() -> dict[str, Fact]:
    old = Fact(id="wire_fee_domestic_2025", section="wires_and_transfers", category="fee",
               statement="An outgoing domestic wire costs $20.00.", subject="outgoing domestic wire fee",
               value={"type": "money", "amount": "20.00"}, effective_from=dt.date(2025, 1, 1))
    new = Fact(id="wire_fee_domestic", section="wires_and_transfers", category="fee",
               statement="An outgoing domestic wire costs $25.00.", subject="outgoing domestic wire fee",
               value={"type": "money", "amount": "25.00"}, effective_from=dt.date(2026, 3, 1),
               supersedes="wire_fee_domestic_2025", voiced=["it's twenty-five dollars to send a domestic wire"])
    hold = Fact(id="intl_wire_hold", section="wires_and_transfers", category="deadline",
                statement="Incoming international wires are held for 2 business days.",
                subject="hold on incoming international wires",
                value={"type": "duration", "amount": 2, "unit": "business_days"}, effective_from=dt.date(2025, 6, 1))
    return {fact.id: fact for fact in (old, new, hold)}


def make_plan(facts, index: int = 0, variant: str = "chat", *, filler: bool = False, voiced: bool = False,
              ids=("wire_fee_domestic_2025", "wire_fee_domestic"), day: dt.date | None = None,
              end: dt.datetime = dt.datetime(2026, 3, 13, 17, tzinfo=TZ), only_rendered: bool = False) -> ArtifactPlan:
    renditions = []
    if not filler:
        for fid in ids:
            fact = facts[fid]
            superseded = fid.endswith("_2025")
            text = fact.voiced[0] if voiced and fact.voiced else fact.statement
            when = day or (dt.date(2026, 2, 20) if superseded else dt.date(2026, 3, 4))
            renditions.append(Rendition(fid, text, fact.value.canonical(), "voiced" if text != fact.statement
                                        else "canonical", "superseded" if superseded else "current", when))
    plan_facts = {fid: facts[fid] for fid in ids} if only_rendered else dict(facts)  # the planner's shape
    return ArtifactPlan(artifact_id=f"support_transcript_{index:03d}", genre="support_transcript",
                        topic="wires_and_transfers", topic_title="Wires and transfers",
                        start=dt.datetime(2026, 2, 2, 8, tzinfo=TZ), end=end,
                        renditions=renditions, facts=plan_facts, seed=4000 + index, variant=variant)


# Every history framing the genre has used for an old rule (dated, "until the change on ...", undated)
# and the customer's "has it changed?" questions that introduced it.
HISTORY_WORDS = re.compile(
    r"\b(no longer|earlier version|older|previous|revision history|until|superseded|has since|history|before|"
    r"up to|replac\w*|in force|out of date|changes on|chang(?:ed|ing)|used to|was it always|anymore|"
    r"takes? effect|took effect)\b", re.IGNORECASE)


@pytest.mark.parametrize("variant", ["chat", "phone"])
def test_render_is_deterministic(context, facts, variant):
    genre = get_genre("support_transcript")
    first = genre.render(make_plan(facts, variant=variant), context)
    second = genre.render(make_plan(facts, variant=variant), context)
    assert first.files[0].data == second.files[0].data
    assert first.timestamps == second.timestamps and first.metadata == second.metadata
    assert first.files[0].suffix == ".txt"


@pytest.mark.parametrize("variant", ["chat", "phone"])
def test_renditions_in_agent_turns_in_order(context, facts, variant):
    genre = get_genre("support_transcript")
    for index in range(10):
        plan = make_plan(facts, index, variant, ids=("wire_fee_domestic_2025", "wire_fee_domestic", "intl_wire_hold"),
                         voiced=index % 3 == 0)
        artifact = genre.render(plan, context)
        text = genre.extract_text(artifact.files, artifact.author_text)
        turns, bad = parse_turns(text)
        assert bad == [] and 6 <= len(turns) <= 30
        agent = artifact.metadata["speakers"][0]
        for rendition in plan.renditions:
            assert text.count(rendition.text) == 1
            assert find_surface_form(facts[rendition.fact_id].value, text) is not None
            number = artifact.metadata["rendition_turns"][rendition.fact_id]
            assert turns[number - 1].speaker == agent and rendition.text in turns[number - 1].text
        numbers = artifact.metadata["rendition_turns"]
        assert numbers["wire_fee_domestic_2025"] < numbers["wire_fee_domestic"]
        old_turn = turns[numbers["wire_fee_domestic_2025"] - 1].text
        history = r"until|before|previous|older|earlier|up to|changing|update on"
        assert re.search(history, old_turn, re.IGNORECASE), old_turn
        assert not BANNED.search(text) and not any(fid in text for fid in facts)
        assert genre.validate(artifact) == []


@pytest.mark.parametrize("variant", ["chat", "phone"])
@pytest.mark.parametrize("index", range(6))
def test_lone_superseded_before_its_successor_reads_as_current(context, facts, variant, index):
    """The planner's shape: a conversation dated before the successor took effect (March 1) that owns
    only the old version (the successor is not in the plan). The agent states it as the rule in force:
    no history framing, no "has it changed?" question, no word about the coming change."""
    genre = get_genre("support_transcript")
    plan = make_plan(facts, index, variant, ids=("wire_fee_domestic_2025", "intl_wire_hold"), only_rendered=True,
                     day=dt.date(2026, 2, 20), end=dt.datetime(2026, 2, 24, 17, tzinfo=TZ), voiced=index % 2 == 1)
    artifact = genre.render(plan, context)
    text = genre.extract_text(artifact.files, artifact.author_text)
    turns, bad = parse_turns(text)
    assert bad == []
    old = plan.renditions[0]
    assert text.count(old.text) == 1
    assert find_surface_form(facts["wire_fee_domestic_2025"].value, text) is not None
    number = artifact.metadata["rendition_turns"]["wire_fee_domestic_2025"]
    agent = artifact.metadata["speakers"][0]
    assert turns[number - 1].speaker == agent
    for turn in turns[max(number - 3, 0):number]:  # the question that led to it and the agent's answer
        assert not HISTORY_WORDS.search(turn.text), turn.text
    assert not re.search(r"\b(no longer|earlier version|older (?:version|terms|wording)|previous|has since|history|"
                         r"changes on|until the|chang(?:ed|ing))\b", text, re.IGNORECASE)
    as_current = genre.render(dataclasses.replace(plan, renditions=[dataclasses.replace(r, status="current")
                                                                    for r in plan.renditions]), context)
    assert as_current.files[0].data == artifact.files[0].data  # stated exactly as a current rule
    assert genre.validate(artifact) == []


def test_chat_and_phone_shapes_and_timestamps(context, facts):
    genre = get_genre("support_transcript")
    for index in range(8):
        for variant, pattern in (("chat", CHAT_TURN), ("phone", PHONE_TURN)):
            plan = make_plan(facts, index, variant)
            artifact = genre.render(plan, context)
            text = artifact.files[0].data.decode("utf-8")
            turn_lines = [line for line in text.splitlines() if line.startswith(("[", "Turn "))]
            assert turn_lines and all(pattern.match(line) for line in turn_lines)
            assert "Case reference: " in text and "Duration: " in text
            stamps = artifact.timestamps
            assert all(plan.start <= s <= plan.end for s in stamps)
            assert all(a <= b for a, b in pairwise(stamps))
            if variant == "chat":
                assert len(stamps) == len(turn_lines)
                clocks = [CHAT_TURN.match(line).group(3) + ":" + CHAT_TURN.match(line).group(4) for line in turn_lines]
                assert clocks == [f"{s:%H:%M}" for s in stamps]
            else:
                assert len(stamps) == 2 and stamps[0] < stamps[1]
                assert f"Call start: {stamps[0]:%H:%M}" in text


def test_variety_across_transcripts(context, facts):
    genre = get_genre("support_transcript")
    first_lines, customer_openers, lengths, sentences = set(), set(), set(), {}
    for index in range(24):
        artifact = genre.render(make_plan(facts, index, ("chat", "phone")[index % 2]), context)
        turns, _ = parse_turns(artifact.files[0].data.decode())
        first_lines.add(re.sub(r"\b[A-Z][a-z]+\b", "X", turns[0].text))
        customer = next(t for t in turns if t.speaker == artifact.metadata["speakers"][1])
        customer_openers.add(customer.text.split(" ", 1)[0].lower().strip(",."))
        lengths.add(len(turns))
        for turn in turns:
            for sentence in re.split(r"(?<=[.!?])\s+", turn.text):
                if len(sentence.split()) >= 6 and "$" not in sentence:
                    sentences[sentence] = sentences.get(sentence, 0) + 1
    assert len(first_lines) >= 6 and len(customer_openers) >= 4 and len(lengths) >= 5
    assert max(sentences.values()) <= 12  # no stock sentence in more than half of the transcripts


def test_filler_states_no_values(context, facts):
    genre = get_genre("support_transcript")
    for index in range(8):
        artifact = genre.render(make_plan(facts, index, ("chat", "phone")[index % 2], filler=True), context)
        text = artifact.files[0].data.decode()
        body = text.split("\n\n", 1)[1]
        assert "$" not in body and "%" not in body
        assert not re.search(r"\b\d+\s*(business |calendar )?days?\b", body, re.IGNORECASE)
        assert genre.validate(artifact) == []


def _broken(artifact: RenderedArtifact, text: str) -> RenderedArtifact:
    return RenderedArtifact(plan=artifact.plan, files=[RenderedFile(".txt", text.encode())], author_text=text,
                            renditions=artifact.renditions, timestamps=artifact.timestamps,
                            metadata=artifact.metadata)


def test_validate_catches_broken_transcripts(context, facts):
    genre = get_genre("support_transcript")
    chat = genre.render(make_plan(facts, 2, "chat"), context)
    text = chat.files[0].data.decode()
    skipped = text.replace("\n[03] ", "\n[04] ", 1)
    assert "turn_numbering" in {f.code for f in genre.validate(_broken(chat, skipped))}
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("[05]"))
    lines[index] = re.sub(r"\((\d\d):(\d\d)\)", "(00:01)", lines[index], count=1)
    assert "time_goes_back" in {f.code for f in genre.validate(_broken(chat, "\n".join(lines)))}
    no_speaker = re.sub(r"^\[02\] .+? \(", "[02]  (", text, count=1, flags=re.MULTILINE)
    assert {f.severity for f in genre.validate(_broken(chat, no_speaker))} == {"error"}

    phone = genre.render(make_plan(facts, 2, "phone"), context)
    text = phone.files[0].data.decode()
    skipped = text.replace("\nTurn 2 \u2014 ", "\nTurn 3 \u2014 ", 1)
    assert "turn_numbering" in {f.code for f in genre.validate(_broken(phone, skipped))}
    garbled = text.replace("\nTurn 4 \u2014 ", "\nTurn 4 ", 1)
    assert "malformed_turn" in {f.code for f in genre.validate(_broken(phone, garbled))}


def test_unknown_variant_is_rejected(context, facts):
    with pytest.raises(ValueError, match="variant"):
        get_genre("support_transcript").render(make_plan(facts, variant="fax"), context)


@pytest.mark.parametrize("variant", ["chat", "phone"])
def test_transcripts_reach_their_planned_length(context, facts, variant):
    """A planned length (tokens of the delivered text) is met by adding or leaving out optional exchanges;
    the renditions stay in every transcript."""
    from taugen.generators.corpus.genres.workplace import token_count

    genre = get_genre("support_transcript")
    lengths = []
    for planned in ((330, 450, 560) if variant == "chat" else (260, 400, 540)):
        plan = dataclasses.replace(make_plan(facts, 2, variant), length_words=planned)
        artifact = genre.render(plan, context)
        text = genre.extract_text(artifact.files, "")
        assert abs(token_count(text) - planned) <= 40, (planned, token_count(text))
        assert all(r.text in " ".join(text.split()) for r in plan.renditions)
        assert genre.validate(artifact) == []
        lengths.append(token_count(text))
    assert lengths == sorted(lengths)


@pytest.mark.parametrize("variant", ["chat", "phone"])
def test_every_rule_answers_a_question_the_customer_asked(context, facts, variant):
    """A section's reasons for contact are broad ("I got a letter saying my account is inactive" in a
    section that also holds UTMA ages and branch hours), so the agent never states a rule straight after
    the reason: the customer asks about it first (a question of its own turn or after the reason)."""
    from taugen.generators.corpus.genres.support_lines import FOLLOW_QUESTIONS, HISTORY_QUESTIONS, QUESTIONS

    asks = [re.escape(q.split("{")[0].strip()) for q in QUESTIONS + HISTORY_QUESTIONS + FOLLOW_QUESTIONS
            if q.split("{")[0].strip()]
    asked = re.compile("|".join(asks) + r"|\?", re.IGNORECASE)
    genre = get_genre("support_transcript")
    for index in range(16):
        plan = make_plan(facts, index, variant, ids=("wire_fee_domestic", "intl_wire_hold"))
        artifact = genre.render(plan, context)
        turns, _ = parse_turns(genre.extract_text(artifact.files, artifact.author_text))
        agent = artifact.metadata["speakers"][0]
        first = min(artifact.metadata["rendition_turns"].values())
        customer = [t.text for t in turns[:first - 1] if t.speaker != agent]
        # the opening reason is the customer's first turn; a question follows it, in that turn or a later one
        assert customer and asked.search(" ".join(customer)), (index, customer)


def test_a_relative_s_first_name_fits_the_relation(context):
    """"my father Sarah": a relative's first name is drawn for the gender the word gives."""
    import random

    from faker import Faker

    from taugen.generators.corpus.genres.support_lines import RELATIVES, relative_name

    from faker.providers.person.en_US import Provider

    fake = Faker("en_US")
    fake.seed_instance(3)

    male, female = set(Provider.first_names_male), set(Provider.first_names_female)
    rng = random.Random(5)
    seen = set()
    for _ in range(400):
        relation, name = relative_name(rng, fake)
        seen.add(relation)
        if RELATIVES[relation] == "male":
            assert name in male, (relation, name)
        elif RELATIVES[relation] == "female":
            assert name in female, (relation, name)
    assert seen == set(RELATIVES)


def test_a_reason_that_names_a_relative_gets_no_second_one_and_a_merchant_only_where_one_fits(context, facts):
    from taugen.generators.corpus.genres.support_lines import reason_detail

    details = set()
    for index in range(300):
        plan = dataclasses.replace(make_plan(facts, index), topic="account_lifecycle")
        detail = reason_detail(plan, context, "", "I'm calling on behalf of my mother")
        assert not re.search(r"\bmy (husband|wife|son|daughter|mother|father|brother|sister|partner|aunt)\b", detail)
        details.add(detail)
    words = context.vocabulary.words("support_transcript")
    merchant_clauses = [d.split("{")[0] for d in words.reason_details_by_section["billing_disputes"]]
    assert not any(detail.startswith(clause) for detail in details for clause in merchant_clauses
                   if clause.strip(", ")), "a dormant account's reason got a merchant or a trip"
    disputes = {reason_detail(dataclasses.replace(make_plan(facts, index), topic="billing_disputes"), context)
                for index in range(300)}
    assert any(d.startswith(", it was at ") for d in disputes)


def test_the_agent_reads_each_line_of_the_customers_file_once_a_conversation(context, facts):
    """Each slot may open with a line off the customer's file; the same line twice in one call ("Your last
    request about this ... took four business days", twice) read as a script."""
    from taugen.generators.corpus.genres.support_lines import AMOUNT_LINES, HISTORY_LINES

    patterns = [re.compile(re.escape(line).replace(r"\{D\}", ".+?").replace(r"\{N\}", r"\w+")
                           .replace(r"\{W\}", r"\w+").replace(r"\{A\}", ".+?")) for line in HISTORY_LINES + AMOUNT_LINES]
    many = {f"mention_{i}": Fact(id=f"mention_{i}", section="wires_and_transfers", category="fee",
                                 statement=f"Wire service number {i} costs ${10 + i}.00.",
                                 subject=f"wire service {'abcdefgh'[i]} fee",
                                 value={"type": "money", "amount": f"{10 + i}.00"},
                                 effective_from=dt.date(2025, 1, 1)) for i in range(5)}
    genre = get_genre("support_transcript")
    read = 0
    for index in range(12):
        renditions = [Rendition(fid, f"We charge what the fee schedule lists for the {fact.subject}.", "", "canonical",
                                "mention", dt.date(2026, 3, 4)) for fid, fact in many.items()]
        plan = ArtifactPlan(artifact_id=f"support_transcript_{index:03d}", genre="support_transcript",
                            topic="wires_and_transfers", topic_title="Wires and transfers",
                            start=dt.datetime(2026, 2, 2, 8, tzinfo=TZ), end=dt.datetime(2026, 3, 13, 17, tzinfo=TZ),
                            renditions=renditions, facts={**facts, **many}, seed=7000 + index,
                            variant=("chat", "phone")[index % 2])
        text = genre.render(plan, context).author_text
        counts = [len(pattern.findall(text)) for pattern in patterns]
        read += sum(counts)
        assert max(counts) <= 1, (index, counts)
    assert read >= 24  # a mention always gets a line when a free figure exists


@pytest.mark.parametrize("variant", ["chat", "phone"])
def test_the_reason_for_getting_in_touch_leads_to_the_first_question(context, variant):
    """A section's reasons are broad, and drawn from all of them "I'm thinking about opening a savings account"
    opened a call whose first question was the dormant account fee. A conversation whose first rule's subject
    a lead of ``reason_leads_by_section`` fits opens with one of that lead's reasons; one no lead fits, with
    one of the section's broad reasons."""
    words = context.vocabulary.words("support_transcript")
    dormant = Fact(id="dormant_fee", section="account_lifecycle", category="fee", subject="the dormant account fee",
                   statement="An account with no activity for 12 months is charged $5.00 a month.",
                   value={"type": "money", "amount": "5.00"}, effective_from=dt.date(2025, 1, 1))
    joint = Fact(id="joint_acting", section="account_lifecycle", category="rule", subject="acting on a joint account",
                 statement="Either owner of a joint account may act on it alone.",
                 value={"type": "text", "key_terms": ["Either owner"]}, effective_from=dt.date(2025, 1, 1))
    lead = next(lead for lead in words.reason_leads_by_section["account_lifecycle"] if "dormant" in lead.about)
    broad = words.reasons_by_section["account_lifecycle"]
    assert words.reasons_for("account_lifecycle", dormant.subject) == lead.reasons
    assert words.reasons_for("account_lifecycle", joint.subject) == broad
    assert words.reasons_for("account_lifecycle", "") == broad
    others = {reason for other in words.reason_leads_by_section["account_lifecycle"] if other is not lead
              for reason in other.reasons}
    for fact, expected in ((dormant, lead.reasons), (joint, broad)):
        opened = set()
        for index in range(24):
            rendition = Rendition(fact.id, fact.statement, fact.value.canonical(), "canonical", "current",
                                  dt.date(2026, 3, 4))
            plan = ArtifactPlan(artifact_id=f"support_transcript_{index:03d}", genre="support_transcript",
                                topic="account_lifecycle", topic_title="Opening and closing accounts",
                                start=dt.datetime(2026, 2, 2, 8, tzinfo=TZ), end=dt.datetime(2026, 3, 13, 17, tzinfo=TZ),
                                renditions=[rendition], facts={fact.id: fact}, seed=5000 + index, variant=variant)
            text = get_genre("support_transcript").render(plan, context).author_text.lower()
            said = [reason for reason in expected if reason.lower() in text]
            assert said, (fact.subject, text[:600])
            assert not any(reason.lower() in text for reason in others if reason not in expected)
            opened.update(said)
        assert len(opened) >= 2  # the lead's reasons are drawn, not one fixed line


@pytest.mark.parametrize("variant", ["chat", "phone"])
def test_a_customer_asked_to_wait_waits_and_no_word_makes_anyone_wait(context, facts, variant):
    """After the turn in which a customer agrees to wait, the next turn comes a lookup's or a hold's time
    later (``WAIT_SECONDS``), after a hold with the agent's thanks for holding; every other gap stays a typing or speaking pause, whatever the words say
    ("account holder", "at the moment" once made a caller wait)."""
    from taugen.generators.corpus.genres.support_conversation import (
        WAIT_SECONDS, Turn, _time_turns, build_conversation)
    from taugen.generators.corpus.genres.support_lines import HOLD_THANKS

    waited = {"lookup": 0, "hold": 0}
    for index in range(40):
        plan = dataclasses.replace(make_plan(facts, index, variant), length_words=560 if variant == "chat" else 540)
        conversation = build_conversation(plan, context, variant, max_words=plan.length_words)
        turns = conversation.turns
        for before, after in pairwise(turns):
            gap = after.offset - (before.end_offset if variant == "phone" else before.offset)
            if before.wait:
                waited[before.wait] += 1
                assert before.role == "customer" and after.role == "agent"
                assert gap >= WAIT_SECONDS[before.wait][variant][0], (before.text, gap)
                if before.wait == "hold":  # back from a hold, the agent thanks the customer first
                    assert after.text.startswith(HOLD_THANKS), after.text
            elif variant == "phone":
                assert gap <= 1.61, (before.text, gap)  # a pause of 0.4-1.6 s, offsets rounded to 0.01 s
    assert waited["lookup"] >= 2 and waited["hold"] >= 1, waited

    words = ("I'm the account holder.", "I'm at work at the moment, so I can't hold for long.")
    conversation.turns[:] = [Turn("customer" if n % 2 else "agent", words[n % 2]) for n in range(6)]
    _time_turns(random.Random(1), conversation)
    gaps = [b.offset - (a.end_offset if variant == "phone" else a.offset) for a, b in pairwise(conversation.turns)]
    assert max(gaps) <= (1.6 if variant == "phone" else 55 + 10 * 2.2), gaps


def test_only_a_fee_is_said_to_be_charged_by_another_bank(context, facts):
    """A customer quoting another organisation's figure says it *charges* or *quoted* it only for a fee: a hold
    of two business days (a deadline) is listed or given, never charged (a new user found "they charge eleven
    calendar days for CD grace period")."""
    from taugen.generators.corpus.genres.support_lines import peer_question

    plan = make_plan(facts)
    priced = re.compile(r"\bcharges?\b|\bquoted me\b|\btold me it comes to\b")
    said = {fact_id: [peer_question(random.Random(n), plan, context, facts[fact_id], facts[fact_id].subject,
                                    "Harbor Bank") for n in range(60)] for fact_id in ("intl_wire_hold", "wire_fee_domestic")}
    days, fees = [line for line in said["intl_wire_hold"] if line], [line for line in said["wire_fee_domestic"] if line]
    assert len(days) >= 40 and len(fees) >= 40
    assert not [line for line in days if priced.search(line)]
    assert any(priced.search(line) for line in fees)
