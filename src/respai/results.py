"""What a run found, below everything that shows it: :class:`FairnessResult`, :class:`Evaluation`.

The result types of ``respai fairness``, of the battery (:class:`BatteryResult`) and of
``respai evaluate``, and their plain views (the
JSON of ``--json`` and :meth:`FairnessResult.to_dict`, the per-group frame of
:meth:`FairnessResult.by_group`). The runners in :mod:`respai.run` build them; the
renderers, the exports, the notebook display and sealing read them. This module imports
no runner, so nothing that shows a result depends on the pipeline that made it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.battery import TestResult, Threshold
from respai.counts import Counts
from respai.decision import GroupRate
from respai.rules import RuleResult
from respai.spec import FairnessSpec, Policy, Spec, SystemInfo
from respai.tables import METRICS, CalibrationRow, GroupRow, GroupTables, Measure
from respai.types import Interval, Verdict, accepted_exit_code
from respai.version import __version__
from respai.weights import CONDITIONS as WEIGHT_CONDITIONS
from respai.weights import WeightedCounts, WeightedGroupRate

if TYPE_CHECKING:
    from respai.ll144.audit import LL144Result
    from respai.paired.audit import PairedResult
    from respai.sealing import Sealed

__all__ = [
    "BatteryResult",
    "Evaluation",
    "FairnessResult",
    "by_group_columns",
    "group_row_dict",
    "rule_dict",
]


@dataclass(frozen=True, slots=True)
class FairnessResult:
    """Everything ``respai fairness`` found.

    Attributes
    ----------
    verdict
        The worst rule verdict; INSUFFICIENT_EVIDENCE when no rule is declared.
    exit_code
        ``verdict.exit_code``: 0 PASS, 1 FAIL, 3 INSUFFICIENT_EVIDENCE, 4 MANUAL_REVIEW;
        0 also when every rule verdict worse than PASS is in ``accepted``.
    accepted
        The verdicts the person running accepted (``--accept``): INSUFFICIENT_EVIDENCE,
        MANUAL_REVIEW or both. The verdicts stay as they are; only the exit code changes.
    rules
        One :class:`~respai.rules.RuleResult` per declared rule, in declared order.
    tables
        Per-group tables per attribute and intersection name.
    calibration
        Per-group expected calibration error, when a probability column is declared.
    """

    spec: FairnessSpec
    system: SystemInfo
    source: str
    spec_sha256: str | None
    policy: Policy | None
    counts: Counts
    rules: tuple[RuleResult, ...]
    overall: GroupRow
    tables: Mapping[str, tuple[GroupRow, ...]]
    calibration: Mapping[str, tuple[CalibrationRow, ...]]
    assumptions: tuple[str, ...]
    verdict: Verdict
    #: The library :meth:`by_group` answers in: the input frame's, else pandas or pyarrow.
    backend: str | None = None
    #: The verdicts accepted by the person running (``--accept``); see :attr:`exit_code`.
    accepted: tuple[Verdict, ...] = ()
    #: The run's family under ``familywise: bonferroni`` as the record states it
    #: (:meth:`respai.run.family.Family.to_dict`: members, outside, ``alpha_per_test``,
    #: ``guarantee``); ``None`` without the key.
    familywise: Mapping[str, Any] | None = None
    #: The weights' exact sums (``data.weight``): the rules were decided on weighted
    #: rates; ``None`` without weights.
    weighted: WeightedCounts | None = None

    @property
    def exit_code(self) -> int:
        """The process exit code: the worst verdict's, or 0 when the rest is accepted."""
        verdicts = [self.verdict, *(r.verdict for r in self.rules)]
        return accepted_exit_code(verdicts, self.accepted)

    def __repr__(self) -> str:
        shown = ", ".join(f"{r.rule.id}={r.verdict.value}" for r in self.rules) or "none"
        return (
            f"<FairnessResult {self.verdict.value} (exit {self.exit_code}): "
            f"{self.counts.total} cases; rules: {shown}; tables: {list(self.tables)}>"
        )

    def _repr_html_(self) -> str:
        from respai.render.notebook import fairness_html

        return fairness_html(self)

    def by_group(self, grouping: str | tuple[str, ...] | None = None) -> Any:
        """Every count, rate and interval per group, as a DataFrame of the caller's library.

        Like fairlearn's ``MetricFrame.by_group``: one row per declared group of every
        attribute and intersection (or of ``grouping`` only, e.g. ``"sex"`` or
        ``("sex", "race")``). Columns: ``grouping``, ``group``, one column per attribute
        of the grouping asked for, ``count``, ``with_prediction``, ``missing_prediction``,
        ``positives``, and for each rate of the per-group table (``selection``,
        ``true_positive``, ``false_positive``, ``false_negative``, ``error``,
        ``precision``) the value, ``_numerator``, ``_denominator``, the 95% Wilson
        ``_lo`` and ``_hi``, and ``_undefined_reason`` (null unless the rate is
        undefined, when the value is null). The frame is pandas, polars or pyarrow: the
        library of the DataFrame evaluated; after a file (or a PySpark or other lazy
        frame), pandas when it is installed, else pyarrow.

        Raises
        ------
        KeyError
            When ``grouping`` is not an attribute or declared intersection.
        """
        from respai.engine.frames import default_backend, result_frame

        columns, kinds = by_group_columns(self, grouping)
        return result_frame(columns, kinds, self.backend or default_backend())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: finite numbers, ``null`` with a reason when undefined."""
        return _result_dict(self)


@dataclass(frozen=True, slots=True)
class BatteryResult:
    """The battery of ``evaluation:`` as measured (the battery block's result).

    Attributes
    ----------
    tests
        The battery's tests in report order.
    thresholds
        The threshold of every battery test, with its source.
    score
        The score column the AUC read (``None``: none declared).
    model
        What the record says of the model (its fingerprint, how it was loaded), or
        ``None`` when the spec declares none.
    """

    tests: tuple[TestResult, ...]
    thresholds: Mapping[str, Threshold]
    score: str | None
    model: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Everything one evaluation measured, before it is sealed.

    Attributes
    ----------
    blocks
        The result of every block the run ran (:mod:`respai.blocks`), by name, in the
        registry's order: the battery's (``evaluation``, a :class:`BatteryResult`), the
        group rules' (``fairness``, the :class:`FairnessResult` of the count pass), and
        each optional block's the spec declares (``ll144``, ``paired``).
    verdict
        The worst verdict over every block.
    """

    spec: Spec
    policy: Policy | None
    verdict: Verdict
    blocks: Mapping[str, Any]
    #: The cases file's fingerprint, hashed while the engine counted (``None``: not yet).
    dataset_fingerprint: Mapping[str, Any] | None = None
    #: Fingerprints of the other input files, by role (``demographics``, ``paired``).
    other_fingerprints: Mapping[str, Any] | None = None
    #: The plan the run was held to (``--plan``): ``{plan_id, timestamp, record_id}``.
    plan: Mapping[str, Any] | None = None
    #: Without ``--plan``: how the criteria compare with the system's newest plan.
    plan_check: Mapping[str, Any] | None = None
    #: The signed record, when the run was sealed (:func:`respai.evaluate` with ``out``).
    sealed: Sealed | None = None
    #: The verdicts accepted by the person running (``--accept``); see :attr:`exit_code`.
    accepted: tuple[Verdict, ...] = ()
    #: The run's family under ``familywise: bonferroni`` as the record states it
    #: (:meth:`respai.run.family.Family.to_dict`: members, outside, ``alpha_per_test``,
    #: ``guarantee``); ``None`` without the key.
    familywise: Mapping[str, Any] | None = None
    #: A run without a ``fairness:`` block (only ``regression:``, ``ranking:``,
    #: ``paired:`` or ``ll144:``): the rows of the cases file, counted (the record's
    #: ``counts.cases``); ``None`` when the fairness block's count pass counted them.
    rows: int | None = None
    #: Where the cases of a run without a ``fairness:`` block came from (the opened file's
    #: or frame's description); ``None`` when the fairness block's count pass says it.
    source: str | None = None

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        """Every verdict of the run: each block's tests, rules and lines."""
        from respai.blocks import block_named

        return tuple(v for n, r in self.blocks.items() for v in block_named(n).verdicts(r))

    @property
    def fairness(self) -> FairnessResult:
        """The group rules, per-group tables and counts (:class:`FairnessResult`).

        Raises
        ------
        respai.errors.SpecError
            When the spec has no ``fairness:`` block (see :attr:`has_fairness`).
        """
        found: FairnessResult | None = self.blocks.get("fairness")
        if found is None:
            _ = self.spec.fairness  # raises the spec's own message
        assert found is not None
        return found

    @property
    def has_fairness(self) -> bool:
        """Whether the run counted a ``fairness:`` block (group rules, battery, tables)."""
        return "fairness" in self.blocks

    @property
    def cases(self) -> int:
        """The cases the run counted: the fairness block's, else the cases file's rows."""
        if self.has_fairness:
            return self.fairness.counts.total
        return 0 if self.rows is None else self.rows

    @property
    def battery(self) -> tuple[TestResult, ...]:
        """The battery's tests in report order (none without a ``fairness:`` block)."""
        return () if self._battery is None else self._battery.tests

    @property
    def thresholds(self) -> Mapping[str, Threshold]:
        """The threshold used per battery test, with its source."""
        return {} if self._battery is None else self._battery.thresholds

    @property
    def score(self) -> str | None:
        """The score column the AUC read (``None``: none declared)."""
        return None if self._battery is None else self._battery.score

    @property
    def model(self) -> Mapping[str, Any] | None:
        """What the record says of the model, or ``None`` when none is declared."""
        return None if self._battery is None else self._battery.model

    @property
    def _battery(self) -> BatteryResult | None:
        found: BatteryResult | None = self.blocks.get("evaluation")
        return found

    @property
    def ll144(self) -> LL144Result | None:
        """The LL144 tables of the spec's ``ll144:`` block, when it declares one."""
        return self.blocks.get("ll144")

    @property
    def paired(self) -> PairedResult | None:
        """The paired test of the spec's ``paired:`` block, when it declares one."""
        return self.blocks.get("paired")

    def __repr__(self) -> str:
        failed = [t.key for t in self.battery if t.verdict is Verdict.FAIL]
        failed += [f"rule:{r.rule.id}" for r in self.rules if r.verdict is Verdict.FAIL]
        where = "" if self.sealed is None else f"; record {self.sealed.record_path}"
        return (
            f"<Evaluation {self.verdict.value} (exit {self.exit_code}): "
            f"{self.cases} cases, {len(self.battery)} tests, {len(self.rules)} rules; "
            f"failed: {failed or 'none'}{where}>"
        )

    def _repr_html_(self) -> str:
        from respai.render.notebook import evaluation_html

        return evaluation_html(self)

    def by_group(self, grouping: str | tuple[str, ...] | None = None) -> Any:
        """Every count, rate and interval per group, as a DataFrame.

        The same frame as :meth:`respai.results.FairnessResult.by_group`.
        """
        return self.fairness.by_group(grouping)

    @property
    def record_path(self) -> Path | None:
        """Where the signed record was written (``None``: not sealed)."""
        return None if self.sealed is None else self.sealed.record_path

    @property
    def exit_code(self) -> int:
        """The process exit code: the worst verdict's, or 0 when the rest is accepted.

        With ``accepted`` (``--accept``), the exit code is that of the worst verdict that
        is not accepted, 0 when every verdict worse than PASS is accepted; FAIL never is.
        """
        if not self.accepted:
            return self.verdict.exit_code
        return accepted_exit_code([self.verdict, *self.verdicts], self.accepted)

    @property
    def counts(self) -> Counts:
        """The integer counts everything was computed from."""
        return self.fairness.counts

    @property
    def rules(self) -> tuple[RuleResult, ...]:
        """The declared group rules' results (none without a ``fairness:`` block)."""
        return self.fairness.rules if self.has_fairness else ()


def by_group_columns(
    res: FairnessResult, grouping: str | tuple[str, ...] | None = None
) -> tuple[dict[str, list[Any]], dict[str, str]]:
    """The columns of :meth:`FairnessResult.by_group` and their kinds (int, float, str)."""
    names = list(res.tables) if grouping is None else [GroupTables.name_of(grouping)]
    groupings = {g.name: g for g in res.counts.groupings.values()}
    for name in names:
        if name not in groupings:
            raise KeyError(f"no grouping {name!r}; the groupings are {list(groupings)}")
    attrs = list(groupings[names[0]].attributes) if grouping is not None else []
    kinds: dict[str, str] = {"grouping": "str", "group": "str"}
    kinds |= {a: "str" for a in attrs if a not in kinds}
    for c in ("count", "with_prediction", "missing_prediction", "positives"):
        kinds[c] = "int"
    for rate in METRICS:
        kinds |= {rate: "float", f"{rate}_numerator": "int", f"{rate}_denominator": "int"}
        kinds |= {f"{rate}_lo": "float", f"{rate}_hi": "float"}
        kinds[f"{rate}_undefined_reason"] = "str"
    columns: dict[str, list[Any]] = {c: [] for c in kinds}
    for name in names:
        for row in res.tables[name]:
            values: dict[str, Any] = {"grouping": name, "group": row.label}
            values |= dict(zip(attrs, row.key, strict=False))
            values |= {"count": row.count, "with_prediction": row.with_prediction}
            values |= {"missing_prediction": row.missing_prediction}
            values["positives"] = row.positives
            for rate, m in row.metrics.items():
                values[rate] = m.value
                values[f"{rate}_numerator"] = m.numerator
                values[f"{rate}_denominator"] = m.denominator
                values[f"{rate}_lo"] = None if m.interval is None else m.interval.lo
                values[f"{rate}_hi"] = None if m.interval is None else m.interval.hi
                values[f"{rate}_undefined_reason"] = (
                    None if m.undefined is None else m.undefined.reason
                )
            for c in columns:
                columns[c].append(values.get(c))
    return columns, kinds


# --- JSON ------------------------------------------------------------------------------


def _measure(m: Measure) -> dict[str, Any]:
    out: dict[str, Any] = {
        "numerator": m.numerator,
        "denominator": m.denominator,
        "value": m.value,
        "interval": Interval.json_or_none(m.interval),
    }
    if m.undefined is not None:
        out["undefined_reason"] = m.undefined.reason
    return out


def group_row_dict(row: GroupRow) -> dict[str, Any]:
    """One row of the per-group table as JSON."""
    return {
        "group": row.label,
        "key": list(row.key),
        "count": row.count,
        "with_prediction": row.with_prediction,
        "missing_prediction": row.missing_prediction,
        "positives": row.positives,
        "metrics": {name: _measure(m) for name, m in row.metrics.items()},
    }


def rule_dict(r: RuleResult, *, group_rows: bool = True) -> dict[str, Any]:
    """A rule's verdict, threshold, left-out accounting and groups as JSON.

    With ``group_rows=False`` the ``groups`` list is left empty: a record over a compact
    grouping derives those rows from the counts (:mod:`respai.record.compact`).
    """
    rule = r.rule
    groups = list(r.groups)  # read once: many groups are kept as columns (GroupRates)
    threshold: dict[str, Any]
    if rule.max_group_gap is not None:
        threshold = {"max_group_gap": rule.max_group_gap, "comparison": "every gap <="}
    elif rule.min_group_ratio is not None:
        threshold = {"min_group_ratio": rule.min_group_ratio, "comparison": "every ratio >="}
    elif rule.worst_min is not None:
        threshold = {"worst_group_min": rule.worst_min, "comparison": "every group >="}
    else:
        threshold = {"worst_group_max": rule.worst_max, "comparison": "every group <="}
    threshold["source"] = rule.threshold_source
    if rule.reference is not None:  # the group the others are compared with
        threshold["reference"] = rule.reference_label
    extra: dict[str, Any] = {}
    if r.ratio_bounds is not None:  # bounds on the smallest ratio; hi None: undefined
        extra["ratio_bounds"] = {"lo": r.ratio_bounds[0], "hi": r.ratio_bounds[1]}
    if r.parts:  # equalized_odds: the false positive and false negative decisions
        extra["parts"] = [rule_dict(part, group_rows=group_rows) for part in r.parts]
    return {
        **extra,
        "id": rule.id,
        "rate": rule.rate_name,
        "attribute": list(rule.attributes),
        "verdict": r.verdict.value,
        "reason_code": r.reason_code,
        "reason": r.reason,
        "threshold": threshold,
        "alpha": r.alpha,
        "alpha_per_group": r.alpha_per_group,
        "method": r.method,
        "fail_alpha": r.fail_alpha,
        "fail_alpha_per_group": r.fail_alpha_per_group,
        "familywise": None
        if r.family == 1
        else {"method": "bonferroni", "tests": r.family, "alpha_per_test": r.alpha},
        "guarantee": r.guarantee,
        "interval_method": r.interval_method,
        "gap_bounds": None
        if r.gap_bounds is None
        else {"lo": r.gap_bounds[0], "hi": r.gap_bounds[1]},
        "min_cell": r.min_cell,
        "small_cells": [
            {
                "group": g.label,
                "with_prediction": g.with_prediction,
                "verdict": Verdict.INSUFFICIENT_EVIDENCE.value,
            }
            for g in groups
            if g.small
        ],
        "left_out": {
            "total": sum(r.left_out.values()),
            "share": r.left_out_share,
            "max_left_out": r.max_left_out,
            "max_left_out_source": r.max_left_out_source,
            "by_reason": dict(r.left_out),
        },
        "missing_decisions": {
            "total": sum(g.missing for g in groups),
            "max_missing": r.max_missing,
            "max_missing_source": r.max_missing_source,
            "over_max_missing": list(r.over_missing),
        },
        "groups": [_group_dict(g) for g in groups] if group_rows else [],
        **(
            {
                "weights": {
                    "decided_on": "weighted rates",
                    "interval": "korn-graubard",
                    "conditions": WEIGHT_CONDITIONS,
                }
            }
            if r.weighted
            else {}
        ),
    }


def _group_dict(g: GroupRate) -> dict[str, Any]:
    """One group's entry in a rule's details; a weighted group shows both rates.

    ``rate`` and ``interval`` are the unweighted ones (of the counts); under ``weighted``
    the weighted rate the rule was decided on, its Korn-Graubard interval and ``n_eff``.
    """
    rate = g.plain_rate if isinstance(g, WeightedGroupRate) else g.rate
    interval = g.plain_interval if isinstance(g, WeightedGroupRate) else g.interval
    out: dict[str, Any] = {
        "group": g.label,
        "key": list(g.key),
        "cases": g.cases,
        "with_prediction": g.with_prediction,
        "events": g.events,
        "missing_prediction": g.missing,
        "rate": rate,
        **(
            {"rate_undefined_reason": "no case in the group has a prediction"}
            if rate is None
            else {}
        ),
        "interval": Interval.json_or_none(interval),
        "small_cell": g.small,
    }
    if isinstance(g, WeightedGroupRate):
        out["weighted"] = g.weighted_dict()
    return out


def _with_largest_gap(rule: dict[str, Any]) -> dict[str, Any]:
    """A rule's JSON with ``largest_gap``: its gap bounds as the terminal shows them.

    ``gap_bounds`` (as in the record) is the raw bound the verdict was decided from, whose
    lower end may be negative; ``largest_gap`` is ``(max(lo, 0), hi)``
    (:func:`respai.render.gap.shown_gap_bounds`), ``null`` for a rule with no gap.
    """
    from respai.render.gap import shown_gap_bounds

    shown = shown_gap_bounds(rule.get("gap_bounds"))
    largest = None if shown is None else {"lo": shown[0], "hi": shown[1]}
    return {**rule, "largest_gap": largest}


def _result_dict(res: FairnessResult) -> dict[str, Any]:
    spec = res.spec
    return {
        "kind": "respai.fairness",
        "engine": f"respai-evidence-engine/{__version__}",
        "name": spec.name,
        "source": res.source,
        "spec_sha256": res.spec_sha256,
        "policy": None
        if res.policy is None
        else {
            "path": str(res.policy.path) if res.policy.path else None,
            "sha256": res.policy.sha256,
        },
        "verdict": res.verdict.value,
        "exit_code": res.exit_code,
        "rules": [_with_largest_gap(rule_dict(r)) for r in res.rules],
        "cases": res.counts.total,
        "unit": spec.unit,
        "settings": {
            "alpha": spec.alpha,
            "min_cell": spec.min_cell,
            "max_left_out": spec.max_left_out,
            "max_missing": spec.max_missing,
            "calibration_bins": spec.calibration_bins if spec.probability else None,
            "sources": dict(spec.sources),
            "accepted": [v.value for v in res.accepted],
            "favorable": spec.favorable,
            "orientation": spec.orientation,
        },
        "overall": group_row_dict(res.overall),
        "tables": {
            name: {
                "attributes": list(g.attributes),
                "rows": [group_row_dict(row) for row in res.tables[name]],
                "left_out": {"total": g.left_out_total, "by_reason": dict(g.left_out)},
            }
            for name, g in ((g.name, g) for g in res.counts.groupings.values())
        },
        "calibration": {
            name: [
                {
                    "group": row.label,
                    "with_probability": row.with_probability,
                    "without_probability": row.without_probability,
                    "ece": row.ece,
                    **({"undefined_reason": row.undefined.reason} if row.undefined else {}),
                }
                for row in rows
            ]
            for name, rows in res.calibration.items()
        },
        "calibration_note": "reported per group, never decides a verdict"
        if res.calibration
        else None,
        "assumptions": list(res.assumptions),
        **({"weights": res.weighted.fingerprint()} if res.weighted is not None else {}),
    }
