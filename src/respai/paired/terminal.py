"""The terminal view of a paired test: one line per variant, then the verdict.

Plain text (no table library): the lines are built here and written by the CLI through
:func:`respai.cli.output.echo`, which shows control, escape and bidi characters escaped.
"""

from __future__ import annotations

from respai.paired.audit import PairedResult

__all__ = ["paired_lines"]


def _p(x: float) -> str:
    return "<0.0001" if x < 0.0001 else f"{x:.4f}"


def paired_lines(res: PairedResult) -> list[str]:
    """The lines ``respai paired`` prints, in order."""
    b = res.block
    lines = [
        f"paired test: {b.cases.name}, {res.tallies.rows} rows, reference variant '{b.reference}'",
        f"max_difference {b.max_difference:g}; intervals: widened adjusted Wald at "
        f"{res.confidence:.4g} each (alpha {res.alpha:g} from {res.alpha_source}, Bonferroni "
        f"over {len(res.comparisons)}); test: exact McNemar, Holm-adjusted",
        "",
    ]
    header = (
        f"{'variant':<20} {'pairs':>7} {'b':>6} {'c':>6} {'difference':>10}  "
        f"{'interval':<19} {'p':>8} {'p (Holm)':>8}  verdict"
    )
    lines.append(header)
    for c in res.comparisons:
        diff = "—" if c.difference is None else f"{c.difference:+.4f}"
        iv = "—" if c.interval is None else f"[{c.interval.lo:+.4f}, {c.interval.hi:+.4f}]"
        lines.append(
            f"{c.variant:<20} {c.counts.n_pairs:>7} {c.counts.b:>6} {c.counts.c:>6} "
            f"{diff:>10}  {iv:<19} {_p(c.p_value):>8} {_p(c.p_adjusted):>8}  {c.verdict.value}"
        )
    lines.append("")
    lines.append(
        "b: reference 1, variant 0; c: reference 0, variant 1; difference = (c - b) / pairs"
    )
    for c in res.comparisons:
        out = c.counts
        left = out.duplicate_rows + out.missing_outcome_rows + out.incomplete_rows
        if left:
            lines.append(
                f"{c.variant}: {left} row(s) left out ({out.incomplete_rows} incomplete pair, "
                f"{out.duplicate_rows} duplicate variant, {out.missing_outcome_rows} missing "
                "outcome)"
            )
        lines.append(f"{c.variant}: {c.verdict.value}: {c.reason}")
    t = res.tallies
    if t.undeclared_rows:
        shown = ", ".join(f"'{v}'" for v in t.undeclared_values)
        lines.append(
            f"{t.undeclared_rows} row(s) with an undeclared variant left out ({shown}"
            f"{', ...' if t.undeclared_rows > len(t.undeclared_values) else ''})"
        )
    if t.missing_pair_rows:
        lines.append(f"{t.missing_pair_rows} row(s) without a pair id left out")
    lines.append("")
    lines.append(f"verdict: {res.verdict.value} (exit {res.exit_code})")
    return lines
