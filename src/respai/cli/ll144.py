"""``respai ll144``: run the NYC Local Law 144 bias audit, print it, write its files.

A thin layer: parse the options, call :func:`respai.ll144.audit.run_ll144`, write the
output folder, print the tables to standard error and the JSON to standard output. With
``--out``, a bad key or ``--out`` is reported before the data is read, and the run is
signed and appended to the ledger.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from respai.cli import output
from respai.cli.app import (
    KEY_OPTION,
    LEDGER_OPTION,
    NO_LEDGER_OPTION,
    TIMESTAMP_OPTION,
    cli,
)

if TYPE_CHECKING:
    from respai.spec.parsed import Spec

__all__ = ["ll144_command"]


@cli.command("ll144")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Folder for summary.html, summary.md, summary.csv, tables.csv, ll144.json and the "
    "signed record.json with report.html (created, or replaced when it holds an earlier "
    "ll144 output). Writing it signs the run and appends it to the ledger.",
)
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file; its alpha sets the Fisher tests' significance level.",
)
@KEY_OPTION
@LEDGER_OPTION
@NO_LEDGER_OPTION
@TIMESTAMP_OPTION
def ll144_command(
    spec: Path,
    as_json: bool,
    out: Path | None,
    policy: Path | None,
    key: Path | None,
    ledger: Path,
    no_ledger: bool,
    timestamps: tuple[str, ...],
) -> None:
    """Run the NYC Local Law 144 bias audit declared in SPEC's ll144: block.

    Prints the sex, race/ethnicity and intersectional impact-ratio tables, the findings
    and the diagnosis. With --out, writes the audit's files and its signed record, and
    appends the run to the ledger. Exit code 0 when the audit ran (the law sets no pass
    mark: findings are stated, not gated), 2 for a bad spec or bad input (nothing is
    written then).
    """
    from respai.ll144.audit import run_ll144
    from respai.ll144.output import ll144_output, seal_ll144
    from respai.ll144.terminal import render_ll144
    from respai.sealing import Signing, begin_signing
    from respai.spec import load_policy

    signing: Signing | None = None
    parsed: Spec | None = None
    if out is not None:  # a bad key or --out is reported before the data is read
        from respai.sealing import spec_inputs
        from respai.spec import load_spec

        signing = begin_signing(
            [("--out", out)],
            [("the spec", spec), ("--policy", policy)],
            key=key,
            ledger=None if no_ledger else ledger,
            stage=ll144_output,
            out=out,
            timestamps=timestamps,
        )
        parsed = load_spec(spec)  # read once: the spec checked is the spec run
        signing.refuse_inputs(spec_inputs(parsed))
    result = run_ll144(
        spec if parsed is None else parsed,
        policy=None if policy is None else load_policy(policy),
    )
    console = output.console()
    sealed = None
    if signing is not None:
        sealed = seal_ll144(result, signing)
        sk = signing.signing_key()
        if sk.created:
            output.key_created(sk.path, sk.key_id)
    render_ll144(result, console)
    if sealed is not None:
        console.print()
        console.print(f"wrote {', '.join(p.name for p in sealed.files)} to {out}")
        console.print(
            f"record.json signed with key {sealed.key_id}"
            + (f"; run appended to the ledger {sealed.ledger}" if sealed.ledger else "")
        )
        if sealed.note:
            console.print(f"respai: warning: {sealed.note}")
    if as_json:
        output.emit_json(result.to_dict())
    raise SystemExit(result.exit_code)
