"""Run the declared group rules: spec + data -> counts -> tables -> verdicts.

This is the orchestration behind ``respai fairness`` and :func:`respai.evaluate_fairness`.
It prints nothing; the CLI and the renderers present the :class:`~respai.results.FairnessResult`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from respai.engine.frames import frame_backend
from respai.errors import InputError
from respai.load import CountPass, load_counts, open_inputs
from respai.results import FairnessResult
from respai.rules import evaluate_rule
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
    GroupTables,
    calibration_table,
    group_table,
    overall_row,
)
from respai.types import Verdict, accepted_verdicts, worst

__all__ = ["accepted_of", "evaluate_fairness", "run_rules", "spec_of"]

INDEPENDENCE = (
    "Intervals assume every case is a different, independent person; no unit column was "
    "declared, so this was not checked. Declare unit: <person id column> to have it checked."
)
SAMPLING_ONLY = (
    "Intervals reflect sampling uncertainty only: not label error, not a population that "
    "has shifted since the data was collected."
)
LABELS = "Parity is measured against the labels supplied; biased labels are not detected."
WEIGHTED = (
    "The group rules are decided on rates weighted by column '{column}' (data.weight): "
    "Hajek estimates with Korn-Graubard intervals at Kish's effective size, which assume "
    "independently sampled units with weights 1 / (inclusion probability) and no strata "
    "or clusters; the unweighted counts are shown beside them."
)
DECLARED_ONLY = (
    "Only the declared groups are evaluated; each rule reads only the cases whose own "
    "attributes carry a declared value, which may be a different population from the file."
)


def accepted_of(accept: Iterable[Verdict | str] | Verdict | str) -> tuple[Verdict, ...]:
    """``accept=`` checked as the CLI's ``--accept`` checks it (a name or a list of them).

    Raises
    ------
    respai.errors.InputError
        For FAIL, PASS or a name that is not a verdict.

    Examples
    --------
    >>> [v.value for v in accepted_of("MANUAL_REVIEW")]
    ['MANUAL_REVIEW']
    """
    items = [accept] if isinstance(accept, str | Verdict) else list(accept)
    try:
        return accepted_verdicts(items)
    except ValueError as exc:
        raise InputError(f"accept= is not valid: {exc}") from None


def evaluate_fairness(
    spec: FairnessSpec | Spec | Mapping[str, Any] | str | Path,
    data: Any = None,
    *,
    policy: Policy | Mapping[str, Any] | str | Path | None = None,
    engine: str = "duckdb",
    accept: Iterable[Verdict | str] | Verdict | str = (),
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
        Where the count pass over a cases file runs: a name in
        :data:`respai.engine.registry.ENGINES` (``"duckdb"``, embedded and out of core, by
        default). A DataFrame is always counted by its own engine.
    accept
        Verdicts to let through the gate, as ``respai fairness --accept`` does
        (:func:`respai.evaluate`'s ``accept``): the verdicts stay, the exit code is 0 when
        every verdict worse than PASS is accepted.

    Returns
    -------
    FairnessResult
        Tables, rule verdicts and the exit code.

    Raises
    ------
    respai.errors.SpecError
        When the spec or policy does not validate.
    respai.errors.InputError
        When the data does not fit the spec, or ``accept`` names FAIL, PASS or no verdict.

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
    accepted = accepted_of(accept)
    result = run_rules(spec_of(spec), _as_policy(policy), data, engine_name=engine)
    return dataclasses.replace(result, accepted=accepted) if accepted else result


def run_rules(
    parsed: Spec,
    pol: Policy | None,
    data: Any = None,
    *,
    score: str | None = None,
    engine_name: str = "duckdb",
    count: CountPass | None = None,
    family_size: int | None = None,
) -> FairnessResult:
    """Load, count and decide the declared rules of an already parsed spec.

    ``score`` asks the load for the AUC's rank sums too (used by the battery);
    ``engine_name`` names the engine of the count pass over a file
    (:data:`respai.engine.registry.ENGINES`);
    ``count`` replaces the count pass (see :func:`respai.load.load_counts`);
    ``family_size`` is the number of tests of the run's family under ``familywise:
    bonferroni`` (:func:`respai.run.family.run_family`; the rules alone when omitted).
    """
    fairness = apply_policy(parsed.fairness, pol)
    if family_size is not None and fairness.familywise is not None:
        from dataclasses import replace

        fairness = replace(fairness, family_size=family_size)
    if data is None:  # the spec's files, the self-identification file joined when declared
        data = open_inputs(parsed, engine_name=engine_name, score=score).decided
    ds = parsed.data
    loaded = load_counts(
        fairness,
        data,
        score=score,
        engine_name=engine_name,
        count=count,
        weight=ds.weight,
        weight_decimals=ds.weight_decimals,
    )
    counts = loaded.counts
    weighted = loaded.weighted
    rules = tuple(evaluate_rule(rule, fairness, counts, weighted) for rule in fairness.rules)
    # made when read: the terminal and --json read them all, a record of a compact
    # grouping (more than 1,000 groups) none of its 100,000 rows
    tables = GroupTables.later(
        {g.name: partial(group_table, g) for g in counts.groupings.values()}
    )
    calibration = GroupTables.later(
        {g.name: partial(calibration_table, g) for g in counts.groupings.values() if g.calibration}
    )
    assumptions = [SAMPLING_ONLY, LABELS, DECLARED_ONLY]
    if fairness.unit is None:
        assumptions.insert(0, INDEPENDENCE)
    if not rules:
        assumptions.append("No rule is declared, so the verdict cannot be PASS.")
    if weighted is not None:
        assumptions.append(WEIGHTED.format(column=weighted.column))
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
        weighted=weighted,
    )


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
    from respai.blocks import BLOCKS
    from respai.spec import parse_spec

    if {*BLOCKS, "data", "system"} & set(spec):  # a whole spec (with or without fairness:)
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
