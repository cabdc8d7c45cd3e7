"""One run: every block a spec declares, from one gate, into one :class:`Evaluation`.

:func:`run_evaluation` reads the spec and policy, loads (and refuses) the model before any
data is read, counts the cases once (plus one sort by score for the AUC's rank sums), and
evaluates the battery of ``evaluation:``, the group rules of ``fairness.rules`` and each
optional block the spec declares (:mod:`respai.blocks`: the LL144 tables of ``ll144:``,
the paired test of ``paired:``). :mod:`respai.run.evidence` turns the result into the record;
signing, outputs and the ledger are :mod:`respai.sealing`'s. This module prints nothing
and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.battery import TestId, battery_plan, thresholds_for
from respai.battery import run_battery as _run_battery
from respai.blocks import RunContext, block_named
from respai.errors import InputError
from respai.results import Evaluation
from respai.run.group_rules import run_rules
from respai.spec import Policy, Spec, load_policy, load_spec
from respai.types import worst

if TYPE_CHECKING:
    from respai.load import CountPass

__all__ = ["run_evaluation"]


def run_evaluation(
    spec: Spec | str | Path,
    *,
    data: Any = None,
    policy: Policy | str | Path | None = None,
    trust_model_code: bool = False,
    trusted_types: Sequence[str] = (),
    on_batch: Callable[[int, int], None] | None = None,
    engine: str = "duckdb",
) -> Evaluation:
    """Run the battery and the declared group rules on the spec's cases file or a frame.

    Parameters
    ----------
    spec
        A spec file path or a parsed :class:`~respai.spec.Spec` naming a cases file.
    data
        A pandas, polars, pyarrow or PySpark DataFrame to count instead of the spec's
        cases file. Its dataset fingerprint is the SHA-256 of the canonical Arrow IPC
        stream of the columns the run reads (:mod:`respai.engine.frame_fingerprint`).
    policy
        A policy file path or :class:`~respai.spec.Policy` (thresholds, decisions).
    trust_model_code
        Allow a pickle/joblib model file to load (it runs code); the record says so.
    trusted_types
        Extra types (``module.name``) a skops model file may hold, as you trust them (the
        CLI's ``--trust-type``); the record lists them. A spec cannot add to them.
    on_batch
        Progress callback ``(done_rows, total_rows)`` for perturbation stability.
    engine
        Where the count passes over the cases file run: a name in
        :data:`respai.engine.registry.ENGINES`.

    Raises
    ------
    respai.errors.SpecError, respai.errors.InputError
        For a bad spec, policy or cases file.
    """
    parsed = spec if isinstance(spec, Spec) else load_spec(spec)
    pol = policy if isinstance(policy, Policy) or policy is None else load_policy(policy)
    if data is None and parsed.fairness.cases is None:
        raise InputError(
            "a signed record needs a cases file, and the spec names none.",
            "Set fairness.cases (or data.cases).",
        )
    ev = parsed.evaluation
    score, tests = battery_plan(parsed)
    model = None
    if ev is not None and ev.model is not None:
        from respai.model_file import load_model

        # load (and refuse) the model before the data is read
        model = load_model(
            ev.model,
            trust_model_code=trust_model_code,
            trusted_types=trusted_types,
            positive_label=ev.positive_label,
        )
    # the record needs the file's SHA-256: hash it on a thread while the engine counts
    # (hashlib releases the GIL), from the file the engine opened (None: object storage)
    from concurrent.futures import ThreadPoolExecutor

    from respai.load import open_inputs

    parsed.fairness  # noqa: B018 - a spec without fairness: is refused before any file opens
    inputs = open_inputs(parsed, data=data, engine_name=engine, score=score)
    declared = [block_named(name) for name in parsed.blocks]
    # at most one block shares the count pass (the LL144 audit: one scan of the decisions)
    sharing: str | None = None
    count: CountPass | None = None
    tallied: Callable[[], Any] = _nothing_shared
    for b in declared:
        found = b.one_scan(parsed, inputs)
        if found is not None:
            sharing, (count, tallied) = b.name, found
            break
    with ThreadPoolExecutor(max_workers=1) as pool:
        hashing = pool.submit(inputs.fingerprints if data is None else dict)
        try:
            fairness = run_rules(
                parsed, pol, inputs.decided, score=score, engine_name=engine, count=count
            )
        except BaseException:
            hashing.cancel()
            raise
        fingerprints: Mapping[str, Any] = hashing.result()
    if data is not None:  # after the gate: every column hashed is a column it checked
        fingerprints = {"dataset": _frame_fingerprint(parsed, data, score, inputs.cases.columns)}
    thresholds = thresholds_for(pol)
    battery = _run_battery(
        fairness.counts,
        tests,
        thresholds,
        fairness.spec.alpha,
        fairness.spec.min_cell,
        fairness.spec.max_missing,
    )
    if model is not None and ev is not None and TestId.PERTURBATION_STABILITY in tests:
        from respai.load import case_batches
        from respai.robustness import perturbation_stability

        attrs = list(fairness.spec.attributes)
        columns = list(dict.fromkeys([*ev.features, *attrs]))
        if data is None:
            batches = case_batches(fairness.spec, columns)
        else:
            from respai import engine as frames

            def batches() -> Iterator[dict[str, Any]]:
                return frames.iter_batches(frames.open_frame(data), columns, 65_536)

        stability = perturbation_stability(
            model,
            batches,
            features=ev.features,
            numeric=ev.numeric,
            groups=attrs,
            noise=ev.noise,
            trials=ev.trials,
            seed=ev.seed or 0,
            on_batch=on_batch,
        )
        measured = stability.test_result(thresholds[TestId.PERTURBATION_STABILITY])
        stable = TestId.PERTURBATION_STABILITY
        battery = tuple(measured if t.test_id == stable else t for t in battery)
    others = {k: v for k, v in fingerprints.items() if k != "dataset"}
    verdicts = [*(t.verdict for t in battery), *(r.verdict for r in fairness.rules)]
    results: dict[str, Any] = {}
    shared = tallied()
    for b in declared:
        ctx = RunContext(parsed, pol, inputs, shared if b.name == sharing else None)
        results[b.name] = result = b.run(ctx)
        verdicts += b.verdicts(result)
        others |= b.fingerprints(result)
    verdict = worst(verdicts)
    inputs.check_unchanged()  # the files counted and hashed are still the files named
    return Evaluation(
        parsed,
        pol,
        fairness,
        battery,
        thresholds,
        score,
        verdict,
        model=None if model is None else model.to_record(),
        dataset_fingerprint=fingerprints.get("dataset"),
        blocks=results,
        other_fingerprints=others,
    )


def _frame_fingerprint(
    spec: Spec, data: Any, score: str | None, present: Sequence[str]
) -> dict[str, Any]:
    """The dataset fingerprint of a frame: the columns the run read, canonically hashed."""
    from respai.engine.frame_fingerprint import frame_fingerprint
    from respai.load import run_columns

    return frame_fingerprint(data, [c for c in run_columns(spec, score) if c in set(present)])


def _nothing_shared() -> None:
    """What a count pass no block shares tallied for the blocks: nothing."""
    return None
