"""Run the declared group rules: spec + data -> counts -> tables -> verdicts.

This is the orchestration behind ``respai fairness`` and :func:`respai.evaluate_fairness`.
It prints nothing; the CLI and the renderers present the :class:`FairnessResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai import __version__
from respai.counts import Counts
from respai.engine.frames import frame_backend
from respai.load import CountPass, load_counts, open_inputs
from respai.rules import RuleResult, evaluate_rule
from respai.spec import (
    FairnessSpec,
    Policy,
    Spec,
    SystemInfo,
    apply_policy,
    load_policy,
    load_spec,
    parse_fairness,
    parse_policy,
)
from respai.tables import (
    METRICS,
    CalibrationRow,
    GroupRow,
    GroupTables,
    Measure,
    calibration_table,
    group_table,
    overall_row,
)
from respai.types import Interval, Verdict, worst

__all__ = ["FairnessResult", "by_group_columns", "evaluate_fairness", "run_rules", "spec_of"]

INDEPENDENCE = (
    "Intervals assume every case is a different, independent person; no unit column was "
    "declared, so this was not checked. Declare unit: <person id column> to have it checked."
)
SAMPLING_ONLY = (
    "Intervals reflect sampling uncertainty only: not label error, not a population that "
    "has shifted since the data was collected."
)
LABELS = "Parity is measured against the labels supplied; biased labels are not detected."
DECLARED_ONLY = (
    "Only the declared groups are evaluated; each rule reads only the cases whose own "
    "attributes carry a declared value, which may be a different population from the file."
)


@dataclass(frozen=True, slots=True)
class FairnessResult:
    """Everything ``respai fairness`` found.

    Attributes
    ----------
    verdict
        The worst rule verdict; INSUFFICIENT_EVIDENCE when no rule is declared.
    exit_code
        ``verdict.exit_code``: 0 PASS, 1 FAIL, 3 INSUFFICIENT_EVIDENCE, 4 MANUAL_REVIEW.
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

    @property
    def exit_code(self) -> int:
        """The process exit code of this result."""
        return self.verdict.exit_code

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


def evaluate_fairness(
    spec: FairnessSpec | Spec | Mapping[str, Any] | str | Path,
    data: Any = None,
    *,
    policy: Policy | Mapping[str, Any] | str | Path | None = None,
    engine: str = "duckdb",
) -> FairnessResult:
    """Evaluate the declared group rules on a file or a DataFrame.

    Parameters
    ----------
    spec
        A spec file path, a parsed :class:`~respai.spec.Spec`, a
        :class:`~respai.spec.FairnessSpec`, or a dict shaped like the ``fairness:``
        block (or like a whole spec file with a ``fairness:`` key).
    data
        A pandas, polars or pyarrow DataFrame (or a lazy frame narwhals supports). When
        omitted, the spec's ``cases`` file is read.
    policy
        A policy file path, a dict, or a :class:`~respai.spec.Policy` whose thresholds
        override the spec's.
    engine
        Where the count pass over a cases file runs: ``"duckdb"`` (embedded, out of
        core) or ``"spark"``. A DataFrame is always counted by its own engine.

    Returns
    -------
    FairnessResult
        Tables, rule verdicts and the exit code.

    Raises
    ------
    respai.errors.SpecError
        When the spec or policy does not validate.
    respai.errors.InputError
        When the data does not fit the spec.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [1, 0, 1, 0] * 50, "p": [1, 0, 0, 0] * 50,
    ...                    "sex": ["f", "f", "m", "m"] * 50})
    >>> result = evaluate_fairness(
    ...     {"label": "y", "prediction": "p", "attributes": {"sex": ["f", "m"]},
    ...      "rules": [{"id": "fnr", "rate": "false_negative", "attribute": "sex",
    ...                 "max_group_gap": 0.1}]},
    ...     df)
    >>> result.verdict.value, result.exit_code
    ('FAIL', 1)
    """
    return run_rules(spec_of(spec), _as_policy(policy), data, engine_name=engine)


