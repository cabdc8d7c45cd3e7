"""Coverage of the ranking intervals by simulation (fixed seeds), over realistic shapes.

Each shape draws lists of unequal length, groups in unequal shares, a ranker biased for
group ``a`` (its scores lifted by ``bias``), optional survey weights. The truth of each
measure is the population's (a ratio of expectations over lists), estimated once from
``TRUTH_LISTS`` lists. The intervals are the block's (:mod:`respai.ranking.stats`) over
sums computed here with numpy from the same integers the SQL sums.

Run as a script for the methods page's table: ``python tests/ranking/coverage.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from respai.engine.ranking_sums import GroupSums, ListTotals, exposure_units
from respai.ranking.stats import exposure_ratio, top_k_rate

K = 5
DECIMALS = 6
TRUTH_LISTS = 200_000
_UNITS = np.array([0, 0] + [exposure_units(p2, DECIMALS) for p2 in range(2, 2 * 400 + 2)])


@dataclass(frozen=True)
class Shape:
    """How the lists are drawn."""

    name: str
    shares: tuple[float, ...]
    lengths: tuple[int, int]
    bias: float
    weighted: bool = False


SHAPES = (
    Shape("balanced, lengths 5-30", (0.5, 0.5), (5, 30), 0.0),
    Shape("unbalanced 85/10/5, biased, lengths 2-50", (0.85, 0.10, 0.05), (2, 50), 0.6),
    Shape("rare group in short lists (2-6)", (0.9, 0.1), (2, 6), 0.4),
    Shape("weighted, biased, lengths 3-40", (0.7, 0.3), (3, 40), 0.5, weighted=True),
)


def draw(rng: np.random.Generator, shape: Shape, n_lists: int) -> dict[str, np.ndarray]:
    """Items of ``n_lists`` lists: list id, group, doubled position, weight units."""
    lengths = rng.integers(shape.lengths[0], shape.lengths[1] + 1, size=n_lists)
    lid = np.repeat(np.arange(n_lists), lengths)
    m = len(lid)
    p = np.array(shape.shares) / sum(shape.shares)
    grp = rng.choice(len(p), size=m, p=p)
    score = rng.normal(size=m) + shape.bias * (grp == 0)
    order = np.lexsort((-score, lid))
    lid, grp = lid[order], grp[order]
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    pos = np.arange(m) - np.repeat(starts, lengths) + 1
    if shape.weighted:  # weights tied to the group and noisy: a real design effect
        w = rng.lognormal(mean=0.3 * (grp == 1), sigma=0.6, size=m)
        x = np.floor(w * 10**DECIMALS + 0.5).astype(np.int64)
    else:
        x = np.ones(m, dtype=np.int64)
    return {"lid": lid, "grp": grp, "p2": 2 * pos, "x": x, "n_lists": np.array(n_lists)}


def sums(items: dict[str, np.ndarray], g: int) -> tuple[GroupSums, ListTotals]:
    """The block's sums of group ``g`` and the list totals, with numpy (exact int)."""
    n_lists = int(items["n_lists"])
    lid, p2 = items["lid"], items["p2"]
    x = items["x"].astype(np.float64)
    xu = x * _UNITS[p2]

    def per_list(values: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        if where is not None:
            found = np.bincount(lid[where], weights=values[where], minlength=n_lists)
        else:
            found = np.bincount(lid, weights=values, minlength=n_lists)
        return np.rint(found).astype(np.int64).astype(object)  # exact below 2^53

    big_n, big_e = per_list(x), per_list(xu)
    sel = items["grp"] == g
    n, e = per_list(x, sel), per_list(xu, sel)
    t = per_list(x * (p2 <= 2 * K), sel)
    present = np.zeros(n_lists, dtype=bool)
    present[lid[sel]] = True
    n, e, t = n[present], e[present], t[present]
    bn, be = big_n[present], big_e[present]
    gs = GroupSums(
        int(present.sum()),
        int(n.sum()),
        int((n * n).sum()),
        int(e.sum()),
        int((e * e).sum()),
        int((e * n).sum()),
        int((e * be).sum()),
        int((e * bn).sum()),
        int((n * be).sum()),
        int((n * bn).sum()),
        t={K: int(t.sum())},
        t2={K: int((t * t).sum())},
        tn={K: int((t * n).sum())},
    )
    kept = big_n != 0
    tot = ListTotals(
        int(kept.sum()),
        int(big_e.sum()),
        int((big_e * big_e).sum()),
        int(big_n.sum()),
        int((big_n * big_n).sum()),
        int((big_e * big_n).sum()),
    )
    return gs, tot


@cache
def truth(
    shape: Shape, lists: int = TRUTH_LISTS, seed: int = 99
) -> dict[int, tuple[float, float]]:
    """Each group's population top-k rate and exposure ratio (ratio of expectations)."""
    items = draw(np.random.default_rng(seed), shape, lists)
    out = {}
    for g in range(len(shape.shares)):
        gs, tot = sums(items, g)
        out[g] = (gs.t[K] / gs.n, (gs.e / tot.e) / (gs.n / tot.n))
    return out


def coverage(
    shape: Shape,
    n_lists: int,
    reps: int,
    seed: int,
    *,
    min_lists: int = 20,
    min_items: int = 100,
    confidence: float = 0.95,
    truth_lists: int = TRUTH_LISTS,
) -> dict[str, Any]:
    """Share of intervals covering the truth, for groups meeting the conditions or not.

    Returns, per measure, ``(covered / counted, counted)`` over the groups with at least
    ``min_lists`` lists and ``min_items`` items (``ok``), and over the others (``below``).
    """
    true = truth(shape, truth_lists)
    rng = np.random.default_rng(seed)
    tally = {(m, ok): [0, 0] for m in ("rate", "exposure") for ok in (True, False)}
    for _ in range(reps):
        items = draw(rng, shape, n_lists)
        for g in range(len(shape.shares)):
            gs, tot = sums(items, g)
            items_g = int((items["grp"] == g).sum())
            ok = gs.lists >= min_lists and items_g >= min_items
            for m, est in (
                ("rate", top_k_rate(gs, K, confidence, items_g)),
                ("exposure", exposure_ratio(gs, tot, confidence)),
            ):
                value = true[g][0 if m == "rate" else 1]
                cell = tally[(m, ok)]
                cell[1] += 1
                iv = est.interval
                if iv is not None and iv.lo <= value <= iv.hi:
                    cell[0] += 1
    return {
        f"{m} {'ok' if ok else 'below'}": (c / n if n else math.nan, n)
        for (m, ok), (c, n) in tally.items()
    }


if __name__ == "__main__":  # the methods page's table
    for shape in SHAPES:
        for n_lists in (20, 50, 150, 500):
            found = coverage(shape, n_lists, 1000, seed=n_lists)
            cells = "; ".join(f"{k}: {v:.3f} of {n}" for k, (v, n) in found.items() if n)
            print(f"{shape.name} | {n_lists} lists | {cells}")
