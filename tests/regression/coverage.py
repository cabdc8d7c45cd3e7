"""Coverage of the regression block's intervals, simulated with a fixed seed.

Each shape draws a group's values, puts them on the block's fixed grid, sums them exactly
as the count pass does, and asks :func:`respai.regression.stats.interval` for the interval
at ``1 - alpha``; coverage is the share of draws whose interval holds the true mean.
Run ``python -m tests.regression.coverage`` for the table of the methods page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from respai.regression.stats import Moments, interval

DECIMALS = 3
SCALE = 10**DECIMALS

Draw = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray | None]]


def moments(x: np.ndarray, w: np.ndarray | None) -> Moments:
    """The exact sums of ``x`` (and weights ``w``) on the grid, as the count pass makes them."""
    u = [int(v) for v in np.floor(x * SCALE + 0.5)]
    if w is None:
        return Moments(
            len(u),
            len(u),
            len(u),
            sum(u),
            sum(a * a for a in u),
            sum(u),
            sum(u),
            sum(a * a for a in u),
            SCALE,
        )
    wu = [int(v) for v in np.floor(w * SCALE + 0.5)]
    return Moments(
        n=len(u),
        sw=sum(wu),
        sw2=sum(b * b for b in wu),
        sx=sum(u),
        sx2=sum(a * a for a in u),
        swx=sum(a * b for a, b in zip(u, wu, strict=True)),
        sw2x=sum(a * b * b for a, b in zip(u, wu, strict=True)),
        sw2x2=sum(a * a * b * b for a, b in zip(u, wu, strict=True)),
        scale=SCALE,
        weighted=True,
    )


@dataclass(frozen=True, slots=True)
class Shape:
    """A distribution of a group's values: how to draw them, the true mean, the bounds."""

    name: str
    draw: Draw
    mean: float
    bounds: tuple[float, float] | None = None
    claims: bool = True  # whether the interval claims its coverage here


def _normal(rng: np.random.Generator, n: int) -> tuple[np.ndarray, None]:
    return rng.normal(10, 3, n), None


def _lognormal(rng: np.random.Generator, n: int) -> tuple[np.ndarray, None]:
    return rng.lognormal(0, 1, n), None


def _ties(rng: np.random.Generator, n: int) -> tuple[np.ndarray, None]:
    return rng.poisson(3, n).astype(float), None


def _beta_skew(rng: np.random.Generator, n: int) -> tuple[np.ndarray, None]:
    return 100 * rng.beta(0.5, 5, n), None


def _binomial(rng: np.random.Generator, n: int) -> tuple[np.ndarray, None]:
    return rng.binomial(100, 0.3, n).astype(float), None


def _weighted_independent(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(10, 3, n), rng.lognormal(0, 0.7, n)


def _weighted_skew(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.lognormal(0, 1, n), rng.uniform(0.5, 4, n)


# A finite population sampled with unequal probabilities (larger values likelier), weights
# 1 / probability: the Hajek mean estimates the population mean.
_POP = np.random.default_rng(2026).gamma(2.0, 5.0, 50_000)
_PI = 0.2 + _POP / _POP.max()
_PI = _PI / _PI.sum()


def _weighted_design(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    idx = rng.choice(len(_POP), size=n, replace=True, p=_PI)
    return _POP[idx], 1 / (_PI[idx] * len(_POP))


SHAPES = {
    "t": [
        Shape("normal", _normal, 10.0),
        Shape("lognormal (skewed)", _lognormal, float(np.exp(0.5)), claims=False),
        Shape("poisson(3) (integer ties)", _ties, 3.0),
    ],
    "bernstein": [
        Shape("100 beta(0.5, 5) (skewed)", _beta_skew, 100 * 0.5 / 5.5, (0.0, 100.0)),
        Shape("binomial(100, 0.3) (ties)", _binomial, 30.0, (0.0, 100.0)),
    ],
    "weighted": [
        Shape("normal, lognormal weights", _weighted_independent, 10.0),
        Shape("lognormal, uniform weights", _weighted_skew, float(np.exp(0.5)), claims=False),
        Shape("unequal-probability sample", _weighted_design, float(_POP.mean())),
    ],
}


def coverage(shape: Shape, n: int, reps: int, alpha: float, seed: int) -> float:
    """The share of ``reps`` draws of ``n`` values whose interval holds the true mean."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        x, w = shape.draw(rng, n)
        if shape.bounds is not None:
            x = np.clip(x, *shape.bounds)
        found, _ = interval(moments(x, w), alpha, shape.bounds)
        hits += found is not None and found[0] <= shape.mean <= found[1]
    return hits / reps


def simultaneous(n_small: int, n_large: int, reps: int, alpha: float, seed: int) -> float:
    """Two groups of unequal size and spread, each at ``alpha / 2``: both intervals hold."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(reps):
        a = rng.normal(5, 1, n_small)
        b = rng.normal(8, 6, n_large)
        ia, _ = interval(moments(a, None), alpha / 2, None)
        ib, _ = interval(moments(b, None), alpha / 2, None)
        hits += bool(ia and ib and ia[0] <= 5 <= ia[1] and ib[0] <= 8 <= ib[1])
    return hits / reps


def table(reps: int, sizes: tuple[int, ...], alpha: float = 0.05, seed: int = 29) -> str:
    """The markdown table of the methods page."""
    lines = ["| interval | shape | " + " | ".join(f"n = {n}" for n in sizes) + " |"]
    lines.append("|---|---|" + "---|" * len(sizes))
    for kind, shapes in SHAPES.items():
        for s in shapes:
            row = [f"{coverage(s, n, reps, alpha, seed + n):.3f}" for n in sizes]
            lines.append(f"| {kind} | {s.name} | " + " | ".join(row) + " |")
    row = [f"{simultaneous(10, 1000, reps, alpha, seed):.3f}"]
    lines.append("| t, simultaneous | normal, 10 vs 1,000 cases, sd 1 vs 6 | " + row[0] + " |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    print(table(4000, (10, 30, 100, 1000)))
