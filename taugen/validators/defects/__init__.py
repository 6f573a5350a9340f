"""Validators for task-authoring defects K1–K20 (``../shared/reference/defect-kinds.md``).

Importing this package registers one validator family per module with the registry; the same checks
run on any tau2 task folder through :func:`taugen.validators.foreign.lint_task_folder`.
"""

from taugen.validators.defects import (  # noqa: E402,F401 - importing registers the validators
    data, documents, executability, grader, grounding, policy, scenario,
)
