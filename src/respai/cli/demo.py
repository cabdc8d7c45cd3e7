"""``respai demo``: the group rules end to end on the bundled sample data."""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["demo"]


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("respai-demo"),
    show_default=True,
    help="Folder to write the demo's outputs to.",
)
def demo(out: Path) -> None:
    """Run the group rules end to end on the bundled sample data and write the outputs."""
    from respai.demo import run_demo

    summary = run_demo(out)
    for line in summary:
        output.echo(line)
