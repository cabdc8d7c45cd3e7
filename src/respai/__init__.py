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

from respai.errors import Error, InputError, SpecError
from respai.types import Verdict
from respai.version import __version__

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

        return evaluate
    if name == "evaluate_fairness":
        from respai.run.group_rules import evaluate_fairness

        return evaluate_fairness
    if name == "FairnessResult":
        from respai.results import FairnessResult

        return FairnessResult
    if name in ("load_spec", "load_policy"):
        from respai import spec

        return getattr(spec, name)
    raise AttributeError(f"module 'respai' has no attribute {name!r}")
