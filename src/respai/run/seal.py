"""The sealed run of ``respai evaluate`` and :func:`respai.evaluate`: an evaluation's record.

:func:`sealed_evaluation` is the one sequence both run: the signing checks of
:func:`respai.sealing.begin_signing` (output paths, key, output folder), the spec read
once, the plan check, the evaluation, then :func:`seal_evaluation`, which builds the
record of an :class:`~respai.results.Evaluation` (:mod:`respai.run.evidence`), signs it
and writes it with its page through the all-or-nothing :func:`respai.sealing.seal_run`.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.io import Content, Named, StagedFolder
from respai.results import Evaluation
from respai.sealing import (
    Sealed,
    SigningKey,
    begin_signing,
    earlier_output,
    envelope_bytes,
    seal_run,
    spec_inputs,
)
from respai.spec import Policy, Spec
from respai.types import Verdict

__all__ = ["evaluate_output", "seal_evaluation", "sealed_evaluation"]


def sealed_evaluation(
    spec: Spec | Mapping[str, Any] | str | Path,
    *,
    out: Path,
    ledger: Path | None,
    key: Path | None = None,
    data: Any = None,
    policy: Policy | str | Path | None = None,
    plan: str | None = None,
    outputs: Sequence[Named] = (),
    names: tuple[str, str] = ("--out", "--ledger"),
    checked: Callable[[], None] | None = None,
    trust_model_code: bool = False,
    trusted_types: Sequence[str] = (),
    engine: str = "duckdb",
    quiet: bool = True,
    accepted: Sequence[Verdict] = (),
    timestamps: Sequence[str] = (),
) -> Evaluation:
    """Evaluate ``spec`` and seal the run into ``out`` (and ``ledger``): all or nothing.

    The order is the contract of every signed run: output paths that touch an input or
    the ledger, the key and the output folder are checked first; then ``checked`` runs
    (the caller's own checks); the spec is read once and its data and model files are
    checked against the outputs; the plan (``--plan``) is checked, all before any data is
    read. Only then is the data counted, and the key created when there was none.

    Parameters
    ----------
    spec
        A spec file path, a parsed spec or a dict (as :func:`respai.evaluate` takes).
    out, ledger, key
        The output folder, the ledger (``None``: none) and ``--key``.
    data, policy, plan
        A DataFrame instead of the cases file, the policy, and the plan id the run is
        held to.
    outputs
        Other files the command writes (``--junit``), checked like ``out``.
    names
        How the output folder and the ledger are named in messages.
    checked
        Called once the signing checks passed, before the spec is read.
    trust_model_code, trusted_types, engine
        As :func:`respai.run.evaluation.run_evaluation` takes them.
    quiet
        ``False`` draws a progress display on standard error while the data is counted,
        when that is a terminal (:func:`respai.progress.progress`).
    accepted
        The verdicts the person running accepts (``--accept``): stated in the record's
        settings, and the record's exit code is the one they leave
        (:attr:`respai.results.Evaluation.exit_code`).
    timestamps
        RFC 3161 authorities to stamp the record (``--timestamp``); see
        :func:`respai.sealing.seal_run`.

    Returns
    -------
    Evaluation
        The result, with ``sealed`` set; ``sealed.key_created`` is the key file when the
        run created the key it was signed with.
    """
    from respai.plan.seal import registered
    from respai.render.terminal import render_evaluation, terminal_console
    from respai.run.evaluation import run_evaluation
    from respai.run.group_rules import spec_of
    from respai.spec import load_policy

    spec_files = [("the spec", spec)] if isinstance(spec, str | Path) else []
    policy_file = [("--policy", policy)] if isinstance(policy, str | Path) else []
    signing = begin_signing(
        [(names[0], out), *outputs],
        [*spec_files, *policy_file],
        key=key,
        ledger=ledger,
        stage=evaluate_output,
        out=out,
        ledger_name=names[1],
        timestamps=timestamps,
    )
    if checked is not None:
        checked()
    parsed = spec_of(spec)  # read once: the criteria checked are the criteria run
    signing.refuse_inputs(spec_inputs(parsed))  # its data and model files
    pol = policy if isinstance(policy, Policy) or policy is None else load_policy(policy)
    planned, plan_check = registered(
        parsed, pol, ledger=signing.ledger, sk=signing.found, wanted=plan
    )  # a changed criterion is refused before the data is read
    from respai.progress import progress
    from respai.record.fingerprint import engine_code_fingerprint_started

    engine_code = engine_code_fingerprint_started()  # hashed while the data is counted
    with progress("evaluating", quiet=quiet) as bar:
        result = run_evaluation(
            parsed,
            data=data,
            policy=pol,
            trust_model_code=trust_model_code,
            trusted_types=trusted_types,
            on_batch=lambda done, total: bar.update(done, total),
            engine=engine,
        )
    result = dataclasses.replace(
        result,
        plan=None if planned is None else planned.reference(),
        plan_check=None if plan_check is None else plan_check.to_record(),
        accepted=tuple(accepted),
    )
    sk = signing.signing_key()  # created only once the evaluation succeeded
    try:
        buffer = io.StringIO()
        render_evaluation(
            result,
            terminal_console(file=buffer, width=120),
            record_path=str(out.resolve() / "record.json"),
            key_id=sk.key_id,
        )
    except BaseException:
        signing.abandon()
        raise
    assert signing.staged is not None  # begin_signing staged out
    sealed = seal_evaluation(
        result,
        sk,
        out=signing.staged,
        summary=buffer.getvalue(),
        ledger=signing.ledger,
        timestamps=signing.timestamps,
        engine_code=engine_code,
    )
    return dataclasses.replace(result, sealed=sealed)


def seal_evaluation(
    e: Evaluation,
    sk: SigningKey,
    *,
    out: Path | StagedFolder,
    summary: str,
    ledger: Path | None,
    timestamps: Sequence[str] = (),
    engine_code: Callable[[], dict[str, Any]] | None = None,
) -> Sealed:
    """Build, sign and write the record of ``e``; chain it into ``ledger`` when given.

    The outputs folder receives ``record.json`` (the DSSE envelope), ``summary.txt``,
    ``public_key.pem`` and ``report.html``. With a ledger, the run is appended under the
    ledger's lock, so two concurrent runs get consecutive places in the chain; see
    :func:`seal_run` for what a failure leaves (nothing). With ``timestamps``, the folder
    also receives ``timestamps.json``: a token over the record from each authority.
    ``engine_code`` waits for the running code's fingerprint when the caller started it
    earlier (:func:`respai.record.fingerprint.engine_code_fingerprint_started`); without
    it the code is hashed here.
    """
    from cryptography.hazmat.primitives import serialization

    from respai.record import format_timestamp, now_utc, seal
    from respai.run.evidence import build_predicate, run_fingerprints

    staged = out if isinstance(out, StagedFolder) else evaluate_output(out)
    fingerprints = run_fingerprints(e, None if engine_code is None else engine_code())
    public_pem = sk.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )

    def build(prev: str, start: int) -> Mapping[str, Any]:
        predicate = build_predicate(
            e, key_id=sk.key_id, fingerprints=fingerprints, timestamp=format_timestamp(now_utc())
        )
        return seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)

    def files(envelope: Mapping[str, Any]) -> dict[str, Content]:
        from respai.record.keys import public_key_raw
        from respai.render.report import render_report_bytes

        # the record and its page are made when written, one at a time
        return {
            "record.json": lambda: envelope_bytes(envelope),
            "summary.txt": summary,
            "public_key.pem": public_pem,
            "report.html": lambda: render_report_bytes(
                envelope, public_key_raw(sk.key.public_key())
            ),
        }

    envelope, book, note = seal_run(
        build, files, sk, staged=staged, ledger=ledger, timestamps=timestamps
    )
    record = staged.out / "record.json"
    created = sk.path if sk.created else None
    return Sealed(envelope, record, book, sk.key_id, note, created)


def evaluate_output(out: Path) -> StagedFolder:
    """The output folder of ``respai evaluate``, checked now (before any data is read)."""
    return StagedFolder(out, earlier_output("record.json"), what="respai evaluate output")
