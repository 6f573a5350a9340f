"""Tests of the web_screenshot genre.

Chromium screenshots: deterministic PNG bytes, visible page text, validation.
"""

from __future__ import annotations

import dataclasses
import os
import datetime as dt
from decimal import Decimal
import re
import shutil
from itertools import pairwise
from pathlib import Path

import jinja2
import pytest
import yaml

from taugen.authoring.models import DomainConfig, Fact
from taugen.authoring.values import (
    DurationValue,
    MoneyValue,
    PercentValue,
    TextValue,
    find_surface_form,
    normalise_text,
)
from genre_contract import contract
from taugen.generators.corpus.genre import ArtifactPlan, RenderContext, RenderedArtifact, Rendition, get_genre
from taugen.generators.corpus.genres import web_screenshot
from taugen.generators.corpus.genres.web_screenshot import png_size
from taugen.generators.corpus.renditions import deferred_statement

pytestmark = pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                                reason="headless Chromium (Debian package 'chromium') is not installed")

GENRE = "web_screenshot"
SUFFIX = ".png"
IDS = ("wire_fee_domestic", "atm_daily_cap", "police_report_stolen")
N_RUNS = 2

globals().update(contract(GENRE, SUFFIX, IDS, N_RUNS))


@pytest.fixture(scope="module", autouse=True)
def _close_the_browser():
    """Stop this process's browser after the module: a pytest-xdist worker may end without running exit
    handlers, which would leave the browser's profile folder behind."""
    yield
    if web_screenshot._BROWSER is not None:
        web_screenshot._BROWSER.close()
        web_screenshot._BROWSER = None


# ------------------------------------------------------------------------------------------------
# Screenshot specifics
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant,size", [("website", (1280, 1000)), ("mobile_app", (780, 1688))])
def test_png_is_deterministic_and_sized(context, variant, size):
    genre = get_genre(GENRE)
    plan = make_plan(6, ids=IDS, variant=variant)
    first, second = genre.render(plan, context), genre.render(plan, context)
    assert first.files[0].data == second.files[0].data
    data = first.files[0].data
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and png_size(data) == size
    assert first.files[0].role == "image" and first.metadata["png_size"] == list(size)
    assert b"tEXt" not in data and b"tIME" not in data and b"iTXt" not in data
    html = first.author_text
    assert html.startswith("<!DOCTYPE html>") and not re.search(r"(?:src|href)=\"(?:https?:|//)", html)


def test_page_text_is_what_the_screenshot_shows(context):
    plan = make_plan(2, ids=IDS, variant="website")
    artifact = get_genre(GENRE).render(plan, context)
    text = text_of(artifact)
    assert text == get_genre(GENRE).extract_text([], artifact.author_text)  # read from the page, not the PNG
    assert "Last updated March 13, 2026" in text
    assert "{" not in text and "function" not in text  # no style or script text


def test_missing_chromium_is_a_clear_error(context, monkeypatch):
    monkeypatch.setattr(web_screenshot.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="chromium"):
        get_genre(GENRE).render(make_plan(1, ids=IDS), context)


def test_validate_flags_broken_images(context):
    genre = get_genre(GENRE)
    artifact = genre.render(make_plan(3, ids=IDS, variant="mobile_app"), context)
    assert genre.validate(artifact) == []
    data = artifact.files[0].data
    assert "png_invalid" in codes(with_data(artifact, b"GIF89a" + data[6:]))
    assert "png_truncated" in codes(with_data(artifact, data[:-12]))
    assert "png_size_mismatch" in codes(with_data(artifact, data, png_size=[10, 10]))
    tiny = data[:16] + (40).to_bytes(4, "big") + (30).to_bytes(4, "big") + data[24:]
    assert "png_size" in codes(dataclasses.replace(with_data(artifact, tiny), metadata={}))


def test_the_browser_leaves_nothing_in_the_temporary_folder(monkeypatch):
    """Chromium writes a singleton socket folder (``org.chromium.Chromium.*``) into TMPDIR and leaves it
    when it is stopped by a signal (181 of them had piled up in /tmp after a session of builds): the
    browser removes it with its own folder when it stops."""
    import tempfile

    tmp_path = Path(tempfile.mkdtemp(prefix="t-"))  # short: pytest's tmp_path would overflow a socket address
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    if web_screenshot._BROWSER is not None:
        web_screenshot._BROWSER.close()
        web_screenshot._BROWSER = None
    web_screenshot.screenshot("<!DOCTYPE html><html><body><p>Hours</p></body></html>", 390, 844, 2)
    browser = web_screenshot._BROWSER
    assert browser is not None and Path(browser.folder).parent == tmp_path
    socket_folder, own = sorted(p.name for p in tmp_path.iterdir())  # while it runs: both in TMPDIR
    assert socket_folder.startswith("org.chromium.Chromium.") and own == Path(browser.folder).name
    browser.close()
    web_screenshot._BROWSER = None
    assert list(tmp_path.iterdir()) == []
    tmp_path.rmdir()


