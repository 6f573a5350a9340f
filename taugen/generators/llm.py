"""LLM calls for generation: litellm behind a request cache, a replay mode, a budget and a cost ledger.

The offline template path is complete on its own; this module is used only when a build asks for a
model (``taugen build ... --llm MODEL``). Every request is a unit keyed by the hash of exactly what it
sends (model, messages, parameters), so:

* a response is fetched once and then read from the cache folder (one JSON file per key, written to a
  temporary file and renamed into place, so concurrent builds sharing a cache never see half an entry;
  an entry that does not parse or whose recorded key differs is treated as missing and re-fetched);
* ``replay=True`` builds only from the cache and raises :class:`LLMReplayMiss` on a miss, so a
  replayed build is byte-identical to the build that recorded it;
* the budget is charged with each response's recorded cost (what the call cost when it was made, from
  litellm's ``completion_cost``), cached or not, so a live and a replayed build take the same decisions;
* retries with exponential backoff are litellm's (``num_retries``); a request that still fails is
  reported to the caller, which falls back to the template rendition.

litellm is the optional extra ``llm`` (``pip install taugen[llm]``; releases 1.82.7 and 1.82.8 are
excluded: they were compromised). ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set at ``import taugen`` so
importing litellm reaches for no network. Tests drive the real litellm code path with its
``mock_response`` argument (https://docs.litellm.ai/docs/completion/mock_requests).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from taugen.errors import InputError

CACHE_FORMAT = 1
"""Version of the cache entry layout; part of every key, so a layout change never reads old entries."""


def default_cache_dir() -> Path:
    """``$TAUGEN_CACHE_DIR/llm``, else ``$XDG_CACHE_HOME/taugen/llm``, else ``~/.cache/taugen/llm``."""
    if os.environ.get("TAUGEN_CACHE_DIR"):
        return Path(os.environ["TAUGEN_CACHE_DIR"]) / "llm"
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "taugen" / "llm"


class LLMUnavailable(InputError):
    """``--llm`` was given but litellm is not installed."""


class LLMReplayMiss(InputError):
    """``--llm-replay``: a request has no cache entry (the build would have to call the model)."""


@dataclass(frozen=True)
class LLMSettings:
    """How a build uses a model.

    Attributes:
        model: a litellm model name (``gpt-4o-mini``, ``anthropic/claude-3-5-haiku-20241022``, ...).
        cache_dir: the request cache folder (:func:`default_cache_dir` when None).
        replay: build only from the cache; a miss is an error.
        budget_usd: stop calling the model once the recorded cost reaches this (US dollars); None = no cap.
        temperature: sampling temperature sent with every request (0 keeps responses stable).
        max_tokens: completion cap per request (tokens).
        num_retries: litellm's retries with exponential backoff on rate limits and server errors.
        mock_response: for tests only: ``prompt text -> response text`` handed to litellm's
            ``mock_response`` (the real litellm code path runs; nothing reaches the network).
    """

    model: str
    cache_dir: Path | None = None
    replay: bool = False
    budget_usd: float | None = None
    temperature: float = 0.0
    max_tokens: int = 200
    num_retries: int = 3
    mock_response: Callable[[str], str | Exception] | None = field(default=None, compare=False)

    def parameters(self) -> dict[str, Any]:
        """The request parameters that are part of every cache key."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}


@dataclass
class LLMResponse:
    """One response: ``text``, the tokens it took, its recorded cost (USD) and whether it came from the cache."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool


@dataclass
class Ledger:
    """Cost and outcome of every LLM request of a build (``author/llm_ledger.json``).

    Only recorded, replayable numbers go in (no cache-hit counts, no times), so the ledger of a
    replayed build equals the ledger of the build that recorded it.
    """

    model: str
    budget_usd: float | None
    spent_usd: float = 0.0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)
    cache_hits: int = 0
    """Responses read from the cache (reported on screen, not written into the bundle)."""

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready ledger (no cache statistics)."""
        outcomes: dict[str, int] = {}
        for entry in self.entries:
            outcomes[entry["outcome"]] = outcomes.get(entry["outcome"], 0) + 1
        return {"model": self.model, "budget_usd": self.budget_usd, "spent_usd": round(self.spent_usd, 6),
                "requests": self.requests, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "outcomes": dict(sorted(outcomes.items())),
                "entries": self.entries}

    @property
    def exhausted(self) -> bool:
        """True once the recorded cost reached the budget."""
        return self.budget_usd is not None and self.spent_usd >= self.budget_usd


