"""The evidence record's shape as types, and the one builder every command uses.

The record (the in-toto Statement's predicate) is JSON; these TypedDicts say what each
part holds, so the code that fills a record is checked by mypy and the JSON Schema
(``record.schema.json``) is checked against them by the tests: the keys of each details
type below are the ``properties`` of its ``$defs`` entry, and its required keys are the
schema's ``required``. :func:`test_record` builds every test record (battery tests, group
rules, LL144 categories), :func:`build_predicate` every record, so there is one place
that decides the record's layout.

Like the rest of :mod:`respai.record`, this module imports no statistics, rules or
dataframe code: the caller turns its results into these plain types. (No ``from
__future__ import annotations`` here: TypedDict reads ``NotRequired`` from the evaluated
annotations.)
"""

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

__all__ = [
    "DETAILS_TYPES",
    "ENGINE_NAME",
    "AccuracyDetails",
    "AucDetails",
    "ClassBalanceDetails",
    "CompletenessDetails",
    "EngineInfo",
    "GroupRuleDetails",
    "GroupsDerived",
    "IntervalJSON",
    "LL144Details",
    "MissingDecisionsDetails",
    "MonitorRuleDetails",
    "PairedDetails",
    "Predicate",
    "RankingDetails",
    "RateRow",
    "RegressionDetails",
    "SpreadDetails",
    "StabilityDetails",
    "TestRecord",
    "ValueRangeJSON",
    "build_predicate",
    "test_record",
]

ENGINE_NAME = "respai-evidence-engine"
"""The engine name every record carries beside its version."""

Verdict = Literal["PASS", "FAIL", "INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW"]


class IntervalJSON(TypedDict):
    """An interval as every record and JSON output writes it (``Interval.to_json``)."""

    lo: float
    hi: float
    method: str
    confidence: float


GroupsDerived = TypedDict("GroupsDerived", {"from": str, "groups": int, "note": NotRequired[str]})
"""Where a compact grouping's per-group rows derive from: ``from`` is the counts' path
(``counts.groupings.<name>``), ``groups`` their number (schema_version 1.1)."""


# -- details per test kind ----------------------------------------------------------------


class AccuracyDetails(TypedDict):
    """``accuracy``: correct decisions over cases with a prediction."""

    correct: int
    with_prediction: int
    missing_prediction: int


class AucDetails(TypedDict):
    """``auc``: the overall AUC and each group's, from the rank sums in ``counts``."""

    overall: dict[str, Any]
    per_group: dict[str, list[dict[str, Any]]]
    cases_without_score: int
    #: the intervals' ``method`` (``"widest-of-newcombe-delong-logit-bound"`` from engine
    #: 0.4.0, ``"newcombe-score"`` in 0.3.0; absent before, when they were DeLong's) and
    #: where it is defined
    interval_method: NotRequired[str]
    interval_reference: NotRequired[str]
    #: the fewest cases of each label whose AUC the verdict reads
    minimum_per_label: NotRequired[int]
    #: per compact grouping (schema_version 1.1), where its per-group AUCs derive from
    per_group_derived: NotRequired[dict[str, GroupsDerived]]


class RateRow(TypedDict):
    """One group's rate in a spread test: counts, rate and both intervals."""

    group: str
    cases: int
    numerator: int
    denominator: int
    rate: float | None
    interval_95: IntervalJSON | None
    #: Clopper-Pearson at 1 - alpha/G, missing decisions at their worst (from engine
    #: 0.3.0; Wilson over the cases with a decision before)
    interval_simultaneous: IntervalJSON | None
    #: the rate's population without a decision, the rate with them all non-events
    #: (``lo``) and all events (``hi``), and whether the group is under min_cell (from
    #: engine 0.3.0; absent before)
    missing_decisions: NotRequired[int]
    rate_range: NotRequired[dict[str, float] | None]
    small_cell: NotRequired[bool]


class SpreadDetails(TypedDict):
    """``impact_ratio``, ``selection_rate_diff``, ``equal_opportunity_diff``."""

    groups: list[RateRow]
    rate: str
    min_group: NotRequired[str | None]
    max_group: NotRequired[str | None]
    #: the min_cell the groups were held to and the groups under it (from engine 0.3.0)
    min_cell: NotRequired[int]
    small_cells: NotRequired[list[str]]
    #: the share of a group's cases without a decision above which the test cannot pass,
    #: and the groups over it (from engine 0.4.0; absent before)
    max_missing: NotRequired[float]
    over_max_missing: NotRequired[list[str]]
    #: over a compact grouping (schema_version 1.1): ``groups`` is empty, the rows
    #: derive from the counts this points to
    groups_derived: NotRequired[GroupsDerived]


