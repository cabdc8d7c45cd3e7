"""``respai evaluate``: every block of a spec, sealed in a signed record.

The key and the ``--out`` folder are checked before the data is read; a key is created
only once the evaluation succeeded. The summary is rendered twice: into ``summary.txt``
(inside the sealed output, at a fixed width) and onto standard error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from respai.cli import output
from respai.cli.app import (
    ACCEPT_OPTION,
    ENGINE_OPTION,
    JUNIT_OPTION,
    KEY_OPTION,
    LEDGER_OPTION,
    NO_LEDGER_OPTION,
    QUIET_OPTION,
    TIMESTAMP_OPTION,
    check_junit_path,
    cli,
)

if TYPE_CHECKING:
    from respai.types import Verdict

__all__ = ["evaluate_command"]


@cli.command("evaluate")
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
@ACCEPT_OPTION
@TIMESTAMP_OPTION
def evaluate_command(
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
    accepted: tuple[Verdict, ...],
    timestamps: tuple[str, ...],
) -> None:
    """Run every block of SPEC and write a signed record.

    The battery and group rules of fairness:, and the regression:, ranking:, paired:
    and ll144: blocks; a spec without fairness: runs its other blocks alone.
    """
    from respai.cli.preload import EVALUATE, preload
    from respai.render.terminal import render_evaluation
    from respai.run.seal import sealed_evaluation

    def checked() -> None:  # after the key and --out, before the spec is read
        check_junit_path(junit)
        preload(EVALUATE)  # scipy, rich, jsonschema, pyarrow import while DuckDB counts

    result = sealed_evaluation(
        spec,
        out=out,
        ledger=None if no_ledger else ledger,
        key=key,
        policy=policy,
        plan=plan_id,
        outputs=[("--junit", junit)],
        checked=checked,
        trust_model_code=trust_model_code,
        trusted_types=trust_types,
        engine=engine,
        quiet=quiet,
        accepted=accepted,
        timestamps=timestamps,
    )
    sealed = result.sealed
    assert sealed is not None  # sealed_evaluation seals
    if sealed.key_created is not None:
        output.key_created(sealed.key_created, sealed.key_id)
    render_evaluation(
        result, output.console(), record_path=str(sealed.record_path), key_id=sealed.key_id
    )
    if junit is not None:  # after the record is sealed: a refused run writes none
        from respai.export.junit import record_junit
        from respai.io import write_file

        write_file(junit, record_junit(sealed.predicate))
    if timestamps:
        stamped = sealed.record_path.parent / "timestamps.json"
        output.echo(f"timestamps: {len(timestamps)} token(s) over the record in {stamped}")
    if sealed.note:
        output.echo(f"respai: warning: {sealed.note}")
    planned, check = result.plan, result.plan_check
    if planned is not None:
        output.echo(
            f"criteria as planned: {planned['plan_id']}, registered {planned['timestamp']}"
        )
    elif check is not None and not check["matches"]:
        output.echo(
            f"respai: note: the criteria differ from the newest plan for this system, "
            f"{check['plan_id']} (registered {check['timestamp']}): " + "; ".join(check["changed"])
        )
    if as_json:
        from respai.render.evaluation_json import evaluation_json

        output.emit_json(evaluation_json(result, sealed))
    raise SystemExit(result.exit_code)
