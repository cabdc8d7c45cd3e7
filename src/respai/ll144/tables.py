"""The LL144 impact-ratio tables: pure functions of integer counts.

The input is a *tally*: for each (sex, race/ethnicity) pair of canonical labels, with
``None`` for unknown, the number of applicants ``n`` and the number ``k`` the tool
selected (selection tools) or who scored above the median (scoring tools). From it,
:func:`build_tables` makes the three tables the DCWP rules require (6 RCNY § 5-301(b)(3)
and (c)(4)): sex, race/ethnicity, and sex × race/ethnicity with all 14 cells listed even
when empty. Each row has the count, the rate with a 95% Wilson interval, the share of
applicants with a known category on that axis, whether the category is excluded under
``min_share`` (§ 5-301(d)), and the impact ratio against the best *kept* category.

Nothing is ever 0 or NaN by default: a rate or ratio that cannot be computed is ``None``
with an :class:`~respai.types.Undefined` reason. For every kept category whose ratio is
below ``line + margin``, :func:`~respai.smallcells.assess_gap` states a finding against
the top category. The law sets no pass mark, so these are findings, not verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from respai.eeo1 import (
    AXIS_TITLES,
    RACE_CATEGORIES,
    SEX_CATEGORIES,
    intersection_label,
)
from respai.metrics import SELECTION_RATE, unlabelled
from respai.smallcells import GapFinding, assess_gap
from respai.stats import wilson_interval
from respai.types import Interval, Undefined

__all__ = [
    "TABLES",
    "CategoryRow",
    "CategoryTable",
    "Finding",
    "Tally",
    "build_tables",
    "worst_ratio",
]

Tally = Mapping[tuple[str | None, str | None], tuple[int, int]]
"""``(sex, race) -> (n, k)``: applicants and how many of them were selected (or scored
above the median); ``None`` stands for an unknown category."""

TABLES = ("sex", "race", "sex_x_race")
"""The three tables, in the order they are reported."""

LINE = 0.8
"""The four-fifths line of 29 CFR 1607.4(D), used as the screening line for findings."""


@dataclass(frozen=True, slots=True)
class CategoryRow:
    """One category of one table.

    Attributes
    ----------
    category
        The canonical label (for intersections, e.g. ``"Asian Female"``).
    sex, race
        The sex and race/ethnicity of the row (``None`` on the other axis' table).
    count
        Applicants in the category.
    selected
        How many of them were selected (or scored above the median).
    rate
        ``selected / count``, the selection rate of :mod:`respai.metrics`; ``None`` when
        the category is empty (``rate_undefined``).
    interval
        95% Wilson interval of the rate; ``None`` when the category is empty.
    share
        ``count`` over the applicants with a known category on this table's axis;
        ``None`` when no applicant has one.
    excluded
        The category has applicants but falls under ``min_share``, so it is left out of
        the impact ratios (it keeps its count and rate).
    impact_ratio
        ``rate / best kept rate``; ``None`` with ``ratio_undefined`` otherwise.
    """

    category: str
    sex: str | None
    race: str | None
    count: int
    selected: int
    rate: float | None
    rate_undefined: Undefined | None
    interval: Interval | None
    share: float | None
    excluded: bool
    impact_ratio: float | None
    ratio_undefined: Undefined | None


@dataclass(frozen=True, slots=True)
class Finding:
    """The statistical finding for one category against the top category of its table."""

    table: str
    category: str
    compared_with: str
    gap: GapFinding


@dataclass(frozen=True, slots=True)
class CategoryTable:
    """One of the three tables, with its unknown count and findings.

    Attributes
    ----------
    name
        ``"sex"``, ``"race"`` or ``"sex_x_race"``.
    rows
        Every declared category, in EEO-1 order, empty ones included.
    unknown
        Applicants whose category on this axis is unknown (left out of the table).
    known
        Applicants with a known category on this axis.
    best
        The kept category with the highest rate (the ratios' denominator), or ``None``.
    undefined
        Why no ratio in the table is defined, else ``None``.
    findings
        One per kept category whose ratio is under ``line + margin``.
    """

    name: str
    rows: tuple[CategoryRow, ...]
    unknown: int
    known: int
    best: str | None
    undefined: Undefined | None
    findings: tuple[Finding, ...]

    @property
    def title(self) -> str:
        """How people read the table's name, e.g. ``"sex × race/ethnicity"``."""
        return AXIS_TITLES[self.name]

    @property
    def excluded(self) -> tuple[CategoryRow, ...]:
        """The rows excluded under ``min_share``."""
        return tuple(r for r in self.rows if r.excluded)

    def row(self, category: str) -> CategoryRow:
        """The row of ``category``.

        Raises
        ------
        KeyError
            When the table has no such category.
        """
        for r in self.rows:
            if r.category == category:
                return r
        raise KeyError(category)


def _entries(
    tally: Tally, name: str
) -> tuple[list[tuple[str, str | None, str | None, int, int]], int]:
    """The table's categories as ``(label, sex, race, n, k)`` and its unknown count."""
    entries: list[tuple[str, str | None, str | None, int, int]] = []
    if name == "sex":
        for sex in SEX_CATEGORIES:
            n = sum(v[0] for (s, _), v in tally.items() if s == sex)
            k = sum(v[1] for (s, _), v in tally.items() if s == sex)
            entries.append((sex, sex, None, n, k))
        unknown = sum(v[0] for (s, _), v in tally.items() if s is None)
    elif name == "race":
        for race in RACE_CATEGORIES:
            n = sum(v[0] for (_, r), v in tally.items() if r == race)
            k = sum(v[1] for (_, r), v in tally.items() if r == race)
            entries.append((race, None, race, n, k))
        unknown = sum(v[0] for (_, r), v in tally.items() if r is None)
    else:
        for sex in SEX_CATEGORIES:
            for race in RACE_CATEGORIES:
                n, k = tally.get((sex, race), (0, 0))
                entries.append((intersection_label(sex, race), sex, race, n, k))
        unknown = sum(v[0] for (s, r), v in tally.items() if s is None or r is None)
    return entries, unknown


def build_tables(
    tally: Tally,
    *,
    min_share: float = 0.02,
    margin: float = 0.05,
    alpha: float = 0.05,
    power_target: float = 0.80,
    rate_word: str = "selected",
    findings: bool = True,
    exclusions: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, CategoryTable]:
    """Build the sex, race/ethnicity and intersection tables from a tally.

    Parameters
    ----------
    tally
        ``(sex, race) -> (n, k)`` with canonical labels, ``None`` for unknown.
    min_share
        Categories under this share of the applicants with a known category on the
        table's axis are excluded from the impact ratios.
    margin
        Kept categories with a ratio under ``0.8 + margin`` get a finding.
    alpha, power_target
        Level of the one-sided Fisher test and the power the needed cell size is for.
    rate_word
        What ``k`` counts, for reasons: ``"selected"`` or ``"scoring above the median"``.
    findings
        Whether to compute findings (the diagnosis tables do not need them).
    exclusions
        Excluded labels per table, to reuse the applicant-level exclusions for a subset
        (a funnel stage); by default they are computed from ``min_share``.

    Returns
    -------
    dict
        ``{"sex": ..., "race": ..., "sex_x_race": ...}``.

    Examples
    --------
    >>> t = build_tables({("Male", "White"): (100, 50), ("Female", "White"): (100, 35)})
    >>> sex = t["sex"]
    >>> sex.best, sex.row("Female").impact_ratio, sex.findings[0].gap.finding
    ('Male', 0.7, 'below_line_significant')
    >>> t["sex_x_race"].row("Asian Female").rate_undefined.code
    'empty_category'
    """
    out: dict[str, CategoryTable] = {}
    for name in TABLES:
        entries, unknown = _entries(tally, name)
        fixed = None if exclusions is None else exclusions.get(name, frozenset())
        out[name] = _table(
            name,
            entries,
            unknown,
            min_share=min_share,
            margin=margin,
            alpha=alpha,
            power_target=power_target,
            rate_word=rate_word,
            with_findings=findings,
            fixed=fixed,
        )
    return out


def _table(
    name: str,
    entries: list[tuple[str, str | None, str | None, int, int]],
    unknown: int,
    *,
    min_share: float,
    margin: float,
    alpha: float,
    power_target: float,
    rate_word: str,
    with_findings: bool,
    fixed: frozenset[str] | None,
) -> CategoryTable:
    title = AXIS_TITLES[name]
    known = sum(e[3] for e in entries)
    limit = Fraction(repr(min_share)) * known  # exact: a share of exactly 2% is kept
    excluded = {
        label
        for label, _, _, n, _ in entries
        if (label in fixed if fixed is not None else 0 < n < limit)
    }
    kept = [e for e in entries if e[3] > 0 and e[0] not in excluded]
    best = None
    for e in kept:  # the first category in EEO-1 order wins a tie
        if best is None or e[4] * best[3] > best[4] * e[3]:
            best = e
    undefined: Undefined | None = None
    if known == 0:
        undefined = Undefined(
            "no_known_category",
            f"no applicant has a known {title}, so the table has no rates and no ratios",
        )
    elif not kept:
        undefined = Undefined(
            "no_kept_category",
            f"every {title} category with applicants falls under min_share, so there is "
            "no category to compare with",
        )
    elif len(kept) == 1:
        undefined = Undefined(
            "single_category",
            f"only one {title} category ({kept[0][0]}) is kept, so there is no other "
            "category to compare it with",
        )
    elif best is not None and best[4] == 0:
        undefined = Undefined(
            "best_rate_zero",
            f"no kept {title} category has anyone {rate_word}: the best rate is 0, so "
            "every ratio would be 0/0",
        )
    rows: list[CategoryRow] = []
    for label, sex, race, n, k in entries:
        selected, cases = SELECTION_RATE.fraction(unlabelled(k, n))
        share = n / known if known else None
        rate_undefined = None
        if n == 0:
            rate_undefined = Undefined("empty_category", "no applicants in this category")
        ratio: float | None = None
        ratio_undefined: Undefined | None = None
        if n == 0:
            ratio_undefined = rate_undefined
        elif label in excluded:
            shown = f"{share:.2%}" if share is not None else "an unknown share"
            ratio_undefined = Undefined(
                "excluded",
                f"excluded from the impact ratios: {shown} of the applicants with a known "
                f"{title}, under min_share {min_share:g}",
            )
        elif undefined is not None:
            ratio_undefined = undefined
        else:
            assert best is not None
            ratio = (k * best[3]) / (n * best[4])
        rows.append(
            CategoryRow(
                category=label,
                sex=sex,
                race=race,
                count=n,
                selected=k,
                rate=selected / cases if cases else None,
                rate_undefined=rate_undefined,
                interval=wilson_interval(selected, cases),
                share=share,
                excluded=label in excluded,
                impact_ratio=ratio,
                ratio_undefined=ratio_undefined,
            )
        )
    found: list[Finding] = []
    if with_findings and undefined is None and best is not None:
        for row in rows:
            if row.impact_ratio is None or row.category == best[0]:
                continue
            if row.impact_ratio < LINE + margin:
                gap = assess_gap(
                    row.selected,
                    row.count,
                    best[4],
                    best[3],
                    alpha=alpha,
                    power_target=power_target,
                    line=LINE,
                    margin=margin,
                )
                found.append(Finding(name, row.category, best[0], gap))
    return CategoryTable(
        name=name,
        rows=tuple(rows),
        unknown=unknown,
        known=known,
        best=None if undefined is not None or best is None else best[0],
        undefined=undefined,
        findings=tuple(found),
    )


def worst_ratio(table: CategoryTable) -> tuple[str, float] | None:
    """The kept category with the lowest defined impact ratio, and that ratio.

    ``None`` when the table has no defined ratio.
    """
    defined = [(r.category, r.impact_ratio) for r in table.rows if r.impact_ratio is not None]
    if not defined:
        return None
    label, ratio = min(defined, key=lambda item: item[1])
    return label, ratio