def test_one_browser_shoots_every_page_as_a_fresh_one_would():
    """The process keeps its browser between pages: a page's bytes do not depend on what it showed before,
    nor on whether the browser is fresh, and a forked process starts its own (pipes are never shared)."""
    page = "<!DOCTYPE html><html><body><h1>Fees</h1><p>A wire costs $25.00.</p></body></html>"
    other = "<!DOCTYPE html><html><body style='background:#eef4fa'><h2>Limits</h2></body></html>"
    web_screenshot.screenshot(other, 390, 844, 2)
    reused = web_screenshot.screenshot(page, 1280, 1000, 1)
    browser = web_screenshot._BROWSER
    assert browser is not None and browser.pid == os.getpid()
    # each page had a tab (a renderer) of its own, closed once shot: no state carries to the next page
    assert len(browser.targets) == len(set(browser.targets)) >= 2
    open_pages = [t for t in browser.call("Target.getTargets")["targetInfos"] if t["type"] == "page"]
    assert not {t["targetId"] for t in open_pages} & set(browser.targets)
    browser.close()
    web_screenshot._BROWSER = None
    assert web_screenshot.screenshot(page, 1280, 1000, 1) == reused
    assert png_size(web_screenshot.screenshot(other, 390, 844, 2)) == (780, 1688)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        same = web_screenshot.screenshot(page, 1280, 1000, 1) == reused
        own = web_screenshot._BROWSER.pid == os.getpid()
        web_screenshot._BROWSER.close()
        os.write(write, b"ok" if same and own else b"no")
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    assert os.read(read, 2) == b"ok"
    os.close(read)
    folder = web_screenshot._BROWSER.folder
    web_screenshot._BROWSER.close()
    web_screenshot._BROWSER = None
    assert not os.path.exists(folder)


@pytest.mark.parametrize("variant", ["website", "mobile_app"])
def test_a_page_without_rules_asks_about_other_subjects_of_its_topic_without_values(context, variant):
    """A filler page gives the places of rules to subjects of its topic (as many as ``rule_slots``), asked
    about as rules are, answered with no value of any fact; so a page's subjects do not say whether it
    states rules, and a carrier's subject words are not on its page alone."""
    genre = get_genre(GENRE)
    rendering = dataclasses.replace(context, facts=dict(FACTS))
    plan = dataclasses.replace(make_plan(4, filler=True, variant=variant), rule_slots=2)
    artifact = genre.render(plan, rendering)
    text = "\n".join(answered_lines(text_of(artifact))).lower()
    subjects = {fact.subject.lower() for fact in FACTS.values()}
    named = {subject for subject in subjects if subject in text}
    assert len(named) == 2, named
    for fact in FACTS.values():
        assert find_surface_form(fact.value, text_of(artifact)) is None, fact.id
    assert genre.validate(artifact) == [] and artifact.renditions == []


def collapsed_questions(text: str) -> list[str]:
    """The questions of a help page's text shown without an answer (followed by another question or by
    the ``Last updated`` line)."""
    lines = text.splitlines()
    return [line for line, after in zip(lines, lines[1:])
            if line.endswith("?") and (after.endswith("?") or after.startswith("Last updated"))]


def answered_lines(text: str) -> list[str]:
    """A help page's text without its collapsed questions."""
    collapsed = set(collapsed_questions(text))
    return [line for line in text.splitlines() if line not in collapsed]


@pytest.mark.parametrize("filler", [False, True])
def test_collapsed_questions_ask_about_other_subjects_of_the_topic_on_any_page(context, filler):
    """A help centre lists its other answers as collapsed questions: about half of a long page's ask about
    another subject of its topic (never one the page states or answers, never with a value), on pages
    with rules and without alike, so a rule's subject is on more pages than its owner's."""
    genre = get_genre(GENRE)
    rendering = dataclasses.replace(context, facts=dict(FACTS))
    subjects = {fact.id: fact.subject.lower() for fact in FACTS.values()}
    asked, total = 0, 0
    for index in range(8):
        plan = make_plan(index, ids=("wire_fee_domestic",), filler=filler, variant="website")
        artifact = genre.render(dataclasses.replace(plan, length_words=330), rendering)
        text = text_of(artifact)
        collapsed = collapsed_questions(text)
        answered = "\n".join(answered_lines(text)).lower()
        total += len(collapsed)
        for question in collapsed:
            named = [fact_id for fact_id, subject in subjects.items() if subject in question.lower()]
            asked += bool(named)
            for fact_id in named:
                assert fact_id not in plan.facts and subjects[fact_id] not in answered, (question, text)
        for fact in FACTS.values():
            assert not any(find_surface_form(fact.value, question) for question in collapsed), fact.id
    assert total >= 16 and 0.2 <= asked / total <= 0.6, (asked, total)


