"""Errors of the record layer: records that cannot be built, keys, failed verification."""

from __future__ import annotations

from collections.abc import Sequence

from respai.errors import Error

__all__ = [
    "KeyMaterialError",
    "RecordError",
    "VerificationError",
]


class RecordError(Error):
    """A record cannot be built or read: a value JSON cannot hold, bad JSON, a broken link.

    The message names the JSON path of the value at fault, for example
    ``$.records[2].value``.
    """


class KeyMaterialError(Error):
    """A key file, key directory or ``keys.json`` cannot be used as it is.

    Raised for a private key readable by other users, a wrong or missing passphrase, a
    file that holds no key or a key that is not Ed25519, and a malformed ``keys.json``.
    """


class VerificationError(Error):
    """A record did not verify; ``failed`` names the checks that failed.

    Parameters
    ----------
    message
        Which checks failed.
    hint
        The detail of each failed check, or ``None``.
    failed
        The names of the failed checks, in check order.
    """

    exit_code = 1

    def __init__(
        self, message: str, hint: str | None = None, *, failed: Sequence[str] = ()
    ) -> None:
        super().__init__(message, hint)
        self.failed = tuple(failed)
