"""How many comparisons an LL144 audit makes, and Holm's adjustment over all of them.

Each finding tests one category against the best *observed* category of its table
(one-sided Fisher exact, :func:`respai.smallcells.fisher_lower`). Read at ``alpha`` one by
one, those tests call a gap "significant" far too often when there is none: an audit has
three tables (sex, race/ethnicity, and 14 intersectional cells), so up to 20 tests, and
each is against a reference the data chose (the maximum of the rates), which makes every
one of them anti-conservative on its own.

The adjustment here holds the family-wise error rate (the chance of calling any true null
"significant") at ``alpha`` for both reasons at once. The family is every **ordered pair**
``(i, j)`` of kept categories within each table, over every table of the audit, with the
null hypothesis "category ``i``'s rate is at least ``j``'s" and its one-sided Fisher
p-value. Whichever category comes out on top, the comparisons an audit reports, ``(i,
top)``, are members of this family, so Holm's step-down procedure over the whole family
(Holm, 1979) bounds the chance of any false "significant" finding by ``alpha``, under any
dependence between the tests, with no simulation. The family is fixed by the applicant
counts (which categories have applicants and which fall under ``min_share``), never by
who was selected.

Everything here is a pure function of integer counts; NumPy and SciPy load lazily.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "METHOD",
    "Comparison",
    "Family",
    "comparison_family",
    "fisher_lower_all",
    "holm",
]

METHOD = "holm"
"""The adjustment's name in the outputs."""

Kept = Sequence[tuple[str, int, int]]
"""A table's kept categories as ``(label, applicants, selected)``."""


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    With the ``m`` p-values sorted, ``p(1) <= ... <= p(m)``, the adjusted value of the
    ``r``-th is ``min(1, max over s <= r of (m - s + 1) * p(s))``; rejecting every
    hypothesis whose adjusted value is at most ``alpha`` controls the family-wise error
    rate at ``alpha`` under any dependence (Holm, 1979). Tied p-values get the same
    adjusted value. The same as ``statsmodels.stats.multitest.multipletests(p,
    method="holm")[1]``.

    Raises
    ------
    ValueError
        If a p-value lies outside ``[0, 1]`` (NaN included).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> holm([])
    []
    """
    values = [float(p) for p in p_values]
    for p in values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a p-value must lie in [0, 1], got {p!r}")
    m = len(values)
    order = sorted(range(m), key=values.__getitem__)
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[i]))
        out[i] = running
    return out


def fisher_lower_all(
    k1: Sequence[int], n1: Sequence[int], k2: Sequence[int], n2: Sequence[int]
) -> list[float]:
    """:func:`respai.smallcells.fisher_lower` for many tables at once (same values).

    Each p-value is ``P(X <= k1)`` for ``X ~ Hypergeometric(n1 + n2, k1 + k2, n1)``, and
    ``1.0`` at the top of the support (an empty group, no selections or no rejections).

    Raises
    ------
    ValueError
        If the sequences differ in length, a count is negative or selections exceed
        cases.

    Examples
    --------
    >>> [round(p, 4) for p in fisher_lower_all([30, 18], [120, 70], [36, 36], [100, 100])]
    [0.0522, 0.1051]
    """
    if not len(k1) == len(n1) == len(k2) == len(n2):
        raise ValueError("k1, n1, k2 and n2 must have one entry per comparison")
    for k, n in (*zip(k1, n1, strict=True), *zip(k2, n2, strict=True)):
        if not 0 <= operator.index(k) <= operator.index(n):
            raise ValueError(f"selections must lie in [0, cases], got {k} of {n}")
    if not k1:
        return []
    import numpy as np
    from scipy.stats import hypergeom

    a, na = np.asarray(k1, dtype=np.int64), np.asarray(n1, dtype=np.int64)
    b, nb = np.asarray(k2, dtype=np.int64), np.asarray(n2, dtype=np.int64)
    selected = a + b
    p = np.clip(hypergeom.cdf(a, na + nb, selected, na), 0.0, 1.0)
    p = np.where(a >= np.minimum(na, selected), 1.0, p)
    return [float(x) for x in p]


@dataclass(frozen=True, slots=True)
class Comparison:
    """One member of the family: whether ``category`` is below ``against`` in ``table``.

    ``p_value`` is the one-sided Fisher exact p-value of "``category``'s rate is lower",
    ``p_adjusted`` its Holm-adjusted value over the whole family. ``divisor`` is Holm's
    divisor for it, ``m - r + 1`` with ``r`` its rank (one plus the number of strictly
    smaller p-values): Holm's step tests it at ``alpha / divisor``.
    """

    table: str
    category: str
    against: str
    p_value: float
    p_adjusted: float
    divisor: int = 1


@dataclass(frozen=True, slots=True)
class Family:
    """Every comparison an audit could report, with Holm-adjusted p-values.

    Attributes
    ----------
    comparisons
        Every ordered pair of kept categories within each table, table by table.
    tables
        The tables that contribute (those with at least two kept categories).
    method
        ``"holm"``.
    """

    comparisons: tuple[Comparison, ...]
    tables: tuple[str, ...]
    method: str = METHOD

    @property
    def size(self) -> int:
        """The number of comparisons ``m`` the adjustment accounts for."""
        return len(self.comparisons)

    @property
    def words(self) -> str:
        """The adjustment in words, for a finding's sentence."""
        return f"Holm-adjusted over the audit's {self.size} comparisons"

    def adjusted(self, table: str, category: str, against: str) -> float:
        """The Holm-adjusted p-value of ``category`` below ``against`` in ``table``.

        Raises
        ------
        KeyError
            When the pair is not in the family (a category that is not kept).
        """
        for c in self.comparisons:
            if (c.table, c.category, c.against) == (table, category, against):
                return c.p_adjusted
        raise KeyError((table, category, against))

    def level(self, table: str, category: str, against: str, alpha: float) -> float:
        """The level at which Holm's step-down tests this comparison: ``alpha / divisor``.

        The comparison with the smallest p-value is tested at ``alpha / m``, the next at
        ``alpha / (m - 1)``, and so on (tied p-values share the first of their steps). It
        is the level that decides the finding when every earlier step rejected, so the
        power at it is the power that the word "significant" refers to.

        Raises
        ------
        KeyError
            When the pair is not in the family.

        Examples
        --------
        >>> fam = comparison_family({"sex": [("Male", 100, 50), ("Female", 100, 35)]})
        >>> fam.level("sex", "Female", "Male", 0.05)
        0.025
        """
        for c in self.comparisons:
            if (c.table, c.category, c.against) == (table, category, against):
                return alpha / c.divisor
        raise KeyError((table, category, against))

    def design_level(self, alpha: float) -> float:
        """The family level for a design figure: ``alpha / m`` (Holm's first step)."""
        return alpha / max(1, self.size)


