"""``respai evaluate``: the battery and the group rules of a spec, sealed in a signed record.

The key and the ``--out`` folder are checked before the data is read; a key is created
only once the evaluation succeeded. The summary is rendered twice: into ``summary.txt``
(inside the sealed output, at a fixed width) and onto standard error.
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import (
    ENGINE_OPTION,
    JUNIT_OPTION,
    KEY_OPTION,
    LEDGER_OPTION,
    NO_LEDGER_OPTION,
    QUIET_OPTION,
    check_junit_path,
    cli,
)

__all__ = ["evaluate"]


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file: thresholds and decision rules per test.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("respai-out"),
    show_default=True,
    help="Folder for record.json, summary.txt and the public key.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@KEY_OPTION
@LEDGER_OPTION
@NO_LEDGER_OPTION
@click.option(
    "--trust-model-code",
    is_flag=True,
    help="Allow a pickle/joblib model file to load. Loading it runs code from the file; "
    "the record states that it was allowed.",
)
@click.option(
    "--trust-type",
    "trust_types",
    multiple=True,
    metavar="MODULE.NAME",
    help="Allow a .skops model file to hold this type (repeatable). Only trust types "
    "you know: one such as builtins.eval lets the file run code. The record lists them.",
)
@JUNIT_OPTION
@QUIET_OPTION
@ENGINE_OPTION
@click.option(
    "--plan",
    "plan_id",
    metavar="PLAN_ID",
    help="The plan (from respai plan) whose criteria this run is held to: refused, exit 2, "
    "naming each criterion that changed since; the record carries the plan id and time.",
)
def evaluate(
    spec: Path,
    policy: Path | None,
    out: Path,
    as_json: bool,
    key: Path | None,
    ledger: Path,
    no_ledger: bool,
    trust_model_code: bool,
    trust_types: tuple[str, ...],
    junit: Path | None,
    quiet: bool,
    engine: str,
    plan_id: str | None,
) -> None:
    """Run the RESPAI battery and the group rules of SPEC and write a signed record."""
    import io

    from respai.io import refuse_overlaps
    from respai.render.terminal import render_evaluation
    from respai.run.evaluation import evaluate as run_evaluation
    from respai.run.seal import evaluate_output, seal_evaluation
    from respai.sealing import create_signing_key, find_signing_key, key_inputs, spec_inputs

    outputs = [("--out", out), ("--junit", junit)]
    refuse_overlaps(  # before anything is read or written
        outputs,
        [("the spec", spec), ("--policy", policy), *key_inputs(key)],
        ledger=None if no_ledger else ("--ledger", ledger),
    )
    found = find_signing_key(key)  # a bad key is reported before the data is read
    staged = evaluate_output(out)  # so is an --out that may not be replaced
    check_junit_path(junit)
    from respai.cli.preload import EVALUATE, preload

    preload(EVALUATE)  # scipy, rich, jsonschema, pyarrow import while DuckDB counts
    import dataclasses

    from respai.plan.seal import registered
    from respai.spec import load_policy, load_spec

    parsed = load_spec(spec)  # read once: the criteria checked are the criteria run
    refuse_overlaps(outputs, spec_inputs(parsed))  # its data and model files
    pol = None if policy is None else load_policy(policy)
    planned, plan_check = registered(
        parsed, pol, ledger=None if no_ledger else ledger, sk=found, wanted=plan_id
    )  # a changed criterion is refused before the data is read
    from respai.progress import progress

    with progress("evaluating", quiet=quiet) as bar:
        result = run_evaluation(
            parsed,
            policy=pol,
            trust_model_code=trust_model_code,
            trusted_types=trust_types,
            on_batch=lambda done, total: bar.update(done, total),
            engine=engine,
        )
    result = dataclasses.replace(
        result,
        plan=None if planned is None else planned.reference(),
        plan_check=None if plan_check is None else plan_check.to_record(),
    )
    sk = found or create_signing_key()  # created only once the evaluation succeeded
    if sk.created:
        output.key_created(sk.path, sk.key_id)
    from respai.render.terminal import terminal_console

    buffer = io.StringIO()
    record_file = out.resolve() / "record.json"
    render_evaluation(
        result,
        terminal_console(file=buffer, width=120),
        record_path=str(record_file),
        key_id=sk.key_id,
    )
    sealed = seal_evaluation(
        result, sk, out=staged, summary=buffer.getvalue(), ledger=None if no_ledger else ledger
    )
    render_evaluation(
        result, output.console(), record_path=str(sealed.record_path), key_id=sk.key_id
    )
    if junit is not None:  # after the record is sealed: a refused run writes none
        from respai.export.junit import record_junit
        from respai.io import write_file

        write_file(junit, record_junit(sealed.predicate))
    if sealed.note:
        output.echo(f"respai: warning: {sealed.note}")
    if planned is not None:
        output.echo(f"criteria as planned: {planned.plan_id}, registered {planned.timestamp}")
    elif plan_check is not None and not plan_check.matches:
        output.echo(
            f"respai: note: the criteria differ from the newest plan for this system, "
            f"{plan_check.plan.plan_id} (registered {plan_check.plan.timestamp}): "
            + "; ".join(plan_check.changed)
        )
    if as_json:
        from respai.render.evaluation_json import evaluation_json

        output.emit_json(evaluation_json(result, sealed))
    raise SystemExit(result.exit_code)
