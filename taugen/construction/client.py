"""The client simulator: the bank's operations lead, whom the developer can ask.

It answers from ``author/client_prompt.md`` (held, contested and confirmable rules) and the deployment's
defect records (``author/client_api/deployments.json``):

* a question about a held or contested rule gets that rule's statement, plainly;
* a proposed reading of a confirmable rule gets yes or no, never the correct version;
* an API defect is confirmed, with the fix the platform team will deploy, only once the developer
  reports an anomaly of that defect's kind on that operation; asking in general reveals nothing;
* a request to recite or list the policy is declined; everything else is pointed back to the records.

Two modes: ``scripted`` (deterministic rules above, for tests) and an LLM through litellm (the client
prompt is the system prompt; a confirmed defect is added to the turn's context only after the code
above saw the report, so the model cannot disclose one early). Every exchange is appended to a JSONL log.
The persona and blocks follow τ^τ-bench's client (sierra-research/hyper-tau-bench,
``src/tau2/hyper/client_sim/instructions.py``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taugen.construction.bundle import ConstructionBundle

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

_WORD = re.compile(r"[a-z0-9$.%]+")
_STOP = {"the", "a", "an", "of", "to", "is", "are", "and", "or", "for", "on", "in", "at", "by", "be", "it", "its",
         "what", "which", "when", "how", "does", "do", "can", "may", "our", "your", "that", "this", "with", "any",
         "if", "we", "i", "you", "customer", "customers", "agent", "bank", "account", "there", "rule", "about"}
# Words that describe what a developer sees for each defect kind (a report must use one).
ANOMALY_WORDS = {
    "pagination": ("missing", "skipped", "skips", "duplicate", "duplicated", "twice", "repeat", "gap", "page"),
    "lost_cursor": ("cursor", "same page", "first page", "loops", "ignored"),
    "limit_before_sort": ("order", "sorted", "sort", "not the first", "oldest", "limit"),
    "stale_read": ("stale", "old value", "outdated", "not updated", "previous value", "lag"),
    "non_idempotent_retry": ("timeout", "timed out", "504", "retry", "twice", "idempotency"),
    "wrong_status_code": ("200", "status", "success", "error body"),
    "silent_truncation": ("truncat", "cut", "only 3", "stops at", "three", "incomplete", "no cursor"),
    "timezone_off_by_one": ("hour", "time zone", "timezone", "offset", "clock"),
    "rounding": ("round", "cents", "whole dollar", "decimal"),
}
_RECITE = re.compile(r"\b(list|recite|all|every|whole|entire)\b.*\b(polic|rules|procedures|handbook)", re.I)
_PROPOSAL = re.compile(r"\b(is it|is that|am i right|correct|right that|do i read|reading|i understand|confirm)\b",
                       re.I)


def _tokens(text: str) -> set[str]:
    return {t.strip(".") for t in _WORD.findall(text.lower()) if t.strip(".") and t.strip(".") not in _STOP}


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


@dataclass
class ClientSimulator:
    """The operations lead of one bundle.

    Args:
        bundle: a construction bundle.
        model: a litellm model name, or None for the scripted mode.
        log_path: JSONL file every exchange is appended to (None: no file, exchanges kept in ``log``).
        mock_response: passed to litellm (tests).
    """

    bundle: ConstructionBundle
    model: str | None = None
    log_path: Path | None = None
    mock_response: str | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    reported: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        manifest = self.bundle.manifest
        facts = manifest["facts"]
        self.prompt = (self.bundle.path / "author" / "client_prompt.md").read_text(encoding="utf-8")
        self.held = [(i, facts[i]["statement"]) for i in manifest.get("client_held", [])]
        self.contested = [(i, facts[i]["statement"]) for i in sorted(manifest.get("contested", {}))]
        self.confirmable = [(i, facts[i]) for i in manifest.get("client_confirmable", [])]
        self.defects = list(self.bundle.deployment(None).defects)
        self.history: list[dict[str, str]] = []

    # ------------------------------------------------------------------------------ scripted rules
    def _defect_reported(self, message: str):
        lowered = message.lower()
        for defect in self.defects:
            for operation in defect.operations:
                named = operation in lowered or operation.replace("_", " ") in lowered
                if named and any(word in lowered for word in ANOMALY_WORDS[defect.kind]):
                    return defect, operation
        return None

    def _best(self, message: str, rules: list[tuple[str, str]]) -> tuple[str, str] | None:
        words = _tokens(message)
        scored = sorted(((len(words & _tokens(statement)), fact_id, statement) for fact_id, statement in rules),
                        key=lambda item: (-item[0], item[1]))
        if scored and scored[0][0] >= 3:
            return scored[0][1], scored[0][2]
        return None

    def decide(self, message: str) -> dict[str, Any]:
        """What the client does with ``message``: ``{"kind", "reply", "fact_id"?, "defect"?}`` (no LLM)."""
        reported = self._defect_reported(message)
        if reported is not None:
            defect, operation = reported
            self.reported.add(defect.name)
            return {"kind": "defect_confirmed", "defect": defect.name, "operation": operation,
                    "reply": f"Yes, the platform team knows that one on {operation}. The fix they will deploy: "
                             f"{defect.fix}"}
        if _RECITE.search(message):
            return {"kind": "declined", "reply": "I can't go through the whole rulebook with you; it's in the "
                                                 "records we sent. Ask me about a specific rule."}
        if _PROPOSAL.search(message):
            for fact_id, fact in self.confirmable:
                statement = fact["statement"]
                if self._best(message, [(fact_id, statement)]) is None:
                    continue
                if _numbers(statement) or _numbers(message):
                    right = _numbers(message) == _numbers(statement)
                else:  # a reading in words: right when it keeps the rule's words and adds no negation
                    words = _tokens(statement)
                    negated = bool(re.search(r"\b(not|never|no)\b", message, re.I)) != bool(
                        re.search(r"\b(not|never|no)\b", statement, re.I))
                    right = len(words & _tokens(message)) >= 0.8 * len(words) and not negated
                if right:
                    return {"kind": "confirmed", "fact_id": fact_id, "reply": "Yes, that's the right reading."}
                return {"kind": "denied", "fact_id": fact_id, "reply": "No, that's not how we apply it."}
        operations = {op for methods in self.bundle.openapi["paths"].values() for op in
                      (o["operationId"] for o in methods.values())}
        if re.search(r"\b(api|endpoint|bug|defect|deployment)\b", message, re.I) or any(
                op in message.lower() for op in operations):
            return {"kind": "api_unconfirmed", "reply": "I don't know of a problem there. If something behaves "
                                                        "differently from the contract, tell me what you saw and on "
                                                        "which operation."}
        found = self._best(message, self.held)
        if found is not None:
            return {"kind": "held", "fact_id": found[0], "reply": found[1]}
        found = self._best(message, self.contested)
        if found is not None:
            return {"kind": "contested", "fact_id": found[0], "reply": f"The current rule is: {found[1]}"}
        return {"kind": "records", "reply": "That's covered in the records we gave you."}

    # ------------------------------------------------------------------------------ answering
    def ask(self, message: str) -> str:
        """The client's reply to one developer message (logged)."""
        decision = self.decide(message)
        if self.model is None:
            reply = decision["reply"]
        else:
            import litellm

            system = self.prompt
            if decision["kind"] == "defect_confirmed":
                system += (f"\n\nThe consultant just reported a problem with the client API operation "
                           f"{decision['operation']}. Confirm it and say the platform team will deploy this fix: "
                           f"{next(d.fix for d in self.defects if d.name == decision['defect'])}")
            messages = [{"role": "system", "content": system}, *self.history, {"role": "user", "content": message}]
            options = {"mock_response": self.mock_response} if self.mock_response is not None else {}
            response = litellm.completion(model=self.model, messages=messages, temperature=0.0, **options)
            reply = response.choices[0].message.content or ""
        self.history += [{"role": "user", "content": message}, {"role": "assistant", "content": reply}]
        entry = {"turn": len(self.log) + 1, "message": message, "reply": reply, "mode": self.model or "scripted",
                 **{k: v for k, v in decision.items() if k != "reply"}}
        self.log.append(entry)
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")
        return reply
