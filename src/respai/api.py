"""``respai.evaluate``: one run from Python, on a file or a DataFrame, sealed on request.

The same run as ``respai evaluate``: :func:`respai.run.evaluation.run_evaluation` evaluates every
block the spec declares; with ``out`` the record is signed and written by
:func:`respai.run.seal.seal_evaluation` exactly as the command writes it (``record.json``,
``summary.txt``, ``public_key.pem``, ``report.html``), and appended to ``ledger`` when one
is given. A DataFrame's dataset fingerprint is the SHA-256 of the canonical Arrow IPC
stream of the columns read (:mod:`respai.engine.frame_fingerprint`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.results import Evaluation
from respai.run.evaluation import run_evaluation
from respai.run.group_rules import accepted_of, spec_of
from respai.spec import Policy, Spec, load_policy
from respai.types import Verdict

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
    accept: Iterable[Verdict | str] | Verdict | str = (),
    timestamps: Sequence[str] = (),
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
    accept
        Verdicts to let through the gate, as the CLI's ``--accept``: ``"MANUAL_REVIEW"``,
        ``"INSUFFICIENT_EVIDENCE"`` or both (names or :class:`~respai.types.Verdict`),
        never FAIL. The verdicts are unchanged; :attr:`Evaluation.exit_code
        <respai.results.Evaluation.exit_code>` is 0 when every verdict worse than PASS is
        accepted, else the worst one's that is not, and a sealed record states what was
        accepted (``run_start.settings.accepted``) and that exit code.
    timestamps
        RFC 3161 authority URLs, as the CLI's ``--timestamp``: a token over the signed
        record from each is written beside it as ``timestamps.json`` (needs ``out``).

    Returns
    -------
    Evaluation
        The result; ``result.sealed`` (and ``result.record_path``) when ``out`` was given.

    Raises
    ------
    respai.errors.SpecError, respai.errors.InputError
        For a bad spec, policy, key, output folder or data, or an ``accept`` that is not
        INSUFFICIENT_EVIDENCE or MANUAL_REVIEW; nothing is written then.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"y": [1, 0, 1, 0] * 20, "p": [1, 0, 1, 0] * 20,
    ...                    "sex": ["f", "f", "m", "m"] * 20})
    >>> spec = {"label": "y", "prediction": "p", "attributes": {"sex": ["f", "m"]}}
    >>> result = evaluate(spec, df, accept=["INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW"])
    >>> result.verdict.value, evaluate(spec, df).exit_code, result.exit_code
    ('INSUFFICIENT_EVIDENCE', 3, 0)
    """
    accepted = accepted_of(accept)
    if out is None:
        if key is not None:
            raise InputError(
                f"a signing key was given ({key}) but no output folder.",
                "Pass out= (the folder for record.json); a record is signed only when written.",
            )
        if plan is not None:
            raise InputError("a plan was given but no output folder.", "Pass out= and ledger=.")
        if timestamps:
            raise InputError(
                "timestamps were asked for but no output folder: only a signed record is stamped.",
                "Pass out= (the folder for record.json and its timestamps.json).",
            )
        result = run_evaluation(
            spec_of(spec),
            data=data,
            policy=policy if isinstance(policy, Policy) or policy is None else load_policy(policy),
            trust_model_code=trust_model_code,
            trusted_types=trusted_types,
            engine=engine,
        )
        return dataclasses.replace(result, accepted=accepted)
    from respai.run.seal import sealed_evaluation

    return sealed_evaluation(
        spec,
        out=Path(out),
        ledger=None if ledger is None else Path(ledger),
        key=None if key is None else Path(key),
        data=data,
        policy=policy,
        plan=plan,
        names=("out", "ledger"),
        trust_model_code=trust_model_code,
        trusted_types=trusted_types,
        engine=engine,
        accepted=accepted,
        timestamps=tuple(timestamps),
    )
