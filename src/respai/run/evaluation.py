"""One run: every block a spec declares, from one gate, into one :class:`Evaluation`.

:func:`run_evaluation` reads the spec and policy, lets each declared block prepare before
any data is read (the battery loads, and may refuse, its model), counts the cases once
(plus one sort by score for the AUC's rank sums; the group rules are decided on those
counts, as ``respai fairness`` decides them), and runs every block the spec declares, in
the order of :data:`respai.blocks.BLOCKS`: the battery of ``evaluation:``, the group
rules of ``fairness.rules``, the LL144 tables of ``ll144:``, the paired test of
``paired:``, ``regression:`` and ``ranking:``. A spec without ``fairness:`` has no group
rules and no battery (``evaluation:`` is then refused): the cases file's rows are
counted once and its other blocks run alone. :mod:`respai.run.evidence` turns the result
into the record; signing, outputs and the ledger are :mod:`respai.sealing`'s. This
module prints nothing and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.battery import battery_plan
from respai.blocks import RunContext, RunOptions, declared_blocks
from respai.errors import InputError, SpecError
from respai.results import Evaluation
from respai.run.family import run_family
from respai.run.group_rules import run_rules
from respai.spec import Policy, Spec, load_policy, load_spec
from respai.types import Verdict, worst

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
    """Run every block the spec declares on the spec's cases file or a frame.

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
    _refuse_battery_without_fairness(parsed)
    if data is None and _cases_path(parsed) is None:
        raise InputError(
            "a signed record needs a cases file, and the spec names none.",
            "Set fairness.cases (or data.cases)."
            if parsed.fairness_block is not None
            else "Set data.cases: the blocks of a spec without fairness: read the run's "
            "cases file, and the record fingerprints it.",
        )
    options = RunOptions(data, trust_model_code, tuple(trusted_types), on_batch, engine)
    declared = declared_blocks(parsed)
    # familywise: bonferroni: every verdict-deciding test at alpha / m (fixed before the data)
    family = run_family(parsed, pol)
    # the AUC's score column is counted in the one pass (no battery without fairness:)
    score = None if parsed.fairness_block is None else battery_plan(parsed)[0]
    # each block prepares before the data is read (the battery loads and refuses its model)
    prepared = {b.name: b.prepare(parsed, pol, options) for b, _ in declared}
    # the record needs the file's SHA-256: hash it on a thread while the engine counts
    # (hashlib releases the GIL), from the file the engine opened (None: object storage)
    from concurrent.futures import ThreadPoolExecutor

    from respai.load import open_inputs

    inputs = open_inputs(parsed, data=data, engine_name=engine, score=score)
    # at most one block shares the count pass (the LL144 audit: one scan of the decisions)
    sharing: str | None = None
    count: CountPass | None = None
    tallied: Callable[[], Any] = _nothing_shared
    for b, _ in declared:
        found = b.one_scan(parsed, inputs)
        if found is not None:
            sharing, (count, tallied) = b.name, found
            break
    with ThreadPoolExecutor(max_workers=1) as pool:
        hashing = pool.submit(inputs.fingerprints if data is None else dict)
        try:
            fairness = None
            rows = None
            if parsed.fairness_block is not None:
                fairness = run_rules(
                    parsed,
                    pol,
                    inputs.decided,
                    score=score,
                    engine_name=engine,
                    count=count,
                    family_size=None if family is None else family.m,
                )
            else:  # no group rules, no battery: the blocks count their own columns
                rows = _count_rows(inputs.decided)
        except BaseException:
            hashing.cancel()
            raise
        fingerprints: Mapping[str, Any] = hashing.result()
    if data is not None:  # after the gate: every column hashed is a column it checked
        fingerprints = {"dataset": _frame_fingerprint(parsed, data, score, inputs.cases.columns)}
    others = {k: v for k, v in fingerprints.items() if k != "dataset"}
    verdicts: list[Verdict] = []
    results: dict[str, Any] = {}
    shared = tallied()
    for b, found in declared:  # every block, in the registry's order
        ctx = RunContext(
            parsed,
            pol,
            inputs,
            shared if b.name == sharing else None,
            declared=found,
            prepared=prepared[b.name],
            fairness=fairness,
            options=options,
        )
        results[b.name] = result = b.run(ctx)
        verdicts += b.verdicts(result)
        others |= b.fingerprints(result)
    inputs.check_unchanged()  # the files counted and hashed are still the files named
    inputs.close()  # nothing reads them again: DuckDB's memory goes back before the record
    return Evaluation(
        parsed,
        pol,
        worst(verdicts),
        results,
        dataset_fingerprint=fingerprints.get("dataset"),
        other_fingerprints=others,
        familywise=None if family is None else family.to_dict(),
        rows=rows,
        source=None if rows is None else inputs.cases.description,
    )


def _count_rows(source: Any) -> int:
    """The rows of the opened cases (with a joined self-ID file: the cases file's rows).

    ``counts.cases`` of a run without a ``fairness:`` block: one ``COUNT(*)`` through
    :func:`respai.engine.sql.query`, the same on DuckDB, a DataFrame and Spark.
    """
    from respai.engine.sql import query

    first = list(source.columns)[:1]
    rows = query(source, lambda d: f"SELECT COUNT(*) FROM {d.table}", first)
    return int(rows[0][0])


def _cases_path(spec: Spec) -> Path | None:
    """The cases file the spec names (``data.cases`` or ``fairness.cases``), if any."""
    if spec.data.cases is not None:
        return spec.data.cases
    return None if spec.fairness_block is None else spec.fairness_block.cases


def _refuse_battery_without_fairness(spec: Spec) -> None:
    """Refuse ``evaluation:`` without ``fairness:``: the battery reads a label and a decision.

    Raises
    ------
    SpecError
        Naming the spec and the two ways out, before anything is read or written.
    """
    if spec.fairness_block is not None or spec.evaluation is None:
        return
    origin = str(spec.path) if spec.path is not None else "spec"
    raise SpecError(
        f"{origin}: evaluation: is declared without a fairness: block. The battery of "
        "evaluation: (accuracy, calibration, AUC, stability) measures a binary label and "
        "prediction, which only fairness: declares, so it cannot run; nothing was read "
        "or written.",
        "Declare fairness: (label, prediction, attributes) for the battery, or remove "
        "evaluation: to run the spec's other blocks on their own.",
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
