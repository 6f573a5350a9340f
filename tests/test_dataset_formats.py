"""A bundle is also a dataset: Hugging Face card, Croissant metadata (validated by mlcroissant),
``datasets.load_dataset`` on the folder (offline), a licence, every file in SHA256SUMS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from taugen.build.dataset_card import COLUMNS, dataset_files


def _splits(bundle: Path, domain: str = "banking") -> dict[str, list[str]]:
    splits = json.loads((bundle / "tau2" / "domains" / domain / "split_tasks.json").read_text())
    return {name: ids for name, ids in splits.items() if ids}


def _card_header(bundle: Path) -> dict:
    text = (bundle / "README.md").read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_dataset_card_header_lists_a_data_file_per_split_and_the_licence(built_bundle):
    bundle = built_bundle("easy")
    header = _card_header(bundle)
    splits = _splits(bundle)
    assert header["license"] == "mit" and "text-generation" in header["task_categories"]
    assert header["size_categories"] == ["n<1K"] and "tau2-bench" in header["tags"]
    (config,) = header["configs"]
    assert {entry["split"]: entry["path"] for entry in config["data_files"]} == {
        split: f"data/{split}.jsonl" for split in splits}
    for split, ids in splits.items():
        rows = [json.loads(line) for line in (bundle / "data" / f"{split}.jsonl").read_text().splitlines()]
        assert [row["id"] for row in rows] == ids
        assert set(rows[0]) == set(COLUMNS)
        assert json.loads(rows[0]["task"])["id"] == ids[0]
    assert "MIT License" in (bundle / "LICENSE").read_text()


def test_every_dataset_file_is_checksummed(built_bundle):
    bundle = built_bundle("easy")
    listed = {line.split("  ", 1)[1] for line in (bundle / "SHA256SUMS").read_text().splitlines()}
    assert {"README.md", "croissant.json", "LICENSE"} | {f"data/{s}.jsonl" for s in _splits(bundle)} <= listed


def test_dataset_files_are_deterministic():
    tasks = [{"id": f"t{i}", "user_scenario": {"instructions": {"reason_for_call": "r", "known_info": "k"}},
              "evaluation_criteria": {"actions": [{"name": "a", "arguments": {"x": i}, "requestor": "assistant"}],
                                      "reward_basis": ["DB"]}} for i in range(3)]
    info = {"name": "x-easy-0.1.0", "domain": "x", "brand": "X", "tier": "easy", "seed": 0, "version": "0.1.0",
            "taugen_version": "0.1.0", "counts": {}, "date": "2026-03-16"}
    first = dataset_files(info, tasks, {"base": ["t0", "t1", "t2"], "test": ["t2"], "empty": []})
    assert first == dataset_files(info, tasks, {"base": ["t0", "t1", "t2"], "test": ["t2"], "empty": []})
    assert "data/empty.jsonl" not in first  # a split without tasks is no data file
    assert json.loads(first["data/test.jsonl"])["gold_actions"] == '[{"arguments": {"x": 2}, "name": "a", ' \
                                                                    '"requestor": "assistant"}]'


def test_croissant_metadata_validates_in_mlcroissant_and_reads_every_split(built_bundle):
    mlcroissant = pytest.importorskip("mlcroissant")
    bundle = built_bundle("easy")
    dataset = mlcroissant.Dataset(jsonld=str(bundle / "croissant.json"))
    issues = dataset.metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()
    for split, ids in _splits(bundle).items():
        records = list(dataset.records(split))
        assert [r[f"{split}/id"].decode() for r in records] == ids
        assert all(isinstance(r[f"{split}/num_gold_actions"], int) for r in records)


def test_datasets_load_dataset_on_the_bundle_folder_yields_the_splits(built_bundle, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    bundle = built_bundle("easy")
    loaded = datasets.load_dataset(str(bundle), cache_dir=str(tmp_path / "cache"))
    splits = _splits(bundle)
    assert set(loaded) == set(splits)
    for split, ids in splits.items():
        assert loaded[split]["id"] == ids


@pytest.mark.tau2
def test_telecom_bundle_licence_credits_tau2_bench(built_bundle):
    pytest.importorskip("tau2")
    bundle = built_bundle("easy", domain="telecom")
    assert "Sierra Research" in (bundle / "LICENSE").read_text()
    assert _card_header(bundle)["configs"][0]["data_files"]
