"""The manifest between build and validate is a typed model, checked where it is written and read."""

from __future__ import annotations

import json
import shutil

import pytest

from taugen.build.files import read_bundle
from taugen.errors import InputError
from taugen.build.pipeline import validate_files
from taugen.manifest import MANIFEST_PATH, Manifest, manifest_bytes, read_manifest


def _manifest(path) -> dict:
    return json.loads((path / MANIFEST_PATH).read_bytes())


@pytest.mark.parametrize("tier", ["easy", "hard"])
def test_a_built_manifest_is_a_manifest(built_bundle, tier):
    data = _manifest(built_bundle(tier))  # hard: the suite's shared seed-0 bundle, not a build of its own
    model = Manifest.model_validate(data)
    assert set(data) == set(Manifest.model_fields)
    assert (model.domain, model.environment, model.tier) == ("banking", "taugen.domains.banking", tier)
    assert model.artifacts and all(artifact.files for artifact in model.artifacts.values())
    owned = {fact_id for fact_id, fact in model.facts.items() if fact.owner is not None}
    assert owned == {rendition.fact_id for artifact in model.artifacts.values() for rendition in artifact.renditions}
    assert manifest_bytes(data) == built_bundle(tier).joinpath(MANIFEST_PATH).read_bytes()


def _broken(data: dict, how: str) -> str:
    """Break ``data`` in place; returns the field path the error must name."""
    artifact_id = sorted(data["artifacts"])[0]
    fact_id = sorted(data["facts"])[0]
    if how == "missing":
        del data["artifacts"][artifact_id]["files"]
        return f"artifacts.{artifact_id}.files: Field required"
    if how == "unknown":
        data["owners"] = {}
        return "owners: Extra inputs are not permitted"
    data["facts"][fact_id]["current"] = "perhaps"
    return f"facts.{fact_id}.current: Input should be a valid boolean, unable to interpret input"


@pytest.mark.parametrize("how", ["missing", "unknown", "wrong_type"])
def test_a_broken_manifest_is_named_field_by_field(built_bundle, how):
    files = dict(read_bundle(built_bundle("easy")))
    data = json.loads(files[MANIFEST_PATH])
    expected = _broken(data, how)
    with pytest.raises(InputError, match=rf"author/manifest.json is not a valid manifest: {expected} \(1 problem\)"):
        manifest_bytes(data)
    files[MANIFEST_PATH] = json.dumps(data).encode()
    with pytest.raises(InputError, match=rf"^bundle-x: author/manifest.json is not a valid manifest: {expected}"):
        read_manifest(files[MANIFEST_PATH], "bundle-x")
    with pytest.raises(InputError, match=rf"^bundle-x: author/manifest.json is not a valid manifest: {expected}"):
        validate_files(files, "bundle-x")


def test_validate_on_a_bundle_with_a_broken_manifest_is_one_line_and_exit_2(built_bundle, tmp_path, cli):
    copy = tmp_path / "bundle"
    shutil.copytree(built_bundle("easy"), copy)
    data = _manifest(copy)
    expected = _broken(data, "missing")
    (copy / MANIFEST_PATH).write_text(json.dumps(data))
    result = cli("validate", copy)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: {copy}: author/manifest.json is not a valid manifest: {expected} (1 problem)"]