class CompletenessDetails(TypedDict):
    """``completeness``: empty cells of the evaluation table, per column."""

    cells: int
    columns: int
    empty_cells: int
    empty_by_column: dict[str, int]


class MissingDecisionsDetails(TypedDict):
    """``missing_decisions``: cases without a decision (prediction), by label."""

    cases: int
    without_decision: int
    without_decision_label_1: int
    without_decision_label_0: int


class ClassBalanceDetails(TypedDict):
    """``class_balance``: cases labelled 0 and 1."""

    labelled_0: int
    labelled_1: int


class StabilityDetails(TypedDict, total=False):
    """``perturbation_stability``: the trials and shares (empty without model access)."""

    stable: int
    cases: int
    share: float | None
    interval_95: IntervalJSON | None
    per_group: dict[str, list[dict[str, Any]]]
    features: list[str]
    perturbed_columns: list[str]
    zero_sd_columns: list[str]
    unperturbed_columns: list[str]
    noise_fraction_of_sd: float
    trials: int
    seed: int
    block_rows: int
    rng: str
    numpy_version: str
    column_stats: list[dict[str, Any]]
    model: dict[str, Any] | None


class GroupRuleDetails(TypedDict):
    """``group_rule``: a declared rule's groups, bounds, left-out cases and threshold."""

    id: str
    rate: str
    attribute: list[str]
    alpha: float
    alpha_per_group: float
    min_cell: int
    interval_method: str
    threshold: dict[str, Any]
    groups: list[dict[str, Any]]
    gap_bounds: dict[str, float] | None
    small_cells: list[dict[str, Any]]
    left_out: dict[str, Any]
    reason: str
    reason_code: str
    verdict: str
    #: a min_group_ratio rule: bounds on the smallest ratio (``hi`` null when undefined)
    ratio_bounds: NotRequired[dict[str, float | None]]
    #: an equalized_odds rule: its false positive and false negative decisions
    parts: NotRequired[list[dict[str, Any]]]
    #: the cases without a prediction, max_missing, where it came from, and the groups
    #: over it (from engine 0.4.0; absent before)
    missing_decisions: NotRequired[dict[str, Any]]
    #: how a PASS is decided: ``simultaneous`` or ``pairwise`` (from engine 0.4.0)
    method: NotRequired[str]
    #: the level of a wrong FAIL and each group's share of it (from engine 0.4.0)
    fail_alpha: NotRequired[float]
    fail_alpha_per_group: NotRequired[float]
    #: run-level family-wise control: ``{"method": "bonferroni", "rules": m}`` or null
    familywise: NotRequired[dict[str, Any] | None]
    #: what the verdict promises, per rule (from engine 0.4.0)
    guarantee: NotRequired[str]
    #: a rule decided on weighted rates (``data.weight``): ``decided_on``, the interval's
    #: name and its conditions; each group then has a ``weighted`` part
    weights: NotRequired[dict[str, Any]]
    #: over a compact grouping (schema_version 1.1): ``groups`` is empty, the rows
    #: derive from the counts this points to
    groups_derived: NotRequired[GroupsDerived]


class LL144Details(TypedDict):
    """``ll144_impact_ratio``: one category of one LL144 table, and its finding."""

    table: str
    category: str
    sex: str | None
    race: str | None
    applicants: int
    selected: NotRequired[int]
    scored_above_median: NotRequired[int]
    rate: float | None
    rate_interval: IntervalJSON | None
    share_of_known: float | None
    excluded: bool
    compared_with: str | None
    screening_line: float
    below_screening_line: bool | None
    finding: str | None
    finding_sentence: str | None
    p_value_fisher_one_sided: float | None
    #: the p-value Holm-adjusted over the audit's ``comparisons``, which decides
    #: ``significant`` (from engine 0.3.0; absent before, when the raw one did)
    p_value_adjusted: NotRequired[float | None]
    adjustment: NotRequired[str | None]
    comparisons: NotRequired[int | None]
    significant: bool | None
    #: power of the unadjusted test at alpha (post-hoc; it never decides in a family)
    power: float | None
    n_for_power: int | None
    #: Holm's level for this finding, the power at it, and the design figure at alpha / m
    #: (from engine 0.4.0; absent before)
    holm_level: NotRequired[float | None]
    power_at_holm_level: NotRequired[float | None]
    design_level: NotRequired[float | None]
    design_n_per_category: NotRequired[int | None]


