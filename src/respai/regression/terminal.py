"""The regression block's lines in ``respai evaluate``'s terminal summary (plain text)."""

from __future__ import annotations

from respai.regression.audit import RegressionResult
from respai.regression.spec import METRICS
from respai.types import Interval

__all__ = ["regression_lines"]


def _iv(iv: Interval | None) -> str:
    return "interval undefined" if iv is None else f"[{iv.lo:.4g}, {iv.hi:.4g}]"


def _value(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.4g}"


def regression_lines(res: RegressionResult) -> list[str]:
    """The block's summary: the overall means, then each rule, its verdict and its groups."""
    o = res.overall
    out = [
        f"regression: {res.block.target} vs {res.block.prediction}, {o.n} complete case(s)"
        + (f", weighted by {res.weight}" if res.weight else "")
        + f"; mean error {_value(o.values.get('mean_error'))}, mean absolute error "
        f"{_value(o.values.get('mean_absolute_error'))}"
    ]
    for r in res.rules:
        what = METRICS[r.rule.metric]
        out.append(
            f"  rule {r.rule.id} ({what} by {' × '.join(r.rule.grouping)}): "
            f"{r.verdict.value} - {r.reason}"
        )
        out.extend(
            f"    {g.label}: n={g.n}, missing={g.missing}, "
            f"{_value(g.values.get(r.rule.metric))} {_iv(g.intervals.get(r.rule.metric))}"
            for g in r.groups
        )
    return out
