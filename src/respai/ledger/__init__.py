"""The local append-only ledger: one signed run per file, a signed checkpoint after each run.

A ledger is a directory (``.respai/`` in the working directory by default)::

    ledger.json                         {"format", "origin", "created"}
    lock                                flock(2) target: one appender at a time
    runs/<seq, 12 digits>-<run_id>.json one DSSE envelope per run, written atomically
    checkpoints/<size>.txt              a C2SP signed-note checkpoint after each run

Every run's first record links to the previous run's last record (``prev_record_id``,
global ``seq``), so a dropped, reordered or edited run breaks the chain, and
:func:`verify_ledger` names it. After each run a checkpoint, ``origin``, ``size`` (the
number of runs) and the RFC 6962 Merkle root over the runs, is signed with the run's key.
Each leaf is the SHA-256 of one run file, so the root covers every run's whole signed
envelope: its records, fingerprints, counts, timestamp and signatures. A copy of a
checkpoint kept elsewhere proves later that none of the first ``size`` runs was removed
or changed, even by someone holding the key who re-signs a rewritten run. Someone holding
the key can still rewrite a purely local ledger together with its checkpoints, so the
checkpoints are worth most when copied out.

The package has one module per concept:

- :mod:`respai.ledger.merkle`: the RFC 6962 tree and what a leaf is;
- :mod:`respai.ledger.checkpoint`: the C2SP signed-note checkpoint;
- :mod:`respai.ledger.layout`: the folder, its file names, atomic writes, run files;
- :mod:`respai.ledger.store`: opening, locking and appending (:class:`Ledger`,
  :class:`Head`);
- :mod:`respai.ledger.verify`: :func:`verify_ledger` and its reports;
- :mod:`respai.ledger.order`: what the runs' timestamps say against their chain order;
- :mod:`respai.ledger.log`: reading without keys (:func:`list_runs`, :func:`find_run`).

It imports no statistics, rules or dataframe code: the ledger needs only the records.
"""

from __future__ import annotations

from respai.ledger.checkpoint import (
    Checkpoint,
    checkpoint_body,
    note_key_hash,
    sign_checkpoint,
    verify_checkpoint,
)
from respai.ledger.errors import CheckpointError, LedgerError, LedgerFormatError
from respai.ledger.layout import DEFAULT_DIRECTORY, LEDGER_FORMAT, read_run, run_file_name
from respai.ledger.log import RunSummary, find_run, last_envelope, list_runs, log_lines
from respai.ledger.merkle import EMPTY_ROOT, leaf_hash, merkle_root, node_hash, run_leaf
from respai.ledger.store import LOCK_TIMEOUT, ORIGIN_PREFIX, Appended, Head, Ledger
from respai.ledger.verify import CheckpointCheck, LedgerReport, RunCheck, verify_ledger

__all__ = [
    "DEFAULT_DIRECTORY",
    "EMPTY_ROOT",
    "LEDGER_FORMAT",
    "LOCK_TIMEOUT",
    "ORIGIN_PREFIX",
    "Appended",
    "Checkpoint",
    "CheckpointCheck",
    "CheckpointError",
    "Head",
    "Ledger",
    "LedgerError",
    "LedgerFormatError",
    "LedgerReport",
    "RunCheck",
    "RunSummary",
    "checkpoint_body",
    "find_run",
    "last_envelope",
    "leaf_hash",
    "list_runs",
    "log_lines",
    "merkle_root",
    "node_hash",
    "note_key_hash",
    "read_run",
    "run_file_name",
    "run_leaf",
    "sign_checkpoint",
    "verify_checkpoint",
    "verify_ledger",
]