def test_a_subject_answered_without_its_value_keeps_the_rules_own_sentence():
    """A help page that names a rule it does not state answers with the rule's own sentence and the figure
    deferred to where the business publishes it (the pack's ``common.published_in``), so the words of a rule are
    on pages without it too; only where the sentence reads right and then holds no number at all."""
    published = {"money": "set out in the fee schedule", "percent": "shown on the rates page",
                 "cap": "set out in the account terms"}
    wire = FACTS["wire_fee_domestic"]
    assert deferred_statement(wire, published) == \
        "An outgoing domestic wire costs the amount set out in the fee schedule."
    rent = wire.model_copy(update={"statement": "Annual rent for a small box is $25.00 per year."})
    assert deferred_statement(rent, published) == \
        "Annual rent for a small box is set out in the fee schedule per year."
    # another number left in the sentence, a figure not after "is"/"costs", a type with no published place
    two = wire.model_copy(update={"statement": "A wire over $10,000 costs $25.00."})
    capped = FACTS["atm_daily_cap"]  # "... are limited to $1,250.00 per day."
    for fact in (two, capped, FACTS["intl_wire_hold"], FACTS["police_report_stolen"]):
        assert deferred_statement(fact, published) == "", fact.statement
    assert deferred_statement(wire, {"percent": "on the rates page"}) == ""


def test_a_span_a_day_a_clock_time_or_opening_hours_are_deferred_after_their_preposition():
    """Durations, days of the year, clock times (with their time zone) and opening hours are deferred too,
    as the noun phrase the pack gives (``duration``, ``date``, ``time``, ``hours``), and only after "by",
    "until", "within", "after" or "before" (hours: "from ... until ..." becomes "during ..."): the words of
    a family's rule (a branch's wire cut-off, a state's report date) are then on pages without it too."""
    published = {"duration": "the period set out in the account terms", "date": "the date in the filing calendar",
                 "time": "the cut-off time in the published schedule", "hours": "the hours in the branch directory"}
    base = FACTS["intl_wire_hold"]

    def text_fact(statement: str, *terms: str) -> Fact:
        return base.model_copy(update={"statement": statement, "value": TextValue(key_terms=list(terms))})

    cut_off = text_fact("The Lakeshore branch takes in-person domestic wire requests until 2:00 PM Central Time on "
                        "business days.", "2:00 PM")
    assert deferred_statement(cut_off, published) == ("The Lakeshore branch takes in-person domestic "
                                                                     "wire requests until the cut-off time in the "
                                                                     "published schedule on business days.")
    report = text_fact("Cedar Ridge Bank files its Maine unclaimed property report each year by April 30.", "April 30")
    assert deferred_statement(report, published) == \
        "Cedar Ridge Bank files its Maine unclaimed property report each year by the date in the filing calendar."
    for hours in ("until 12:00 PM", "until noon"):
        saturday = text_fact(f"On Saturdays the Elm Street branch is open from 9:00 AM {hours}.", hours)
        assert deferred_statement(saturday, published) == \
            "On Saturdays the Elm Street branch is open during the hours in the branch directory."
    mailed = base.model_copy(update={
        "statement": "A check for the closing balance is mailed within 7 business days after the account is closed.",
        "value": DurationValue(amount=7, unit="business_days")})
    assert deferred_statement(mailed, published) == ("A check for the closing balance is mailed within "
                                                                    "the period set out in the account terms after "
                                                                    "the account is closed.")
    # no figure (a closed branch), a duration before "of", a figure not after a preposition, another number
    # left, a kind the pack names no place for
    closed = text_fact("The Pine Ridge branch is closed on Saturdays.", "closed on Saturdays")
    early = mailed.model_copy(update={"statement": "An account closed within 7 business days of opening pays a fee."})
    bare = text_fact("Wires sent at 2:00 PM arrive the same day.", "2:00 PM")
    two = text_fact("Wires over $10,000 are taken until 2:00 PM Central Time.", "2:00 PM")
    for fact in (closed, early, bare, two):
        assert deferred_statement(fact, published) == "", fact.statement
    assert deferred_statement(report, {"time": "the cut-off time in the published schedule"}) == ""
    assert find_surface_form(cut_off.value, deferred_statement(cut_off, published)) is None


