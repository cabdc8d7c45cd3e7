"""Shared helpers of the regression block's tests: specs and generated cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from respai.engine.opening import open_frame
from respai.regression.audit import RegressionResult, count_cells, evaluate_counts
from respai.regression.spec import RegressionSpec, parse_regression


def block(
    rules: list[dict[str, Any]] | None = None,
    *,
    bounds: dict[str, list[float]] | None = None,
    groups: tuple[str, ...] = ("a", "b", "c"),
    min_cell: int = 0,
    **extra: Any,
) -> RegressionSpec:
    """A parsed block over ``g`` with the given rules (one gap rule by default)."""
    raw: dict[str, Any] = {
        "target": "y",
        "prediction": "p",
        "attributes": {"g": list(groups)},
        "min_cell": min_cell,
        "rules": rules
        or [{"id": "gap", "metric": "mean_error", "attribute": "g", "max_group_gap": 1}],
        **extra,
    }
    if bounds is not None:
        raw["bounds"] = bounds
    return parse_regression(raw)


def run_frame(
    spec: RegressionSpec, frame: pd.DataFrame, *, weight: str | None = None, alpha: float = 0.05
) -> RegressionResult:
    """The block counted on ``frame`` and decided at ``alpha``."""
    cells = count_cells(spec, open_frame(frame), weight)
    return evaluate_counts(spec, cells, alpha=alpha, weight=weight)


def cases(
    sizes: dict[str, int],
    *,
    seed: int = 0,
    shift: dict[str, float] | None = None,
    noise: float = 1.0,
    low: float = 0.0,
    high: float = 100.0,
) -> pd.DataFrame:
    """Cases per group: a target in ``[low, high]`` and a noisy prediction, 3 decimals."""
    rng = np.random.default_rng(seed)
    parts = []
    for g, n in sizes.items():
        y = rng.uniform(low + 10, high - 10, n)
        p = y + (shift or {}).get(g, 0.0) + rng.normal(0, noise, n)
        parts.append(
            pd.DataFrame({"g": g, "y": np.round(y, 3), "p": np.round(np.clip(p, low, high), 3)})
        )
    return pd.concat(parts, ignore_index=True)
