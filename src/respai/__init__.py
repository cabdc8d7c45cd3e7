"""respai: evidence about an AI system's decisions that an outsider can check.

The pipeline is counts -> estimates -> verdicts: one engine pass turns the decided cases
into integer counts per group × label × prediction; pure functions of those integers give
rates, exact intervals and gaps; declared rules turn them into PASS, FAIL,
INSUFFICIENT_EVIDENCE or MANUAL_REVIEW, with exit codes a CI pipeline can gate on.

>>> import respai
>>> respai.Verdict.FAIL.exit_code
1
"""

from __future__ import annotations

__version__ = "0.3.0"

from respai.errors import Error, InputError, SpecError
from respai.types import Verdict

__all__ = [
    "Error",
    "FairnessResult",
    "InputError",
    "SpecError",
    "Verdict",
    "__version__",
    "evaluate",
    "evaluate_fairness",
    "load_policy",
    "load_spec",
]


def __getattr__(name: str) -> object:
    # Heavy modules (duckdb, narwhals, scipy) load only when used, so `respai --help`
    # stays fast.
    if name == "evaluate":
        from respai.api import evaluate

        globals()["evaluate"] = evaluate  # the function, not the submodule of that name
        return evaluate
    if name in ("evaluate_fairness", "FairnessResult"):
        from respai import fairness

        return getattr(fairness, name)
    if name in ("load_spec", "load_policy"):
        from respai import spec

        return getattr(spec, name)
    raise AttributeError(f"module 'respai' has no attribute {name!r}")
