"""Dataset formats of a bundle: a Hugging Face dataset card, Croissant metadata, a licence, per-split data.

A bundle is also a dataset folder:

* ``data/<split>.jsonl``: one row per task of the split (``split_tasks.json``), flat columns so that
  ``datasets.load_dataset(<bundle>)`` and Croissant readers load them without a schema per task;
* ``README.md``: a Hugging Face dataset card whose YAML header lists a ``configs`` entry with one data
  file per split, the licence, task categories, tags and size category
  (https://huggingface.co/docs/hub/datasets-cards, https://huggingface.co/docs/hub/datasets-manual-configuration);
* ``croissant.json``: Croissant 1.0 JSON-LD (https://docs.mlcommons.org/croissant/docs/croissant-spec.html)
  with one ``FileObject`` per split file (sha256 of its bytes) and one ``RecordSet`` per split;
* ``LICENSE``: the MIT licence text (plus tau2-bench's notice for domains whose data comes from it).

Everything is derived from the bundle's tasks, splits and counts with sorted keys and no clock, so the
files are byte-identical for the same build.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

LICENSE_ID = "mit"

#: Columns of ``data/<split>.jsonl``: name → (Croissant data type, description).
COLUMNS: dict[str, tuple[str, str]] = {
    "id": ("sc:Text", "tau2 task id."),
    "purpose": ("sc:Text", "What the task tests, in one sentence."),
    "reason_for_call": ("sc:Text", "The simulated user's reason for contacting customer service."),
    "known_info": ("sc:Text", "What the simulated user knows and may tell the agent."),
    "task_instructions": ("sc:Text", "How the simulated user behaves."),
    "persona": ("sc:Text", "The simulated user's persona (empty when none)."),
    "num_gold_actions": ("sc:Integer", "Number of gold tool calls."),
    "gold_actions": ("sc:Text", "The gold tool calls as JSON: [{name, arguments, requestor}]."),
    "communicate_info": ("sc:Text", "JSON list of strings the agent must say."),
    "reward_basis": ("sc:Text", "JSON list of tau2 reward components (DB, ACTION, COMMUNICATE, ...)."),
    "task": ("sc:Text", "The whole task in tau2's Task schema, as JSON."),
}

_MIT = """MIT License

Copyright (c) the taugen authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this data and associated
documentation files (the "Dataset"), to deal in the Dataset without restriction, including without
limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
the Dataset, and to permit persons to whom the Dataset is furnished to do so, subject to the following
conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Dataset.

THE DATASET IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE DATASET OR THE
USE OR OTHER DEALINGS IN THE DATASET.
"""

_TAU2_NOTICE = """
This domain's databases, policy and task space come from tau2-bench (sierra-research/tau2-bench):
MIT License, Copyright (c) 2025 Sierra Research, under the same terms as above.
"""


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def task_row(task: dict[str, Any]) -> dict[str, Any]:
    """One flat row of ``data/<split>.jsonl`` for a tau2 task (see :data:`COLUMNS`)."""
    scenario = task.get("user_scenario") or {}
    instructions = scenario.get("instructions") or {}
    if isinstance(instructions, str):
        instructions = {"task_instructions": instructions}
    criteria = task.get("evaluation_criteria") or {}
    actions = [{"name": a.get("name"), "arguments": a.get("arguments") or {}, "requestor": a.get("requestor")}
               for a in criteria.get("actions") or []]
    description = task.get("description") or {}
    return {
        "id": task["id"],
        "purpose": str(description.get("purpose") or ""),
        "reason_for_call": str(instructions.get("reason_for_call") or ""),
        "known_info": str(instructions.get("known_info") or ""),
        "task_instructions": str(instructions.get("task_instructions") or ""),
        "persona": str(scenario.get("persona") or ""),
        "num_gold_actions": len(actions),
        "gold_actions": _dumps(actions),
        "communicate_info": _dumps(list(criteria.get("communicate_info") or [])),
        "reward_basis": _dumps(list(criteria.get("reward_basis") or [])),
        "task": _dumps(task),
    }


def _size_category(count: int) -> str:
    """Hugging Face's ``size_categories`` bucket for ``count`` rows."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if count < limit:
            return label
    return "100K<n<1M"


def _split_file(split: str) -> str:
    return f"data/{split}.jsonl"


def _card(info: dict[str, Any], splits: dict[str, list[str]], tasks: int) -> str:
    lines = ["---", f"license: {LICENSE_ID}", f"pretty_name: {info['brand']} {info['domain']} benchmark ({info['tier']})",
             "language:", "- en", "task_categories:", "- text-generation", "- question-answering",
             "tags:", "- agents", "- tool-use", "- customer-service", "- tau2-bench", "- benchmark",
             "size_categories:", f"- {_size_category(tasks)}", "configs:", "- config_name: default", "  data_files:"]
    for split in splits:
        lines += [f"  - split: {split}", f"    path: {_split_file(split)}"]
    lines.append("---")
    counts = info["counts"]
    body = f"""
# {info['name']}

A customer-service agent benchmark for {info['brand']} ({info['domain']}, {info['tier']} tier, seed
{info['seed']}), built by taugen {info['taugen_version']} in the tau2-bench task format. Same pack, seed and
taugen version give byte-identical files (checked by `SHA256SUMS`).

## Contents

| | |
|---|---|
| tasks | {tasks} |
| facts | {counts.get('facts', 0)} ({counts.get('facts_current', 0)} current) |
| records | {counts.get('artifacts', 0)} |
| tokens in the records | {counts.get('tokens', 0):,} |

Splits (from `tau2/domains/{info['domain']}/split_tasks.json`):

| split | tasks | file |
|---|---|---|
""" + "".join(f"| {split} | {len(ids)} | `{_split_file(split)}` |\n" for split, ids in splits.items()) + f"""
Each row is one task: the user scenario, the gold tool calls, what the agent must say, tau2's reward
basis, and the whole tau2 task as JSON (column `task`).

## Use

```python
import datasets
tasks = datasets.load_dataset("path/to/{info['name']}")        # one split per entry above
```

Run agents on it with tau2's orchestrator: `taugen run {info['name']} --agent-llm MODEL --user-llm MODEL`.
The runtime files are under `tau2/domains/{info['domain']}/`, what an agent builder may see under `kit/`,
and the answer key and validation reports under `author/` (never shown to agents).

## Licence

MIT (see `LICENSE`).
"""
    return "\n".join(lines) + "\n" + body


