"""Crashes: a run without its checkpoint, stray temporary files and a poisoned tree cache
leave a ledger that verifies."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from tests.ledger.helpers import append_run, decode, reference_mth, run_paths

import respai.ledger.store as store_mod
from respai.ledger import read_run, verify_ledger


def test_crash_between_run_and_checkpoint(
    tmp_path: Path, keys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "l"
    append_run(directory, keys.key, "r1")

    def crash(*args: Any) -> Path:
        raise OSError(errno.EIO, "simulated crash")

    with monkeypatch.context() as m:
        m.setattr(store_mod, "_write_checkpoint", crash)
        _, appended = append_run(directory, keys.key, "r2")
    # the run is stored (it cannot be taken back without a gap): a note, not an error
    assert appended.checkpoint is None and appended.note is not None
    assert "run was stored in" in appended.note and "still verifies" in appended.note
    report = verify_ledger(directory, keys.ring)
    assert report.ok, report.problems
    assert [n for n in report.notes if "checkpoints/1.txt, covers 1 of the ledger's 2 runs" in n]
    # The next run's checkpoint covers all three, recomputed from the run files.
    append_run(directory, keys.key, "r3")
    report = verify_ledger(directory, keys.ring)
    assert report.ok and report.notes == () and report.newest_checkpoint is not None
    assert report.newest_checkpoint.size == 3


def test_stray_tmp_files_are_notes(three: Path, keys: Any) -> None:
    (three / "runs" / ".tmp-0123").write_bytes(b'{"payload": "tor')
    (three / "checkpoints" / ".tmp-4567").write_bytes(b"")
    report = verify_ledger(three, keys.ring)
    assert report.ok
    assert len([n for n in report.notes if "unfinished write" in n]) == 2
    append_run(three, keys.key, "run-d")  # stray files do not disturb appending
    assert verify_ledger(three, keys.ring).ok


def test_a_poisoned_tree_cache_is_not_signed(three: Path, keys: Any) -> None:
    # respai 0.2.0 trusted tree.json (the Merkle frontier cache) when its size and last
    # record id matched the head, so a wrong frontier of the right shape (12 records:
    # subtrees of 8 and 4 leaves) made the honest signer sign a wrong root. The signer
    # now recomputes the tree from the run files and never reads the cache.
    last_id = decode(read_run(run_paths(three)[-1]))["predicate"]["records"][-1]["record_id"]
    poison = {"size": 12, "last_record_id": last_id, "frontier": [[3, "ab" * 32], [2, "cd" * 32]]}
    (three / "tree.json").write_text(json.dumps(poison))
    _, done = append_run(three, keys.key, "run-d")
    files = [p.read_bytes() for p in run_paths(three)]
    assert done.size == 4
    assert done.root == reference_mth([hashlib.sha256(f).digest() for f in files])
    report = verify_ledger(three, keys.ring)
    assert report.ok, report.lines()
    assert report.newest_checkpoint is not None and report.newest_checkpoint.size == 4
