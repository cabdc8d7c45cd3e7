"""Random ranked lists and an independent reference computed directly on the raw rows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from respai.ranking.spec import RankingRule, RankingSpec


def lists_frame(
    rng: np.random.Generator,
    n_lists: int,
    *,
    shares: tuple[float, ...] = (0.6, 0.3, 0.1),
    lengths: tuple[int, int] = (2, 30),
    bias: float = 0.0,
    weights: bool = False,
    ties: bool = False,
) -> pd.DataFrame:
    """``n_lists`` lists of unequal length; group ``a`` lifted by ``bias`` in the scores."""
    rows: list[tuple[Any, ...]] = []
    names = ["a", "b", "c"][: len(shares)]
    for lid in range(n_lists):
        m = int(rng.integers(lengths[0], lengths[1] + 1))
        groups = rng.choice(names, size=m, p=np.array(shares) / sum(shares))
        score = rng.normal(size=m) + bias * (groups == "a")
        if ties:
            score = np.round(score * 2) / 2
        order = np.argsort(-score, kind="stable")
        for pos, i in enumerate(order, 1):
            w = float(np.round(rng.uniform(0.2, 3.0), 3)) if weights else 1.0
            rows.append((f"q{lid}", str(groups[i]), pos, float(score[i]), w))
    return pd.DataFrame(rows, columns=["query", "grp", "pos", "score", "w"])


def block(
    *,
    score: bool = False,
    top_k: tuple[int, ...] = (1, 5),
    groups: tuple[str, ...] = ("a", "b", "c"),
) -> RankingSpec:
    """A ranking block over ``lists_frame``'s columns with a rule per measure."""
    rules = (
        *tuple(RankingRule(f"top{k}", "top_k_rate", "grp", k, max_group_gap=0.2) for k in top_k),
        RankingRule("exp", "exposure_ratio", "grp", worst_min=0.5),
    )
    return RankingSpec(
        list="query",
        position=None if score else "pos",
        score="score" if score else None,
        attributes={"grp": groups},
        top_k=top_k,
        rules=rules,
        min_cell=1,
        min_lists=2,
    )


def reference(
    frame: pd.DataFrame, *, score: bool, k_list: tuple[int, ...], weighted: bool, decimals: int = 6
) -> dict[str, dict[str, Any]]:
    """Per group: the rates, exposure ratio and their cluster-robust SEs, on the raw rows.

    Positions with ``score``: pandas' average rank of the score, descending, per list. The
    exposure of an item is taken on the same fixed grid as the engine's (the rounding is
    part of the definition), its weight too.
    """
    f = frame.copy()
    if score:
        f["position"] = f.groupby("query")["score"].rank(method="average", ascending=False)
    else:
        f["position"] = f["pos"].astype(float)
    scale = 10**decimals
    f["u"] = [math.floor(scale / math.log2(1 + p) + 0.5) / scale for p in f["position"]]
    f["x"] = [math.floor(w * scale + 0.5) / scale for w in f["w"]] if weighted else 1.0
    out: dict[str, dict[str, Any]] = {}
    lists = f["query"].unique()
    big_e = f.groupby("query").apply(lambda d: (d.x * d.u).sum(), include_groups=False)
    big_n = f.groupby("query")["x"].sum()
    for g, part in f.groupby("grp"):
        res: dict[str, Any] = {"items": len(part), "lists": part["query"].nunique()}
        n_g = part["x"].sum()
        for k in k_list:
            top = (part["position"] <= k).astype(float)
            r = (part["x"] * top).sum() / n_g
            resid = (part["x"] * (top - r)).groupby(part["query"]).sum()
            lg = len(resid)
            var = lg / (lg - 1) * (resid**2).sum() / n_g**2 if lg > 1 else math.nan
            res[f"top{k}"] = (r, math.sqrt(var) if lg > 1 else math.nan)
        e_l = (part["x"] * part["u"]).groupby(part["query"]).sum().reindex(lists, fill_value=0)
        n_l = part["x"].groupby(part["query"]).sum().reindex(lists, fill_value=0)
        e_g, total_e, total_n = e_l.sum(), big_e.sum(), big_n.sum()
        ratio = (e_g / total_e) / (n_g / total_n)
        z = e_l / e_g - big_e.reindex(lists) / total_e - n_l / n_g + big_n.reindex(lists) / total_n
        lz = len(lists)
        res["exp"] = (ratio, math.sqrt(lz / (lz - 1) * (z**2).sum()) if lz > 1 else math.nan)
        out[str(g)] = res
    return out
