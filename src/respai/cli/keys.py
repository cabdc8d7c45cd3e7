"""``respai keys``: manage Ed25519 signing keys (``new``, ``retire``, ``revoke``).

``retire`` and ``revoke`` edit the key folder's ``keys.json`` under its lock
(:func:`respai.record.retire_key`, :func:`respai.record.revoke_key`); neither moves a
time already set, and both refuse a key id the file does not list (exit 2). The file
must then be published again: a verifier reads the copy it has.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["keys", "keys_new", "keys_retire", "keys_revoke"]

DIR_OPTION = click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    help="Key folder whose keys.json to edit (default: the user's key folder).",
)


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


def _when(at: str | None) -> tuple[dt.datetime, str]:
    """The time ``--at`` names (RFC 3339 UTC), else now; and how to say it."""
    from respai.errors import InputError
    from respai.record import RecordError, format_timestamp, now_utc, parse_timestamp

    if at is None:
        now = now_utc()
        return now, format_timestamp(now)
    try:
        when = parse_timestamp(at)
    except RecordError:
        raise InputError(
            f"--at {at!r} is not an RFC 3339 UTC timestamp.",
            "Write it like 2026-12-31T23:59:59Z.",
        ) from None
    return when, format_timestamp(when)


def _keys_json(directory: Path | None) -> Path:
    from respai.record import default_key_dir

    return (directory or default_key_dir()) / "keys.json"


@keys.command("retire")
@click.argument("key_id")
@DIR_OPTION
@click.option(
    "--at",
    help="When the key stops signing, RFC 3339 UTC (default: now). Records it signed "
    "up to then still verify.",
)
def keys_retire(key_id: str, directory: Path | None, at: str | None) -> None:
    """Retire KEY_ID: set its not_after, so it signs nothing later but still verifies.

    Rotation is 'respai keys new' and then retiring the old key. Publish keys.json again
    afterwards.
    """
    from respai.record import retire_key

    path = _keys_json(directory)
    when, shown = _when(at)
    retire_key(path, key_id, when)
    output.echo(f"respai keys retire: {key_id} retired (not_after {shown}) in {path}.")
    output.echo(
        "Records it signed until then still verify; respai refuses to sign with it after "
        "that. Publish the updated keys.json."
    )


@keys.command("revoke")
@click.argument("key_id")
@DIR_OPTION
@click.option(
    "--reason",
    help="Why (kept in keys.json as revocation_reason, for people; e.g. 'laptop lost').",
)
def keys_revoke(key_id: str, directory: Path | None, reason: str | None) -> None:
    """Revoke KEY_ID after a compromise: from now on it verifies no record at all.

    Even records it signed honestly before stop verifying, since no one can tell them
    from backdated forgeries. Create a new key, publish keys.json, and re-run the
    evaluations whose records must stay verifiable.
    """
    from respai.record import revoke_key

    path = _keys_json(directory)
    when, shown = _when(None)
    revoke_key(path, key_id, when, reason=reason)
    output.echo(f"respai keys revoke: {key_id} revoked (revoked_at {shown}) in {path}.")
    output.echo(
        "It now verifies no record, including earlier ones. Publish the updated keys.json, "
        "create a new key with 'respai keys new', and re-run what must stay verifiable."
    )
