"""``respai pack`` and ``respai reproduce``: write an LL144 evidence pack, and check one.

Thin commands over :func:`respai.pack.build_pack` and :func:`respai.pack.reproduce_pack`:
they print what was written or found to standard error and, for ``reproduce --json``,
the outcome to standard output.
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import KEY_OPTION, LEDGER_OPTION, NO_LEDGER_OPTION, cli
from respai.cli.output import echo

__all__ = ["pack_command", "reproduce_command"]

MAX_SHOWN = 40
"""How many differences ``respai reproduce`` lists on standard error (``--json`` has all)."""


@cli.command("pack")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="The pack folder to write (created, or replaced when it is an earlier pack); "
    "the archive is written beside it as OUT.zip.",
)
@KEY_OPTION
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file; its alpha sets the Fisher tests' significance level.",
)
@LEDGER_OPTION
@NO_LEDGER_OPTION
@click.option(
    "--plan",
    "plan_id",
    metavar="PLAN_ID",
    help="The plan (from respai plan) the audit is held to: refused, exit 2, naming each "
    "criterion that changed; the pack then holds the plan record as plan.json.",
)
def pack_command(
    spec: Path,
    out: Path,
    key: Path | None,
    policy: Path | None,
    ledger: Path,
    no_ledger: bool,
    plan_id: str | None,
) -> None:
    """Run the LL144 audit of SPEC and write its evidence pack to OUT and OUT.zip.

    The pack holds the scope memo, copies of the spec and the input files with their
    SHA-256 sums, the row reconciliation, the engine and environment versions, the raw
    count tables and ll144.json, the exclusions, the independence statement (or a blank
    one to sign), the dates, a signed record, the public key, the published summary and
    MANIFEST.json. Check it at any time, on any machine, with: respai reproduce OUT.
    Exit code 0 when the pack was written, 2 for a bad spec, bad data or bad --out.
    """
    from respai.pack import build_pack

    res = build_pack(
        spec,
        out,
        key_path=key,
        ledger=None if no_ledger else ledger,
        policy=policy,
        plan=plan_id,
    )
    if res.key_created:
        output.key_created(res.key_path, res.key_id)
    for warning in res.result.warnings:
        echo(warning)
    echo(f"respai pack: wrote {len(res.files)} files to {res.out_dir} and {res.zip_path}")
    echo(
        f"  record.json signed with key {res.key_id}"
        + (f"; run appended to the ledger {res.ledger}" if res.ledger else "")
    )
    if res.note:
        echo(f"respai: warning: {res.note}")
    if res.independence == "not_signed":
        echo(
            "  independence statement: NOT YET SIGNED: the auditor must complete and sign "
            "independence.md (the spec has no ll144.auditor.independence_statement)"
        )
    else:
        echo("  independence statement: recorded from the spec")
    echo(f"  MANIFEST.json sha256 {res.manifest_sha256}")
    echo(
        "  Keep this hash with the engagement file; check the pack with: "
        f"respai reproduce {res.out_dir}"
    )
    raise SystemExit(0)


@cli.command("reproduce")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the outcome as JSON to stdout.")
def reproduce_command(pack: Path, as_json: bool) -> None:
    """Rerun the LL144 audit of the evidence pack PACK (a folder or its .zip) and compare.

    The audit is rerun from the pack's own copies of the spec and data, and every value
    of the new result is compared with tables/ll144.json (run-time fields such as paths
    are ignored); every file is checked against inputs/SHA256SUMS, MANIFEST.json and the
    file list signed in record.json, which is verified with the pack's public_key.pem.
    A different engine or environment is a note. Exit code 0 when every number and file
    is identical, 1 when anything differs (each difference is listed with its path, old
    and new value), 2 for a missing, incomplete or unreadable pack.
    """
    from respai.pack import reproduce_pack

    res = reproduce_pack(pack)
    echo(f"respai reproduce: {pack}")
    echo(f"  files: {res.files_checked} checked against inputs/SHA256SUMS and MANIFEST.json")
    echo(
        "  record: "
        + (
            "record.json verifies with public_key.pem"
            if res.record_ok
            else "record.json FAILS verification"
        )
        + (
            f" (key {res.key_id}; compare it with the auditor's published keys)"
            if res.key_id
            else ""
        )
    )
    echo(f"  rerun: {res.values_compared} values of tables/ll144.json compared")
    if res.identical:
        echo("IDENTICAL: every number and every file of the pack is reproduced.")
    else:
        echo(f"DIFFERENT: {len(res.differences)} difference(s):")
        for d in res.differences[:MAX_SHOWN]:
            echo(f"  - {d.line()}")
        if len(res.differences) > MAX_SHOWN:
            echo(f"  ... and {len(res.differences) - MAX_SHOWN} more (--json lists all)")
    if res.notes:
        echo("Notes (not failures):")
        for note in res.notes:
            echo(f"  - {note}")
    if as_json:
        output.emit_json(res.to_dict())
    raise SystemExit(res.exit_code)
