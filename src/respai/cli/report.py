"""``respai report`` and ``respai sample-page``: the self-contained HTML pages.

``respai report`` verifies the record before it renders it, with the checks of ``respai
verify``; a record that does not verify is named with each failed check, no page is
written and the exit code is 1. The key it verifies with, and embeds for the page's own
check, is ``--key`` (one public key), else every ``--keys``, else ``public_key.pem``
beside the record, else the user's own keys.json. ``-o`` may not be the record or a key,
nor be or lie in a key folder or a ledger folder
(:func:`respai.export.record.refuse_guarded_output`).
"""

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
    help="Public key to verify with and embed (default: public_key.pem beside the record).",
)
@click.option(
    "--keys",
    "keys_json",
    type=click.Path(path_type=Path),
    multiple=True,
    help="keys.json to verify with (repeatable); the signing key from it is embedded.",
)
def report(record: Path, output: Path, pub: Path | None, keys_json: tuple[Path, ...]) -> None:
    """Verify a signed RECORD, then render it as a self-contained HTML report."""
    from respai.cli.verify import key_ring
    from respai.export.record import read_verified, refuse_guarded_output
    from respai.io import refuse_overlaps, write_file
    from respai.record.keys import public_key_raw
    from respai.render.report import page_code_id, render_report

    beside = record.parent / "public_key.pem"
    if pub is None and not keys_json and beside.is_file():
        pub = beside
    refuse_overlaps(  # -o onto the record (or a key) would overwrite it
        [("-o", output)],
        [("the record", record), ("--key", pub), *(("--keys", k) for k in keys_json)],
    )
    refuse_guarded_output("-o", output, private_key=None, keys_files=keys_json)
    ring, ring_source = key_ring(pub, keys_json)
    checked, verified = read_verified(record, ring)
    if verified is None:
        echo(f"keys: {ring_source}")
        for check in checked.checks:
            if not check.ok:
                echo(f"FAIL  {check.name}: {check.detail}")
        echo(
            f"respai report: {record} is NOT verified (failed: {', '.join(checked.failed)}); "
            "no report was written."
        )
        raise SystemExit(1)
    signer = next(e for e in ring if e.key_id == verified.predicate.get("key_id"))
    write_file(output, render_report(verified.envelope, public_key_raw(signer.public_key)))
    echo(f"respai report: {record} verified ({ring_source}); wrote {output}")
    echo(f"page code {page_code_id()} (every report of this respai version shows it)")


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