class RankingDetails(TypedDict):
    """``ranking_rule``: one rule of the ``ranking:`` block over ranked lists."""

    rule: str
    metric: str
    k: int | None
    attribute: str
    limit_kind: str
    limit: float
    alpha: float
    alpha_source: str
    confidence: float
    weighted: bool
    #: one row per declared group: the weighted value, the unweighted value, items, lists,
    #: missing, se, df, interval, evidenced, over_max_missing
    groups: list[dict[str, Any]]
    #: the rule's bounds (largest gap, smallest ratio or worst group), ``None`` without
    bounds: list[float | None] | None
    reason_code: str
    min_cell: int
    min_lists: int
    max_missing: float
    guarantee: str
    conditions: list[str]


class PairedDetails(TypedDict):
    """``paired_difference``: one variant against the reference in a paired test."""

    reference: str
    variant: str
    n_pairs: int
    both: int
    b: int
    c: int
    neither: int
    #: rows of the reference or the variant left out, by reason: ``duplicate_variant``,
    #: ``missing_outcome``, ``incomplete_pair``
    left_out: dict[str, int]
    reference_rate: float | None
    variant_rate: float | None
    difference: float | None
    interval: IntervalJSON | None
    p_value: float
    p_one_sided: float
    p_adjusted: float
    adjustment: str
    comparisons: int
    max_difference: float
    alpha: float
    alpha_source: str


class RegressionDetails(TypedDict):
    """``regression_rule``: a metric of a numeric target and prediction across groups."""

    rule: str
    metric: str
    kind: str
    limit: float
    alpha: float
    alpha_per_group: float
    interval_method: str
    guarantee: str
    missing_policy: str
    weighted: bool
    bounds: list[float] | None
    groups: list[dict[str, Any]]
    left_out: dict[str, int]
    small_groups: list[str]
    over_max_missing: list[str]
    min_cell: int
    max_missing: float


class MonitorRuleDetails(TypedDict):
    """``monitor_rule``: one rule at one look of a monitoring stream (cumulative counts)."""

    stream: str
    look: int
    rule: str
    rate: str
    attribute: list[str]
    alpha: float
    #: per group: ``group``, ``cases``, ``events``, ``missing``, ``rate`` and ``interval``
    #: (cumulative), and ``batch`` (the look's own batch, its rate and one-off interval)
    groups: list[dict[str, Any]]
    gap_bounds: dict[str, float] | None
    changed_from: str | None
    #: the verdict of the cumulative confidence sequences alone (engine 0.4.0)
    cumulative_verdict: NotRequired[str | None]
    #: the change detectors: method, threshold, guarantee, per detector statistic, alarm
    change: NotRequired[dict[str, Any] | None]
    #: the rule decided on the last ``--window`` batches, or ``None``
    window: NotRequired[dict[str, Any] | None]


DETAILS_TYPES: Mapping[str, type] = {
    "accuracy": AccuracyDetails,
    "auc": AucDetails,
    "impact_ratio": SpreadDetails,
    "selection_rate_diff": SpreadDetails,
    "equal_opportunity_diff": SpreadDetails,
    "completeness": CompletenessDetails,
    "class_balance": ClassBalanceDetails,
    "perturbation_stability": StabilityDetails,
    "missing_decisions": MissingDecisionsDetails,
    "group_rule": GroupRuleDetails,
    "ll144_impact_ratio": LL144Details,
    "paired_difference": PairedDetails,
    "regression_rule": RegressionDetails,
    "ranking_rule": RankingDetails,
    "monitor_rule": MonitorRuleDetails,
}
"""The details type of each test kind (``test_id``); the schema has one ``$defs`` each."""


# -- records -------------------------------------------------------------------------------


class ValueRangeJSON(TypedDict):
    """A value over every way the cases without a decision could have gone."""

    worst: float
    best: float
    cases_without_decision: int


class TestRecord(TypedDict):
    """One test's result, as the record carries it (before chaining adds the ids)."""

    record_type: Literal["test"]
    test_id: str
    test_key: str
    grouping: list[str] | None
    value: float | None
    value_meaning: NotRequired[str]
    interval: IntervalJSON | None
    #: for a test that reads decisions (from engine 0.3.0): the verdict reads ``worst``
    value_range: NotRequired[ValueRangeJSON]
    threshold: dict[str, Any] | None
    verdict: Verdict
    uncertain: NotRequired[bool]
    reason: str
    method: str
    details: Mapping[str, Any]
    supports: list[dict[str, Any]]
    undefined_reason: NotRequired[str]


class EngineInfo(TypedDict):
    """The engine that made a record: name, version and the Python it ran on."""

    name: str
    version: str
    python: str


