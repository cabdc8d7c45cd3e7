"""``respai keys``: manage Ed25519 signing keys (``respai keys new``)."""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["keys", "keys_new"]


@cli.group()
def keys() -> None:
    """Manage Ed25519 signing keys."""


@keys.command("new")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    help="Folder for the key pair and keys.json (default: the user's key folder).",
)
def keys_new(directory: Path | None) -> None:
    """Create an Ed25519 key pair (PKCS#8 PEM, mode 0600) and list it in keys.json."""
    from respai.record import default_key_dir, new_key, passphrase_from_env_or_prompt

    folder = directory or default_key_dir()
    passphrase = passphrase_from_env_or_prompt(prompt=True, confirm=True)
    files = new_key(folder, passphrase=passphrase)
    output.echo(f"key id:      {files.key_id}")
    output.echo(
        f"private key: {files.private_key} (mode 0600, "
        f"{'passphrase-encrypted' if files.encrypted else 'not encrypted'})"
    )
    output.echo(f"public key:  {files.public_key}")
    output.echo(f"keys.json:   {files.keys_json} (publish it with the public key)")
