"""The ``respai ll144`` command: run the audit, print it, write its files.

A thin layer: parse the options, call :func:`respai.ll144.audit.run_ll144`, write the
output folder, print the tables to standard error and the JSON to standard output. Errors
(:class:`respai.errors.Error`) reach the CLI's one error path, which prints one paragraph
and exits 2. Heavy modules load inside the command, so ``respai --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

__all__ = ["ll144_command"]


@click.command("ll144")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Folder for summary.html, summary.md, summary.csv, tables.csv and ll144.json "
    "(created, or replaced when it holds an earlier ll144 output).",
)
def ll144_command(spec: Path, as_json: bool, out: Path | None) -> None:
    """Run the NYC Local Law 144 bias audit declared in SPEC's ll144: block.

    Prints the sex, race/ethnicity and intersectional impact-ratio tables, the findings
    and the diagnosis. Exit code 0 when the audit ran (the law sets no pass mark:
    findings are stated, not gated), 2 for a bad spec or bad input.
    """
    from rich.console import Console

    from respai.ll144.audit import run_ll144
    from respai.ll144.output import write_outputs
    from respai.ll144.terminal import render_ll144

    result = run_ll144(spec)
    written = write_outputs(result, out) if out is not None else []
    console = Console(stderr=True, markup=False, emoji=False, highlight=False)
    render_ll144(result, console)
    if written:
        console.print()
        console.print(f"wrote {', '.join(p.name for p in written)} to {out}")
    if as_json:
        sys.stdout.write(json.dumps(result.to_dict(), indent=2, ensure_ascii=False,
                                    allow_nan=False))
        sys.stdout.write("\n")
        sys.stdout.flush()
    raise SystemExit(result.exit_code)
