"""Per-group tables as CSV files, one row per group and metric."""

from __future__ import annotations

import csv
import io

from respai.tables import GroupRow

__all__ = ["group_table_csv"]

_HEADER = [
    "group",
    "count",
    "with_prediction",
    "missing_prediction",
    "metric",
    "numerator",
    "denominator",
    "value",
    "ci_low",
    "ci_high",
    "undefined_reason",
]


def group_table_csv(rows: tuple[GroupRow, ...]) -> str:
    """The per-group table as CSV text (long format: one line per group and metric)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(_HEADER)
    for row in rows:
        for name, m in row.metrics.items():
            writer.writerow(
                [
                    row.label,
                    row.count,
                    row.with_prediction,
                    row.missing_prediction,
                    name,
                    m.numerator,
                    m.denominator,
                    "" if m.value is None else repr(m.value),
                    "" if m.interval is None else repr(m.interval.lo),
                    "" if m.interval is None else repr(m.interval.hi),
                    "" if m.undefined is None else m.undefined.reason,
                ]
            )
    return buf.getvalue()
