"""``respai witness``: be a witness of someone's ledger (``init``, ``cosign``).

``init`` makes a witness key and its state folder, trusting the ledger signer's public
key(s); ``cosign`` checks a ledger's checkpoint against what this witness cosigned before
(:func:`respai.ledger.witness.cosign`) and adds its cosignature, or refuses (exit 1) a
rollback, a fork, or a checkpoint no trusted log key signed. Readers check cosignatures
with ``respai verify --ledger DIR --witness VKEY --quorum N``.
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["witness", "witness_cosign", "witness_init"]


@cli.group()
def witness() -> None:
    """Cosign ledger checkpoints as a witness (C2SP tlog-cosignature)."""


@witness.command("init")
@click.option("--name", required=True, help="The witness's name, e.g. example.org/witness1.")
@click.option(
    "--dir",
    "directory",
    required=True,
    type=click.Path(path_type=Path),
    help="The witness's state folder to create (its key and what it cosigned).",
)
@click.option(
    "--log-key",
    "log_keys",
    required=True,
    multiple=True,
    type=click.Path(path_type=Path),
    help="Public key (SPKI PEM) of a ledger signer whose checkpoints it will cosign. Repeatable.",
)
def witness_init(name: str, directory: Path, log_keys: tuple[Path, ...]) -> None:
    """Make a witness: an Ed25519 key (mode 0600) and a state folder; print its vkey."""
    from respai.ledger.witness import init_witness
    from respai.record import load_public_key

    made = init_witness(directory, name, [load_public_key(p) for p in log_keys])
    output.echo(f"witness:    {made.name}")
    output.echo(f"state:      {made.state} (private key witness.key, mode 0600)")
    output.echo(f"public key: {made.state / 'witness.pub'}")
    output.echo(f"vkey:       {made.vkey}")
    output.echo("Give the vkey to readers: respai verify --ledger DIR --witness VKEY")


@witness.command("cosign")
@click.argument("checkpoint", required=False, type=click.Path(path_type=Path))
@click.option(
    "--ledger",
    required=True,
    type=click.Path(path_type=Path),
    help="The ledger folder whose runs are read to recompute the tree.",
)
@click.option(
    "--state",
    required=True,
    type=click.Path(path_type=Path),
    help="The witness's state folder (made by respai witness init).",
)
def witness_cosign(checkpoint: Path | None, ledger: Path, state: Path) -> None:
    """Cosign the ledger's newest CHECKPOINT if it extends what this witness cosigned."""
    from respai.errors import InputError
    from respai.ledger.witness import WitnessRefusal, cosign

    if not ledger.is_dir():
        raise InputError(f"the ledger folder {ledger} does not exist.")
    try:
        done = cosign(ledger, state, checkpoint)
    except WitnessRefusal as exc:
        output.echo(f"REFUSED: {exc.message}")
        raise SystemExit(1) from None
    before = (
        "first checkpoint this witness sees of this ledger"
        if done.previous_size is None
        else f"extends size {done.previous_size}, which it cosigned before"
    )
    output.echo(
        f"cosigned {done.checkpoint.origin} size {done.checkpoint.size} ({before}); "
        f"written to {done.path}"
    )
