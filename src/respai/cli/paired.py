"""``respai paired``: the focused view of a spec's paired (counterfactual) test.

A thin layer: call :func:`respai.paired.audit.run_paired`, print its lines to standard
error and, with ``--json``, the result to standard output. ``respai evaluate`` runs the
same block into the signed record.
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["paired_command"]


@cli.command("paired")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file; its alpha sets the intervals' level.",
)
def paired_command(spec: Path, as_json: bool, policy: Path | None) -> None:
    """Compare matched cases that differ only in a group-linked detail (SPEC's paired: block).

    For each variant against the reference: complete pairs, rows left out by reason, the
    discordant counts b and c, the exact McNemar test (Holm-adjusted across variants) and
    the difference in outcome rates with its interval. Exit code 0 when every variant's
    interval lies within +-max_difference, 1 when one lies wholly beyond it, 3 when the
    pairs cannot decide, 2 for a bad spec or bad input.
    """
    from respai.paired.audit import run_paired
    from respai.paired.terminal import paired_lines
    from respai.spec import load_policy

    result = run_paired(spec, policy=None if policy is None else load_policy(policy))
    for line in paired_lines(result):
        output.echo(line)
    if as_json:
        output.emit_json(result.to_dict())
    raise SystemExit(result.exit_code)
