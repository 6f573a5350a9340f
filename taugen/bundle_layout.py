"""Where the files of a bundle live (the construction kit's above all), and which splits the kit reads.

Kept below every stage (beside errors.py) so the kit writer, the validators and the runtime agree on
paths without a validator importing the build stage.
"""

from __future__ import annotations

RECORDS_DIR = "kit/uploaded_materials"
"""The delivered records (neutral content-digest names)."""
OPENAPI = "kit/client_api/openapi.yaml"
DEV_SEED = "kit/client_api/development_seed.json"
FRAMEWORK = "kit/framework"
MANIFEST = "kit/framework/deployment_manifest.json"
WORKSPACE = "kit/workspace"
SIMULATIONS = "kit/simulations"
DEPLOYMENTS = "author/client_api/deployments.json"
WORKSPACE_DEFECTS = "author/workspace_defects.json"
SEEDED_WORKSPACE = "author/seeded_workspace"
HYPERTAU_TASK = "author/hypertau_task.json"
SAMPLE_SOURCES = "author/sample_scenarios.json"
"""Sample scenario file name → the dev-split task it was made from."""
SEALED_SPLIT = "test"
DEV_SPLIT = "dev"
DEV_STAND_IN = "train"
CONSTRUCTION_TIERS = ("medium", "hard")


def dev_split_name(splits: dict[str, list[str]]) -> str:
    """The split whose tasks the kit may show: ``dev`` when the bundle has one, else the stand-in
    ``train`` (bundles built before the ``dev`` split existed: ``train`` is disjoint from the sealed
    ``test`` split, so showing it leaks nothing that is scored)."""
    return DEV_SPLIT if DEV_SPLIT in splits else DEV_STAND_IN
