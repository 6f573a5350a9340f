"""Typed fact values: canonical and surface forms, where a text states a value, and validation."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from pydantic import TypeAdapter, ValidationError

from taugen.authoring.models import Fact
from taugen.authoring.values import (
    BooleanValue,
    CapValue,
    CountValue,
    DateValue,
    DurationValue,
    EnumValue,
    FactValue,
    MoneyValue,
    PercentValue,
    TextValue,
    find_surface_form,
    normalise_text,
)


def money(amount: str, currency: str = "USD") -> MoneyValue:
    return MoneyValue(amount=Decimal(amount), currency=currency)


def percent(value: str) -> PercentValue:
    return PercentValue(value=Decimal(value))


def days(amount: int, unit: str = "days") -> DurationValue:
    return DurationValue(amount=amount, unit=unit)


def states(value, text: str) -> bool:
    return find_surface_form(value, text) is not None


# --- money -----------------------------------------------------------------------------------------


def test_money_canonical_forms():
    assert money("35.00").canonical() == "$35.00"
    assert money("35").canonical() == "$35.00"
    assert money("1500.00").canonical() == "$1,500.00"
    assert money("0.50").canonical() == "$0.50"
    assert money("35.00", "EUR").canonical() == "€35.00"
    assert money("35.00", "GBP").canonical() == "£35.00"
    assert money("35.00", "CAD").canonical() == "35.00 CAD"


@pytest.mark.parametrize("text", ["The fee is $35.00 per item.", "The fee is $35 per item.", "a fee of 35.00 USD",
                                  "a fee of USD 35.00", "a fee of 35 USD", "It costs thirty-five dollars.",
                                  "It costs Thirty-Five Dollars.", "The fee ($35) applies.", "costs $35.",
                                  "costs $35, and", "THE FEE IS $35.00"])
def test_money_35_surface_forms_are_found(text):
    assert states(money("35.00"), text)


@pytest.mark.parametrize("text", ["Waived above $1,500.00 in deposits.", "Waived above $1,500 in deposits.",
                                  "Waived above $1500 in deposits.", "Waived above $1500.00.",
                                  "Waived above 1,500.00 USD.", "Waived above 1,500 USD.",
                                  "Waived above one thousand five hundred dollars."])
def test_money_with_thousands_separator(text):
    assert states(money("1500.00"), text)


def test_money_surface_forms_lists_the_expected_set():
    forms = set(money("35.00").surface_forms())
    assert {"$35.00", "$35", "35.00 USD", "USD 35.00", "35 USD", "thirty-five dollars"} <= forms
    assert money("35.00").voiced_forms() == ["thirty-five dollars"]


def test_money_with_cents_has_no_whole_dollar_forms():
    forms = set(money("35.50").surface_forms())
    assert "$35.50" in forms and "thirty-five dollars and fifty cents" in forms
    assert "$35" not in forms and "35 USD" not in forms


@pytest.mark.parametrize("amount, spoken", [("0.50", "fifty cents"), ("0.01", "one cent"), ("0.99", "ninety-nine cents"),
                                            ("1.00", "one dollar"), ("1.01", "one dollar and one cent"),
                                            ("0.00", "zero dollars"), ("35.50", "thirty-five dollars and fifty cents")])
def test_money_voiced_forms_for_cents(amount, spoken):
    assert money(amount).voiced_forms() == [spoken]
    assert states(money(amount), f"That comes to {spoken} in total.")


def test_cents_only_amounts_are_found_in_digit_and_spoken_form():
    assert states(money("0.50"), "a charge of $0.50 per page")
    assert states(money("0.50"), "a charge of 0.50 USD per page")
    assert states(money("0.50"), "just fifty cents a page")
    assert not states(money("0.50"), "a charge of $10.50 per page")
    assert not states(money("0.50"), "a charge of 10.50 USD per page")


def test_money_in_other_currencies():
    assert states(money("35.00", "EUR"), "a fee of €35")
    assert states(money("35.00", "GBP"), "thirty-five pounds")
    assert states(money("0.50", "GBP"), "fifty pence")
    assert states(money("35.00", "CAD"), "a fee of 35 CAD")


# --- percent ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["a fee of 3% of the amount", "a fee of 3 percent", "a fee of three percent",
                                  "a fee of 3 per cent", "a fee of 3.00%", "a fee of 3.0%", "Three Percent"])
def test_percent_surface_forms(text):
    assert states(percent("3"), text)


def test_percent_canonical_and_fractional_rates():
    assert percent("3").canonical() == "3%"
    assert percent("3.00").canonical() == "3%"
    assert percent("30").canonical() == "30%"
    assert percent("2.5").canonical() == "2.5%"
    assert states(percent("2.5"), "2.5% of each transfer")
    assert states(percent("2.5"), "two point five percent")
    assert not states(percent("3"), "a fee of 13%")
    assert not states(percent("3"), "a fee of 3.5%")


def test_percent_forms_never_round_the_rate():
    assert "4.2%" not in percent("4.25").surface_forms()
    assert not states(percent("4.25"), "The APY is 4.2%.")


# --- durations -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["within 10 business days", "within ten business days", "within 10 working days",
                                  "within 10 banking days", "within ten (10) business days", "Within Ten Business Days"])
def test_duration_business_days(text):
    assert states(days(10, "business_days"), text)


def test_duration_canonical_singular_and_units():
    assert days(10, "business_days").canonical() == "10 business days"
    assert days(1, "business_days").canonical() == "1 business day"
    assert days(60).canonical() == "60 days"
    assert states(days(60), "within sixty days")
    assert states(days(1, "business_days"), "by the next one business day")
    assert not states(days(10, "business_days"), "within 10 calendar days")
    assert days(10, "business_days").voiced_forms() == ["ten business days", "ten working days", "ten banking days"]


def test_duration_days_helper():
    assert days(60).days() == 60
    assert days(45, "calendar_days").days() == 45
    assert days(2, "weeks").days() == 14
    assert days(10, "business_days").days() is None
    assert days(3, "months").days() is None


def test_duration_hyphenated_compound_adjective():
    assert states(days(60), "within the 60-day notice window")
    assert states(days(10, "business_days"), "a 10-business-day investigation")


# --- caps, counts ----------------------------------------------------------------------------------


def test_cap_with_currency_is_money():
    cap = CapValue(amount=Decimal(500), currency="USD", per="day")
    assert cap.canonical() == "$500.00"
    assert states(cap, "up to $500 per day")
    assert states(cap, "up to five hundred dollars a day")
    assert not states(cap, "up to $5,000 per day")
    assert cap.numbers() == [Decimal(500)]


def test_cap_with_unit_is_a_count():
    cap = CapValue(amount=Decimal(6), unit="withdrawals", per="statement cycle")
    assert cap.canonical() == "6 withdrawals"
    assert states(cap, "no more than 6 withdrawals per cycle")
    assert states(cap, "no more than six withdrawals per cycle")
    assert not states(cap, "no more than 16 withdrawals")


def test_count_value():
    count = CountValue(value=3, unit="attempts")
    assert count.canonical() == "3 attempts"
    assert set(count.surface_forms()) == {"3 attempts", "three attempts"}
    assert CountValue(value=4).canonical() == "4"
    assert count.numbers() == [Decimal(3)]


# --- dates, enums, booleans, text ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["from April 1, 2026", "from 2026-04-01", "from 4/1/2026", "from 04/01/2026",
                                  "from 1 April 2026", "from Apr 1, 2026"])
def test_date_surface_forms(text):
    assert states(DateValue(value=dt.date(2026, 4, 1)), text)


def test_date_canonical_voiced_and_boundaries():
    value = DateValue(value=dt.date(2026, 4, 1))
    assert value.canonical() == "April 1, 2026"
    assert value.voiced_forms() == ["April first"]
    assert not states(value, "from April 11, 2026")
    assert not states(value, "from 4/11/2026")
    assert not states(value, "from 14/1/2026")
    assert value.numbers() == []


def test_enum_labels():
    value = EnumValue(value="branch_only", options=["branch_only", "online"],
                      labels={"branch_only": ["in a branch", "at a branch"]})
    assert value.canonical() == "in a branch"
    assert set(value.surface_forms()) == {"in a branch", "at a branch", "branch only"}
    assert states(value, "This can only be done at a branch.")
    assert not states(value, "This can be done online.")
    bare = EnumValue(value="branch_only")
    assert bare.canonical() == "branch only"


def test_boolean_key_terms():
    value = BooleanValue(value=False, key_terms=["no longer offer", "not available"])
    assert value.canonical() == "no longer offer"
    assert value.surface_forms() == ["no longer offer", "not available"]
    assert find_surface_form(value, "We No Longer Offer paper passbooks.") == "no longer offer"
    assert find_surface_form(value, "Paper passbooks are not available.") == "not available"
    assert not states(value, "Paper passbooks are available.")
    assert value.numbers() == []


def test_text_key_terms():
    value = TextValue(key_terms=["wire desk"])
    assert value.canonical() == "wire desk"
    assert states(value, "You will be transferred to the Wire Desk.")
    assert not states(value, "You will be transferred to the wires team.")


# --- boundaries ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, text", [
    (money("35.00"), "The fee is $350."),
    (money("35.00"), "The fee is $350.00."),
    (money("35.00"), "The fee is $35.50."),
    (money("35.00"), "The fee is 135 USD."),
    (money("35.00"), "The fee is $3,500."),
    (money("1500.00"), "a balance of $11,500"),
    (money("1500.00"), "a balance of $1,500,000"),
    (days(60), "within 160 days"),
    (days(60), "within 60.5 days"),
    (percent("3"), "a rate of 13%"),
], ids=["$350", "$350.00", "$35.50", "135 USD", "$3,500", "$11,500", "$1,500,000", "160 days", "60.5 days", "13%"])
def test_numbers_must_stand_alone(value, text):
    assert find_surface_form(value, text) is None


def test_whole_numbers_match_at_sentence_punctuation():
    assert find_surface_form(money("35.00"), "The fee is $35.") == "$35"
    assert find_surface_form(money("35.00"), "The fee is $35.00.") == "$35.00"
    assert find_surface_form(days(60), "You have 60 days.") == "60 days"


@pytest.mark.parametrize("value, text", [
    (money("5.00"), "a fee of twenty-five dollars"),
    (money("35.00"), "a fee of thirty-five dollars and fifty cents"),
    (money("0.50"), "a fee of two dollars and fifty cents"),
    (percent("5"), "a rate of twenty-five percent"),
    (days(60), "within one hundred and sixty days"),
], ids=["5 in 25", "35 in 35.50", "0.50 in 2.50", "5% in 25%", "60 in 160 days"])
def test_spoken_numbers_must_stand_alone(value, text):
    assert find_surface_form(value, text) is None


# --- normalise_text --------------------------------------------------------------------------------


def test_normalise_text():
    assert normalise_text("  The  Fee\tIS\n$35 ") == "the fee is $35"
    assert normalise_text("don\u2019t \u2018quote\u2019 \u201cme\u201d") == "don't 'quote' \"me\""
    assert normalise_text("thirty\u2013five \u2014 dollars") == "thirty-five - dollars"
    assert normalise_text("35.00\u00a0USD") == "35.00 usd"
    assert normalise_text("") == ""


def test_find_surface_form_compares_normalised_text():
    assert states(money("35.00"), "a fee of 35.00\u00a0USD")
    assert states(money("35.00"), "a fee of thirty\u2013five dollars")
    assert states(money("35.00"), "a fee of\nthirty-five\n dollars")
    assert states(BooleanValue(value=True, key_terms=["don't charge"]), "We don\u2019t charge for that.")


# --- the FactValue union ---------------------------------------------------------------------------


@pytest.mark.parametrize("data, kind", [
    ({"type": "money", "amount": "35.00"}, MoneyValue),
    ({"type": "percent", "value": 3}, PercentValue),
    ({"type": "duration", "amount": 10, "unit": "business_days"}, DurationValue),
    ({"type": "count", "value": 4, "unit": "withdrawals"}, CountValue),
    ({"type": "cap", "amount": 500, "currency": "USD", "per": "day"}, CapValue),
    ({"type": "date", "value": "2026-04-01"}, DateValue),
    ({"type": "enum", "value": "branch_only"}, EnumValue),
    ({"type": "boolean", "value": False, "key_terms": ["not available"]}, BooleanValue),
    ({"type": "text", "key_terms": ["wire desk"]}, TextValue),
])
def test_type_key_picks_the_value_kind(data, kind):
    assert isinstance(TypeAdapter(FactValue).validate_python(data), kind)


# --- validation errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("data, message", [
    ({"type": "money", "amount": "35.001"}, "at most 2 decimal places"),
    ({"type": "money", "amount": "35.000"}, "at most 2 decimal places"),
    ({"type": "money", "amount": "-5.00"}, "greater than or equal to 0"),
    ({"type": "money", "amount": "5.00", "currency": "usd"}, "pattern"),
    ({"type": "money", "amount": "5.00", "cents": 3}, "Extra inputs are not permitted"),
    ({"type": "percent", "value": -1}, "greater than or equal to 0"),
    ({"type": "percent", "value": 1001}, "less than or equal to 1000"),
    ({"type": "duration", "amount": -3, "unit": "days"}, "greater than or equal to 0"),
    ({"type": "duration", "amount": 3, "unit": "fortnights"}, "business_days"),
    ({"type": "count", "value": -1}, "greater than or equal to 0"),
    ({"type": "cap", "amount": -500, "currency": "USD"}, "greater than or equal to 0"),
    ({"type": "date", "value": "2025-02-30"}, "day value is outside expected range"),
    ({"type": "boolean", "value": True}, "key_terms"),
    ({"type": "boolean", "value": True, "key_terms": []}, "at least 1 item"),
    ({"type": "text"}, "key_terms"),
    ({"type": "mony", "amount": "5.00"}, "does not match any of the expected tags"),
], ids=["money 3 decimals", "money 35.000", "negative money", "lower-case currency", "extra key", "negative percent",
        "percent over 1000", "negative duration", "unknown unit", "negative count", "negative cap", "impossible date",
        "boolean without key_terms", "boolean with empty key_terms", "text without key_terms", "unknown type"])
def test_invalid_values_are_rejected(data, message):
    with pytest.raises(ValidationError, match=message):
        TypeAdapter(FactValue).validate_python(data)


def test_money_accepts_two_places_and_whole_amounts():
    assert money("35.10").amount == Decimal("35.10")
    assert MoneyValue(amount=35).canonical() == "$35.00"
    assert MoneyValue(amount="1500").canonical() == "$1,500.00"


def _fact(statement: str, value: dict) -> Fact:
    return Fact.model_validate({"id": "fee_example", "section": "fees", "category": "fee", "statement": statement,
                                "value": value, "effective_from": "2024-01-01"})


def test_fact_statement_must_state_its_value():
    assert _fact("The example fee is $35.00 per item.", {"type": "money", "amount": "35.00"}).value.canonical() == "$35.00"
    with pytest.raises(ValidationError, match=r"statement does not state the value '\$35.00'"):
        _fact("The example fee is $350.00 per item.", {"type": "money", "amount": "35.00"})
    with pytest.raises(ValidationError, match="statement does not state the value"):
        _fact("The example fee is $30.00 per item.", {"type": "money", "amount": "35.00"})


def test_fact_voiced_renditions_must_state_the_value():
    data = {"id": "fee_example", "section": "fees", "category": "fee", "statement": "The example fee is $35.00.",
            "value": {"type": "money", "amount": "35.00"}, "effective_from": "2024-01-01",
            "voiced": ["It's thirty dollars, I'm afraid."]}
    with pytest.raises(ValidationError, match="voiced rendition .* does not state the value"):
        Fact.model_validate(data)
    data["voiced"] = ["It's thirty-five dollars, I'm afraid."]
    assert Fact.model_validate(data).voiced == ["It's thirty-five dollars, I'm afraid."]


def test_fact_statement_white_space_is_folded():
    fact = _fact("The example fee\n   is $35.00   per item. ", {"type": "money", "amount": "35.00"})
    assert fact.statement == "The example fee is $35.00 per item."


def test_cached_forms_are_the_forms_of_each_value_as_written():
    """Forms are cached per value object and number words per type and exact text (equal numbers of other
    types or precision never share an entry); a caller that edits a returned list changes nothing cached."""
    from num2words import num2words

    from taugen.authoring.values import _words

    assert _words(Decimal("2.5")) == "two point five"
    assert _words(Decimal("2.50")) == num2words(Decimal("2.50"), lang="en").replace(",", "")
    assert _words(1) == "one" and _words(Decimal("1.0")) == num2words(Decimal("1.0"), lang="en")
    fee = MoneyValue(amount=Decimal("30.00"))
    forms = fee.surface_forms()
    forms.append("$999")
    assert "$999" not in fee.surface_forms() and "$30.00" in fee.surface_forms()
    other = MoneyValue(amount=Decimal("35.00"))
    assert find_surface_form(other, "a fee of $35") == "$35" and find_surface_form(fee, "a fee of $35") is None


def test_the_fact_index_answers_as_a_walk_over_every_fact():
    """subject_values, avoided_values and values_among look facts up in an index of the context's facts;
    with a plan fact that is not one of them they walk every fact. Both give the same answer for every
    fact of the banking pack."""
    from pathlib import Path
    from types import SimpleNamespace

    from taugen.authoring.pack import load_pack
    from taugen.generators.corpus.genres import benchmarks

    pack = load_pack(Path(benchmarks.__file__).resolve().parents[3] / "domains" / "banking")
    context = SimpleNamespace(facts=pack.facts)
    superseding = [f for f in pack.facts.values() if f.supersedes]
    assert superseding and benchmarks._index(pack.facts, []) is not None
    for fact in pack.facts.values():
        walk = [fact.model_copy()]  # equal to a fact of the pack, but not the same object: no index
        assert benchmarks._index(pack.facts, walk) is None
        assert benchmarks.subject_values(context, fact, [fact]) == benchmarks.subject_values(context, fact, walk)
        avoided = benchmarks.avoided_values(context, fact, [fact])
        assert avoided == benchmarks.avoided_values(context, fact, walk)
        assert benchmarks.values_among(context, avoided) == benchmarks.values_among(context, avoided, walk)[:-1] \
            or fact.value is None


def test_a_figure_written_in_a_record_avoids_every_value_the_record_names():
    """avoided_values covers the values of the caller's plan facts whatever their section: a peer's figure
    beside a pointer to where a rule's value is must not be that value (banking hard seed 7 wrote "Buck
    Bank lists five years" in the email that points to the New Jersey power-of-attorney age, 5 years,
    and the route check refused the build)."""
    from pathlib import Path
    from types import SimpleNamespace

    from taugen.authoring.pack import load_pack
    from taugen.generators.corpus.genres import benchmarks

    pack = load_pack(Path(benchmarks.__file__).resolve().parents[3] / "domains" / "banking")
    context = SimpleNamespace(facts=pack.facts)
    pointed = pack.facts["poa_accepted_age_nj"]
    about = next(f for f in pack.facts.values() if f.section != pointed.section and f.value is not None
                 and f.value.type == "duration" and pointed.value.canonical() not in benchmarks.avoided_values(context, f))
    assert pointed.value.canonical() in benchmarks.avoided_values(context, about, [about, pointed])
    assert pointed.value.canonical() in benchmarks.avoided_values(context, about, [about.model_copy(), pointed])