def run_rules(
    parsed: Spec,
    pol: Policy | None,
    data: Any = None,
    *,
    score: str | None = None,
    engine_name: str = "duckdb",
    count: CountPass | None = None,
) -> FairnessResult:
    """Load, count and decide the declared rules of an already parsed spec.

    ``score`` asks the load for the AUC's rank sums too (used by the battery);
    ``engine_name`` runs the count pass over a file on ``"duckdb"`` or ``"spark"``;
    ``count`` replaces the count pass (see :func:`respai.load.load_counts`).
    """
    fairness = apply_policy(parsed.fairness, pol)
    if data is None:  # the spec's files, the self-identification file joined when declared
        data = open_inputs(parsed, engine_name=engine_name, score=score).decided
    loaded = load_counts(fairness, data, score=score, engine_name=engine_name, count=count)
    counts = loaded.counts
    rules = tuple(evaluate_rule(rule, fairness, counts) for rule in fairness.rules)
    tables = GroupTables({g.name: group_table(g) for g in counts.groupings.values()})
    calibration = GroupTables(
        {g.name: calibration_table(g) for g in counts.groupings.values() if g.calibration}
    )
    assumptions = [SAMPLING_ONLY, LABELS, DECLARED_ONLY]
    if fairness.unit is None:
        assumptions.insert(0, INDEPENDENCE)
    if not rules:
        assumptions.append("No rule is declared, so the verdict cannot be PASS.")
    return FairnessResult(
        spec=fairness,
        system=parsed.system,
        source=loaded.source,
        spec_sha256=parsed.sha256,
        policy=pol,
        counts=counts,
        rules=rules,
        overall=overall_row(counts),
        tables=tables,
        calibration=calibration,
        assumptions=tuple(assumptions),
        verdict=worst(r.verdict for r in rules),
        backend=frame_backend(data),
    )


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


def spec_of(spec: FairnessSpec | Spec | Mapping[str, Any] | str | Path) -> Spec:
    """A parsed spec from a path, a dict (a whole spec or its ``fairness:`` block) or types.

    Raises
    ------
    respai.errors.SpecError
        When the spec does not validate.
    """
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, FairnessSpec):
        return Spec(path=None, sha256=None, system=SystemInfo(), fairness=spec)
    if isinstance(spec, str | Path):
        return load_spec(spec)
    from respai.spec import parse_spec

    if "fairness" in spec:
        return parse_spec(spec, base_dir=Path.cwd(), origin="spec")
    return Spec(
        path=None,
        sha256=None,
        system=SystemInfo(),
        fairness=parse_fairness(spec, base_dir=Path.cwd(), origin="spec"),
    )


def _as_policy(policy: Policy | Mapping[str, Any] | str | Path | None) -> Policy | None:
    if policy is None or isinstance(policy, Policy):
        return policy
    if isinstance(policy, str | Path):
        return load_policy(policy)
    return parse_policy(policy)


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


def rule_dict(r: RuleResult) -> dict[str, Any]:
    """A rule's verdict, threshold, left-out accounting and groups as JSON."""
    rule = r.rule
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
        extra["parts"] = [rule_dict(part) for part in r.parts]
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
        "interval_method": "clopper-pearson, Bonferroni over the rule's declared groups; "
        "missing predictions counted at their worst",
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
            for g in r.groups
            if g.small
        ],
        "left_out": {
            "total": sum(r.left_out.values()),
            "share": r.left_out_share,
            "max_left_out": r.max_left_out,
            "max_left_out_source": r.max_left_out_source,
            "by_reason": dict(r.left_out),
        },
        "groups": [
            {
                "group": g.label,
                "key": list(g.key),
                "cases": g.cases,
                "with_prediction": g.with_prediction,
                "events": g.events,
                "missing_prediction": g.missing,
                "rate": g.rate,
                **(
                    {"rate_undefined_reason": "no case in the group has a prediction"}
                    if g.rate is None
                    else {}
                ),
                "interval": Interval.json_or_none(g.interval),
                "small_cell": g.small,
            }
            for g in r.groups
        ],
    }


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
        "rules": [rule_dict(r) for r in res.rules],
        "cases": res.counts.total,
        "unit": spec.unit,
        "settings": {
            "alpha": spec.alpha,
            "min_cell": spec.min_cell,
            "max_left_out": spec.max_left_out,
            "calibration_bins": spec.calibration_bins if spec.probability else None,
            "sources": dict(spec.sources),
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
    }
