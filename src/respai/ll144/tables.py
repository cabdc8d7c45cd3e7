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
the top category, called significant only when its p-value stays at most ``alpha`` after
Holm's adjustment over every comparison of the audit's tables
(:mod:`respai.ll144.multiplicity`). The law sets no pass mark, so these are findings, not
verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

from respai import exact as _exact
from respai.decision import below_line
from respai.eeo1 import (
    AXIS_TITLES,
    RACE_CATEGORIES,
    SEX_CATEGORIES,
    intersection_label,
)
from respai.ll144.multiplicity import Family, comparison_family
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
    "kept_categories",
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
    #: the impact ratio as the exact fraction of the counts (``None`` when undefined)
    ratio_exact: Fraction | None = None

    def ratio_below(self, line: float | Fraction) -> bool | None:
        """Whether the impact ratio is under ``line``, decided exactly from the counts.

        A ratio exactly at the line is not under it (100/300 against 125/300 is 0.8, not
        0.7999999999999999). ``None`` when the ratio is undefined
        (:func:`respai.decision.below_line`).
        """
        return below_line(self.ratio_exact, line)


@dataclass(frozen=True, slots=True)
class Finding:
    """The statistical finding for one category against the top category of its table.

    ``gap.p_adjusted`` is the test's p-value after the ``adjustment`` (``"holm"``) over the
    audit's ``comparisons`` comparisons; it decides ``gap.significant``.
    """

    table: str
    category: str
    compared_with: str
    gap: GapFinding
    adjustment: str
    comparisons: int


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
    family
        The audit-wide family of comparisons the findings' p-values are adjusted over
        (the same for every table of the audit); ``None`` when findings are not computed.
    """

    name: str
    rows: tuple[CategoryRow, ...]
    unknown: int
    known: int
    best: str | None
    undefined: Undefined | None
    findings: tuple[Finding, ...]
    family: Family | None = None

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
        Whether to compute findings (the diagnosis tables do not need them). Their
        p-values are Holm-adjusted over every ordered pair of kept categories of all
        three tables (:func:`~respai.ll144.multiplicity.comparison_family`), and only the
        adjusted value decides significance.
    exclusions
        Excluded labels per table, to reuse the applicant-level exclusions for a subset
        (a funnel stage); by default they are computed from ``min_share``.

    Returns
    -------
    dict
        ``{"sex": ..., "race": ..., "sex_x_race": ...}``.

    Examples
    --------
    >>> t = build_tables({("Male", "White"): (100, 50), ("Female", "White"): (100, 30)})
    >>> sex = t["sex"]
    >>> sex.best, sex.row("Female").impact_ratio, sex.findings[0].gap.finding
    ('Male', 0.6, 'below_line_significant')
    >>> gap = sex.findings[0].gap  # the sex and intersectional tables: 2 + 2 comparisons
    >>> round(gap.p_value, 4), round(gap.p_adjusted, 4), sex.family.size
    (0.003, 0.0119, 4)
    >>> t["sex_x_race"].row("Asian Female").rate_undefined.code
    'empty_category'
    """
    out: dict[str, CategoryTable] = {}
    for name in TABLES:
        entries, unknown = _entries(tally, name)
        fixed = None if exclusions is None else exclusions.get(name, frozenset())
        out[name] = _table(
            name, entries, unknown, min_share=min_share, rate_word=rate_word, fixed=fixed
        )
    if not findings:
        return out
    family = comparison_family({name: kept_categories(table) for name, table in out.items()})
    return {
        name: replace(
            table,
            findings=_findings(
                table, family, margin=margin, alpha=alpha, power_target=power_target
            ),
            family=family,
        )
        for name, table in out.items()
    }


def _findings(
    table: CategoryTable, family: Family, *, margin: float, alpha: float, power_target: float
) -> tuple[Finding, ...]:
    """One finding per kept category under ``LINE + margin``, against the top category."""
    if table.undefined is not None or table.best is None:
        return ()
    top = table.row(table.best)
    found: list[Finding] = []
    for row in table.rows:
        if row.impact_ratio is None or row.category == top.category:
            continue
        if row.ratio_below(_exact.decimal(LINE) + _exact.decimal(margin)):
            gap = assess_gap(
                row.selected,
                row.count,
                top.selected,
                top.count,
                alpha=alpha,
                power_target=power_target,
                line=LINE,
                margin=margin,
                p_adjusted=family.adjusted(table.name, row.category, top.category),
                adjustment=family.words,
                decision_level=family.level(table.name, row.category, top.category, alpha),
                design_level=family.design_level(alpha),
            )
            found.append(
                Finding(table.name, row.category, top.category, gap, family.method, family.size)
            )
    return tuple(found)


def _table(
    name: str,
    entries: list[tuple[str, str | None, str | None, int, int]],
    unknown: int,
    *,
    min_share: float,
    rate_word: str,
    fixed: frozenset[str] | None,
) -> CategoryTable:
    """The table without findings."""
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
        ratio_exact: Fraction | None = None
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
            ratio_exact = Fraction(k * best[3], n * best[4])
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
                ratio_exact=ratio_exact,
            )
        )
    return CategoryTable(
        name=name,
        rows=tuple(rows),
        unknown=unknown,
        known=known,
        best=None if undefined is not None or best is None else best[0],
        undefined=undefined,
        findings=(),
    )


def kept_categories(table: CategoryTable) -> list[tuple[str, int, int]]:
    """The categories that take part in the impact ratios, as ``(label, n, k)``.

    Those with applicants that are not excluded under ``min_share``: a function of the
    applicant counts only, so the family of comparisons built from them
    (:func:`~respai.ll144.multiplicity.comparison_family`) does not depend on who was
    selected.
    """
    return [
        (r.category, r.count, r.selected) for r in table.rows if r.count > 0 and not r.excluded
    ]


def worst_ratio(table: CategoryTable) -> tuple[str, float] | None:
    """The kept category with the lowest defined impact ratio, and that ratio.

    ``None`` when the table has no defined ratio.
    """
    defined = [(r.category, r.impact_ratio) for r in table.rows if r.impact_ratio is not None]
    if not defined:
        return None
    label, ratio = min(defined, key=lambda item: item[1])
    return label, ratio
