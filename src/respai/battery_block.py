"""The battery of ``evaluation:`` as :mod:`respai.blocks` registers it.

Everything ``respai evaluate`` does with the battery goes through :data:`BLOCK`: its
parser (``evaluation:`` is a frame block, parsed last), its part of a plan's criteria,
the model it loads before any data is read, the tests it measures on the count pass's
counts (:func:`respai.battery.run_battery`, and perturbation stability with the model),
its test records and caveats, its terminal lines and its measured values in exports.
The battery runs whenever a spec has a ``fairness:`` block, with the default tests when
``evaluation:`` lists none.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from respai.blocks import Block, Metric, ParseContext, RecordParts, RunContext, RunOptions
from respai.record.reading import as_dict, as_list, number, text

if TYPE_CHECKING:
    from rich.console import Console

    from respai.battery import TestResult
    from respai.model_file import LoadedModel
    from respai.record.predicate import TestRecord
    from respai.results import BatteryResult
    from respai.spec.parsed import EvaluationSpec, Policy, Spec
    from respai.types import Verdict

__all__ = ["BLOCK", "BatteryBlock", "BatteryPlan"]


@dataclass(frozen=True, slots=True)
class BatteryPlan:
    """What a spec declares for the battery: the spec with a ``fairness:`` block.

    ``evaluation`` is its ``evaluation:`` block (``None``: the default battery);
    :meth:`tests` reads the tests and the score column from both.
    """

    spec: Spec

    @property
    def evaluation(self) -> EvaluationSpec | None:
        """The spec's ``evaluation:`` block, or ``None``."""
        return self.spec.evaluation

    def tests(self) -> tuple[str | None, tuple[str, ...]]:
        """The score column and the tests measured (:func:`respai.battery.battery_plan`).

        Raises
        ------
        respai.errors.SpecError
            When ``evaluation.tests`` lists ``auc`` and there is no score column.
        """
        from respai.battery import battery_plan

        return battery_plan(self.spec)


class BatteryBlock(Block):
    """The RESPAI battery: accuracy, AUC, the spread tests, completeness, stability, ..."""

    name = "evaluation"
    kind = "battery"
    suite = "respai.battery"
    frame = True
    assesses_fairness = True

    @property
    def test_names(self) -> Mapping[str, str]:  # type: ignore[override]
        """The battery's tests, by id (:data:`respai.battery.TEST_NAMES`)."""
        from respai.battery import TEST_NAMES

        return TEST_NAMES

    def parse(self, raw: Any, ctx: ParseContext) -> EvaluationSpec:
        """The ``evaluation:`` block, its model file relative to the spec's folder."""
        from respai.spec.evaluation import parse_evaluation

        return parse_evaluation(raw, origin=ctx.origin, base_dir=ctx.base_dir)

    def declared(self, spec: Spec) -> BatteryPlan | None:
        """The battery a run of ``spec`` measures (``None``: no ``fairness:`` block)."""
        return None if spec.fairness_block is None else BatteryPlan(spec)

    def criteria(self, declared: BatteryPlan, policy: Policy | None) -> Any:
        """The tests, their thresholds and decision rules, and the model's settings."""
        from respai.battery import thresholds_for
        from respai.plan.criteria import source_criterion

        score, tests = declared.tests()
        thresholds = thresholds_for(policy)
        ev = declared.evaluation
        out: dict[str, Any] = {
            "tests": list(tests),
            "explicit_tests": bool(ev and ev.explicit_tests),
            "score": score,
            "thresholds": {
                t: {**thresholds[t].to_dict(), "source": source_criterion(thresholds[t].source)}
                for t in tests
            },
        }
        if ev is not None:
            out |= {
                "seed": ev.seed,
                "model_declared": ev.model is not None,
                "features": list(ev.features),
                "numeric": None if ev.numeric is None else list(ev.numeric),
                "noise": ev.noise,
                "trials": ev.trials,
                "positive_label": ev.positive_label,
            }
        return out

    def prepare(
        self, spec: Spec, policy: Policy | None, options: RunOptions
    ) -> LoadedModel | None:
        """The declared model, loaded (and refused) before any data is read."""
        ev = spec.evaluation
        if ev is None or ev.model is None:
            return None
        from respai.model_file import load_model

        return load_model(
            ev.model,
            trust_model_code=options.trust_model_code,
            trusted_types=options.trusted_types,
            positive_label=ev.positive_label,
        )

    def run(self, ctx: RunContext) -> BatteryResult:
        """The battery's tests on the count pass's counts; stability with the model."""
        from respai import exact
        from respai.battery import TestId, run_battery, thresholds_for
        from respai.results import BatteryResult

        plan: BatteryPlan = ctx.declared
        fairness = ctx.fairness
        assert fairness is not None  # the runner counts before any block runs
        score, planned = plan.tests()
        thresholds = thresholds_for(ctx.policy)
        fs = fairness.spec
        alpha: float | Fraction = fs.alpha
        # every interval of the battery at the run's level (0.95 for the default 0.05)
        confidence = float(1 - exact.decimal(alpha))
        if fs.familywise == "bonferroni" and fs.family_size is not None:
            # each test of the run's family at alpha / m (respai.run.family)
            alpha = fs.rule_alpha
            confidence = float(1 - exact.decimal(alpha))
            # a test outside the family (stability without a model: MANUAL_REVIEW) says none
            no_model = ctx.prepared is None
            thresholds = {
                k: t
                if no_model and k == TestId.PERTURBATION_STABILITY
                else replace(t, family=(fs.family, fs.alpha))
                for k, t in thresholds.items()
            }
        tests = run_battery(
            fairness.counts, planned, thresholds, alpha, fs.min_cell, fs.max_missing, confidence
        )
        model: LoadedModel | None = ctx.prepared
        ev = plan.evaluation
        stable = TestId.PERTURBATION_STABILITY
        if model is not None and ev is not None and stable in planned:
            found = _stability(ctx, model, ev)
            measured = found.test_result(thresholds[stable], confidence)
            tests = tuple(measured if t.test_id == stable else t for t in tests)
        return BatteryResult(
            tests, thresholds, score, None if model is None else model.to_record()
        )

    def verdicts(self, result: BatteryResult) -> list[Verdict]:
        """One verdict per test."""
        return [t.verdict for t in result.tests]

    def record(self, result: BatteryResult) -> RecordParts:
        """A test record per battery test, and the caveats of the score and the model."""
        return RecordParts(tests=[_test_record(t) for t in result.tests], caveats=_caveats(result))

    def terminal(self, result: BatteryResult, console: Console) -> None:
        """The battery's table, the notes of its undecided tests, the thresholds' sources."""
        from respai.render.terminal import render_battery

        render_battery(result, console)

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """The test's value, each group's value (AUC) and each group's rate (spread tests)."""
        test_id = text(record.get("test_id"))
        grouping = record.get("grouping")
        attrs = " × ".join(str(a) for a in as_list(grouping)) or "overall"
        details = as_dict(record.get("details"))
        out = [
            Metric(
                test_id,
                attrs,
                record.get("value"),
                interval=record.get("interval"),
                n=details.get("with_prediction"),
                undefined=text(record.get("undefined_reason")),
            )
        ]
        for attribute, rows in as_dict(details.get("per_group")).items():
            for row in map(as_dict, as_list(rows)):
                cases = (number(row.get("positives")) or 0) + (number(row.get("negatives")) or 0)
                out.append(
                    Metric(
                        test_id,
                        Metric.slice_of([attribute], row.get("group")),
                        row.get("value"),
                        interval=row.get("interval"),
                        n=cases or None,
                    )
                )
        rate = text(details.get("rate"))
        if rate:
            out += [
                Metric(
                    rate,
                    Metric.slice_of(grouping, row.get("group")),
                    row.get("rate"),
                    interval=row.get("interval_95"),
                    n=row.get("denominator"),
                )
                for row in map(as_dict, as_list(details.get("groups")))
            ]
        return out


