"""A read-only view of a bundle for validators, from memory (during a build) or from disk.

Validators see the bundle only through this view, so ``taugen validate`` re-checks a bundle from its
files exactly as the build checked it before writing.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from pydantic import TypeAdapter

from taugen.manifest import MANIFEST_PATH
from taugen.authoring.values import FactValue
from taugen.errors import InputError
from taugen.validators.registry import preparation, spread
from taugen.generators.corpus.genre import ArtifactPlan, RenderedArtifact, RenderedFile, Rendition, get_genre

_VALUE = TypeAdapter(FactValue)


class BundleLayout:
    """Where a bundle keeps its runtime files, derived from ``self.manifest`` (shared by the read-only
    :class:`BundleView` and the mutation tests' editable bundle)."""

    manifest: dict[str, Any]

    @property
    def domain(self) -> str:
        """The domain the manifest names (``banking``, ``telecom`` ...)."""
        return self.manifest["domain"]

    @property
    def runtime_dir(self) -> str:
        """``tau2/domains/<domain>``: the folder tau2 reads."""
        return f"tau2/domains/{self.domain}"


@dataclass
class BundleView(BundleLayout):
    """Parsed parts of a bundle.

    Attributes:
        files: every file, by relative posix path.
        source: where the bundle came from (a folder, or ``<memory>``), for messages.
    """

    files: Mapping[str, bytes]
    source: str = "<memory>"
    _text_cache: dict[str, str] = field(default_factory=dict, repr=False)

    def _json(self, path: str) -> Any:
        if path not in self.files:
            raise InputError(f"bundle is missing {path}", self.source)
        try:
            return json.loads(self.files[path])
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} is not valid JSON: {exc.msg}", self.source, exc.lineno) from None

    @cached_property
    def bundle(self) -> dict[str, Any]:
        return self._json("bundle.json")

    @cached_property
    def manifest(self) -> dict[str, Any]:
        """``author/manifest.json`` as JSON data (checked against :class:`taugen.manifest.Manifest` by
        :func:`taugen.build.pipeline.validate_files` before any validator reads it).

        Raises:
            InputError: the file is missing or not JSON.
        """
        return self._json(MANIFEST_PATH)

    @cached_property
    def tasks(self) -> list[dict[str, Any]]:
        return self._json(f"{self.runtime_dir}/tasks.json")

    @cached_property
    def splits(self) -> dict[str, list[str]]:
        return self._json(f"{self.runtime_dir}/split_tasks.json")

    @cached_property
    def db(self) -> dict[str, Any]:
        return self._json(f"{self.runtime_dir}/db.json")

    @cached_property
    def certificates(self) -> dict[str, Any]:
        return self._json("author/certificates.json")

    @property
    def now(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.manifest["now"])

    @property
    def snapshot_date(self) -> dt.date:
        return dt.date.fromisoformat(self.manifest["snapshot_date"])

    @property
    def history_start(self) -> dt.date:
        return dt.date.fromisoformat(self.manifest["history_start"])

    def fact_value(self, fact_id: str):
        """The typed value of a fact from the manifest, or None."""
        raw = self.manifest["facts"][fact_id]["value"]
        return _VALUE.validate_python(raw) if raw is not None else None

    def delivered(self, artifact_id: str) -> list[RenderedFile]:
        """The delivered files of an artifact (runtime copies excluded)."""
        entry = self.manifest["artifacts"][artifact_id]
        return [RenderedFile(suffix=f["suffix"], data=self.files[f["path"]], role=f["role"])
                for f in entry["files"] if f["role"] != "runtime" and f["path"] in self.files]

    def author_text(self, artifact_id: str) -> str:
        source = self.manifest["artifacts"][artifact_id].get("author_source")
        return self.files[source].decode() if source and source in self.files else ""

    def text(self, artifact_id: str) -> str:
        """What a reader gets from the artifact's delivered files (cached)."""
        if artifact_id not in self._text_cache:
            entry = self.manifest["artifacts"][artifact_id]
            files = self.delivered(artifact_id)
            if entry["genre"] == "policy_document":
                text = b"\n".join(f.data for f in files).decode()
            else:
                text = get_genre(entry["genre"]).extract_text(files, self.author_text(artifact_id))
            self._text_cache[artifact_id] = text
        return self._text_cache[artifact_id]

    def rendered(self, artifact_id: str) -> RenderedArtifact:
        """Rebuild a RenderedArtifact from the files, for a genre's structural ``validate``."""
        entry = self.manifest["artifacts"][artifact_id]
        renditions = [Rendition(fact_id=r["fact_id"], text=r["text"], value_form=r["value_form"],
                                register=r["register"], status=r["status"], date=dt.date.fromisoformat(r["date"]))
                      for r in entry["renditions"]]
        plan = ArtifactPlan(artifact_id=artifact_id, genre=entry["genre"], topic=entry["topic"], topic_title="",
                            start=dt.datetime.fromisoformat(entry["start"]), end=dt.datetime.fromisoformat(entry["end"]),
                            renditions=renditions, facts={}, seed=0, variant=entry["variant"])
        return RenderedArtifact(plan=plan, files=self.delivered(artifact_id), author_text=self.author_text(artifact_id),
                                renditions=renditions,
                                timestamps=[dt.datetime.fromisoformat(s) for s in entry["timestamps"]],
                                metadata=entry.get("metadata") or {})

    def agent_visible_paths(self) -> list[str]:
        """Files an agent or agent builder sees: the kit and the runtime's policy and database."""
        return sorted(p for p in self.files if p.startswith("kit/")
                      or p in (f"{self.runtime_dir}/policy.md", f"{self.runtime_dir}/db.json"))


def _texts_of(view: BundleView, artifact_ids: list[str]) -> list[str | None]:
    """What a reader gets from each of ``artifact_ids`` (an executor's unit); None for a record that cannot
    be read (the validators that read it report that)."""
    texts: list[str | None] = []
    for artifact_id in artifact_ids:
        try:
            texts.append(view.text(artifact_id))
        except Exception:  # noqa: BLE001 - a broken record is a finding of the validators, not a crash here
            texts.append(None)
    return texts


@preparation("record texts")
def share_texts(view: BundleView, executor: Any, workers: int) -> None:
    """Read every record's text back from its delivered files once, spread over ``executor``'s workers,
    into ``view``'s text cache, which validators run side by side inherit (most read every record; each
    used to read them all itself). Records already read are not read again."""
    wanted = sorted(a for a in view.manifest.get("artifacts", {}) if a not in view._text_cache)
    view._text_cache.update((a, text) for a, text in spread(executor, _texts_of, view, wanted, workers)
                            if text is not None)
