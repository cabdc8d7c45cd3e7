"""Run a spec's ``paired:`` block: open the pairs file, count, test, decide.

For each declared variant against the reference (the first one): the complete pairs, the
rows left out by reason, the discordant counts ``b`` and ``c``, the exact McNemar test
(two-sided and one-sided), Holm's adjustment across the variants, and the difference in
outcome rates with its widened adjusted Wald interval (exact coverage at least its level)
at the Bonferroni share of the run's alpha.
The verdict follows the gap decision table: PASS when the whole interval lies within
``+-max_difference``, FAIL when it lies wholly beyond, INSUFFICIENT_EVIDENCE otherwise.

Rows without an outcome never improve a verdict (:func:`decide_paired`): their pairs are
completed every way they could have gone (up to :data:`EVERY_COMPLETION` of them; beyond,
the two extremes, every one discordant one way or the other), a FAIL stands when the
complete pairs or some completion prove it, a PASS needs the complete pairs and every
completion to pass, and more than ``max_missing`` of the rows without an outcome keeps a
comparison from passing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from respai.decision import resolve_alpha, resolve_max_missing, verdict_table
from respai.engine.pairs import PairCounts, PairTallies, bad_outcomes, pair_tallies
from respai.errors import InputError, did_you_mean
from respai.exact import decimal
from respai.paired.spec import PairedSpec, declared_paired
from respai.paired.stats import (
    PAIRED_INTERVAL,
    holm,
    mcnemar_exact,
    mcnemar_one_sided,
    paired_difference_interval,
)
from respai.spec import Policy, Spec, load_policy, load_spec
from respai.types import Interval, Verdict, worst

__all__ = ["KIND", "PairedComparison", "PairedResult", "decide_paired", "run_paired"]

#: The focused run's kind, in ``--json`` and the record.
KIND = "respai.paired"
#: The record's test id of one variant against the reference.
TEST_ID = "paired_difference"


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """One variant against the reference.

    ``difference`` is ``(c - b) / n_pairs``: the variant's outcome rate minus the
    reference's, over the complete pairs (``None`` without any).
    """

    variant: str
    counts: PairCounts
    difference: float | None
    interval: Interval | None
    p_value: float
    p_one_sided: float
    p_adjusted: float
    verdict: Verdict
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """The comparison as in ``--json`` and the record's details."""
        c = self.counts
        return {
            "variant": self.variant,
            "n_pairs": c.n_pairs,
            "both": c.both,
            "b": c.b,
            "c": c.c,
            "neither": c.neither,
            "left_out": {
                "duplicate_variant": c.duplicate_rows,
                "missing_outcome": c.missing_outcome_rows,
                "incomplete_pair": c.incomplete_rows,
            },
            "reference_rate": None if not c.n_pairs else (c.both + c.b) / c.n_pairs,
            "variant_rate": None if not c.n_pairs else (c.both + c.c) / c.n_pairs,
            "difference": self.difference,
            "interval": Interval.json_or_none(self.interval),
            "p_value": self.p_value,
            "p_one_sided": self.p_one_sided,
            "p_adjusted": self.p_adjusted,
            "verdict": self.verdict.value,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class PairedResult:
    """A paired test's outcome: one :class:`PairedComparison` per variant."""

    spec: Spec
    block: PairedSpec
    tallies: PairTallies
    comparisons: tuple[PairedComparison, ...]
    alpha: float
    alpha_source: str
    confidence: float
    fingerprint: Mapping[str, Any] | None

    @property
    def verdict(self) -> Verdict:
        """The worst verdict over the variants."""
        return worst(c.verdict for c in self.comparisons)

    @property
    def exit_code(self) -> int:
        """The process exit code: the worst verdict's."""
        return self.verdict.exit_code

    def to_dict(self) -> dict[str, Any]:
        """Everything the terminal shows, for ``--json``."""
        from respai.version import __version__

        b = self.block
        return {
            "kind": KIND,
            "engine": f"respai-evidence-engine/{__version__}",
            "cases": str(b.cases),
            "reference": b.reference,
            "variants": list(b.variants),
            "max_difference": b.max_difference,
            "alpha": self.alpha,
            "alpha_source": self.alpha_source,
            "confidence": self.confidence,
            "interval_method": PAIRED_INTERVAL,
            "test": "exact McNemar (binomial on b of b + c at 1/2); Holm across variants",
            "rows": self.tallies.rows,
            "left_out": {
                "undeclared_variant": self.tallies.undeclared_rows,
                "missing_pair_id": self.tallies.missing_pair_rows,
            },
            "comparisons": [c.to_dict() for c in self.comparisons],
            "verdict": self.verdict.value,
            "exit_code": self.exit_code,
        }


#: Up to this many rows without an outcome, every completion of their pairs is checked;
#: beyond, the two extreme ones (every such pair discordant one way, or the other).
EVERY_COMPLETION = 40


def _completions(b: int, c: int, n: int, u: int) -> list[tuple[int, int, int]]:
    """``(b', c', n')`` of every way ``u`` pairs without an outcome could have gone."""
    if u == 0:
        return []
    if u > EVERY_COMPLETION:
        return [(b, c + u, n + u), (b + u, c, n + u)]
    return [(b + i, c + j, n + u) for i in range(u + 1) for j in range(u + 1 - i)]


def decide_paired(
    interval: Interval | None,
    max_difference: float,
    *,
    counts: tuple[int, int, int] | None = None,
    missing: int = 0,
    confidence: float | None = None,
    max_missing: float = 0.02,
) -> tuple[Verdict, str]:
    """The gap decision table for a paired difference's interval.

    PASS when ``-max_difference <= lo`` and ``hi <= max_difference`` (a bound exactly at
    the limit meets it); FAIL when ``lo > max_difference`` or ``hi < -max_difference``;
    INSUFFICIENT_EVIDENCE otherwise, and without complete pairs.

    With ``missing`` rows without an outcome (``counts`` the complete pairs' ``b, c, n``
    and ``confidence`` the interval's level), each is a pair that could have gone any
    way: a FAIL stands when some completion's interval lies beyond the limit, a PASS
    needs every completion's interval within it, and a share of rows without an outcome
    above ``max_missing`` (of the complete pairs plus those rows) keeps it from passing.
    So blanking outcomes never improves the verdict.
    """
    m = max_difference
    others: list[Interval] = []
    if missing and counts is not None and confidence is not None:
        for b2, c2, n2 in _completions(*counts, missing):
            found = paired_difference_interval(b2, c2, n2, confidence)
            assert found is not None
            others.append(found)
    broken_by = [iv for iv in others if iv.lo > m or iv.hi < -m]
    if interval is None:
        if broken_by:
            iv = broken_by[0]
            return Verdict.FAIL, (
                f"no complete pair; with the {missing} row(s) without an outcome completed "
                f"against the test the interval [{iv.lo:.4f}, {iv.hi:.4f}] lies beyond "
                f"+-{m:g}"
            )
        return Verdict.INSUFFICIENT_EVIDENCE, "no complete pair: the difference is undefined"
    lo, hi = interval.lo, interval.hi
    share = Fraction(missing, missing + (counts[2] if counts else 0)) if missing else None
    over = share is not None and share > decimal(max_missing)
    verdict, code = verdict_table(
        broken=lo > m or hi < -m or bool(broken_by),
        held=-m <= lo and hi <= m and all(-m <= iv.lo and iv.hi <= m for iv in others),
        missing=over,
    )
    if verdict is Verdict.FAIL and not (lo > m or hi < -m):
        iv = broken_by[0]
        return verdict, (
            f"with the {missing} row(s) without an outcome completed against the test, the "
            f"interval [{iv.lo:.4f}, {iv.hi:.4f}] lies beyond +-{m:g}"
        )
    if code == "too_many_missing":
        return verdict, (
            f"{missing} row(s) have no outcome, more than max_missing {max_missing:.0%} of "
            f"the pairs; the interval over the complete pairs is [{lo:.4f}, {hi:.4f}]"
        )
    if verdict is not Verdict.PASS and not (lo > m or hi < -m) and -m <= lo and hi <= m:
        return verdict, (
            f"the interval [{lo:.4f}, {hi:.4f}] is within +-{m:g}, but not for every way "
            f"the {missing} row(s) without an outcome could have gone"
        )
    if verdict is Verdict.PASS:
        return verdict, f"the whole interval [{lo:.4f}, {hi:.4f}] is within +-{m:g}"
    if verdict is Verdict.FAIL:
        return verdict, f"the whole interval [{lo:.4f}, {hi:.4f}] lies beyond +-{m:g}"
    return (
        verdict,
        f"the interval [{lo:.4f}, {hi:.4f}] crosses +-{m:g}: more pairs are needed to decide",
    )


def compare(
    block: PairedSpec, tallies: PairTallies, alpha: float, max_missing: float = 0.02
) -> tuple[tuple[PairedComparison, ...], float]:
    """Test and decide every variant from the tallies (a pure function of counts)."""
    m = max(1, len(block.variants) - 1)
    confidence = 1.0 - alpha / m
    counts = [tallies.by_variant[v] for v in block.variants[1:]]
    p = [mcnemar_exact(c.b, c.c) for c in counts]
    adjusted = holm(p)
    out = []
    for name, c, p_two, p_adj in zip(block.variants[1:], counts, p, adjusted, strict=True):
        n = c.n_pairs
        interval = paired_difference_interval(c.b, c.c, n, confidence)
        verdict, reason = decide_paired(
            interval,
            block.max_difference,
            counts=(c.b, c.c, n),
            missing=c.missing_outcome_rows,
            confidence=confidence,
            max_missing=max_missing,
        )
        out.append(
            PairedComparison(
                variant=name,
                counts=c,
                difference=None if n == 0 else (c.c - c.b) / n,
                interval=interval,
                p_value=p_two,
                p_one_sided=mcnemar_one_sided(c.b, c.c),
                p_adjusted=p_adj,
                verdict=verdict,
                reason=reason,
            )
        )
    return tuple(out), confidence


def _check_columns(block: PairedSpec, columns: list[str], where: str) -> None:
    from respai.load import shown_list

    for role, column in zip(("pair", "variant", "outcome"), block.columns(), strict=True):
        if column not in columns:
            raise InputError(
                f"{where} has no column '{column}' (paired.{role})."
                + did_you_mean(column, columns),
                f"Its columns are: {shown_list(columns)}.",
            )


def run_paired(
    spec: Spec | str | Path,
    *,
    policy: Policy | str | Path | None = None,
    data: Any = None,
    alpha: tuple[float, str] | None = None,
) -> PairedResult:
    """Run the spec's ``paired:`` block on its pairs file (or on ``data``, a DataFrame).

    ``alpha`` replaces the run's alpha and its source (:func:`respai.decision.resolve_alpha`)
    as the block's share: under ``familywise: bonferroni`` ``respai evaluate`` gives it
    ``(V - 1) alpha / m``, so each of the ``V - 1`` comparisons is decided at ``alpha / m``.

    Raises
    ------
    respai.errors.SpecError, respai.errors.InputError
        For a spec without a ``paired:`` block, a missing column, an outcome that is not
        0/1, or a file that cannot be read.
    """
    from respai import engine
    from respai.engine.lookups import locate
    from respai.errors import SpecError
    from respai.load import show_value

    parsed = spec if isinstance(spec, Spec) else load_spec(spec)
    pol = policy if isinstance(policy, Policy) or policy is None else load_policy(policy)
    block = declared_paired(parsed)
    if block is None:
        origin = str(parsed.path) if parsed.path else "spec"
        raise SpecError(
            f"{origin}: paired: is required by this command but missing.",
            "Declare the pairs file, the pair, variant and outcome columns, the variants "
            "and max_difference under paired: (see docs/commands/paired.md).",
        )
    if data is not None:
        source = engine.open_frame(data)
    else:
        source = engine.open_file(
            block.cases, block.format, block.delimiter, list(block.columns())
        )
    _check_columns(block, source.columns, source.description)
    bad = bad_outcomes(source, block.outcome)
    if bad is not None:
        value, n = bad
        line = locate(source, block.outcome, value)
        at = f" ({source.row_word} {line})" if line else ""
        raise InputError(
            f"the outcome column '{block.outcome}' of {source.description} holds "
            f"{show_value(value)}{at}, and {n} value(s) in all that are neither 0 nor 1.",
            "Write the outcome as 1 (the favourable outcome, e.g. advanced) or 0; leave it "
            "empty when it is not known.",
        )
    tallies = pair_tallies(source, block.pair, block.variant, block.outcome, block.variants)
    if tallies.rows == 0:
        raise InputError(
            f"{source.description} has a header but no rows.",
            "Export one row per submitted variant.",
        )
    level, alpha_source = resolve_alpha(parsed, pol) if alpha is None else alpha
    max_missing, _ = resolve_max_missing(parsed, pol)
    comparisons, confidence = compare(block, tallies, level, max_missing)
    fingerprint = source.fingerprint()
    source.check_unchanged()
    return PairedResult(
        spec=parsed,
        block=block,
        tallies=tallies,
        comparisons=comparisons,
        alpha=level,
        alpha_source=alpha_source,
        confidence=confidence,
        fingerprint=fingerprint,
    )
