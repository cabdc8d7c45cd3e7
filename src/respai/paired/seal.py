"""The paired block's part of a signed record: one test record per variant, and settings.

Built through the record's one constructor (:func:`respai.record.predicate.test_record`).
"""

from __future__ import annotations

from typing import Any

from respai.paired.audit import TEST_ID, PairedComparison, PairedResult
from respai.paired.stats import PAIRED_INTERVAL
from respai.record.predicate import PairedDetails, TestRecord, test_record
from respai.types import Interval

__all__ = ["paired_run_start", "paired_tests"]

_METHOD = (
    "paired difference in outcome rates (c - b) / n, variant minus reference; "
    f"{PAIRED_INTERVAL} interval at the Bonferroni share of alpha; exact McNemar test, "
    "Holm-adjusted across variants; decided by the gap table against +-max_difference"
)


def _details(res: PairedResult, c: PairedComparison) -> PairedDetails:
    d = c.to_dict()
    return {
        "reference": res.block.reference,
        "variant": c.variant,
        "n_pairs": d["n_pairs"],
        "both": d["both"],
        "b": d["b"],
        "c": d["c"],
        "neither": d["neither"],
        "left_out": d["left_out"],
        "reference_rate": d["reference_rate"],
        "variant_rate": d["variant_rate"],
        "difference": c.difference,
        "interval": Interval.json_or_none(c.interval),  # type: ignore[typeddict-item]
        "p_value": c.p_value,
        "p_one_sided": c.p_one_sided,
        "p_adjusted": c.p_adjusted,
        "adjustment": "holm",
        "comparisons": len(res.comparisons),
        "max_difference": res.block.max_difference,
        "alpha": res.alpha,
        "alpha_source": res.alpha_source,
    }


def paired_tests(res: PairedResult) -> list[TestRecord]:
    """One ``paired_difference`` test record per variant, in declared order."""
    return [
        test_record(
            test_id=TEST_ID,
            test_key=f"{TEST_ID}:{c.variant}",
            grouping=[res.block.variant],
            value=c.difference,
            value_meaning="variant's outcome rate minus the reference's, complete pairs",
            interval=Interval.json_or_none(c.interval),
            threshold={
                "comparison": "within",
                "value": res.block.max_difference,
                "source": "spec",
            },
            verdict=c.verdict.value,
            reason=c.reason,
            method=_METHOD,
            details=_details(res, c),
            supports=[],
            undefined_reason=None if c.difference is not None else c.reason,
        )
        for c in res.comparisons
    ]


def paired_run_start(res: PairedResult) -> dict[str, Any]:
    """The paired block's settings and tallies for the record's ``run_start``."""
    t = res.tallies
    return {
        "cases": res.block.cases.name,
        "pair": res.block.pair,
        "variant": res.block.variant,
        "variants": list(res.block.variants),
        "outcome": res.block.outcome,
        "max_difference": res.block.max_difference,
        "alpha": res.alpha,
        "alpha_source": res.alpha_source,
        "confidence": res.confidence,
        "rows": t.rows,
        "left_out": {
            "undeclared_variant": t.undeclared_rows,
            "missing_pair_id": t.missing_pair_rows,
        },
    }
