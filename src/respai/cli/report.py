"""``respai report`` and ``respai sample-page``: the self-contained HTML pages."""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli.app import cli
from respai.cli.output import echo

__all__ = ["report", "sample_page"]


@cli.command()
@click.argument("record", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="Where to write the HTML report.",
)
@click.option(
    "--key",
    "pub",
    type=click.Path(path_type=Path),
    help="Public key to embed (default: public_key.pem beside the record).",
)
def report(record: Path, output: Path, pub: Path | None) -> None:
    """Render a signed RECORD as a self-contained HTML report that verifies itself."""
    from respai.io import write_file
    from respai.render.report import render_report_file

    write_file(output, render_report_file(record, pub))
    echo(f"respai report: wrote {output}")


@cli.command("sample-page")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("sample.html"),
    show_default=True,
    help="Where to write the page.",
)
def sample_page(output: Path) -> None:
    """Write the in-browser sample page: paste a CSV, get signed rates, nothing leaves."""
    from respai.io import write_file
    from respai.render.sample_page import sample_page_html

    write_file(output, sample_page_html())
    echo(f"respai sample-page: wrote {output}")