def _stability(ctx: RunContext, model: LoadedModel, ev: EvaluationSpec) -> Any:
    """Perturbation stability of the model over the run's cases (file or frame)."""
    from respai.robustness import perturbation_stability

    fairness = ctx.fairness
    assert fairness is not None
    attrs = list(fairness.spec.attributes)
    columns = list(dict.fromkeys([*ev.features, *attrs]))
    data = ctx.options.data
    if data is None:
        from respai.load import case_batches

        batches = case_batches(fairness.spec, columns)
    else:
        from respai import engine as frames

        def batches() -> Iterator[dict[str, Any]]:
            return frames.iter_batches(frames.open_frame(data), columns, 65_536)

    return perturbation_stability(
        model,
        batches,
        features=ev.features,
        numeric=ev.numeric,
        groups=attrs,
        noise=ev.noise,
        trials=ev.trials,
        seed=ev.seed or 0,
        on_batch=ctx.options.on_batch,
    )


def _test_record(t: TestResult) -> TestRecord:
    from respai.controls import load_controls
    from respai.record.predicate import test_record
    from respai.types import Interval

    return test_record(
        test_id=t.test_id,
        test_key=t.key,
        grouping=list(t.grouping) if t.grouping else None,
        value=t.value,
        interval=Interval.json_or_none(t.interval),
        threshold=None if t.threshold is None else t.threshold.to_dict(),
        verdict=t.verdict.value,
        uncertain=t.uncertain,
        reason=t.reason,
        method=t.method,
        details=t.details,
        supports=[c.to_dict() for c in load_controls().for_test(t.test_id)],
        undefined_reason=None if t.undefined is None else t.undefined.reason,
        value_range=None if t.value_range is None else t.value_range.to_dict(),
    )


def _caveats(result: BatteryResult) -> list[str]:
    out = []
    if result.score is None:
        out.append("No score column: AUC was not computed.")
    model = result.model
    if model is None:
        out.append(
            "Perturbation stability needs model access; without it the test is "
            "informational (MANUAL_REVIEW)."
        )
        return out
    out.append(
        "Perturbation stability adds small Gaussian noise to numeric features "
        "only; it says nothing about adversarial inputs or distribution shift."
    )
    if model.get("trusted_code"):
        out.append(
            "The model file was loaded with --trust-model-code: loading it ran code from the file."
        )
    if model.get("caller_trusted_types"):
        out.append(
            "The skops model file was loaded trusting, by --trust-type, the type(s) "
            f"{', '.join(model['caller_trusted_types'])}: loading it may run code "
            "they define."
        )
    return out


#: The registered block (:data:`respai.blocks.BLOCKS`).
BLOCK = BatteryBlock()