def comparison_family(kept: Mapping[str, Kept]) -> Family:
    """The family of an audit: every ordered pair of kept categories in each table.

    Parameters
    ----------
    kept
        Per table, its kept categories (with applicants, not under ``min_share``) as
        ``(label, applicants, selected)``. A table with fewer than two contributes
        nothing: it has no comparison to report.

    Examples
    --------
    >>> fam = comparison_family({"sex": [("Male", 100, 50), ("Female", 100, 35)]})
    >>> fam.size, round(fam.adjusted("sex", "Female", "Male"), 4)
    (2, 0.0449)
    """
    pairs: list[tuple[str, str, str]] = []
    k1: list[int] = []
    n1: list[int] = []
    k2: list[int] = []
    n2: list[int] = []
    tables: list[str] = []
    for table, rows in kept.items():
        if len(rows) < 2:
            continue
        tables.append(table)
        for label, n, k in rows:
            for other, n_other, k_other in rows:
                if other == label:
                    continue
                pairs.append((table, label, other))
                k1.append(k)
                n1.append(n)
                k2.append(k_other)
                n2.append(n_other)
    raw = fisher_lower_all(k1, n1, k2, n2)
    adjusted = holm(raw)
    m = len(raw)
    ordered = sorted(raw)
    divisors = [m - bisect.bisect_left(ordered, p) for p in raw]
    return Family(
        comparisons=tuple(
            Comparison(t, i, j, p, q, d)
            for (t, i, j), p, q, d in zip(pairs, raw, adjusted, divisors, strict=True)
        ),
        tables=tuple(tables),
    )
