"""A record an export may read: its file's digest and its verified Statement.

Every export starts here. :func:`read_verified` reads the file once, runs every check of
``respai verify`` on those bytes (:func:`respai.record.verify_envelope`) and hands back
the predicate only when all of them passed, with the SHA-256 of the exact bytes read:
the digest each export cites, so what it describes is pinned to the file that was
checked. :func:`refuse_guarded_output` keeps the file an export (or a report) writes out
of the key folders and the ledgers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.io import FileTooLarge, Guarded, NotARegularFile, read_bounded, refuse_inside
from respai.limits import MAX_JSON_BYTES
from respai.record import KeyRing, VerificationReport, loads_strict, verify_envelope

__all__ = ["VerifiedRecord", "read_verified", "refuse_guarded_output"]


@dataclass(frozen=True, slots=True)
class VerifiedRecord:
    """A record whose every check passed.

    Attributes
    ----------
    name
        The record file's name (``record.json``).
    sha256
        Hex SHA-256 of the file's bytes, as read and verified.
    statement
        The verified in-toto Statement (its ``predicate`` is the record).
    envelope
        The DSSE envelope as read (the file's JSON).
    """

    name: str
    sha256: str
    statement: dict[str, Any]
    envelope: dict[str, Any]

    @property
    def predicate(self) -> dict[str, Any]:
        """The record: the Statement's predicate."""
        predicate: dict[str, Any] = self.statement["predicate"]
        return predicate


def _read(path: Path) -> bytes:
    try:
        return read_bounded(path, MAX_JSON_BYTES, "MAX_JSON_BYTES")
    except FileNotFoundError:
        raise InputError(f"the record {path} does not exist.") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory; pass the record.json inside it.") from None
    except NotARegularFile:
        raise InputError(f"{path} is not a regular file (a pipe, a device or a socket).") from None
    except FileTooLarge as exc:
        raise InputError(
            f"the record {path} is {exc.strerror}; it is not a respai record."
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read the record {path}: {exc.strerror or exc}.") from None


def read_verified(path: Path, ring: KeyRing) -> tuple[VerificationReport, VerifiedRecord | None]:
    """Read ``path`` once and verify it with ``ring``.

    Parameters
    ----------
    path
        The signed record (a DSSE envelope in JSON).
    ring
        The public keys to trust.

    Returns
    -------
    tuple
        The verification report, and the verified record, or ``None`` when any check
        failed (the report names which).

    Raises
    ------
    InputError
        When the file cannot be read or is larger than a record can be.
    """
    data = _read(path)
    report = verify_envelope(data, ring)
    if not report.ok or report.statement is None:
        return report, None
    envelope = loads_strict(data)  # it verified, so it is a strict JSON object
    assert isinstance(envelope, dict)
    digest = hashlib.sha256(data).hexdigest()
    return report, VerifiedRecord(path.name, digest, report.statement, envelope)


def refuse_guarded_output(
    option: str, out: Path | None, *, private_key: Path | None, keys_files: Sequence[Path]
) -> None:
    """Refuse an output that is or lies in a key folder or a ledger folder.

    The key folders are the default one (:func:`respai.record.default_key_dir`), the
    folder of ``private_key`` (``respai export --key``) and the folder of each
    ``keys.json`` given (``--keys``): a file written there could replace a private key or
    a ``keys.json``. A public key's folder is not one (``public_key.pem`` sits beside
    ``record.json`` and ``report.html`` in every output folder): the public key itself is
    refused as an input (:func:`respai.io.refuse_overlaps`). The ledger folder is any
    folder above the output that holds a ``ledger.json``, or the default ``.respai``
    (:func:`respai.ledger.layout.enclosing_ledger`), which only respai writes.

    Parameters
    ----------
    option
        How messages name the output (``-o``).
    out
        The output file; ``None`` (standard output) is never refused.
    private_key
        The signing key the command may read (``--key`` of ``respai export``).
    keys_files
        The ``keys.json`` files given (``--keys``).

    Raises
    ------
    InputError
        Naming the output, the folder and why (exit 2); nothing has been written.
    """
    from respai.ledger.layout import enclosing_ledger
    from respai.record import default_key_dir

    if out is None:
        return
    harm = "a file written there could replace a private key or keys.json"
    folders: list[Guarded] = [("the key folder", default_key_dir(), harm)]
    for name, key in [("--key", private_key), *(("--keys", k) for k in keys_files)]:
        if key is not None:
            held = f"it holds {name} {key}, and {harm}"
            places = dict.fromkeys([key.parent, key.resolve().parent])
            folders.extend(("the key folder", folder, held) for folder in places)
    ledger = enclosing_ledger(out)
    if ledger is not None:
        folders.append(
            (
                "the ledger folder",
                ledger,
                "only respai writes a ledger's files (ledger.json, lock, runs/, "
                "checkpoints/), and a file written there would replace or mix with them",
            )
        )
    refuse_inside([(option, out)], folders)
