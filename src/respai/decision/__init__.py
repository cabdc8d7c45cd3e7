"""Per-group spread and verdicts: the one package that decides.

Every block that turns per-group counts into a verdict reads it from here: the group rules
(:mod:`respai.rules`), the battery's spread tests (:mod:`respai.battery`), the monitoring
looks (:mod:`respai.monitor.looks`), the paired tests (:mod:`respai.paired.audit`) and the
LL144 screening line (:mod:`respai.ll144.tables`, :mod:`respai.ll144.seal`). It holds,
once:

- the run's significance level (:func:`resolve_alpha`, over :func:`alpha_in_force`, which
  the policy's application to the fairness block applies too), in
  :mod:`respai.decision.groups`;
- the small-cell rule: a group is small when fewer than ``max(min_cell, 1)`` of its cases
  have a decision (:func:`is_small`), so a declared group without one is always small;
- one group's rate with its simultaneous interval (:class:`GroupRate`,
  :func:`group_rate`) and its ends as exact bounds (:func:`exact_ends`), the cases without
  a decision counted at their worst: a non-event for the lower end, an event for the
  upper; the ends a FAIL is proven from, with every missing decision counted against the
  test (:func:`adverse_ends`, :func:`adverse_intervals`); the groups over ``max_missing``
  (:func:`over_max_missing`, :func:`resolve_max_missing`); the spread of a rate over
  every way the missing decisions could have gone (:func:`ratio_range`,
  :func:`diff_range`): :mod:`respai.decision.groups`;
- bounds on the largest gap, the smallest ratio and the worst group, computed from the
  groups sorted by one end (never the ``G^2`` pairs): :func:`max_gap_bounds`,
  :func:`spread_bounds`, :func:`ratio_bounds`, :func:`some_gap_above` and the other
  exact tests of a limit: :mod:`respai.decision.bounds`;
- the verdict table (:func:`verdict_table`), what a small cell does to a spread verdict
  (:func:`with_small_cells`), a monitored rule's verdict from its cumulative verdict and
  its change detector's alarm (:func:`with_change_alarm`), the sentence for groups over
  ``max_missing``
  (:func:`missing_reason`) and the screening line's comparison (:func:`below_line`):
  :mod:`respai.decision.verdicts`.

Abstaining never improves a verdict (engine 0.4.0): a PASS reads the intervals with the
missing decisions at their worst on each side (every completion passes), a FAIL the
adverse ends (some completion fails), and a group over ``max_missing`` cannot pass, so
blanking a decision only keeps or worsens a verdict in the order of
:attr:`respai.types.Verdict.severity`.

Every name is imported from the package, ``from respai import decision``.

The texts a verdict is explained with stay with each caller; the numbers and the order of
the decision are here.

Findings for the methods issue
------------------------------
The callers used to hold their own copies, which differ in details. Each caller keeps its
exact behaviour (the golden records are byte-identical); the differences are:

1. *The per-group alpha as a float.* The group rules and the monitor divide the float
   alpha (``alpha / G``, :func:`respai.stats.bonferroni_alpha`); the battery's spread
   tests take the float of the exact share (``float(decimal(alpha) / G)``). The two can
   differ in the last bit, so the displayed simultaneous intervals can too. The exact
   ends (:func:`exact_ends`) use the exact share everywhere.
2. *Gap bounds over distinct groups or not.* The rules and the monitor bound the largest
   gap over pairs of distinct groups (:func:`max_gap_bounds`); the battery's spread
   interval (:func:`spread_bounds`) takes ``max hi - min lo`` and ``max lo - min hi`` over
   all groups, so its upper end may pair a group with itself (never tighter, sometimes
   wider), and its lower end is clamped at 0 (a rule's lower gap bound may be negative).
3. *Ratio bounds.* The rules bound the smallest ratio by ``min lo_i / hi_j`` over
   distinct groups and leave the upper bound undefined when every divisor may be 0; the
   battery's ratio interval is ``lo_min / hi_max`` to ``min(1, hi_min / lo_max)`` over
   all groups, 1 when ``lo_max`` is 0.
4. *Exact or float comparisons.* The rules and the battery compare every interval end
   with its threshold exactly (:mod:`respai.exact`); the monitor compares the floats of
   its confidence sequences and of the left-out share with the float threshold, and the
   paired test the floats of its widened adjusted Wald interval with ``+-max_difference``.
5. *Small cells.* A rule with a small cell cannot PASS, and its FAIL stands whenever the
   intervals prove it (the small cells' wide intervals only widen the bounds). The
   battery's estimate rule, when some group has fewer than ``min_cell`` *cases*, lets a
   FAIL stand only when the groups with at least ``min_cell`` cases fail on their own,
   at their worst (cases, not decided cases, so blanking decisions cannot excuse it).
   The monitor's table is the rules' one without the ``ratio_undefined`` step (it has no
   ratio rules).
6. *Ties.* The rules name the worst group as the first with the extreme end; the battery
   takes the first group with the extreme float end for each of its four ends; the
   equalized-odds rule reports the false-positive part on a tie.
7. *The screening line.* The LL144 findings, the record's ``below_screening_line`` and
   the funnel's ``first_below`` (:func:`respai.ll144.diagnosis.funnel`, exact since
   engine 0.4.0) compare the exact impact ratio with the line (:func:`below_line`).
8. *The alpha* of every block is :func:`alpha_in_force`'s: the group rules and the
   battery read it through :func:`respai.spec.policy.apply_policy`, LL144 and paired
   through :func:`resolve_alpha`.

The package is pure: it reads counts and declarations and imports no dataframe library.
"""

from __future__ import annotations

from respai.decision.bounds import (
    MARGIN,
    Pairs,
    every_gap_within,
    every_ratio_at_least,
    max_gap_bounds,
    pairs_for,
    positive,
    ratio_bounds,
    reference_gap_bounds,
    some_gap_above,
    some_ratio_below,
    spread_bounds,
    worst_group_decided,
)
from respai.decision.groups import (
    DEFAULT_MAX_MISSING,
    GroupRate,
    GroupRates,
    adverse_ends,
    adverse_intervals,
    alpha_in_force,
    diff_range,
    exact_ends,
    group_rate,
    group_rates,
    is_small,
    kept_rates,
    over_max_missing,
    ratio_range,
    resolve_alpha,
    resolve_max_missing,
)
from respai.decision.verdicts import (
    below_line,
    missing_reason,
    verdict_table,
    with_change_alarm,
    with_small_cells,
)

__all__ = [
    "DEFAULT_MAX_MISSING",
    "MARGIN",
    "GroupRate",
    "GroupRates",
    "Pairs",
    "adverse_ends",
    "adverse_intervals",
    "alpha_in_force",
    "below_line",
    "diff_range",
    "every_gap_within",
    "every_ratio_at_least",
    "exact_ends",
    "group_rate",
    "group_rates",
    "is_small",
    "kept_rates",
    "max_gap_bounds",
    "missing_reason",
    "over_max_missing",
    "pairs_for",
    "positive",
    "ratio_bounds",
    "ratio_range",
    "reference_gap_bounds",
    "resolve_alpha",
    "resolve_max_missing",
    "some_gap_above",
    "some_ratio_below",
    "spread_bounds",
    "verdict_table",
    "with_change_alarm",
    "with_small_cells",
    "worst_group_decided",
]
