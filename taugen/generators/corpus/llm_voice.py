"""The LLM stage of the corpus: a model re-voices the planned voiced renditions, checked, or the template stays.

Runs between planning and rendering (``taugen build ... --llm MODEL``). For every rendition the planner
put in the ``voiced`` register and that an artifact owns (current or superseded; cues, pointers and
decoys are left as planned), the model is asked to say the same thing in one sentence in its own
words. Its answer replaces the template wording only when it passes the checks the build's validators
apply to any rendition, run here so that a failure repairs itself by falling back instead of failing
the build:

* the fact's value is in the sentence in an accepted surface form (placement reads it back);
* no run of :data:`taugen.generators.corpus.renditions.SHINGLE` words is shared with the canonical
  statement (a reader who greps the statement must not find it);
* no number appears that the template wording did not hold (a new figure could restate another fact
  with a wrong value);
* one sentence of 4 to 60 words, on one line, naming no fact id or authoring word.

Anything else (a failed check, an error after litellm's retries, the budget spent) keeps the template
rendition, and the ledger (``author/llm_ledger.json``) says which and why. Filler prose and whole
records are not rewritten yet.
"""

from __future__ import annotations

import re
from dataclasses import replace

from taugen.authoring.pack import Pack
from taugen.authoring.values import find_surface_form
from taugen.generators.corpus.genre import CUE_STATUSES, ArtifactPlan, Rendition
from taugen.generators.corpus.planner import CorpusPlan
from taugen.generators.corpus.renditions import shares_run
from taugen.generators.llm import LLMClient, LLMReplayMiss

SPEAKERS = {"support_transcript": "a support agent talking to a customer",
            "call_recording": "a support agent on the phone with a customer",
            "email_thread": "a colleague writing an email",
            "channel_export": "a colleague posting in a team chat channel",
            "meeting_transcript": "a manager speaking in a team meeting",
            "issue_tracker_export": "an engineer commenting on a ticket",
            "case_ledger_export": "a case handler writing a case note"}
"""Who says the sentence, per genre (a genre may set ``llm_speaker`` on itself instead)."""

_NUMBER = re.compile(r"\d[\d,.]*")
_AUTHORING_WORDS = ("fact", "rendition", "carrier", "filler", "manifest", "placeholder")


def _prompt(plan: ArtifactPlan, rendition: Rendition, statement: str, brand: str, speaker: str) -> list[dict[str, str]]:
    keep = f' Keep the words "{rendition.value_form}" exactly as written.' if rendition.value_form else ""
    return [
        {"role": "system", "content": f"You write single sentences for realistic internal business records of "
                                      f"{brand}. Answer with the sentence only: no quotes, no preamble."},
        {"role": "user", "content": f"Say this in your own words, as {speaker} would, in one sentence: "
                                    f"\"{rendition.text}\"{keep} Do not reuse the official wording "
                                    f"\"{statement}\", and add no other numbers, names or dates."},
    ]


def check_voicing(text: str, rendition: Rendition, plan: ArtifactPlan) -> tuple[str | None, str]:
    """``(value form, '')`` when ``text`` may replace ``rendition`` in ``plan``, else ``(None, reason)``."""
    fact = plan.facts[rendition.fact_id]
    if "\n" in text.strip():
        return None, "more than one line"
    words = text.split()
    if not 4 <= len(words) <= 60:
        return None, f"{len(words)} words"
    lowered = text.lower()
    if fact.id in lowered or "_" in text or any(re.search(rf"\b{word}s?\b", lowered) for word in _AUTHORING_WORDS):
        return None, "authoring words"
    form = ""
    if fact.value is not None and rendition.value_form:
        found = find_surface_form(fact.value, text)
        if found is None:
            return None, "value missing"
        form = found
    if shares_run(text, fact.statement):
        return None, "copies the statement"
    allowed = set(_NUMBER.findall(rendition.text)) | set(_NUMBER.findall(form))
    if any(number not in allowed for number in _NUMBER.findall(text)):
        return None, "new number"
    return form, ""


def voice_plan(plan: CorpusPlan, pack: Pack, client: LLMClient, speakers: dict[str, str] | None = None) -> CorpusPlan:
    """A copy of ``plan`` whose owned voiced renditions the model re-voiced where its answer passed
    :func:`check_voicing`; every rendition tried is an entry of ``client.ledger``.

    Args:
        plan: the planned corpus (not modified).
        pack: the pack (brand for the prompt).
        client: the LLM client (cache, replay, budget).
        speakers: genre → who speaks (defaults to :data:`SPEAKERS`).

    Raises:
        LLMReplayMiss: replay mode and a request is not cached.
    """
    speakers = {**SPEAKERS, **(speakers or {})}
    artifacts = []
    for artifact in plan.artifacts:
        renditions = []
        for rendition in artifact.renditions:
            if rendition.register != "voiced" or rendition.status in CUE_STATUSES:
                renditions.append(rendition)
                continue
            fact = artifact.facts[rendition.fact_id]
            entry = {"artifact": artifact.artifact_id, "fact": fact.id}
            messages = _prompt(artifact, rendition, fact.statement, pack.config.brand,
                               speakers.get(artifact.genre, "a member of staff"))
            try:
                response = client.complete(messages)
            except LLMReplayMiss:
                raise
            except Exception as exc:  # noqa: BLE001 - litellm's errors after its retries: keep the template
                client.ledger.entries.append({**entry, "outcome": "fallback", "reason": f"error: {type(exc).__name__}"})
                renditions.append(rendition)
                continue
            if response is None:
                client.ledger.entries.append({**entry, "outcome": "fallback", "reason": "budget spent"})
                renditions.append(rendition)
                continue
            text = response.text.strip().strip('"').strip()
            form, reason = check_voicing(text, rendition, artifact)
            if form is None:
                client.ledger.entries.append({**entry, "outcome": "fallback", "reason": reason,
                                              "cost_usd": response.cost_usd})
                renditions.append(rendition)
                continue
            client.ledger.entries.append({**entry, "outcome": "voiced", "cost_usd": response.cost_usd})
            renditions.append(replace(rendition, text=text, value_form=form))
        artifacts.append(replace(artifact, renditions=renditions))
    return replace(plan, artifacts=artifacts)
