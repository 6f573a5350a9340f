"""Text helpers shared by every stage (floor 0): token counts, the words that give authoring away, and
plain-text forms of scenarios and tool outputs.
"""

from __future__ import annotations

import json
import re
from typing import Any

AUTHOR_WORDS = ("answer key", "fact id", "fact_id", "distractor", "rendition", "carrier", "filler", "evaluator",
                "ground truth", "gold action", "taugen", "client-held", "client_held", "supersession arc",
                "author/", "manifest.json", "evidence surface", "expected outcome", "expected answer",
                "expected result", "correct answer", "correct action", "gold answer")
"""Words that name how a benchmark was authored. No record or kit file may hold one (the leakage
validator refuses them), so generators keep them out of what they write."""

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Word-piece estimate of tokens: words and punctuation marks (no model tokenizer needed)."""
    return len(_TOKEN.findall(text))


def normalised_scenario(scenario: Any) -> str:
    """A user scenario as one comparable string: every text value lower-cased, punctuation turned into
    spaces and runs of whitespace (newlines included) collapsed; keys sorted. Two scenarios that differ
    only in case, spacing, line breaks or punctuation give the same string."""
    def normal(value: Any) -> Any:
        if isinstance(value, str):
            return " ".join(re.sub(r"[^\w\s]", " ", value.lower()).split())
        if isinstance(value, dict):
            return {key: normal(item) for key, item in value.items()}
        if isinstance(value, list):
            return [normal(item) for item in value]
        return value

    return json.dumps(normal(scenario), sort_keys=True)


def as_text(output: Any) -> str:
    """A tool output (or parsed JSON) as plain text: every key and scalar on its own line (pydantic
    models dumped first), so that escaping never glues a value to its neighbour."""
    if hasattr(output, "model_dump"):
        output = output.model_dump(mode="json")
    if isinstance(output, dict):
        return "\n".join(f"{key}\n{as_text(value)}" for key, value in output.items())
    if isinstance(output, (list, tuple)):
        return "\n".join(as_text(item) for item in output)
    return "" if output is None else str(output)


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``"1 artifact"``, ``"2 artifacts"``: ``number`` (with thousands separators) and ``noun``, made
    plural (``plural``, else ``noun + "s"``) unless the number is one."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word is an acronym (``ACH transfers`` stays)."""
    first = text.split(" ", 1)[0]
    if len(first) > 1 and first[:2].isupper():
        return text
    return text[:1].lower() + text[1:]


_CALENDAR_NAMES = frozenset(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
                             "January", "February", "March", "April", "May", "June", "July", "August",
                             "September", "October", "November", "December"))
_ARTICLE = re.compile(r"^(The|A|An) ")


def mid_sentence(phrase: str) -> str:
    """An authored noun phrase (a fact's subject) as it reads inside a sentence: a leading article in
    lower case (``The Money Market ...`` -> ``the Money Market ...``), and the first word in lower case
    only when it is a common word written sentence-first (``Overdraft fee`` -> ``overdraft fee``). Names
    keep their case: a word after an article (``the Alabama unclaimed property report date``), an
    acronym, a weekday or month, or a first word with a capitalised or numbered word among the next two
    (``Money Market Preferred tier yield``, ``Certificate of Deposit terms``, ``Form 1099-INT``).
    :func:`lower_first` made "the alabama unclaimed property report date" and "the money Market
    Preferred tier yield" of such subjects."""
    if _ARTICLE.match(phrase):
        return phrase[:1].lower() + phrase[1:]
    words = phrase.split()
    if not words or not words[0][:1].isupper():
        return phrase
    first = words[0].rstrip(",.;:")
    if (len(first) > 1 and first[:2].isupper()) or first in _CALENDAR_NAMES \
            or any(word[:1].isupper() or word[:1].isdigit() for word in words[1:3]):
        return phrase
    return lower_first(phrase)


def upper_first(text: str) -> str:
    """Upper-case the first letter."""
    return text[:1].upper() + text[1:]


LENGTH_BUCKET = 25
"""Width, in :func:`count_tokens` tokens, of a bucket of the realism length gate (``taugen.validators.realism``)
and of the planner's length spread (``taugen.generators.corpus.planner``): one definition for both."""
LENGTH_MIN_BUCKETS = 8
"""The fewest length buckets a measured genre's records must take."""
LENGTH_MAX_SHARE = 0.25
"""The most a measured genre's commonest length bucket may hold."""
LENGTH_MIN_ARTIFACTS = 12
"""The fewest records of a genre whose lengths the gate measures."""
LONG_TOKENS = 1000
"""Records of at least this many :func:`count_tokens` tokens are long documents: no sentence of eight words or
more may repeat across two long documents of a genre (the realism gate, ``taugen.validators.realism``); the
corpus planner keeps a rule's words out of a second record of a genre whose records may run that long."""