def request_key(model: str, messages: list[dict[str, str]], parameters: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of exactly what a request sends (and the cache layout version)."""
    canonical = json.dumps({"format": CACHE_FORMAT, "model": model, "messages": messages, "parameters": parameters},
                           sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class RequestCache:
    """A folder of responses, one ``<key[:2]>/<key>.json`` per request.

    Reads verify the entry (valid JSON, the recorded key equals the file's key, a text response); a
    corrupt or truncated entry is reported as a miss and overwritten by the next fetch. Writes are
    atomic (temporary file in the same folder, then ``os.replace``).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry for ``key``, or None (missing, unreadable or not a valid entry)."""
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("text"), str):
            return None
        return entry

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` under ``key`` atomically."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({**entry, "key": key}, stream, sort_keys=True, ensure_ascii=False)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class LLMClient:
    """Completions through litellm with the cache, replay and budget of :class:`LLMSettings`.

    Raises (from the constructor):
        LLMUnavailable: litellm is not installed (``pip install taugen[llm]``).
    """

    def __init__(self, settings: LLMSettings) -> None:
        try:
            import litellm  # noqa: F401
        except ImportError:
            raise LLMUnavailable("--llm needs litellm: pip install 'taugen[llm]'") from None
        self.settings = settings
        self.cache = RequestCache(settings.cache_dir or default_cache_dir())
        self.ledger = Ledger(model=settings.model, budget_usd=settings.budget_usd)

    def complete(self, messages: list[dict[str, str]]) -> LLMResponse | None:
        """The response to ``messages``, or None when the budget is spent.

        Raises:
            LLMReplayMiss: replay mode and no cache entry.
            Exception: litellm's error when the request still fails after its retries (the caller
                falls back to the template text).
        """
        import litellm

        parameters = self.settings.parameters()
        key = request_key(self.settings.model, messages, parameters)
        entry = self.cache.get(key)
        if entry is None and self.settings.replay:
            raise LLMReplayMiss(f"--llm-replay: no cached response for request {key[:16]} (model "
                                f"{self.settings.model}); build once without --llm-replay to record it",
                                self.cache.directory)
        if self.ledger.exhausted:
            return None
        cached = entry is not None
        if entry is None:
            extra: dict[str, Any] = {}
            if self.settings.mock_response is not None:
                extra["mock_response"] = self.settings.mock_response(messages[-1]["content"])
            response = litellm.completion(model=self.settings.model, messages=messages,
                                          num_retries=self.settings.num_retries, **parameters, **extra)
            try:
                cost = float(litellm.completion_cost(completion_response=response) or 0.0)
            except Exception:  # noqa: BLE001 - a model missing from the cost map costs what we cannot know
                cost = 0.0
            usage = getattr(response, "usage", None)
            entry = {"model": self.settings.model, "text": response.choices[0].message.content or "",
                     "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
                     "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0), "cost_usd": cost}
            self.cache.put(key, entry)
        else:
            self.ledger.cache_hits += 1
        self.ledger.requests += 1
        self.ledger.spent_usd += float(entry.get("cost_usd", 0.0))
        self.ledger.prompt_tokens += int(entry.get("prompt_tokens", 0))
        self.ledger.completion_tokens += int(entry.get("completion_tokens", 0))
        return LLMResponse(text=entry["text"], prompt_tokens=int(entry.get("prompt_tokens", 0)),
                           completion_tokens=int(entry.get("completion_tokens", 0)),
                           cost_usd=float(entry.get("cost_usd", 0.0)), cached=cached)
