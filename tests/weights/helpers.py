"""Shared data and an independent reference for the weighted group rules' tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

GROUPS = ["a", "b", "c"]
RATES = ("selection", "false_negative", "false_positive")


def spec(weight: str | None = "w", **data: Any) -> dict[str, Any]:
    """A whole spec: three gap rules over ``g``, with ``data.weight`` when ``weight``."""
    block: dict[str, Any] = {
        "label": "y",
        "prediction": "p",
        "attributes": {"g": GROUPS},
        "min_cell": 1,
        "rules": [
            {"id": rate, "rate": rate, "attribute": "g", "max_group_gap": 0.2} for rate in RATES
        ],
    }
    out: dict[str, Any] = {"fairness": block}
    if weight is not None:
        out["data"] = {"weight": weight, **data}
    return out


def frame(seed: int, n: int = 400, missing: float = 0.01) -> pd.DataFrame:
    """Unbalanced groups, a prediction tied to the label, skewed weights on a 1/1000 grid."""
    rng = np.random.default_rng(seed)
    g = rng.choice(GROUPS, size=n, p=[0.6, 0.3, 0.1])
    y = rng.binomial(1, 0.4, n)
    p = np.where(rng.random(n) < 0.8, y, 1 - y).astype(float)
    p[rng.random(n) < missing] = np.nan
    w = np.round(rng.lognormal(0.0, 0.8, n), 3)
    w[rng.random(n) < 0.05] = 0.0
    return pd.DataFrame({"g": g, "y": y, "p": p, "w": w})


def population(df: pd.DataFrame, rate: str) -> tuple[Any, Any]:
    """The rate's population and its event among cases with a prediction (numpy masks)."""
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    if rate == "selection":
        return np.ones(len(df), bool), p == 1
    if rate == "false_negative":
        return y == 1, p == 0
    assert rate == "false_positive"
    return y == 0, p == 1


def reference(df: pd.DataFrame, rate: str, group: str, alpha: float) -> dict[str, Any]:
    """The weighted rate, n_eff and Korn-Graubard interval by numpy and statsmodels."""
    pop, event = population(df, rate)
    pop = pop & (df["g"].to_numpy() == group)
    w = df["w"].to_numpy()
    decided = pop & ~np.isnan(df["p"].to_numpy())
    big_w, e = w[pop].sum(), w[decided & event].sum()
    m = w[pop & ~decided].sum()
    out: dict[str, Any] = {
        "rate": e / w[decided].sum() if w[decided].sum() > 0 else None,
        "n_eff": big_w**2 / (w[pop] ** 2).sum() if big_w > 0 else None,
    }
    if out["n_eff"] is not None:
        n_eff = out["n_eff"]
        lo_p, hi_p = e / big_w, (e + m) / big_w
        lo = 0.0 if lo_p == 0 else proportion_confint(lo_p * n_eff, n_eff, alpha, "beta")[0]
        hi = 1.0 if hi_p >= 1 else proportion_confint(hi_p * n_eff, n_eff, alpha, "beta")[1]
        out["interval"] = (float(lo), float(hi))
    return out
