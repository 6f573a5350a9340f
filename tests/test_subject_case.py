"""A fact's subject keeps its names when a record says it mid-sentence: "the alabama unclaimed property
report date" and "the money Market Preferred tier yield" were what lower-casing the first letter made."""

from __future__ import annotations

import datetime as dt

import pytest

from taugen.authoring.pack import load_pack
from taugen.build.pipeline import resolve_pack
from taugen.generators.corpus.genre import ArtifactPlan, Rendition, fact_subject
from taugen.text import mid_sentence


@pytest.mark.parametrize(("authored", "said"), [
    ("The Money Market Preferred tier yield", "the Money Market Preferred tier yield"),
    ("the Alabama unclaimed property report date", "the Alabama unclaimed property report date"),
    ("Overdraft fee", "overdraft fee"),
    ("overdraft fee", "overdraft fee"),
    ("Saturday opening hours at the Ashford branch", "Saturday opening hours at the Ashford branch"),
    ("Certificate of Deposit terms", "Certificate of Deposit terms"),
    ("Form 1099-INT", "Form 1099-INT"),
    ("ATM fees abroad", "ATM fees abroad"),
    ("A Premier Checking verbal password", "a Premier Checking verbal password"),
    ("Wire cut-off time", "wire cut-off time"),
    ("", ""),
])
def test_mid_sentence_lowers_only_common_first_words(authored, said):
    assert mid_sentence(authored) == said


def test_every_banking_subject_keeps_the_capitals_its_author_wrote_after_the_first_word():
    pack = load_pack(resolve_pack("banking"))
    checked = 0
    for fact in pack.facts.values():
        if not fact.subject:
            continue
        plan = ArtifactPlan(artifact_id="x", genre="support_transcript", topic=fact.section, topic_title="T",
                            start=dt.datetime(2026, 1, 1), end=dt.datetime(2026, 1, 2), renditions=[],
                            facts={fact.id: fact}, seed=1)
        said = fact_subject(plan, Rendition(fact.id, fact.statement, "", "canonical", "current", fact.effective_from))
        written = fact.subject.strip().split()
        if written[0].lower() in ("the", "a", "an"):
            written = written[1:]
        assert said is not None and said.split() == [written[0] if said.split()[0][:1].isupper() else
                                                      written[0][:1].lower() + written[0][1:]] + written[1:]
        if written[0][:1].isupper():
            assert said.split()[0] == written[0], (fact.id, fact.subject, said)
            checked += 1
    assert checked >= 40  # state names, products, weekdays, forms