class Predicate(TypedDict):
    """A whole record (the Statement's predicate), before :func:`~respai.record.seal`."""

    schema_version: str
    run_id: str
    timestamp: str
    engine: EngineInfo
    key_id: str
    kind: NotRequired[str]
    system: dict[str, Any]
    fingerprints: dict[str, Any]
    #: absent from a record that measures nothing (a plan, ``kind`` ``respai.plan``)
    verdict: NotRequired[Verdict]
    records: list[dict[str, Any]]
    counts: dict[str, Any]
    control_mapping: dict[str, Any]
    claims: dict[str, list[str]]
    caveats: list[str]
    pack: NotRequired[dict[str, Any]]


def test_record(
    *,
    test_id: str,
    test_key: str,
    grouping: Sequence[str] | None,
    value: float | None,
    interval: IntervalJSON | Mapping[str, Any] | None,
    threshold: Mapping[str, Any] | None,
    verdict: str,
    reason: str,
    method: str,
    details: Mapping[str, Any],
    supports: Sequence[Mapping[str, Any]],
    undefined_reason: str | None = None,
    uncertain: bool | None = None,
    value_meaning: str | None = None,
    value_range: ValueRangeJSON | Mapping[str, Any] | None = None,
) -> TestRecord:
    """One test record; the only constructor of one.

    A ``value`` of ``None`` must come with its ``undefined_reason`` (an undefined result
    is ``null`` with a reason, never 0 or NaN).

    Raises
    ------
    ValueError
        When ``value`` is ``None`` and no ``undefined_reason`` is given.
    """
    if value is None and not undefined_reason:
        raise ValueError(f"test {test_key}: an undefined value needs its reason")
    rec: dict[str, Any] = {
        "record_type": "test",
        "test_id": test_id,
        "test_key": test_key,
        "grouping": None if grouping is None else list(grouping),
        "value": value,
    }
    if value_meaning is not None:
        rec["value_meaning"] = value_meaning
    rec["interval"] = None if interval is None else dict(interval)
    if value_range is not None:
        rec["value_range"] = dict(value_range)
    rec |= {
        "threshold": None if threshold is None else dict(threshold),
        "verdict": verdict,
    }
    if uncertain is not None:
        rec["uncertain"] = uncertain
    rec |= {
        "reason": reason,
        "method": method,
        "details": dict(details),
        "supports": [dict(s) for s in supports],
    }
    if undefined_reason is not None:
        rec["undefined_reason"] = undefined_reason
    return rec  # type: ignore[return-value]


def build_predicate(
    *,
    run_id: str,
    timestamp: str,
    engine_version: str,
    python: str,
    key_id: str,
    system: Mapping[str, Any],
    fingerprints: Mapping[str, Any],
    run_start: Mapping[str, Any],
    tests: Sequence[TestRecord],
    verdict: str | None,
    exit_code: int,
    counts: Mapping[str, Any],
    control_mapping: Mapping[str, Any],
    claims: Mapping[str, Sequence[str]],
    caveats: Sequence[str],
    kind: str | None = None,
    extra: Mapping[str, Any] | None = None,
    schema_version: str | None = None,
) -> Predicate:
    """A whole record from its parts: the one place that lays a record out.

    ``run_start`` holds the run's own fields (spec, policy, settings, per-block details);
    ``planned_tests`` is filled in from ``tests``, and the ``run_end`` record from
    ``verdict`` and ``exit_code``. ``kind`` names a focused run (``"respai.ll144"``);
    ``extra`` adds top-level fields the schema allows (``pack``). A ``verdict`` of
    ``None`` (a record that measures nothing, such as a plan) leaves it out of the record
    and its ``run_end``. ``schema_version`` is ``"1.0"`` unless given (``"1.1"`` for a
    record with a compact grouping, :mod:`respai.record.compact`).
    """
    start: dict[str, Any] = {"record_type": "run_start"}
    if kind is not None:
        start["kind"] = kind
    start["planned_tests"] = [t["test_key"] for t in tests]
    start |= dict(run_start)
    end: dict[str, Any] = {"record_type": "run_end"}
    if verdict is not None:
        end["verdict"] = verdict
    end["exit_code"] = exit_code
    out: dict[str, Any] = {
        "schema_version": schema_version or "1.0",
        "run_id": run_id,
        "timestamp": timestamp,
        "engine": {"name": ENGINE_NAME, "version": engine_version, "python": python},
        "key_id": key_id,
    }
    if kind is not None:
        out["kind"] = kind
    out |= {
        "system": dict(system),
        "fingerprints": dict(fingerprints),
    }
    if verdict is not None:
        out["verdict"] = verdict
    out |= {
        "records": [start, *(dict(t) for t in tests), end],
        "counts": dict(counts),
        "control_mapping": dict(control_mapping),
        "claims": {k: list(v) for k, v in claims.items()},
        "caveats": list(caveats),
    }
    if extra:
        out |= dict(extra)
    return out  # type: ignore[return-value]
