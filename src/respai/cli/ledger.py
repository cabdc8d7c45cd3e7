"""``respai log`` and ``respai compare``: read the runs of a ledger (no verification)."""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["compare", "ledger", "ledger_remove", "log"]


@cli.command()
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option(
    "--ledger",
    "ledger_option",
    type=click.Path(path_type=Path),
    default=None,
    help="The ledger folder (the same as DIRECTORY; default .respai).",
)
@click.option("--json", "as_json", is_flag=True, help="Write the runs as JSON to stdout.")
def log(directory: Path | None, ledger_option: Path | None, as_json: bool) -> None:
    """List the runs in the ledger DIRECTORY (default .respai), oldest first.

    Nothing is verified: use respai verify --ledger for that.
    """
    from respai.ledger import list_runs, log_lines

    if directory is not None and ledger_option is not None and directory != ledger_option:
        raise click.UsageError("give the ledger once: as DIRECTORY or as --ledger, not both.")
    ledger = directory or ledger_option or Path(".respai")
    if not ledger.is_dir():
        raise click.UsageError(f"no ledger at {ledger}; respai evaluate creates one.")
    runs = list_runs(ledger)
    for line in log_lines(runs):
        output.echo(line)
    if as_json:
        output.emit_json({"ledger": str(ledger), "runs": [r.to_json() for r in runs]})


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("a")
@click.argument("b")
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="Ledger to look runs up in (by run id, seq or -1).",
)
@click.option("--json", "as_json", is_flag=True, help="Write the comparison as JSON.")
def compare(a: str, b: str, ledger: Path, as_json: bool) -> None:
    """Show what changed between two records A and B of the same system.

    A and B are record files, or run ids, seq numbers or -1 / -2 (newest, the one
    before) in the ledger. Compare does not verify: run respai verify first.
    """
    from respai.compare import compare_records
    from respai.ledger import find_run, read_run

    comparison = compare_records(
        read_run(find_run(ledger, a)), read_run(find_run(ledger, b)), labels=(a, b)
    )
    for line in comparison.lines():
        output.echo(line)
    if as_json:
        output.emit_json(comparison.to_dict())


@cli.group()
def ledger() -> None:
    """Manage the ledger's runs: remove a run whose retention ended (with a tombstone)."""


@ledger.command("remove", context_settings={"ignore_unknown_options": True})
@click.argument("run")
@click.option("--reason", required=True, help="Why the run is removed (kept in the tombstone).")
@click.option(
    "--ledger",
    "ledger_dir",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="The ledger folder.",
)
@click.option(
    "--key",
    type=click.Path(path_type=Path),
    default=None,
    help="Ed25519 private key that signs the tombstone. Default: the newest key in the "
    "key folder (none is created).",
)
def ledger_remove(run: str, reason: str, ledger_dir: Path, key: Path | None) -> None:
    """Remove RUN (run id, seq or -1) after every retention clock of its record has passed.

    The run file is deleted and a tombstone signed with your key takes its place in
    tombstones/: its Merkle leaf, ids, seq range, retention and the reason, so
    respai verify --ledger still verifies the chain and every checkpoint. A run that
    must still be kept, or that states no retention, is not removed (exit 2).
    """
    from respai.ledger.removal import remove_run
    from respai.sealing import existing_signing_key

    if not ledger_dir.is_dir():
        raise click.UsageError(f"no ledger at {ledger_dir}.")
    signer = existing_signing_key(key, "respai ledger remove signs the tombstone")
    stone = remove_run(ledger_dir, run, reason=reason, key=signer.key, key_id=signer.key_id)
    output.echo(f"Removed: {stone.text()}.")
    output.echo(f"Tombstone: {stone.path}")
