"""Realism gates, client overlay, contested facts, evidence routes, modality profiles and scale.

Each gate must flag a deliberately bad corpus (small synthetic bundles, fast) and pass the real hard
bundle (the session's cached ``built_bundle("hard")``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
import hashlib
import json
import random
from pathlib import Path

import pytest

from taugen.authoring.pack import load_pack
from taugen.authoring.values import find_surface_form, normalise_text
from taugen.build.files import read_bundle
from taugen.generators.corpus.genre import genres
from taugen.hashing import stable_seed
from taugen.generators.corpus.planner import genre_medium, plan_corpus
from taugen.generators.corpus.renditions import deferred_statement, mention_lines, spoken_subject
from taugen.generators.corpus.vocabulary import load_vocabulary
from taugen.generators.tiers import tier
from taugen.validators.bundle_view import BundleView
from taugen.validators.leakage import check_leakage
from taugen.validators.realism import MAX_AUC, check_realism, measure
from taugen.validators.routes import check_contested, check_discovery, check_modality, check_routes

PACK = Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking"
NAMES = ("Ava Stone", "Liam Park", "Noah Reyes", "Mia Chen", "Ella Ford", "Owen Hale", "Zoe Lamb", "Ian Moss",
         "Ruth Kerr", "Omar Diaz", "Lena Voss", "Paul Nash", "Tara Wood", "Sam Orr", "Nina Bell", "Hugo Fry")


# --------------------------------------------------------------------------------------------------
# synthetic bundles
# --------------------------------------------------------------------------------------------------

def synthetic(artifacts: dict[str, dict], facts: dict | None = None, tier_name: str = "hard") -> BundleView:
    """A minimal bundle: each artifact ``{text, genre?, suffix?, carrier?, renditions?, cues?}`` is one file."""
    files: dict[str, bytes] = {}
    entries = {}
    for artifact_id, spec in artifacts.items():
        data = spec["text"].encode()
        suffix = spec.get("suffix", ".txt")
        path = f"kit/uploaded_materials/{hashlib.sha256(data + artifact_id.encode()).hexdigest()[:16]}{suffix}"
        files[path] = data
        entries[artifact_id] = {
            "genre": spec.get("genre", "support_transcript"), "variant": "chat", "topic": "fees",
            "carrier": spec.get("carrier", False), "start": "2025-01-02T09:00:00-06:00",
            "end": "2025-01-02T09:30:00-06:00", "files": [{"path": path, "role": "main", "suffix": suffix}],
            "author_source": None, "timestamps": [], "renditions": spec.get("renditions", []), "cues": spec.get("cues", []),
            "target_words": 0, "metadata": {}}
    manifest = {"domain": "banking", "tier": tier_name, "now": "2026-03-16T10:30:00-05:00",
                "snapshot_date": "2026-03-16", "history_start": "2024-01-01", "facts": facts or {},
                "artifacts": entries, "client_held": []}
    files["author/manifest.json"] = json.dumps(manifest).encode()
    return BundleView(files)


def transcript(opening: str, turns: int = 6, seed: int = 0) -> str:
    rng = random.Random(seed)
    lines = ["Cedar Ridge Bank | Live Chat Transcript", f"Case reference: CHT-{seed:06d}", "",
             f"[01] Agent (09:00): Hello, this is {NAMES[seed % len(NAMES)]}. How can I help?",
             f"[02] Customer (09:01): {opening}"]
    for number in range(3, 3 + turns):
        speaker = "Agent" if number % 2 else "Customer"
        lines.append(f"[{number:02d}] {speaker} (09:{number:02d}): {rng.choice(NAMES)} asked about item {seed}-{number}.")
    return "\n".join(lines)


def codes(findings, code: str) -> list:
    return [f for f in findings if f.code == code]


def long_document(seed: int, shared: str = "") -> str:
    rng = random.Random(seed)
    sentences = [f"{rng.choice(NAMES)} met {rng.choice(NAMES)} in room {seed} on day {i} to review file {rng.random():.6f}."
                 for i in range(110)]
    if shared:
        sentences.insert(40, shared)
    return " ".join(sentences)


# --------------------------------------------------------------------------------------------------
# each gate flags a bad corpus
# --------------------------------------------------------------------------------------------------

def test_repeated_openings_are_flagged():
    same = "Hi, I was charged twice for the same grocery order and I need it fixed"
    view = synthetic({"support_transcript_001": {"text": transcript(same, seed=1)},
                      "support_transcript_002": {"text": transcript(same, seed=2)},
                      "support_transcript_003": {"text": transcript("Hello, my card stopped working at the pump "
                                                                    "this morning in Springfield", seed=3)}})
    found = codes(check_realism(view), "repeated_opening")
    assert len(found) == 1 and found[0].severity == "error"
    assert "support_transcript_001" in found[0].subject and "support_transcript_002" in found[0].subject


def test_a_repeated_long_sentence_is_flagged_only_across_long_documents():
    shared = "Every colleague must read the whole reference again after each reissue of the handbook."
    view = synthetic({f"support_transcript_00{i}": {"text": long_document(i, shared if i < 3 else "")}
                      for i in range(1, 5)})
    found = codes(check_realism(view), "repeated_long_sentence")
    assert len(found) == 1 and normalise_text(shared).rstrip(".").replace(",", "") in found[0].evidence
    clean = synthetic({f"support_transcript_00{i}": {"text": long_document(i)} for i in range(1, 5)})
    assert not codes(check_realism(clean), "repeated_long_sentence")


def test_doubled_words_are_flagged_and_english_doubles_are_not():
    clean = {f"support_transcript_{i:03d}": {"text": transcript(f"Hello there, question number {i} about the opt-in in "
                                                               f"my letter, sorry.", seed=i)} for i in range(3)}
    assert not codes(check_realism(synthetic(clean)), "doubled_words")
    bad = dict(clean)
    bad["support_transcript_009"] = {"text": transcript("I saw the the charge on my statement this morning.", seed=9)}
    found = codes(check_realism(synthetic(bad)), "doubled_words")
    assert len(found) == 1 and found[0].severity == "error" and "the" in found[0].message
    assert codes(check_realism(synthetic(bad, tier_name="medium")), "doubled_words")[0].severity == "warning"
    from taugen.validators.realism import doubled_words

    # a switch's state in capitals beside the preposition is English (telecom's roaming fact); slips are not
    assert doubled_words("Guide them to turn Data Roaming ON on the phone.") == []
    assert doubled_words("The the charge. It is on on the app. ON ON.") == ["the", "on", "on"]


def test_repetition_statistics_count_distinct_sentences_and_skeletons():
    from taugen.validators.realism import repetition, skeleton

    assert skeleton("Ava Stone met Liam Park in room 4 on Tuesday.") == "ava N met N N in room # on N"
    texts = [f"Yesterday {NAMES[i]} met {NAMES[i + 1]} in room {i} to review the file. The file was closed on time."
             for i in range(6)]
    stats = repetition(texts)
    assert stats["sentences"] == 6  # "The file was closed on time." has fewer than eight words
    assert stats["distinct_share"] == 1.0 and stats["top_skeleton_count"] == 6
    assert repetition(texts + texts)["distinct_share"] == 0.5


def test_repairable_names_the_records_to_redraw_and_the_corpus_gates():
    from taugen.validators.realism import repairable

    opening = "Hi, I have a question about the fee on my checking account please."
    artifacts = {f"support_transcript_{i:03d}": {"text": transcript(opening if i < 3 else f"Question {i} about "
                                                                    f"something else entirely today.", seed=i),
                                                 "carrier": i == 1} for i in range(6)}
    redraw, corpus = repairable(synthetic(artifacts))
    # the carrier keeps its opening; the two fillers that open alike are re-drawn
    assert redraw == ["support_transcript_000", "support_transcript_002"]
    assert corpus == []


def test_a_voiced_rendition_copying_the_statement_is_flagged():
    statement = "The overdraft fee on Everyday Checking is $35.00 per item paid into overdraft."
    facts = {"fee_x": {"statement": statement, "value": {"type": "money", "amount": "35.00", "currency": "USD"}}}
    copied = {"fact_id": "fee_x", "text": "Yeah so the overdraft fee on Everyday Checking is $35.00, sorry.",
              "value_form": "$35.00", "register": "voiced", "status": "current", "date": "2025-01-02"}
    fresh = dict(copied, text="On an overdrawn item we take thirty-five dollars.")
    bad = synthetic({"support_transcript_001": {"text": transcript("Why was I charged?") + "\n" + copied["text"],
                                                "renditions": [copied], "carrier": True}}, facts)
    good = synthetic({"support_transcript_001": {"text": transcript("Why was I charged?") + "\n" + fresh["text"],
                                                 "renditions": [fresh], "carrier": True}}, facts)
    assert codes(check_realism(bad), "voiced_copies_statement")
    assert not codes(check_realism(good), "voiced_copies_statement")


def test_the_probe_catches_fillers_told_apart_by_file_kind_and_first_line():
    artifacts = {}
    for index in range(60):
        carrier = index % 2 == 0
        first = "Fee schedule update" if carrier else "Team lunch rota"
        artifacts[f"support_transcript_{index:03d}"] = {
            "text": f"{first}\n" + transcript(f"Question {index} from {NAMES[index % 16]} about item {index}", seed=index),
            "suffix": ".md" if carrier else ".txt", "carrier": carrier}
    findings = check_realism(synthetic(artifacts))
    flagged = codes(findings, "carriers_distinguishable")
    assert flagged and flagged[0].severity == "error"
    shuffled = {k: dict(v, suffix=".txt", text=v["text"].split("\n", 1)[1]) for k, v in artifacts.items()}
    assert not codes(check_realism(synthetic(shuffled)), "carriers_distinguishable")


def test_a_flat_length_distribution_is_flagged_and_gates_are_warnings_below_hard():
    artifacts = {f"support_transcript_{i:03d}": {"text": transcript(f"Opening number {i} from {NAMES[i % 16]}", turns=6,
                                                                    seed=i)} for i in range(20)}
    found = codes(check_realism(synthetic(artifacts)), "length_distribution")
    assert found and found[0].severity == "error"
    soft = codes(check_realism(synthetic(artifacts, tier_name="medium")), "length_distribution")
    assert soft and soft[0].severity == "warning"


def test_leakage_reads_every_byte_for_paths_ids_and_timestamps():
    facts = {"fee_everyday_checking_overdraft": {"statement": "x", "value": None}}
    view = synthetic({"support_transcript_001": {"text": transcript("Hello there") + "\nsaved to /tmp/build/x by "
                                                 "fee_everyday_checking_overdraft at 2026-11-29T08:00:00"}}, facts)
    found = {f.code: f for f in check_leakage(view)}
    assert "author_language" in found and "generation_timestamp" in found
    messages = " ".join(f.message for f in check_leakage(view))
    assert "/tmp/" in messages and "fee_everyday_checking_overdraft" in messages and "2026-11-29T08:00" in messages


# --------------------------------------------------------------------------------------------------
# the real hard bundle
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hard(built_bundle) -> Path:
    return built_bundle("hard")


@pytest.fixture(scope="module")
def view(hard) -> BundleView:
    return BundleView(read_bundle(hard))


@pytest.fixture(scope="module")
def manifest(view) -> dict:
    return view.manifest


def test_the_hard_bundle_passes_every_realism_gate(hard, view):
    report = json.loads((hard / "author/validation.json").read_text())
    assert report["checks"]["realism"]["errors"] == 0
    result = measure(view)
    assert result["probe"]["auc"] <= MAX_AUC
    assert not result["repeated_openings"] and not result["repeated_sentences"] and not result["voiced_overlaps"]
    assert result["voiced_checked"] >= 40 and result["openings_checked"] >= 100
    info = json.loads((hard / "bundle.json").read_text())
    assert info["realism"]["probe_auc"] == result["probe"]["auc"]
    assert any(f["code"] == "probe_auc" for f in report["findings"])


def test_hard_counts_reach_the_scale_targets(hard):
    counts = json.loads((hard / "bundle.json").read_text())["counts"]
    assert counts["facts"] >= 1000
    assert counts["artifacts"] >= 800
    assert counts["tokens"] >= 1_500_000


def test_every_knob_is_reported_requested_and_achieved(hard):
    info = json.loads((hard / "bundle.json").read_text())
    for knob in ("superseded_share", "evidence_routes", "modality", "contested", "filler_ratio", "voiced_share"):
        assert knob in info["requested"] and knob in info["achieved"], knob
    assert info["achieved"]["superseded_share"] == info["requested"]["superseded_share"] == 1.0
    assert info["achieved"]["evidence_routes"] == info["requested"]["evidence_routes"]
    assert info["achieved"]["modality"] == "text+image+audio"


def test_client_held_facts_are_carved_out_and_in_the_client_prompt(hard, view, manifest):
    prompt = (hard / "author/client_prompt.md").read_text()
    held = manifest["client_held"]
    assert len(held) >= 10
    for fact_id in held:
        statement = manifest["facts"][fact_id]["statement"]
        assert statement in prompt.split("<what_only_you_know>")[1].split("</what_only_you_know>")[0]
        assert manifest["facts"][fact_id]["owner"] is None
        assert not any(r["fact_id"] == fact_id for a in manifest["artifacts"].values() for r in a["renditions"])
    overlay = manifest["client_overlay"]
    assert overlay and all(entry["artifact"] in manifest["artifacts"] for entry in overlay)
    assert sorted(f for entry in overlay for f in entry["removed"]) == sorted(held)


def test_discovery_tier_sentences_are_in_their_records(view, manifest):
    tiers = {entry["tier"] for entry in manifest["discovery"].values()}
    assert tiers == {"pointer", "caveat", "silent"}
    for fact_id, entry in manifest["discovery"].items():
        if entry["tier"] == "silent":
            continue
        text = view.text(entry["artifact"])
        assert normalise_text(entry["text"]) in normalise_text(text)
        assert ("operations lead" if entry["tier"] == "pointer" else "case by case") in entry["text"].lower()
        assert find_surface_form(view.fact_value(fact_id), text) is None if view.fact_value(fact_id) else True
    assert not [f for f in check_discovery(view) if f.severity == "error"]


def test_contested_facts_have_two_distinct_wrong_decoys(hard, view, manifest):
    contested = manifest["contested"]
    assert len(contested) >= 3
    prompt = (hard / "author/client_prompt.md").read_text()
    conflict = prompt.split("<records_in_conflict>")[1].split("</records_in_conflict>")[0]
    for fact_id, entry in contested.items():
        truth = view.fact_value(fact_id)
        values = {json.dumps(d["value"], sort_keys=True) for d in entry["decoys"]}
        assert len(entry["decoys"]) >= 2 and len(values) == len(entry["decoys"])
        assert len({d["artifact"] for d in entry["decoys"]}) == len(entry["decoys"])
        for decoy in entry["decoys"]:
            assert decoy["value"]["type"] == truth.type and decoy["artifact"] != entry["owner"]
            assert find_surface_form(truth, decoy["text"]) is None
        assert manifest["facts"][fact_id]["statement"] in conflict
        assert fact_id not in manifest["client_confirmable"]
    assert not [f for f in check_contested(view) if f.severity == "error"]


def test_evidence_routes_resolve(view, manifest):
    routes = manifest["routes"]
    assert len(routes) >= 8
    for route in routes:
        hop = route["hops"][-1]
        assert manifest["facts"][route["fact_id"]]["owner"] == hop["to"]
        assert find_surface_form(view.fact_value(route["fact_id"]), view.text(hop["from"])) is None
    assert check_routes(view) == []


def test_a_route_shortfall_is_reported_and_routes_reach_the_requested_count_on_several_draws(view):
    manifest = json.loads(view.files["author/manifest.json"])
    manifest["routes"] = manifest["routes"][:5]
    short = BundleView({**view.files, "author/manifest.json": json.dumps(manifest).encode()}, source="<test>")
    findings = [f for f in check_routes(short) if f.code == "fewer_than_requested"]
    assert len(findings) == 1 and findings[0].severity == "warning"  # a pack may not have enough to route
    assert "asks for 12 evidence routes; 5 were placed" in findings[0].message
    # the uniquely dated schedules run out on some draws (seed 0's first corpus redraw has 8); a second
    # fact of a targeted schedule then takes its own pointer, so every draw still places all twelve
    pack = load_pack(PACK)
    for draw in (0, stable_seed(0, "corpus redraw", 1), 3):
        plan = plan_corpus(pack, dataclasses.replace(tier("hard"), tasks=45), draw, genres())
        assert len(plan.routes) == 12, draw
        assert len({route["fact_id"] for route in plan.routes}) == 12
        hosts = [route["hops"][0]["from"] for route in plan.routes]
        assert len(set(hosts)) == 12


def test_modality_substitution_moves_renditions_and_never_duplicates(view, manifest):
    assert manifest["modality"] == "text+image+audio"
    assert check_modality(view) == []
    pack = load_pack(PACK)
    available = genres()
    full = plan_corpus(pack, tier("hard"), 0, available)
    text_only = plan_corpus(pack, tier("hard"), 0, available, modality="text")
    assert len(full.artifacts) == len(text_only.artifacts)  # substitution, never addition
    assert all(genre_medium(a.genre, available[a.genre]) == "text" for a in text_only.artifacts)
    assert any(move["reason"] == "profile" for move in text_only.modality_substitutions)

    def owned(plan):
        return sorted((r.fact_id, r.status) for a in plan.artifacts for r in a.renditions if r.owns)

    assert owned(full) == owned(text_only)
    assert len(owned(text_only)) == len(set(owned(text_only)))


def test_surfaces_are_overridable_and_the_client_overlay_substitutes(view):
    pack = load_pack(PACK)
    available = genres()
    hard_plan = plan_corpus(pack, tier("hard"), 0, available, surface="hard")
    client_plan = plan_corpus(pack, tier("hard"), 0, available)
    core_plan = plan_corpus(pack, tier("hard"), 0, available, surface="core")
    assert hard_plan.surface == "hard" and not hard_plan.client_held and not hard_plan.contested
    assert client_plan.surface == "hard_client" and client_plan.client_held
    assert core_plan.surface == "core" and not core_plan.client_held
    assert [a.artifact_id for a in hard_plan.artifacts] == [a.artifact_id for a in client_plan.artifacts]
    held_owned = {r.fact_id for a in hard_plan.artifacts for r in a.renditions} & set(client_plan.client_held)
    assert held_owned  # the hard plan carries them; the overlay carved them out of the same artifacts
    assert not {r.fact_id for a in client_plan.artifacts for r in a.renditions
                if r.status in ("current", "superseded")} & set(client_plan.client_held)


def test_supersession_arcs_spread_over_genres_with_decision_dates(manifest):
    arcs = [arc for arc in manifest["arcs"] if arc["history_rendered"]]
    assert len(arcs) >= 15
    for arc in arcs:
        genres_ = [v["genre"] for v in arc["versions"] if v["genre"]]
        assert len(genres_) == len(set(genres_)), arc["arc_id"]
        for version in arc["versions"]:
            assert version["decision_date"] <= version["effective_from"]
        assert arc["versions"][-1]["status"] in ("final_current", "announced")


def test_records_mention_rules_of_their_topic_by_subject_only(view, manifest):
    """Mentions (issue 10, strong readers): fillers of the genres that carry cues name rules of their topic
    as carriers do, so a subject-word search or a text classifier cannot tell them apart; a mention never
    states the value, never names a client-held, contested or route fact, never sits in the fact's owner,
    and no mention sentence repeats within a genre.

    A filler names a rule of its topic in a mention or in an echo (a rule another record owns, restated in
    its rule places). When this test was written a filler's only such sentences were mentions, and 80 % of
    fillers held one; since echoes fill a filler's rule places as a carrier's rules fill its own, a filler
    is left without room for a mention about as often as a carrier (banking hard seed 0: fillers 79 %,
    carriers 81 %), so the share of records holding a mention is held equal for the two kinds."""
    from taugen.generators.corpus.cues import cue_capable

    available = genres()
    entries = manifest["artifacts"]
    capable = [a for a, e in entries.items() if e["genre"] in available and cue_capable(available[e["genre"]])]
    mentions = [(a, cue) for a in capable for cue in entries[a]["cues"] if cue["kind"] == "mention"]
    fillers = [a for a in capable if not entries[a]["carrier"]]
    mentioned = {a for a, _ in mentions}
    echoing = {a for a in fillers if entries[a].get("echoes")}
    assert len((mentioned | echoing) & set(fillers)) >= 0.8 * len(fillers)
    carriers = [a for a in capable if entries[a]["carrier"]]
    filler_share = len(mentioned & set(fillers)) / len(fillers)
    carrier_share = len(mentioned & set(carriers)) / len(carriers)
    assert filler_share >= 0.75 and abs(filler_share - carrier_share) <= 0.05, (filler_share, carrier_share)
    assert any(entries[a]["carrier"] for a, _ in mentions)  # carriers mention rules too, not only fillers
    # beyond the genres that carry cues, only a genre that hosts mentions holds them (help pages), at most
    # its max_mentions a record
    hosts = {name for name, genre in available.items() if cue_capable(genre) or genre.mention_host}
    assert not [a for a, e in entries.items() if e["genre"] not in hosts
                if any(c["kind"] == "mention" for c in e.get("cues", []))]
    for name in sorted(name for name in hosts if not cue_capable(available[name])):
        held = [sum(c["kind"] == "mention" for c in e.get("cues", [])) for e in entries.values() if e["genre"] == name]
        assert held and max(held) <= (available[name].max_mentions or available[name].max_facts), name
    mentions += [(a, cue) for a, e in entries.items() if e["genre"] in hosts and a not in capable
                 for cue in e["cues"] if cue["kind"] == "mention"]
    barred = set(manifest["client_held"]) | set(manifest.get("contested") or {}) | {r["fact_id"] for r in manifest["routes"]}
    seen: set[tuple[str, str]] = set()
    for artifact_id, cue in mentions:
        fact = manifest["facts"][cue["fact_id"]]
        assert cue["fact_id"] not in barred
        assert fact["owner"] and fact["owner"] != artifact_id
        assert cue["value_form"] == ""
        value = view.fact_value(cue["fact_id"])
        assert value is None or find_surface_form(value, cue["text"]) is None
        assert normalise_text(cue["text"]) in normalise_text(view.text(artifact_id))
        key = (entries[artifact_id]["genre"], cue["text"])
        assert key not in seen
        seen.add(key)
    assert len({cue["fact_id"] for _, cue in mentions}) >= 300


def test_staff_mentions_carry_other_organisations_figures_in_a_rules_frame():
    """Issue 10 item 3 (one process for carriers and fillers): a filler's slots are mostly mentions, so a
    mention said among staff (in a meeting too) carries, at the ``mention_figures`` rate, another organisation's
    figure for the subject, in the frame a rule's slot uses, attributed to that organisation, equal to no
    value any fact on the subject ever had. Mentions said to a customer carry none; without the knob no
    mention does."""
    from taugen.validators.readers import numeric_features

    pack, seed = load_pack(PACK), 2
    # off in the hard preset for now (longer issue-tracker exports repeat stock sentences at seeds 2 and 3)
    preset = dataclasses.replace(tier("hard"), tasks=45, mention_figures=0.8)
    available = genres()
    plan = plan_corpus(pack, preset, seed, available)
    business = pack.config.business.name
    staff = [(a, r) for a in plan.artifacts for r in a.renditions
             if r.status == "mention" and available[a.genre].mention_audience in ("staff", "meeting")]
    assert len(staff) > 300
    with_figures = []
    spoken = load_vocabulary(PACK).words("spoken")
    published_in = load_vocabulary(PACK).common.published_in

    def lines(fact, genre: str) -> list[str]:
        """Every mention line of ``fact`` a record of ``genre`` may hold: a genre with spoken mentions
        (channels) may say the subject in any of the pack's spoken wordings; a rule's sentence with its
        figure deferred (the pack's ``published_in``) is one of them."""
        wordings = {None} | ({spoken_subject(fact.subject, spoken, random.Random(draw)) for draw in range(64)}
                             if available[genre].spoken_mentions else set())
        audience = available[genre].mention_audience
        return [line for said in wordings
                for line in mention_lines(fact, random.Random(0), audience, said, published_in)]

    for artifact, rendition in staff:
        fact = pack.facts[rendition.fact_id]
        base = next(line for line in lines(fact, artifact.genre) if rendition.text.startswith(line))
        rest = rendition.text[len(base):].strip()
        if not rest:
            continue
        with_figures.append(rest)
        assert " Bank" in rest and business not in rest, rest
        assert sum(numeric_features(rest)) > 0, rest  # a figure, as the numeric reader counts them
        subject = " ".join(fact.subject.lower().split())
        for other in pack.facts.values():  # every version of every fact on the subject
            if other.value is not None and " ".join((other.subject or "").lower().split()) == subject:
                assert find_surface_form(other.value, rest) is None, (other.id, rest)
    # 0.8 of the mentions whose subject another organisation publishes a figure for (a numeric fee, rate,
    # limit, waiver, deadline, eligibility or notice, no branch or state in its name): 28% measured at seed 2
    assert 0.2 * len(staff) <= len(with_figures) <= 0.8 * len(staff), (len(with_figures), len(staff))
    assert any(rest.count('"') == 2 for rest in with_figures)  # some in the peer's own words, quoted

    # Without the knob: bare mention lines, and about as many mentions (a figure only keeps a later mention
    # of a fact whose value it happens to hold out of that record)
    bare = plan_corpus(pack, dataclasses.replace(preset, mention_figures=0.0), seed, available)
    count = sum(1 for a in bare.artifacts for r in a.renditions if r.status == "mention")
    assert abs(count - sum(1 for a in plan.artifacts for r in a.renditions if r.status == "mention")) <= 0.02 * count
    assert all(r.text in mention_lines(pack.facts[r.fact_id], random.Random(0), available[a.genre].mention_audience,
                                       published_in=published_in)
               for a in bare.artifacts for r in a.renditions
               if r.status == "mention" and not available[a.genre].spoken_mentions)
    bare_channel = [(a.genre, r) for a in bare.artifacts for r in a.renditions
                    if r.status == "mention" and available[a.genre].spoken_mentions]
    assert bare_channel and all(r.text in lines(pack.facts[r.fact_id], genre) for genre, r in bare_channel)


def test_rules_stated_among_staff_carry_other_organisations_figures_as_mentions_do():
    """Issue 10 item 3: the peers' figures that mentions among staff carry sit beside rules stated among
    staff too, at the same rate, so the words around them mark neither kind of slot (in seed 0's hard
    meetings "for comparison" and "published terms" were among the TF-IDF reader's strongest filler
    features). A rule with a figure still states its own value first and whole; the figure is another
    organisation's, named, and no value any version of the rule ever had; rules said to a customer get none."""
    pack, seed = load_pack(PACK), 2
    preset = dataclasses.replace(tier("hard"), tasks=45)
    available = genres()
    plan = plan_corpus(pack, preset, seed, available)
    business = pack.config.business.name
    rules = [(a, r) for a in plan.artifacts for r in a.renditions if r.status == "current" and r.register == "voiced"]
    from taugen.generators.corpus.cues import cue_capable

    among_staff = [(a, r) for a, r in rules if available[a.genre].mention_audience in ("staff", "meeting")
                   and cue_capable(available[a.genre])]
    assert len(among_staff) > 100
    with_figures = []
    for artifact, rendition in rules:
        fact = pack.facts[rendition.fact_id]
        first, _, rest = rendition.text.partition(". ")
        if not rest or fact.statement == rendition.text or find_surface_form(fact.value, first + ".") is None:
            continue
        if " Bank" not in rest:
            continue
        assert available[artifact.genre].mention_audience in ("staff", "meeting"), rendition.text
        with_figures.append(rendition.text)
        assert business not in rest, rest
        subject = " ".join(fact.subject.lower().split())
        for other in pack.facts.values():
            if other.value is not None and " ".join((other.subject or "").lower().split()) == subject:
                assert find_surface_form(other.value, rest) is None, (other.id, rest)
    # 134 of 311 at seed 2 (0.8 of the rules whose subject another organisation publishes a figure for)
    assert 0.2 * len(among_staff) <= len(with_figures) <= 0.8 * len(among_staff), (len(with_figures), len(among_staff))


def test_every_owned_fact_is_talked_about_beyond_its_owner():
    """Issue 10 item 4 (keyword search): the hard tier names each fact a record owns in passing or restates
    it (an echo) in up to ``mentions_per_fact`` (4) other records of its topic, everyone to one before anyone
    gets two, so a subject-word search finds talk about the rule and not only its owner; carriers and fillers
    end with rule slots at one rate. Without the knob the first pass leaves most facts at one mention."""
    pack, seed = load_pack(PACK), 4  # seed 0's plan is the built bundle the other tests read
    preset = dataclasses.replace(tier("hard"), tasks=45)
    assert preset.mentions_per_fact == 4

    def tally(plan):
        mentioned: dict[str, int] = {}
        talked: dict[str, int] = {}  # mentions and echoes (rules owned elsewhere, restated)
        owned, slots = set(), {True: [], False: []}
        for artifact in plan.artifacts:
            for rendition in artifact.renditions:
                if rendition.status == "mention" or rendition.echo:
                    talked[rendition.fact_id] = talked.get(rendition.fact_id, 0) + 1
                if rendition.status == "mention":
                    mentioned[rendition.fact_id] = mentioned.get(rendition.fact_id, 0) + 1
                    assert rendition.fact_id not in {r.fact_id for r in artifact.renditions if r.status == "current"}
                elif rendition.status == "current" and rendition.owns:
                    owned.add(rendition.fact_id)
            if artifact.genre in ("email_thread", "support_transcript", "meeting_transcript", "channel_export"):
                slots[artifact.is_carrier].append(len(artifact.renditions))
        return mentioned, talked, owned, slots

    plan = plan_corpus(pack, preset, seed, genres())
    mentioned, talked_about, owned, slots = tally(plan)
    # a support agent names rules to the customer, never in the lines colleagues say to each other
    said_to_customer = [(r, pack.facts[r.fact_id]) for a in plan.artifacts if a.genre == "support_transcript"
                        for r in a.renditions if r.status == "mention"]
    assert len(said_to_customer) > 100
    published_in = load_vocabulary(PACK).common.published_in
    for rendition, fact in said_to_customer:
        assert rendition.text in mention_lines(fact, random.Random(0), "customer", published_in=published_in)
    from taugen.generators.corpus.renditions import _TWIN_TAILS

    def remarks(audience: str) -> set[str]:  # lines of their own, not twins of a rule's frame (their tails differ)
        return {t for t in mention_lines(fact, random.Random(0), audience)
                if not any(tail in t for tails in _TWIN_TAILS.values() for tail in tails)}

    assert remarks("customer") < remarks("staff") and len(remarks("staff")) > 2 * len(remarks("customer"))
    with pytest.raises(ValueError, match="mention audience"):
        mention_lines(fact, random.Random(0), "partners")
    talked = [f for f in owned if talked_about.get(f, 0) >= 2]
    assert len(talked) >= 0.9 * len(owned), (len(talked), len(owned))
    assert sum(1 for f in owned if talked_about.get(f, 0) >= 3) >= 0.5 * len(owned)  # room runs out
    # 8: a rule that no record restates, in a topic whose every rule has its share, takes the mentions that
    # restated rules leave (7 before fillers restated rules)
    assert max(mentioned.values()) <= preset.mentions_per_fact + 4

    def gap(slots):  # mean rule slots (stated, cued or mentioned) of carriers minus fillers'
        return sum(slots[True]) / len(slots[True]) - sum(slots[False]) / len(slots[False])

    first_pass, _, _, first_slots = tally(plan_corpus(pack, dataclasses.replace(preset, mentions_per_fact=0), seed,
                                                      genres()))
    assert sum(1 for f in owned if first_pass.get(f, 0) >= 2) < 0.5 * len(owned)  # mentions alone
    # carriers and fillers hold rule slots at one rate: 0.06 and 0.01 slots apart with and without the top-up
    # (of about three), since fillers' places hold echoes; mentions alone left 1.1 and the top-up 0.36
    assert abs(gap(slots)) < 0.15 and abs(gap(first_slots)) < 0.15, (gap(slots), gap(first_slots))


def test_few_record_genres_get_planned_lengths_one_per_stratum():
    """Slide decks, support transcripts and knowledge-base exports (about a dozen records each, measured by
    the length gate) get ``length_words`` from their genre's declared range, one per stratum, each inside
    its stratum's middle half; handbooks keep their long-document length and get none. Telecom hard seed 0
    is the plan whose decks once bunched into one bucket."""
    from taugen.generators.corpus.planner import spread_range

    available = genres()
    pack = load_pack(Path(__file__).resolve().parents[1] / "taugen" / "domains" / "telecom")
    plan = plan_corpus(pack, tier("hard"), 0, available)
    groups: dict[tuple[str, int, int], list[int]] = {}
    for artifact in plan.artifacts:
        bounds = spread_range(available[artifact.genre], artifact.variant)
        if artifact.target_words or bounds is None:
            assert artifact.length_words == 0, artifact.artifact_id
            continue
        groups.setdefault((artifact.genre, *bounds), []).append(artifact.length_words)
    assert {key[0] for key in groups} >= {"pdf_document", "support_transcript", "knowledge_base_archive"}
    assert all(a.length_words == 0 for a in plan.artifacts if a.variant == "handbook")
    for (name, low, high), lengths in groups.items():
        width = (high - low) / len(lengths)
        strata = sorted(int((length - low) // width) for length in lengths)
        assert strata == list(range(len(lengths))), (name, sorted(lengths))
        for length in lengths:
            offset = (length - low) / width % 1
            slack = 0.5 / width + 1e-9  # a length is rounded to a whole token
            assert 0.25 - slack <= offset <= 0.75 + slack, (name, length)
    again = plan_corpus(pack, tier("hard"), 0, available)
    assert [a.length_words for a in again.artifacts] == [a.length_words for a in plan.artifacts]


def test_spread_range_reads_one_range_or_one_per_variant():
    from taugen.generators.corpus.planner import spread_range

    class Decks:
        spread_words = {"slides": (90, 640)}

    class Calls:
        spread_words = (120, 480)

    class Bad:
        name = "bad"
        spread_words = (500, 100)

    assert spread_range(Decks(), "slides") == (90, 640)
    assert spread_range(Decks(), "handbook") is None
    assert spread_range(Calls(), "") == (120, 480) and spread_range(Calls(), "any") == (120, 480)
    class Plain:  # the Genre base's default: no planned lengths
        spread_words = None

    assert spread_range(Plain(), "") is None
    with pytest.raises(ValueError, match="bad"):
        spread_range(Bad(), "")


def test_a_genre_with_one_range_per_variant_is_re_dealt_when_its_variants_stack():
    """Airline hard seed 0's last corpus draw planned 13 app screens (65-165 tokens) and 6 web pages
    (120-350): each variant was stratified on its own, so the app screens filled every bucket of their range
    and a web page stacked on one; read back, 6 of 19 screenshots fell in one bucket (the gate allows 4).
    Such a genre is re-dealt jointly: each record stays in its variant's range, no bucket holds more than
    the gate's share less one record, and the deal is the same for the same seed."""
    import datetime as dt

    from taugen.generators.corpus.planner import (
        SPREAD_BUCKET, SPREAD_MAX_SHARE, Draft, _spread_lengths, lengths_bunch, spread_range)

    class Screens:
        name = "screens"
        spread_words = {"app": (65, 165), "web": (120, 350)}

    def drafts():
        return [Draft("screens", "app" if i < 13 else "web", "fees", dt.date(2024, 5, 1), [], {}) for i in range(19)]

    stacked = drafts()
    for draft, length in zip(stacked, [70, 76, 83, 92, 101, 107, 114, 122, 138, 131, 161, 146, 154,
                                       146, 168, 224, 260, 298, 330]):
        draft.length_words = length
    assert lengths_bunch([d.length_words for d in stacked])  # 4 of 19 in one bucket: no slack left
    assert not lengths_bunch([d.length_words for d in stacked], headroom=0)  # though the gate itself passes
    first, again = drafts(), drafts()
    _spread_lengths(first, {"screens": Screens()}, 0, "hard")
    _spread_lengths(again, {"screens": Screens()}, 0, "hard")
    assert [d.length_words for d in first] == [d.length_words for d in again]
    for draft in first:
        low, high = spread_range(Screens(), draft.variant)
        assert low <= draft.length_words <= high, (draft.variant, draft.length_words)
    buckets = Counter(d.length_words // SPREAD_BUCKET for d in first)
    assert max(buckets.values()) <= SPREAD_MAX_SHARE * len(first) - 1, sorted(d.length_words for d in first)
    assert len(buckets) >= 9
    single = [Draft("screens", "app", "fees", dt.date(2024, 5, 1), [], {}) for _ in range(5)]
    _spread_lengths(single, {"screens": Screens()}, 0, "hard")  # fewer than the gate measures: strata only
    assert sorted(int((d.length_words - 65) // 20) for d in single) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("carriers, count", [(3, 12), (5, 12), (1, 7), (7, 7), (0, 9), (9, 20)])
def test_planned_lengths_deal_carriers_and_fillers_each_over_the_whole_range(carriers, count):
    """Issue 10 item 3: a record's planned length says nothing of whether it carries a rule. Dealing all
    strata in one shuffle once gave banking hard seed 6's knowledge-base carriers the longer half (523
    tokens on average against the fillers' 458, p = 0.05). Now the carriers' strata are evenly spaced over
    the range (neighbours ``count // carriers`` or one more apart, the first within that spacing of the
    start), every stratum is dealt once, and the deal is the same for the same seed."""
    import datetime as dt

    from taugen.generators.corpus.genre import Rendition
    from taugen.generators.corpus.planner import Draft, _spread_lengths

    class Articles:
        name = "articles"
        spread_words = (200, 200 + 20 * count)

    def drafts():
        made = []
        for index in range(count):
            owned = [Rendition(f"rule_{index}", "The fee is $5.", "$5", "canonical", "current",
                               dt.date(2024, 5, 1))] if index < carriers else []
            made.append(Draft("articles", "", "fees", dt.date(2024, 5, 1), owned, {}))
        random.Random(count).shuffle(made)  # carriers anywhere in draft order
        return made

    dealt, again = drafts(), drafts()
    for members in (dealt, again):
        _spread_lengths(members, {"articles": Articles()}, 3, "hard")
    assert [d.length_words for d in dealt] == [d.length_words for d in again]
    strata = {id(d): (d.length_words - 200) // 20 for d in dealt}
    assert sorted(strata.values()) == list(range(count))
    carried = sorted(strata[id(d)] for d in dealt if d.owned())
    assert len(carried) == carriers
    if carriers:
        spacing = count // carriers
        assert carried[0] <= spacing and count - 1 - carried[-1] <= spacing, carried
        assert all(spacing <= b - a <= spacing + 1 for a, b in zip(carried, carried[1:])), carried


@pytest.mark.parametrize("seed", [0, 3])
def test_meetings_are_planned_on_weekdays_with_their_rules_in_force(seed):
    """Issue 10 item 6: a genre that declares ``business_days`` (meeting transcripts, email threads) gets no
    weekend record: the planner moves it to a weekday of that week or the next that its rules allow, the
    rules the record owns dated with it, never before they took effect, and no weekday gets more of them
    than another (moved to the nearest weekday, Fridays and Mondays took twice their share). Records of
    other genres keep their days (banking's support calls and chats run at weekends too)."""
    available = genres()
    assert available["meeting_transcript"].business_days and not available["support_transcript"].business_days
    pack = load_pack(Path(__file__).resolve().parents[1] / "taugen" / "domains" / "banking")
    plan = plan_corpus(pack, tier("hard"), seed, available)
    meetings = [a for a in plan.artifacts if a.genre == "meeting_transcript"]
    assert len(meetings) > 100
    assert all(a.end.date().weekday() < 5 for a in meetings), [a.end for a in meetings if a.end.date().weekday() >= 5]
    for artifact in meetings:
        for rendition in artifact.renditions:
            if rendition.owns:
                assert rendition.date == artifact.end.date() or artifact.end.date() == pack.now.date()
                assert rendition.date >= pack.facts[rendition.fact_id].effective_from
    weekend = Counter(a.end.date().weekday() >= 5 for a in plan.artifacts if a.genre == "support_transcript")
    assert weekend[True] > 0
    staff = [a for a in plan.artifacts if available[a.genre].business_days]
    assert {a.genre for a in staff} >= {"meeting_transcript", "email_thread"}
    by_weekday = Counter(a.end.date().weekday() for a in staff)
    assert set(by_weekday) == {0, 1, 2, 3, 4}
    assert max(by_weekday.values()) <= 1.4 * min(by_weekday.values()), sorted(by_weekday.items())


def test_length_surplus_names_the_records_a_bunched_bucket_holds_beyond_the_share():
    from taugen.validators.realism import length_surplus

    # airline hard seed 0's 13 flowcharts (one length moved): the gate allows 3 in a bucket (25 %) and wants
    # 8 buckets; bucket 11 holds 5, so two of its fillers move, and the 7 buckets taken need one more: the
    # fullest other bucket (7, three records) gives up its first filler
    tokens = {f"f{i:02d}": t for i, t in enumerate([172, 181, 184, 193, 262, 286, 288, 289, 298, 327, 347, 360, 402])}
    tokens["f09"] = 295
    carriers = {a: a in ("f05", "f06") for a in tokens}
    assert length_surplus(tokens, carriers) == ["f01", "f07", "f08"]
    # eight buckets needed: 12 records in 6 buckets of two each give up one of each fullest bucket
    pairs = {f"p{i:02d}": 100 + 25 * (i // 2) for i in range(12)}
    moved = length_surplus(pairs, {a: False for a in pairs})
    assert moved == ["p00", "p02"]
    assert length_surplus({a: 25 * i for i, a in enumerate(pairs)}, {a: False for a in pairs}) == []


@pytest.mark.parametrize("seed", [0, 10])
def test_call_substitution_keeps_an_arcs_versions_in_different_genres(seed):
    """Calls over the budget are substituted (support transcript, email, ...). At hard seed 10 an arc's other
    versions already sat in both standard substitutes, and the third version joined one of them, failing
    the build (arcs/arc_in_one_genre); any other genre people talk or write in is tried first now."""
    pack = load_pack(PACK)
    available = genres()
    plan = plan_corpus(pack, tier("hard"), seed, available)
    genre_of = {r.fact_id: artifact.genre for artifact in plan.artifacts for r in artifact.renditions if r.owns}
    checked = 0
    for arc in pack.arcs():
        placed = [genre_of[fact_id] for fact_id in arc if fact_id in genre_of]
        if len(placed) > 1:
            checked += 1
            assert len(placed) == len(set(placed)), (arc, placed)
    assert checked >= 20


# --------------------------------------------------------------------------------------------------
# spoken wordings of a subject (issue 10 item 4: voiced renditions paraphrase the subject)
# --------------------------------------------------------------------------------------------------

def test_spoken_subject_says_whole_phrases_longest_first():
    from taugen.generators.corpus.renditions import SpokenWords, spoken_subject

    spoken = SpokenWords(subject_words={"fee": ("charge",), "certificate of deposit": ("CD",),
                                        "cut-off": ("deadline",), "wire cut-off": ("wire deadline",)})
    always = random.Random(0)
    assert spoken_subject("the legal process fee on a Certificate of Deposit", spoken, always, 1.0) \
        == "the legal process charge on a CD"
    assert spoken_subject("the in-person wire cut-off", spoken, always, 1.0) == "the in-person wire deadline"
    assert spoken_subject("Feedback on waivers", spoken, always, 1.0) == "Feedback on waivers"  # whole words only
    assert spoken_subject("the fees", spoken, always, 1.0) == "the fees"
    assert spoken_subject("Fee for a stop", spoken, always, 1.0) == "Charge for a stop"  # an opening capital stays
    card = SpokenWords(subject_words={"credit card": ("Visa card",)})
    assert spoken_subject("the Platinum Visa credit card fee", card, always, 1.0) == "the Platinum Visa credit card fee"
    assert spoken_subject("a late fee on a credit card", card, always, 1.0) == "a late fee on a Visa card"
    assert spoken_subject("the legal process fee", spoken, always, 0.0) == "the legal process fee"
    # the article before a phrase said another way agrees with the wording, and no other article changes
    dormant = SpokenWords(subject_words={"dormant account": ("inactive account",), "amendment request":
                                         ("change request",)})
    assert spoken_subject("reactivating a dormant account", dormant, always, 1.0) == "reactivating an inactive account"
    assert spoken_subject("An amendment request for a user", dormant, always, 1.0) == "A change request for a user"
    assert spoken_subject("the legal process fee", None, always, 1.0) == "the legal process fee"
    untouched = random.Random(5)
    spoken_subject("the monthly price", spoken, untouched, 1.0)  # no phrase matches: nothing is drawn
    assert untouched.random() == random.Random(5).random()


def test_voiced_renditions_say_subjects_as_people_do():
    """At hard, the voiced renditions of banking facts name their subject in the pack's spoken wordings
    (``vocabulary.yaml`` ``spoken``) nearly always where it has one (issue 10 item 4: voiced renditions
    paraphrase the subject, not only the value), while mentions keep the expert's words (talk about a rule
    beyond its owner) except in genres with ``spoken_mentions`` (channel exports), where about as many as
    the tier voices rules are said otherwise. Every rendition still carries its value (placement reads it
    back). Without the spoken wordings the same plan names the subject as written far more often."""
    from taugen.generators.corpus.renditions import spoken_subject
    from taugen.generators.corpus.vocabulary import NEUTRAL_VOCABULARY

    pack = load_pack(PACK)
    spoken = load_vocabulary(PACK).words("spoken")
    published_in = load_vocabulary(PACK).common.published_in
    preset = dataclasses.replace(tier("hard"), tasks=45)
    deferred: list[str] = []

    available = genres()

    def said_otherwise(plan, status: str, spoken_mentions: bool | None = None) -> list[bool]:
        """Per rendition of ``status`` whose subject has a spoken wording (in genres whose
        ``spoken_mentions`` is ``spoken_mentions``, when given): True when its text does not hold the
        subject as written."""
        said = []
        for artifact in plan.artifacts:
            if spoken_mentions is not None and available[artifact.genre].spoken_mentions != spoken_mentions:
                continue
            for rendition in artifact.renditions:
                fact = pack.facts[rendition.fact_id]
                subject = (fact.subject or "").strip().rstrip(".")
                if rendition.status != status or (status != "mention" and rendition.register != "voiced") or \
                        not subject or spoken_subject(subject, spoken, random.Random(0), 1.0) == subject:
                    continue
                written = deferred_statement(fact, published_in)
                if status == "mention" and written and rendition.text.startswith(written):
                    deferred.append(rendition.text)  # the rule's own words, its figure deferred (a peer's figure
                    continue                         # may follow among staff): the subject is not named
                said.append(normalise_text(subject) not in normalise_text(rendition.text))
        return said

    plan = plan_corpus(pack, preset, 3, genres())
    voiced = said_otherwise(plan, "current")
    assert len(voiced) > 100
    assert sum(voiced) / len(voiced) >= 0.9, sum(voiced) / len(voiced)  # 0.97 measured at seed 3
    deferred.clear()
    mentions = said_otherwise(plan, "mention", spoken_mentions=False)
    assert len(mentions) > 500 and not any(mentions)
    assert len(deferred) > 20  # mentions in a rule's own sentence with its figure deferred, counted apart
    in_channels = said_otherwise(plan, "mention", spoken_mentions=True)
    assert len(in_channels) > 50
    share = sum(in_channels) / len(in_channels)
    assert 0.25 <= share <= tier("hard").voiced_share, share
    plain = said_otherwise(plan_corpus(pack, preset, 3, genres(), vocabulary=NEUTRAL_VOCABULARY), "current")
    assert sum(plain) / len(plain) <= 0.6, sum(plain) / len(plain)  # 0.45: only shortened subjects
    for artifact in plan.artifacts:
        for rendition in artifact.renditions:
            if rendition.status in ("current", "superseded") and pack.facts[rendition.fact_id].value is not None:
                assert find_surface_form(pack.facts[rendition.fact_id].value, rendition.text), rendition.text


SPOKEN_GENRES = ("channel_export", "decision_register", "email_thread", "issue_tracker_export",
                 "knowledge_base_archive", "meeting_transcript", "support_transcript", "web_screenshot")
"""Genres where people name subjects casually (questions, headings, agenda items, titles, a help page's
questions)."""


def test_spoken_wordings_mark_neither_carriers_nor_fillers(hard):
    """The pack's spoken wordings of subjects ("UTMA account", "FX markup", "escheat report") are written
    wherever people name a subject casually, about a rule or not alike: in every talking genre both
    carriers and fillers hold them, at rates per word within a factor of two of each other (measured on
    seed 0: 0.73 to 1.39). A wording only carriers used would be a carrier's mark to any reader."""
    import re


    view = BundleView(read_bundle(hard), source=str(hard))
    spoken = load_vocabulary(PACK).words("spoken")
    distinct = sorted({form for forms in spoken.subject_words.values() for form in forms
                       if len(form.split()) > 1 or form.isupper()})  # not everyday words such as "charge"
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, distinct)) + r")\b")
    counts: dict[tuple[str, bool], list[int]] = {}
    for artifact_id, entry in view.manifest["artifacts"].items():
        if entry["genre"] in SPOKEN_GENRES:
            text = view.text(artifact_id)
            tally = counts.setdefault((entry["genre"], bool(entry["carrier"])), [0, 0])
            tally[0] += len(pattern.findall(text))
            tally[1] += len(text.split())
    for genre in SPOKEN_GENRES:
        carriers, fillers = (1000 * found / words for found, words in (counts[(genre, True)], counts[(genre, False)]))
        assert carriers > 1 and fillers > 1, (genre, carriers, fillers)
        assert 0.5 <= carriers / fillers <= 2, (genre, carriers, fillers)


def test_a_voiced_rendition_names_its_whole_subject_never_a_cut_of_it():
    """A subject is not cut at a word count to break a run shared with the statement: "We charge thirty
    dollars for that or amendment request" (from "a wire recall, return or amendment request", seen in a
    seed-0 hard meeting) and "for that on Everyday Checking" name nothing. Every voiced wording of the
    wire-recall fee names the subject whole (as written or in the pack's spoken wording of "amendment
    request"), or is the statement; before, all 200 draws said "that or amendment request"."""
    from taugen.generators.corpus.renditions import voiced_text

    pack = load_pack(PACK)
    spoken = load_vocabulary(PACK).words("spoken")
    fact = pack.facts["fee_wire_recall"]
    seen = set()
    for draw in range(200):
        text, form = voiced_text(fact, random.Random(draw), spoken)
        seen.add(text)
        assert form and form in text
        assert text == fact.statement or any(f"wire recall, return or {said} request" in text
                                             for said in ("amendment", "correction", "change")), text
        assert " that or " not in text and " that on " not in text, text
    assert len(seen) >= 4  # several frames, not one fallback
