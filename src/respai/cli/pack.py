"""``respai pack`` and ``respai reproduce``: write an LL144 evidence pack, and check one.

Thin commands over :func:`respai.pack.build_pack` and :func:`respai.pack.reproduce_pack`:
they print what was written or found to standard error and, for ``reproduce --json``,
the outcome to standard output.
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
@TIMESTAMP_OPTION
@click.option(
    "--plan",
    "plan_id",
    metavar="PLAN_ID",
    help="The plan (from respai plan) the audit is held to: refused, exit 2, naming each "
    "criterion that changed; the pack then holds the plan record as plan.json.",
)
@click.option(
    "--wheel",
    "wheel",
    type=click.Path(path_type=Path),
    help="The wheel file of the engine that is running, copied into the pack so that "
    "respai reproduce --isolated can install it a year later: refused, exit 2, when its "
    "version or package files are not the running engine's, or its SHA-256 is not the "
    "one the running engine was installed from. Default: the wheel the running engine "
    "was installed from, when that file still exists unchanged; else no wheel.",
)
def pack_command(
    spec: Path,
    out: Path,
    key: Path | None,
    policy: Path | None,
    ledger: Path,
    no_ledger: bool,
    timestamps: tuple[str, ...],
    plan_id: str | None,
    wheel: Path | None,
) -> None:
    """Run the LL144 audit of SPEC and write its evidence pack to OUT and OUT.zip.

    The pack holds the scope memo, copies of the spec and the input files with their
    SHA-256 sums, the row reconciliation, the engine and environment versions, the raw
    count tables and ll144.json, the exclusions, the independence statement (or a blank
    one to sign), the dates, a signed record, the public key, the published summary and
    MANIFEST.json, with environment.lock (the exact version of every distribution the
    engine needs) and the engine's wheel (see --wheel). Check it at any time, on any
    machine, with: respai reproduce OUT (or, in a fresh environment built from the
    pack's wheel and lock: respai reproduce OUT --isolated --wheelhouse DIR).
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
        wheel=wheel,
        timestamps=timestamps,
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
    if res.wheel is not None:
        how = "named with --wheel" if res.wheel_note == "--wheel" else "the running engine's"
        echo(f"  engine wheel: {res.wheel} ({how}), with environment.lock")
    else:
        echo(
            f"  engine wheel: NONE: {res.wheel_note}. The pack cannot rebuild its engine "
            "with reproduce --isolated; to carry one, build the wheel (python -m build "
            "--wheel) and pack again with --wheel PATH."
        )
    echo(f"  MANIFEST.json sha256 {res.manifest_sha256}")
    echo(
        "  Keep this hash with the engagement file; check the pack with: "
        f"respai reproduce {res.out_dir}"
    )
    raise SystemExit(0)


@cli.command("reproduce")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the outcome as JSON to stdout.")
@click.option(
    "--isolated",
    is_flag=True,
    help="Rerun in a fresh virtual environment (in a temporary folder, removed after) "
    "built from the pack's own engine wheel and the exact versions of environment.lock, "
    "and name every installed version that differs from the lock.",
)
@click.option(
    "--wheelhouse",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="With --isolated: install the locked dependencies from this folder of wheels, "
    "asking no package index (pip --no-index --find-links DIR).",
)
@click.option(
    "--index-url",
    metavar="URL",
    help="With --isolated: install the locked dependencies from this package index. "
    "Without --wheelhouse or --index-url, pip's own configuration decides.",
)
def reproduce_command(
    pack: Path,
    as_json: bool,
    isolated: bool,
    wheelhouse: Path | None,
    index_url: str | None,
) -> None:
    """Rerun the LL144 audit of the evidence pack PACK (a folder or its .zip) and compare.

    The audit is rerun from the pack's own copies of the spec and data, and every value
    of the new result is compared with tables/ll144.json (run-time fields such as paths
    are ignored); every file is checked against inputs/SHA256SUMS, MANIFEST.json and the
    file list signed in record.json, which is verified with the pack's public_key.pem.
    A different engine or environment is a note. With --isolated, the same check runs
    in a fresh virtual environment holding the pack's engine wheel and the locked
    versions (from --wheelhouse DIR or --index-url URL). Exit code 0 when every number
    and file is identical, 1 when anything differs (each difference is listed with its
    path, old and new value), 2 for a missing, incomplete or unreadable pack, or a fresh
    environment that cannot be built (naming the package that could not be installed).
    """
    if not isolated and (wheelhouse is not None or index_url is not None):
        raise click.UsageError("--wheelhouse and --index-url go with --isolated.")
    if isolated:
        _reproduce_isolated(pack, as_json, wheelhouse, index_url)
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


def _reproduce_isolated(
    pack: Path, as_json: bool, wheelhouse: Path | None, index_url: str | None
) -> None:
    """``respai reproduce PACK --isolated``: the rerun in a fresh environment, reported."""
    from respai.pack import reproduce_isolated

    echo(f"respai reproduce --isolated: {pack}: building a fresh virtual environment ...")
    res = reproduce_isolated(pack, wheelhouse=wheelhouse, index_url=index_url)
    echo(
        "  environment: "
        + (f"the pack's wheel {res.wheel}" if res.wheel else "respai from the index")
        + f" and the {res.locked} distribution(s) of environment.lock, from {res.source}"
    )
    if res.differs:
        echo(f"  versions: {len(res.differs)} installed version(s) differ from environment.lock:")
        for name, want, have in res.differs[:MAX_SHOWN]:
            echo(f"    - {name}: locked {want}, installed {have or 'nothing'}")
    else:
        echo("  versions: every installed version is the locked one")
    for note in res.notes:
        echo(f"  note: {note}")
    echo("The rerun in the fresh environment:")
    for line in res.report.rstrip("\n").splitlines():
        echo(f"  | {line}")
    if as_json:
        output.emit_json(res.to_dict())
    raise SystemExit(res.exit_code)
