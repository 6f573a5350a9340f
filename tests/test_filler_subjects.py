"""Fillers name subjects the way carriers hold rules: as many (``rule_slots``), those their genre's records
state first (``other_subjects``), and channel mentions in the words people type (``spoken_mentions``); reference tables
take the lengths the planner spreads over them."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from taugen.authoring.pack import load_pack
from taugen.authoring.values import DurationValue, MoneyValue, PercentValue, find_surface_form
from taugen.generators.corpus.genre import RenderContext
from taugen.generators.corpus.render import template_environment
from taugen.generators.corpus.genre import genres
from taugen.generators.corpus.genres.benchmarks import other_subjects, peer_value
from taugen.generators.corpus.genres.workplace import token_count
from taugen.generators.corpus.planner import owner_genres, plan_corpus
from taugen.generators.corpus.vocabulary import load_vocabulary
from taugen.generators.tiers import tier
from taugen.validators.realism import BUCKET, MAX_MODAL_SHARE, MIN_DISTINCT

PACK = "taugen/domains/banking"


@pytest.fixture(scope="module")
def planned():
    from pathlib import Path

    pack = load_pack(Path(__file__).resolve().parents[1] / PACK)
    vocabulary = load_vocabulary(pack.directory, [s.id for s in pack.config.sections])
    available = genres()
    plan = plan_corpus(pack, tier("hard"), 1, available, vocabulary=vocabulary)
    context = RenderContext(config=pack.config, templates=template_environment(), build_seed=1, tier="hard",
                            facts=pack.facts, vocabulary=vocabulary)
    return pack, plan, context, available, vocabulary


def test_a_fillers_rule_slots_are_a_count_its_genres_carriers_hold(planned):
    _pack, plan, _context, _available, _vocabulary = planned
    owned: dict[tuple[str, str], set[int]] = {}
    for artifact in plan.artifacts:
        if artifact.is_carrier:
            count = sum(r.status in ("current", "superseded") for r in artifact.renditions)
            assert artifact.rule_slots == count
            owned.setdefault((artifact.genre, artifact.variant), set()).add(count)
    fillers = [a for a in plan.artifacts if not a.is_carrier]
    assert fillers and all(a.rule_slots >= 1 for a in fillers)
    for artifact in fillers:
        if (artifact.genre, artifact.variant) in owned:
            assert artifact.rule_slots in owned[(artifact.genre, artifact.variant)], artifact.artifact_id
    # drawn, not constant: the channel exports' fillers take more than one count
    assert len({a.rule_slots for a in fillers if a.genre == "channel_export"}) > 1


def test_a_record_names_the_subjects_its_own_genre_states_first(planned):
    _pack, plan, context, _available, _vocabulary = planned
    owners = owner_genres(plan)
    context = dataclasses.replace(context, owner_genres=owners)

    fillers = [a for a in plan.artifacts if not a.is_carrier and a.facts]
    drawn = {a.artifact_id: other_subjects(context, a, random.Random(3)) for a in fillers}
    own = {a.artifact_id: [owners.get(f.id) == a.genre for f in drawn[a.artifact_id]] for a in fillers}
    for record in fillers:  # a filler naming rules in passing never gets them again as its other subjects
        assert not {f.id for f in drawn[record.artifact_id]} & set(record.facts)
    # records of a topic whose rules records of their own genre and of others state: their own first
    mixed = [a for a in fillers if 0 < sum(own[a.artifact_id]) < len(own[a.artifact_id])]
    assert len(mixed) > 10
    for record in mixed:
        assert own[record.artifact_id] == sorted(own[record.artifact_id], reverse=True)
    filler = max(mixed, key=lambda a: len(drawn[a.artifact_id]))
    others = other_subjects(context, filler, random.Random(3))
    assert sorted(f.id for f in others) == sorted(f.id for f in other_subjects(context, filler, random.Random(4)))
    # a seeded order, not id order: another generator gives another order of the same subjects
    assert [f.id for f in others] != [f.id for f in other_subjects(context, filler, random.Random(4))]
    # without a plan (a genre rendered alone) the order is only drawn
    bare = other_subjects(dataclasses.replace(context, owner_genres={}), filler, random.Random(3))
    assert sorted(f.id for f in bare) == sorted(f.id for f in others)


def test_channel_and_help_page_mentions_use_spoken_wordings_and_other_genres_keep_the_experts(planned):
    """Channels and help pages (``spoken_mentions``) name rules in passing in the pack's spoken wordings
    as often as the tier voices rules: a help page's questions are asked in customers' words."""
    _pack, plan, _context, available, vocabulary = planned
    assert {name for name, genre in available.items() if genre.spoken_mentions} == {"channel_export", "web_screenshot"}
    spoken = vocabulary.words("spoken")
    forms = {form for forms in spoken.subject_words.values() for form in forms if len(form.split()) > 1}
    said: Counter[tuple[str, bool]] = Counter()
    for artifact in plan.artifacts:
        for rendition in artifact.renditions:
            if rendition.status == "mention":
                said[(artifact.genre, any(form in rendition.text for form in forms))] += 1
    assert said[("channel_export", True)] > 0 and said[("web_screenshot", True)] > 0
    # the genres without spoken mentions name subjects as the expert wrote them (a spoken wording there
    # comes only from an expert subject that already holds one, as "wire transfers" does)
    assert said[("email_thread", True)] < said[("email_thread", False)] / 4


def test_a_record_mentions_the_rules_its_own_genre_states_first(planned):
    """The planner's mentions follow the genre: a support transcript's mentions are mostly of rules support
    transcripts state, as its carriers' rules are (drawn from the whole topic, the topic's words would tell
    a carrier from a filler: "box rent" in 43 % of support carriers and 23 % of its fillers at seed 0). In
    the first pass (the plan of seed 1 without the top-up) the share was 5-23 % per genre when mentions were
    drawn from the whole topic; it is 91-99 % now."""
    pack, _plan, _context, available, vocabulary = planned
    # the first pass (a filler's rule slots); the top-up then brings every rule to its share wherever there is room
    plan = plan_corpus(pack, dataclasses.replace(tier("hard"), mentions_per_fact=0), 1, available,
                       vocabulary=vocabulary)
    owners = owner_genres(plan)
    same: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for artifact in plan.artifacts:
        for rendition in artifact.renditions:
            if rendition.status == "mention" and rendition.fact_id in owners:
                total[artifact.genre] += 1
                same[artifact.genre] += owners[rendition.fact_id] == artifact.genre
    # (a sample of at least 40 mentions per genre: help pages take one each, 50 of them in this plan)
    for genre in ("support_transcript", "email_thread", "channel_export", "meeting_transcript", "web_screenshot"):
        assert total[genre] >= 40 and same[genre] / total[genre] > 0.5, (genre, same[genre], total[genre])


def test_reference_tables_take_the_planned_lengths_and_pass_the_length_gate(planned):
    _pack, plan, context, available, _vocabulary = planned
    tables = [a for a in plan.artifacts if a.genre == "reference_table"]
    assert len(tables) >= 12 and all(a.length_words for a in tables)
    lengths = []
    for artifact in tables:
        rendered = available["reference_table"].render(artifact, context)
        lengths.append(token_count(rendered.author_text))
        assert abs(lengths[-1] - artifact.length_words) <= 60 or (artifact.renditions and lengths[-1] > artifact.length_words)
        assert rendered.renditions == [] or len(rendered.renditions) == len(artifact.renditions)
    buckets = Counter(length // BUCKET for length in lengths)
    assert len(buckets) >= MIN_DISTINCT and max(buckets.values()) / len(tables) <= MAX_MODAL_SHARE
    # without a planned length the table draws its own number of instruction rows, as before
    import dataclasses

    unplanned = dataclasses.replace(tables[0], length_words=0)
    assert available["reference_table"].render(unplanned, context).files[0].data


def test_a_spoken_mention_that_would_double_a_word_keeps_the_experts_words(planned):
    from taugen.generators.corpus.prose import has_doubled_words
    from taugen.generators.corpus.renditions import mention_lines

    pack = planned[0]
    fact = next(f for f in pack.facts.values() if f.subject and f.value is not None and f.category == "fee")
    said = "the fee in"  # "There's a question on {subject} in the queue" would say "in in"
    texts = list(mention_lines(fact, random.Random(1), "staff", said))
    assert texts == [t for t in texts if not has_doubled_words(t)]
    assert any(said in t for t in texts) and any(fact.subject.strip().rstrip(".") in t for t in texts)
    assert len(texts) == len(list(mention_lines(fact, random.Random(1), "staff")))  # one line per frame either way


def test_a_mention_line_that_doubles_a_word_in_the_experts_words_too_is_left_out(planned):
    """Seed 1 at hard once said "... disputes about hotel stays stays where it is" in a meeting (the
    subject ends with the word the line goes on with) and failed the doubled-word gate."""
    from taugen.authoring.models import Fact
    from taugen.generators.corpus.prose import has_doubled_words
    from taugen.generators.corpus.renditions import _MENTIONS_IN_MEETINGS, mention_lines

    pack = planned[0]
    base = next(f for f in pack.facts.values() if f.subject and f.value is not None and f.category == "fee")
    fact = Fact.model_validate({**base.model_dump(), "subject": "supporting documents for disputes about hotel stays"})
    texts = list(mention_lines(fact, random.Random(3), "meeting"))
    assert texts and not any(has_doubled_words(t) for t in texts)
    doubling = [frame for frame in _MENTIONS_IN_MEETINGS if "{subject} stays" in frame.lower()]
    assert len(doubling) == 3 and len(texts) == len(_MENTIONS_IN_MEETINGS) - len(doubling)


def test_framed_slots_hold_stand_ins_at_one_rate_in_rules_and_mentions(planned):
    """Issue 10 item 3: a mention said to a customer or among staff is often a twin of a rule's frame
    (the frame with a stand-in where the value stood), and a rule said in a frame gets a stand-in beside
    its value at the same rate, so the words around a value mark neither kind of slot. A mention is a twin
    first at ``TWIN_SHARE`` times the share of rules said in a frame (``framed_share``): canonical
    statements take no stand-in. Measured on the hard plan of seed 1: rules 722 of 1,374 slots of framed
    facts, mentions 390 of 640 (402 of 640, a gap of 0.10, with the constant share alone)."""
    from taugen.authoring.values import DurationValue, MoneyValue, find_surface_form
    from taugen.generators.corpus.renditions import TWIN_SHARE, _STAND_INS, _frames_of

    pack, plan, _context, available, _vocabulary = planned
    stand_ins = {phrase for phrases in _STAND_INS.values() for phrase in phrases}
    held: dict[str, list[bool]] = {"current": [], "mention": []}
    for artifact in plan.artifacts:
        if available[artifact.genre].mention_audience not in ("customer", "staff"):
            continue
        for rendition in artifact.renditions:
            fact = pack.facts.get(rendition.fact_id)
            if rendition.status not in held or fact is None or not _frames_of(fact):
                continue
            phrase = next((p for p in stand_ins if p in rendition.text), None)
            held[rendition.status].append(phrase is not None)
            if rendition.status == "mention":
                assert find_surface_form(fact.value, rendition.text) is None, rendition.text
            elif phrase is not None:  # the value first, then its stand-in
                form = rendition.value_form
                assert form and rendition.text.index(form) < rendition.text.index(phrase), rendition.text
    rules, mentions = (sum(v) / len(v) for v in (held["current"], held["mention"]))
    # rules (owned and echoed) and mentions enough to compare rates: 1,343 and 679 at seed 1 (mentions were
    # over 800 before fillers' rule places held echoes instead)
    assert len(held["current"]) > 300 and len(held["mention"]) > 600
    assert abs(rules - mentions) < 0.1 and abs(mentions - TWIN_SHARE) < 0.1, (rules, mentions)


def test_a_stand_in_goes_only_beside_a_framed_value(planned):
    """``with_stand_in`` puts a stand-in after the value of a rule said in one of its fact's frames and a
    tail of the audience's at its end; the canonical statement, an audience without tails (a meeting) and
    facts no frame voices are left as they are, and no result shares a six-word run with the statement."""
    from taugen.generators.corpus.renditions import (
        _TWIN_TAILS,
        _frames_of,
        canonical_text,
        shares_run,
        voiced_text,
        with_stand_in,
    )

    pack, _plan, _context, _available, _vocabulary = planned
    framed = [f for f in pack.facts.values() if _frames_of(f)]
    unframed = next(f for f in pack.facts.values() if f.value is not None and not _frames_of(f))
    assert len(framed) > 100
    changed = 0
    for index, fact in enumerate(framed):
        rng = random.Random(index)
        text, form = voiced_text(fact, rng)
        out = with_stand_in(fact, text, form, "customer", random.Random(index))
        if out != text:
            changed += 1
            assert form in out and out.endswith(".") and not shares_run(out, fact.statement)
            assert any(out[:-1].endswith(tail) for tail in _TWIN_TAILS["customer"]), out
        statement, statement_form = canonical_text(fact)
        if statement != text:
            assert with_stand_in(fact, statement, statement_form, "customer", random.Random(0)) == statement
        assert with_stand_in(fact, text, form, "meeting", random.Random(index)) == text
    assert 0.4 < changed / len(framed) < 0.75, changed
    text, form = canonical_text(unframed)
    assert with_stand_in(unframed, text, form, "staff", random.Random(0)) == text


def test_a_mention_may_be_the_rules_own_sentence_with_its_figure_deferred(planned):
    """Issue 10, item 3: a rule without a frame (a branch's wire cut-off, a state's report date) is stated in
    its own sentence wherever people write or talk, so a mention to a customer, among colleagues or in a
    meeting may be that sentence with the figure deferred to where the business publishes it (the pack's
    ``common.published_in``), never on a help page (which asks its own questions) and never holding the value;
    in a hard plan such mentions are placed, in fillers and carriers alike."""
    from taugen.generators.corpus.renditions import deferred_statement, mention_lines

    pack, plan, _context, _available, vocabulary = planned
    published_in = vocabulary.common.published_in
    cut_off = next(fact for fact in pack.facts.values() if fact.family == "branch_wire_cutoff")
    written = deferred_statement(cut_off, published_in)
    assert written.endswith("until the cut-off time in the published schedule on business days.")
    for audience in ("customer", "staff", "meeting"):
        assert written in list(mention_lines(cut_off, random.Random(1), audience, published_in=published_in))
        assert written not in list(mention_lines(cut_off, random.Random(1), audience))
    assert written not in list(mention_lines(cut_off, random.Random(1), "reader", published_in=published_in))
    placed = Counter()
    for artifact in plan.artifacts:
        carrier = artifact.is_carrier
        for rendition in artifact.renditions:
            fact = pack.facts[rendition.fact_id]
            written = deferred_statement(fact, published_in)
            if rendition.status == "mention" and written and rendition.text.startswith(written):
                assert fact.value is None or find_surface_form(fact.value, rendition.text) is None
                placed[carrier] += 1
    assert placed[False] > 20 and placed[True] > 5, placed


@pytest.mark.parametrize("amount,grain", [("35.00", "5"), ("15.00", "5"), ("2.50", "0.50"), ("4.00", "1"),
                                          ("1000.00", "100"), ("5000.00", "500"), ("0.99", "0.01")])
def test_a_peers_money_figure_is_as_round_as_the_rule_it_stands_beside(planned, amount, grain):
    pack, _plan, _context, _available, _vocabulary = planned
    fee = next(f for f in pack.facts.values() if f.value is not None and f.value.type == "money")
    fact = fee.model_copy(update={"value": MoneyValue(amount=Decimal(amount), currency="USD")})
    rng = random.Random(7)
    figures = [peer_value(rng, fact, {fact.value.canonical()}) for _ in range(60)]
    assert all(f.amount % Decimal(grain) == 0 and f.canonical() != fact.value.canonical() for f in figures)
    assert len({f.amount for f in figures}) >= 2  # drawn, near the rule: 0.6 to 1.45 times it
    assert all(Decimal("0.5") * Decimal(amount) <= f.amount <= Decimal("1.5") * Decimal(amount) + Decimal(grain)
               for f in figures)


@pytest.mark.parametrize("days,grain", [(60, 10), (90, 10), (45, 5), (3, 1), (21, 1)])
def test_a_peers_span_is_as_round_as_the_rule_it_stands_beside(planned, days, grain):
    pack, _plan, _context, _available, _vocabulary = planned
    span = next(f for f in pack.facts.values() if f.value is not None and f.value.type == "duration")
    fact = span.model_copy(update={"value": DurationValue(amount=days, unit="days")})
    rng = random.Random(7)
    figures = [peer_value(rng, fact, {fact.value.canonical()}) for _ in range(60)]
    assert all(f.amount % grain == 0 and f.amount != days and f.unit == "days" for f in figures)
    assert len({f.amount for f in figures}) >= 2


@pytest.mark.parametrize("percent,grain", [("1.5", "0.5"), ("3", "1"), ("25", "5"), ("3.45", "0.05"), ("0.18", "0.01")])
def test_a_peers_percent_is_as_round_as_the_rule_it_stands_beside(planned, percent, grain):
    pack, _plan, _context, _available, _vocabulary = planned
    rate = next(f for f in pack.facts.values() if f.value is not None and f.value.type == "percent")
    fact = rate.model_copy(update={"value": PercentValue(value=Decimal(percent))})
    rng = random.Random(7)
    figures = [peer_value(rng, fact, {fact.value.canonical()}) for _ in range(60)]
    assert all(f.value % Decimal(grain) == 0 and f.canonical() != fact.value.canonical() for f in figures)
    assert all("E" not in str(f.value) for f in figures)  # 30, never Decimal("3E+1") in a manifest
    assert len({f.value for f in figures}) >= 2


def test_a_customer_quoting_a_peer_puts_a_rules_stand_in_beside_the_figure_as_often_as_a_rule_gets_one(planned):
    from taugen.generators.corpus.genres.support_lines import peer_question
    from taugen.generators.corpus.renditions import TWIN_SHARE, stand_ins

    pack, plan, context, _available, _vocabulary = planned
    fee = pack.facts["fee_wire_recall"]  # "Cedar Ridge Bank charges $30.00 for each wire recall ..."
    assert stand_ins(fee) and not stand_ins(pack.facts["branch_saturday_hours_ashford"])  # framed facts only
    record = next(a for a in plan.artifacts if a.genre == "support_transcript")
    rng = random.Random(5)
    lines = [peer_question(rng, record, context, fee, "a wire recall", "Harper Bank") for _ in range(200)]
    assert all(lines) and not any(",." in line or ", ," in line for line in lines)
    beside = [line for line in lines if any(f", {s} on their site" in line for s in stand_ins(fee))]
    quoted = [line for line in lines if '"' in line]  # the peer's own words: no stand-in added
    assert not set(beside) & set(quoted)
    share = len(beside) / (len(lines) - len(quoted))
    assert abs(share - TWIN_SHARE) < 0.15, share


def test_a_customer_never_quotes_a_peers_figure_that_writes_a_word_twice(planned):
    """A spoken percent such as 1.55 % reads "one point five five percent", which the realism gate counts
    as a doubled word; the customer's question about a peer's figure draws another figure instead (banking
    hard seed 2 failed its build on two such support transcripts when an experiment re-drew its mentions)."""
    from taugen.generators.corpus.genres.benchmarks import COMPARABLE_CATEGORIES, peer_value
    from taugen.generators.corpus.genres.support_lines import peer_question
    from taugen.generators.corpus.prose import has_doubled_words

    pack, plan, context, _available, _vocabulary = planned
    rate = next(f for f in pack.facts.values() if f.value is not None and f.value.type == "percent"
                and f.category in COMPARABLE_CATEGORIES and f.subject)
    fact = rate.model_copy(update={"value": PercentValue(value=Decimal("1.45"))})  # peers' figures by 0.05
    draws = random.Random(11)
    figures = [peer_value(draws, fact, {fact.value.canonical()}) for _ in range(300)]
    assert any(has_doubled_words(form) for f in figures for form in f.voiced_forms())  # "five five"
    record = next(a for a in plan.artifacts if a.genre == "support_transcript")
    rng = random.Random(11)
    lines = [peer_question(rng, record, context, fact, "the exchange margin on wires", "Pace Bank")
             for _ in range(300)]
    assert all(lines) and not any(has_doubled_words(line) for line in lines)


def test_other_banks_are_named_after_places_not_people_and_never_after_a_branch():
    """Peers were a faker surname and the kind word, so a caller Gerald Webb quoted "Webb Bank" and Sean
    Jackson wrote about "Jackson Bank". They are now named from :data:`PEER_STEMS`: distinct in a record,
    no word shared with the business or its partners, nor with any built-in pack's branch, store or place
    names (a "Clearwater Bank" beside the Clearwater branch)."""
    import random
    import re
    from types import SimpleNamespace

    from faker import Faker

    from taugen.generators.corpus.genres.benchmarks import PEER_STEMS, peer_names

    packs = Path(__file__).resolve().parents[1] / "taugen" / "domains"
    text = " ".join(path.read_text() for path in sorted(packs.rglob("*")) if path.suffix in (".yaml", ".csv"))
    words = {word for stem in PEER_STEMS for word in stem.split()} - {"High", "Silver"}  # "High Yield", one "Silver"
    assert not [word for word in words if re.search(rf"\b{word}\b", text)]
    fake = Faker("en_US")
    fake.seed_instance(5)
    orgs = [SimpleNamespace(name="Cedar Ridge Bank"), SimpleNamespace(name="Keystone Card Services")]
    context = SimpleNamespace(config=SimpleNamespace(business=orgs[0], organisations=orgs))
    for _ in range(50):
        names = peer_names(fake, context, 4)
        assert len(set(names)) == 4 and all(name.endswith(" Bank") for name in names)
        assert all(name[: -len(" Bank")] in PEER_STEMS and "Keystone" not in name for name in names)
