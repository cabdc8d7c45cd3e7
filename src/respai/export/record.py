"""A record an export may read: its file's digest and its verified Statement.

Every export starts here. :func:`read_verified` reads the file once, runs every check of
``respai verify`` on those bytes (:func:`respai.record.verify_envelope`) and hands back
the predicate only when all of them passed, with the SHA-256 of the exact bytes read:
the digest each export cites, so what it describes is pinned to the file that was
checked.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.io import FileTooLarge, NotARegularFile, read_bounded
from respai.limits import MAX_JSON_BYTES
from respai.record import KeyRing, VerificationReport, loads_strict, verify_envelope

__all__ = ["VerifiedRecord", "read_verified"]


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