def _croissant(info: dict[str, Any], splits: dict[str, list[str]], split_bytes: dict[str, bytes]) -> dict[str, Any]:
    context = {
        "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
        "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/", "data": {"@id": "cr:data",
                                                                                       "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "dct": "http://purl.org/dc/terms/",
        "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
        "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject", "fileSet": "cr:fileSet",
        "format": "cr:format", "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset",
        "jsonPath": "cr:jsonPath", "key": "cr:key", "md5": "cr:md5", "parentField": "cr:parentField",
        "path": "cr:path", "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex",
        "rai": "http://mlcommons.org/croissant/RAI/", "repeated": "cr:repeated", "replace": "cr:replace",
        "samplingRate": "cr:samplingRate", "equivalentProperty": "cr:equivalentProperty", "sc": "https://schema.org/",
        "separator": "cr:separator", "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
    }
    distribution = []
    record_sets = []
    for split in splits:
        file_id = f"{split}-file"
        distribution.append({"@type": "cr:FileObject", "@id": file_id, "name": file_id,
                             "description": f"Tasks of the {split} split, one JSON object per line.",
                             "contentUrl": _split_file(split), "encodingFormat": "application/jsonlines",
                             "sha256": hashlib.sha256(split_bytes[split]).hexdigest()})
        fields = [{"@type": "cr:Field", "@id": f"{split}/{column}", "name": column, "description": description,
                   "dataType": data_type,
                   "source": {"fileObject": {"@id": file_id}, "extract": {"column": column}}}
                  for column, (data_type, description) in COLUMNS.items()]
        record_sets.append({"@type": "cr:RecordSet", "@id": split, "name": split,
                            "description": f"The {split} split: {len(splits[split])} tasks.", "field": fields})
    return {
        "@context": context, "@type": "sc:Dataset", "name": info["name"],
        "description": (f"Customer-service agent benchmark for {info['brand']} ({info['domain']}, {info['tier']} "
                        f"tier, seed {info['seed']}) in the tau2-bench task format, built by taugen."),
        "conformsTo": "http://mlcommons.org/croissant/1.0", "license": "https://opensource.org/licenses/MIT",
        "url": f"https://huggingface.co/datasets/{info['name']}", "version": info["version"],
        "creator": {"@type": "sc:Organization", "name": "taugen"}, "datePublished": info["date"],
        "citeAs": (f"@misc{{{info['name'].replace('-', '_').replace('.', '_')}, title={{{info['name']}: a "
                   f"{info['domain']} customer-service agent benchmark built by taugen}}, year={{{info['date'][:4]}}}}}"),
        "keywords": ["agents", "tool-use", "customer-service", "tau2-bench", "benchmark"],
        "distribution": distribution, "recordSet": record_sets,
    }


def dataset_files(info: dict[str, Any], tasks: list[dict[str, Any]], splits: dict[str, list[str]],
                  tau2_derived: bool = False) -> dict[str, bytes]:
    """The dataset files of a bundle: ``README.md``, ``croissant.json``, ``LICENSE``, ``data/<split>.jsonl``.

    Args:
        info: ``name``, ``domain``, ``brand``, ``tier``, ``seed``, ``version``, ``taugen_version``,
            ``date`` (the pack's snapshot date, ISO; the publication date, never the clock), ``counts``
            (``bundle.json`` counts).
        tasks: the tau2 tasks (``tasks.json``).
        splits: ``split_tasks.json`` (split → task ids); an id that is not a task is skipped.
        tau2_derived: the domain's data comes from tau2-bench (its notice goes into ``LICENSE``).

    Returns:
        path → bytes, paths relative to the bundle root.
    """
    by_id = {task["id"]: task for task in tasks}
    splits = {split: ids for split, ids in splits.items() if any(task_id in by_id for task_id in ids)}
    files: dict[str, bytes] = {}
    split_bytes: dict[str, bytes] = {}
    for split, ids in splits.items():
        rows = [task_row(by_id[task_id]) for task_id in ids if task_id in by_id]
        data = "".join(_dumps(row) + "\n" for row in rows).encode()
        split_bytes[split] = data
        files[_split_file(split)] = data
    files["README.md"] = _card(info, splits, len(tasks)).encode()
    files["croissant.json"] = (json.dumps(_croissant(info, splits, split_bytes), indent=2, sort_keys=True,
                                          ensure_ascii=False) + "\n").encode()
    files["LICENSE"] = (_MIT + (_TAU2_NOTICE if tau2_derived else "")).encode()
    return files
