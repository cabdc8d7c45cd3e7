"""``respai export``: a verified record as CycloneDX, an in-toto test result or JUnit.

The record is verified first with the checks of ``respai verify`` (the same keys:
``--public-key``, else every ``--keys``, else the user's own keys.json); when any check
fails, each failed check is named, nothing is written and the exit code is 1. The
document goes to ``-o FILE`` (written atomically) or, without it, to standard output;
``-o`` may not be or lie in a key folder or a ledger folder
(:func:`respai.export.record.refuse_guarded_output`).
``--format`` offers the names of :data:`respai.export.formats.FORMATS`; a format that
signs (``in-toto-test-result``) is signed with the user's key, found as ``respai
evaluate`` finds it (``--key``, else the newest key in the key folder, else a new one).
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import KEY_OPTION, cli
from respai.export.formats import FORMATS

__all__ = ["export"]


@cli.command()
@click.argument("record", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    required=True,
    help="; ".join(f"{f.name}: {f.description}" for f in FORMATS.values()) + ".",
)
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    help="File to write (default: standard output).",
)
@click.option(
    "--public-key",
    "pub",
    type=click.Path(path_type=Path),
    help="Public key (SPKI PEM) to verify the record with.",
)
@click.option(
    "--keys",
    "keys_json",
    type=click.Path(path_type=Path),
    multiple=True,
    help="keys.json to verify the record with (repeatable; default: your own keys.json).",
)
@KEY_OPTION
@click.option(
    "--url",
    help="cyclonedx: where the record is published (default: its file name); "
    "in-toto-test-result: the page of the run, e.g. the CI job.",
)
def export(
    record: Path,
    fmt: str,
    out: Path | None,
    pub: Path | None,
    keys_json: tuple[Path, ...],
    key: Path | None,
    url: str | None,
) -> None:
    """Verify a signed RECORD, then export it as FORMAT."""
    from respai.cli.verify import key_ring
    from respai.export import export_document
    from respai.export.record import read_verified, refuse_guarded_output
    from respai.io import refuse_overlaps

    refuse_overlaps(  # -o onto the record (or a key) would overwrite it
        [("-o", out)],
        [
            ("the record", record),
            ("--public-key", pub),
            *(("--keys", k) for k in keys_json),
            ("--key", key),
        ],
    )
    refuse_guarded_output("-o", out, private_key=key, keys_files=keys_json)
    ring, ring_source = key_ring(pub, keys_json)
    report, verified = read_verified(record, ring)
    if verified is None:
        output.echo(f"keys: {ring_source}")
        for check in report.checks:
            if not check.ok:
                output.echo(f"FAIL  {check.name}: {check.detail}")
        output.echo(
            f"respai export: {record} is NOT verified (failed: {', '.join(report.failed)}); "
            "nothing was exported."
        )
        raise SystemExit(1)
    signing = None
    sk = None
    if FORMATS[fmt].signs:
        from respai.sealing import create_signing_key, find_signing_key

        sk = find_signing_key(key) or create_signing_key()
        signing = (sk.key, sk.key_id)
    try:
        document = export_document(fmt, verified, signing_key=signing, url=url)
        if out is not None:
            from respai.io import write_file

            write_file(out, document)
    except BaseException:
        if sk is not None:
            from respai.sealing import discard_created_key

            discard_created_key(sk)
        raise
    if sk is not None:
        from respai.sealing import settle_created_key

        settle_created_key(sk)  # a key made for this export is kept: no .pending marker
        if sk.created:
            output.key_created(sk.path, sk.key_id)
    if out is None:
        output.write_stdout(document)
    else:
        output.echo(f"respai export: {record} verified ({ring_source}); wrote {fmt} to {out}")
    raise SystemExit(0)
