"""taugen: declarative task and corpus generation for tau-bench-family agent benchmarks."""

import os

# litellm (optional extra) reaches for the network at import unless told to use its bundled cost map.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
