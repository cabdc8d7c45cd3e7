"""``respai site``: verify a ledger, then write its signed, self-verifying static site.

The ledger is verified first, with the checks of ``respai verify --ledger``, against
``--key`` (one public key), else every ``--keys``, else the user's own keys.json. A
ledger that does not verify is named with each failed check, nothing is written and the
exit code is 1. The site manifest is signed with ``--signing-key``, else the newest key
of the user's key folder (the one ``respai evaluate`` signs with), which must be one of
the keys verified with. ``-o`` may not be or lie in the ledger or a key folder; the site
is built beside it and moved into place in one rename, replacing only an earlier site.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from respai.cli.app import cli
from respai.cli.output import echo

__all__ = ["site"]


def _dated(option: str, values: tuple[str, ...]) -> dict[str, dt.date]:
    """``[RUN=]DATE`` values as ``{selector: date}`` (``""`` for the newest audit)."""
    from respai.errors import InputError
    from respai.site.dates import parse_day

    out: dict[str, dt.date] = {}
    for value in values:
        selector, _, day = value.rpartition("=")
        if selector in out:
            raise InputError(
                f"{option} names {selector or 'the newest audit'} twice.",
                f"Give {option} once per LL144 audit.",
            )
        out[selector] = parse_day(day, option)
    return out


@cli.command()
@click.argument("ledger", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("site"),
    show_default=True,
    help="The site folder to write (replaces only an earlier respai site).",
)
@click.option(
    "--key",
    "pub",
    type=click.Path(path_type=Path),
    help="Public key to verify the ledger with (default: your own keys.json).",
)
@click.option(
    "--keys",
    "keys_json",
    type=click.Path(path_type=Path),
    multiple=True,
    help="keys.json to verify the ledger with (repeatable).",
)
@click.option(
    "--signing-key",
    type=click.Path(path_type=Path),
    help="Private key that signs the site manifest (default: the newest key of your key "
    "folder, as respai evaluate uses).",
)
@click.option(
    "--posted",
    multiple=True,
    metavar="[RUN=]DATE",
    help="The day the LL144 summary was posted (YYYY-MM-DD); RUN= names the audit's run "
    "id, else the newest audit. Repeatable.",
)
@click.option(
    "--last-use",
    multiple=True,
    metavar="[RUN=]DATE",
    help="The tool's last use for an employment decision, which ends the publication "
    "period six months later. Repeatable like --posted.",
)
@click.option(
    "--distribution-date",
    multiple=True,
    metavar="[RUN=]DATE",
    help="The tool's distribution date, for an audit whose signed record states none. "
    "Repeatable like --posted.",
)
def site(
    ledger: Path | None,
    output: Path,
    pub: Path | None,
    keys_json: tuple[Path, ...],
    signing_key: Path | None,
    posted: tuple[str, ...],
    last_use: tuple[str, ...],
    distribution_date: tuple[str, ...],
) -> None:
    """Verify the LEDGER (default .respai) and write its signed static site to -o.

    Every page works from file:// and checks itself in the browser: each run's page
    checks the run's signed record, and the index, LL144, streams and compare pages check
    the site manifest this command signs.
    """
    from respai.cli.verify import key_ring
    from respai.errors import InputError
    from respai.export.record import refuse_guarded_output
    from respai.io import refuse_overlaps
    from respai.sealing import existing_signing_key
    from respai.site import SiteDates, SiteRefused, build_site

    folder = ledger or Path(".respai")
    if not folder.is_dir():
        raise InputError(
            f"the ledger folder {folder} does not exist.",
            "Pass the folder respai evaluate appends to (default .respai).",
        )
    dates = SiteDates(
        posted=_dated("--posted", posted),
        last_use=_dated("--last-use", last_use),
        distribution=_dated("--distribution-date", distribution_date),
    )
    refuse_overlaps(
        [("-o", output)],
        [("--key", pub), ("--signing-key", signing_key), *(("--keys", k) for k in keys_json)],
        ledger=("the ledger", folder),
    )
    refuse_guarded_output("-o", output, private_key=signing_key, keys_files=keys_json)
    ring, ring_source = key_ring(pub, keys_json)
    signer = existing_signing_key(signing_key, "respai site signs its manifest")
    if signer.key_id not in ring:
        raise InputError(
            f"the signing key {signer.key_id} is not one of the keys the ledger is verified "
            f"with ({ring_source}), so the site's pages could not be checked against a "
            "published key.",
            "Pass --keys with a keys.json that lists it, or --signing-key with a listed key.",
        )
    echo(f"keys: {ring_source}")
    try:
        result = build_site(folder, output, ring, signer, dates)
    except SiteRefused as refused:
        for line in refused.lines:
            echo(line)
        echo(f"respai site: the ledger {folder} is NOT verified; no site was written.")
        raise SystemExit(1) from None
    for line in [*result.ledger_lines[-1:], *result.notes]:
        echo(line)
    echo(
        f"respai site: {result.runs} run(s) verified; wrote {len(result.pages)} files to "
        f"{result.out} (manifest signed with key {result.key_id})"
    )
