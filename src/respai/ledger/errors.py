"""The ledger's errors: a folder that cannot be used, and a checkpoint that proves nothing."""

from __future__ import annotations

from respai.errors import Error

__all__ = ["CheckpointError", "LedgerError", "LedgerFormatError"]


class LedgerError(Error):
    """The ledger directory cannot be used as it is.

    Raised for a directory that is not a ledger, a missing or malformed ``ledger.json``,
    a ledger of an older format, a run that is not the ledger's next run, a ledger whose
    tail was removed or whose history no longer matches its last checkpoint (appending
    is refused so the evidence is kept), and files that cannot be read or written.
    """


class CheckpointError(LedgerError):
    """A checkpoint is malformed, belongs to another ledger, or no trusted key signed it."""


class LedgerFormatError(LedgerError):
    """The ledger is of an older format, whose checkpoints this version does not read."""
