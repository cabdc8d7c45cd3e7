"""``respai plan``: seal an audit's criteria into the ledger before any data is seen.

A thin layer: read the spec and policy (never a data file: the cases file need not exist
yet), sign the plan record and append it to the ledger (:mod:`respai.plan.seal`), print
the plan id. ``respai evaluate SPEC --plan PLAN_ID`` then refuses a run whose criteria
changed since.
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import (
    KEY_OPTION,
    LEDGER_OPTION,
    NO_LEDGER_OPTION,
    TIMESTAMP_OPTION,
    cli,
)

__all__ = ["plan_command"]


@cli.command("plan")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file: its thresholds and content are part of the criteria.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Folder for a copy of the signed plan record (plan.json) and the canonical "
    "criteria it is about (criteria.json).",
)
@click.option("--json", "as_json", is_flag=True, help="Write the plan as JSON to stdout.")
@KEY_OPTION
@LEDGER_OPTION
@NO_LEDGER_OPTION
@TIMESTAMP_OPTION
def plan_command(
    spec: Path,
    policy: Path | None,
    out: Path | None,
    as_json: bool,
    key: Path | None,
    ledger: Path,
    no_ledger: bool,
    timestamps: tuple[str, ...],
) -> None:
    """Seal the criteria of SPEC (rules, thresholds, groups, tests, policy, scope) as a plan.

    Reads no data file. Prints the plan id (sha256: of the criteria's canonical JSON) and
    appends the signed plan record to the ledger; respai evaluate SPEC --plan PLAN_ID then
    refuses the run (exit 2) if any criterion changed. Exit code 0 when sealed, 2 for a
    bad spec, policy, key or --out (nothing is written then).
    """
    from respai.plan.criteria import criteria
    from respai.plan.seal import plan_output, seal_plan
    from respai.sealing import begin_signing
    from respai.spec import load_policy, load_spec

    signing = begin_signing(
        [("--out", out)],
        [("the spec", spec), ("--policy", policy)],
        key=key,
        ledger=None if no_ledger else ledger,
        stage=plan_output,
        out=out,
        timestamps=timestamps,
    )
    parsed = load_spec(spec)
    pol = None if policy is None else load_policy(policy)
    criteria(parsed, pol)  # a policy that does not fit the spec is refused first
    sealed = seal_plan(parsed, pol, signing)
    sk = signing.signing_key()
    if sk.created:
        output.key_created(sk.path, sk.key_id)
    start = sealed.predicate["records"][0]
    output.echo(f"plan {sealed.plan_id}")
    output.echo(f"registered {sealed.predicate['timestamp']}, signed with key {sealed.key_id}")
    if sealed.ledger is not None:
        output.echo(f"appended to the ledger {sealed.ledger} (record {start['record_id']})")
    else:
        output.echo("not appended to a ledger (--no-ledger): respai evaluate --plan cannot use it")
    if sealed.files:
        output.echo(f"wrote {', '.join(p.name for p in sealed.files)} to {out}")
    if sealed.note:
        output.echo(f"respai: warning: {sealed.note}")
    output.echo(f"run it with: respai evaluate {spec} --plan {sealed.plan_id}")
    if as_json:
        output.emit_json(sealed.to_json())
    raise SystemExit(0)
