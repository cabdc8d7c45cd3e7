"""``respai.evaluate``: one run from Python, on a file or a DataFrame, sealed on request.

The same run as ``respai evaluate``: :func:`respai.run.evaluation.evaluate` evaluates every
block the spec declares; with ``out`` the record is signed and written by
:func:`respai.run.seal.seal_evaluation` exactly as the command writes it (``record.json``,
``summary.txt``, ``public_key.pem``, ``report.html``), and appended to ``ledger`` when one
is given. A DataFrame's dataset fingerprint is the SHA-256 of the canonical Arrow IPC
stream of the columns read (:mod:`respai.engine.frame_fingerprint`).
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.results import Evaluation
from respai.run.evaluation import evaluate as run_evaluation
from respai.run.fairness import spec_of
from respai.spec import Policy, Spec, load_policy

__all__ = ["evaluate"]


def evaluate(
    spec: Spec | Mapping[str, Any] | str | Path,
    data: Any = None,
    *,
    policy: Policy | str | Path | None = None,
    key: str | Path | None = None,
    out: str | Path | None = None,
    ledger: str | Path | None = None,
    plan: str | None = None,
    trust_model_code: bool = False,
    trusted_types: Sequence[str] = (),
    engine: str = "duckdb",
) -> Evaluation:
    """Evaluate every block of ``spec`` on its cases file or on ``data``; seal with ``out``.

    Parameters
    ----------
    spec
        A spec file path, a parsed :class:`~respai.spec.Spec`, or a dict shaped like a
        spec file (or like its ``fairness:`` block alone), as
        :func:`respai.evaluate_fairness` takes it.
    data
        A pandas, polars, pyarrow or PySpark DataFrame to count instead of the spec's
        cases file (which may then be omitted). The record's ``fingerprints.dataset`` is
        then ``{"name": "dataframe", "media_type": "application/vnd.apache.arrow.stream",
        ...}``: the SHA-256 of the canonical Arrow IPC stream of the columns read.
    policy
        A policy file path or :class:`~respai.spec.Policy`.
    key
        The signing key (a ``.key`` file from ``respai keys new``). Without it, sealing
        uses the newest key of the key folder, or creates one there, as the CLI does.
    out
        The output folder. When given, the run is signed and written there, as
        ``respai evaluate --out`` writes it; without it nothing is written or signed.
    ledger
        A ledger folder to append the sealed run to (created when missing). ``None``
        (the default) appends to no ledger, unlike the CLI's default.
    plan
        A plan id (``respai plan``) the run is held to; needs ``ledger``.
    trust_model_code, trusted_types
        As the CLI's ``--trust-model-code`` and ``--trust-type``.
    engine
        A name in :data:`respai.engine.registry.ENGINES`, for a cases file (a DataFrame
        is counted where it is).

    Returns
    -------
    Evaluation
        The result; ``result.sealed`` (and ``result.record_path``) when ``out`` was given.

    Raises
    ------
    respai.errors.SpecError, respai.errors.InputError
        For a bad spec, policy, key, output folder or data; nothing is written then.
    """
    from respai.render.terminal import render_evaluation, terminal_console
    from respai.run.seal import evaluate_output
    from respai.sealing import create_signing_key, find_signing_key

    if key is not None and out is None:
        raise InputError(
            f"a signing key was given ({key}) but no output folder.",
            "Pass out= (the folder for record.json); a record is signed only when written.",
        )
    found = None
    staged = None
    if out is not None:
        found = find_signing_key(None if key is None else Path(key))  # before the data
        staged = evaluate_output(Path(out))
    parsed = spec_of(spec)
    if out is not None:
        from respai.io import refuse_overlaps
        from respai.sealing import key_inputs, spec_inputs

        refuse_overlaps(
            [("out", out)],
            [*spec_inputs(parsed), *key_inputs(None if key is None else Path(key))],
            ledger=None if ledger is None else ("ledger", ledger),
        )
    pol = policy if isinstance(policy, Policy) or policy is None else load_policy(policy)
    book = None if ledger is None else Path(ledger)
    planned = plan_check = None
    if out is not None:
        from respai.plan.seal import registered

        planned, plan_check = registered(parsed, pol, ledger=book, sk=found, wanted=plan)
    elif plan is not None:
        raise InputError("a plan was given but no output folder.", "Pass out= and ledger=.")
    result = run_evaluation(
        parsed,
        data=data,
        policy=pol,
        trust_model_code=trust_model_code,
        trusted_types=trusted_types,
        engine=engine,
    )
    result = dataclasses.replace(
        result,
        plan=None if planned is None else planned.reference(),
        plan_check=None if plan_check is None else plan_check.to_record(),
    )
    if staged is None or out is None:
        return result
    from respai.run.seal import seal_evaluation

    sk = found or create_signing_key()  # created only once the evaluation succeeded
    buffer = io.StringIO()
    render_evaluation(
        result,
        terminal_console(file=buffer, width=120),
        record_path=str(Path(out).resolve() / "record.json"),
        key_id=sk.key_id,
    )
    sealed = seal_evaluation(result, sk, out=staged, summary=buffer.getvalue(), ledger=book)
    return dataclasses.replace(result, sealed=sealed)
