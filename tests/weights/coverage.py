"""Coverage of the Korn-Graubard interval under unequal-probability (Poisson) sampling.

A finite population of ``N`` units with a binary outcome; each unit is sampled on its own
with inclusion probability ``pi`` (Poisson sampling), the weights are ``1 / pi`` and the
target is the population's share of the outcome. Designs:

- ``independent``: ``pi`` varies (log-normal, CV about 0.8) independently of the outcome;
- ``events_oversampled``: units with the outcome are three times as likely to be sampled;
- ``events_undersampled``: units with the outcome are a third as likely to be sampled.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from respai.weights import korn_graubard

DESIGNS = ("independent", "events_oversampled", "events_undersampled")
POPULATION = 20_000


def population(rate: float, design: str, rng: Any) -> tuple[Any, Any]:
    """Outcomes and relative inclusion sizes of one finite population."""
    y = (rng.random(POPULATION) < rate).astype(int)
    size = rng.lognormal(0.0, 0.7, POPULATION)
    if design == "events_oversampled":
        size = size * np.where(y == 1, 3.0, 1.0)
    elif design == "events_undersampled":
        size = size * np.where(y == 1, 1 / 3, 1.0)
    return y, size


def coverage(
    n: int, rate: float, design: str, reps: int, alpha: float = 0.05, seed: int = 2026
) -> dict[str, float]:
    """Shares of samples whose interval covers the population rate, lies below it, above it."""
    rng = np.random.default_rng(seed)
    y, size = population(rate, design, rng)
    truth = float(y.mean())
    pi = np.minimum(size * n / size.sum(), 1.0)
    below = above = done = 0
    for _ in range(reps):
        take = rng.random(POPULATION) < pi
        if not take.any():
            continue
        w = 1.0 / pi[take]
        big_w = float(w.sum())
        p = Fraction(float((w * y[take]).sum())) / Fraction(big_w)
        n_eff = big_w**2 / float((w**2).sum())
        iv = korn_graubard(p, n_eff, alpha)
        done += 1
        if iv.hi < truth:
            below += 1
        elif iv.lo > truth:
            above += 1
    return {
        "coverage": 1 - (below + above) / done,
        "interval_below": below / done,
        "interval_above": above / done,
        "truth": truth,
    }