def test_a_figure_named_by_its_noun_or_a_span_counted_back_is_deferred_and_a_bound_or_a_share_is_not():
    """"a margin of 1.5%" and "a minimum deposit of $500.00" keep their noun ("the margin shown on the rates
    page"); "within the last 3 years" loses "the last" with its figure; a bound ("of $100.00 or less"), a
    share of something ("is 3% of each purchase") and a multiple ("is $50 times ...") are not deferred, as no
    place can stand in their sentence."""
    published = {"money": "set out in the fee schedule", "percent": "shown on the rates page",
                 "duration": "the period set out in the account terms"}
    base = FACTS["wire_fee_domestic"]

    def fact(statement: str, value) -> Fact:
        return base.model_copy(update={"statement": statement, "value": value})

    margin = fact("Wires sent in euros are converted at the bank's rate, which includes a margin of 1.5% over the "
                  "wholesale rate.", PercentValue(value=Decimal("1.5")))
    assert deferred_statement(margin, published) == ("Wires sent in euros are converted at the bank's rate, which "
                                                     "includes the margin shown on the rates page over the wholesale "
                                                     "rate.")
    opening = fact("Opening a savings account takes a minimum deposit of $500.00.", MoneyValue(amount=Decimal("500")))
    assert deferred_statement(opening, published) == \
        "Opening a savings account takes the minimum deposit set out in the fee schedule."
    recent = fact("A power of attorney is accepted if it was signed within the last 3 years.",
                  DurationValue(amount=3, unit="years"))
    assert deferred_statement(recent, published) == \
        "A power of attorney is accepted if it was signed within the period set out in the account terms."
    bound = fact("An error claim of $100.00 or less is credited the same day.", MoneyValue(amount=Decimal("100")))
    share = fact("The foreign transaction fee is 3% of each purchase.", PercentValue(value=Decimal("3")))
    multiple = fact("The certificate is $50.00 times the number of passengers.", MoneyValue(amount=Decimal("50")))
    named_share = fact("The fee includes a margin of 2% of the converted amount.", PercentValue(value=Decimal("2")))
    for unplaced in (bound, share, multiple, named_share):
        assert deferred_statement(unplaced, published) == "", unplaced.statement


def test_a_subject_keeps_its_capitals_except_an_opening_article():
    assert web_screenshot.subject_of(FACTS["atm_daily_cap"]) == "the daily ATM withdrawal limit"
    saturday = FACTS["atm_daily_cap"].model_copy(update={"subject": "Saturday hours at the Elm Street branch."})
    assert web_screenshot.subject_of(saturday) == "Saturday hours at the Elm Street branch"
    article = FACTS["atm_daily_cap"].model_copy(update={"subject": "The ATM fee"})
    assert web_screenshot.subject_of(article) == "the ATM fee"


@pytest.mark.parametrize("variant,low,high", [("website", 130, 330), ("mobile_app", 70, 160)])
def test_a_planned_length_sets_the_amount_of_help_text(context, variant, low, high):
    """The planner spreads lengths over the pages (``spread_words``) so that the genre's lengths pass the
    length gate at any count; a page grows or shrinks its help text, never its rules, towards its length."""
    from taugen.generators.corpus.genres.workplace import token_count

    genre = get_genre(GENRE)
    plan = make_plan(5, variant=variant)
    short, long = (genre.render(dataclasses.replace(plan, length_words=words), context) for words in (low, high))
    counts = [token_count(text_of(artifact)) for artifact in (short, long)]
    assert counts[1] - counts[0] >= (high - low) // 2, counts
    for artifact in (short, long):
        check_placed(artifact)
        assert artifact.renditions == plan.renditions
    assert genre.spread_words[variant][0] <= low + 10 and high <= genre.spread_words[variant][1] + 40


def test_a_help_page_asks_about_a_rule_in_customers_words_as_often_as_the_tier_voices_rules(context):
    """Issue 10 item 4: a help page's question named its rule's subject in the expert's words and its
    answer named it again, so a search on the subject's words put the page first (banking hard seed 4:
    78 % of web-owned facts in the top three). At hard (rules voiced 75 % of the time) the question says
    the subject in the pack's spoken wordings as often ("the outgoing domestic wire charge"); the answer,
    the rule's own sentence, keeps the expert's words; at a tier that voices nothing, no question does."""
    genre = get_genre(GENRE)

    def questions(tier_name: str) -> list[str]:
        asked = []
        for index in range(6):
            plan = make_plan(index, ids=("wire_fee_domestic",), variant="website")
            rendered = genre.render(plan, dataclasses.replace(context, tier=tier_name))
            text = text_of(rendered)
            assert plan.renditions[0].text in text
            asked += [line for line in text.splitlines() if line.endswith("?") and "domestic wire" in line]
        return asked

    hard, plain = questions("hard"), questions("easy")
    assert len(hard) == len(plain) == 6
    assert 2 <= sum("domestic wire charge" in q for q in hard) <= 6, hard
    assert not any("charge" in q for q in plain), plain
