"""The local ledger as it is used: chained runs that verify, link and list; the lock; the
format; appends that are refused."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from tests.ledger.helpers import append_run, decode, make_predicate, reference_mth, run_paths

from respai.ledger import (
    LEDGER_FORMAT,
    Ledger,
    LedgerError,
    LedgerFormatError,
    find_run,
    last_envelope,
    list_runs,
    log_lines,
    read_run,
    verify_ledger,
)
from respai.record import GENESIS, canonical_bytes, key_id, seal

# -- the happy path ---------------------------------------------------------------------


def test_three_runs_verify_link_and_list(three: Path, keys: Any) -> None:
    report = verify_ledger(three, keys.ring)
    assert report.ok, report.lines()
    assert report.problems == () and report.notes == ()
    assert report.size == 12 and report.tree_size == 3
    assert [(r.first_seq, r.last_seq) for r in report.runs] == [(0, 3), (4, 6), (7, 11)]
    assert all(r.ok and r.report.ok for r in report.runs)
    # A checkpoint's size counts runs: one leaf per run.
    assert [c.size for c in report.checkpoints] == [1, 2, 3]
    assert report.newest_checkpoint is not None and report.newest_checkpoint.size == 3
    assert json.loads((three / "ledger.json").read_text())["format"] == LEDGER_FORMAT
    assert not (three / "tree.json").exists()  # no cache is written any more
    json.dumps(report.to_json())
    assert report.lines()[-1] == "The ledger verifies."

    # The chain links across runs: each run's first record points at the last one before.
    predicates = [decode(read_run(p))["predicate"] for p in run_paths(three)]
    assert predicates[0]["records"][0]["prev_record_id"] == GENESIS
    for before, after in itertools.pairwise(predicates):
        assert after["records"][0]["prev_record_id"] == before["records"][-1]["record_id"]
        assert after["records"][0]["seq"] == before["records"][-1]["seq"] + 1

    runs = list_runs(three)
    assert [r.run_id for r in runs] == ["run-a", "run-b", "run-c"]
    assert [r.tests for r in runs] == [2, 1, 3]
    assert runs[0].file == three / "runs" / "000000000000-run-a.json"
    assert runs[0].to_json()["file"] == "runs/000000000000-run-a.json"
    assert runs[2].first_seq == 7 and runs[2].last_seq == 11
    assert runs[0].system_name == "loan-screen" and runs[0].system_version == "1.0"
    assert runs[0].dataset_short == "sha256:" + "1f" * 6 and runs[0].verdict == "PASS"
    assert runs[0].key_id == key_id(keys.key.public_key())
    lines = log_lines(runs)
    assert len(lines) == 4 and "run-c" in lines[3] and "loan-screen 1.0" in lines[1]

    last = last_envelope(three)
    assert last is not None and decode(last)["predicate"]["run_id"] == "run-c"
    assert find_run(three, "run-b").name == "000000000004-run-b.json"
    assert find_run(three, "5").name == "000000000004-run-b.json"
    assert find_run(three, "-1").name == "000000000007-run-c.json"
    with pytest.raises(LedgerError, match="run-"):
        find_run(three, "run-")  # ambiguous prefix
    with pytest.raises(LedgerError, match="no run -4"):
        find_run(three, "-4")
    with pytest.raises(LedgerError, match=r"No run .* has the run id 'nope'"):
        find_run(three, "nope")
    direct = run_paths(three)[0]
    assert find_run(None, str(direct)) == direct


def test_explicit_lock_flow_and_head(tmp_path: Path, keys: Any) -> None:
    ledger = Ledger.open(tmp_path / "l", create=True)
    assert ledger.origin.startswith("respai.local/ledger/")
    with ledger.append_lock() as head:
        assert (head.next_seq, head.last_record_id) == (0, GENESIS)
        kid = key_id(keys.key.public_key())
        env = seal(make_predicate("r1"), None, keys.key, kid, prev_record_id=GENESIS)
        done = head.append(env, keys.key)
        assert (done.first_seq, done.last_seq, done.size) == (0, 3, 1)
        assert head.next_seq == 4 and head.last_record_id == done.last_record_id
        # A second run under the same lock follows the first.
        env2 = seal(
            make_predicate("r2"),
            None,
            keys.key,
            kid,
            prev_record_id=head.last_record_id,
            start_seq=head.next_seq,
        )
        done2 = head.append(canonical_bytes(env2), keys.key)  # exact bytes are kept
    assert done2.run_file.read_bytes() == canonical_bytes(env2)
    with pytest.raises(LedgerError, match="after its append_lock block"):
        head.append(env2, keys.key)
    # The checkpoint root is the RFC 6962 root over the runs: each leaf is the SHA-256 of
    # one run file's bytes (its whole signed envelope), in ledger order.
    files = [p.read_bytes() for p in run_paths(ledger.directory)]
    assert done2.root == reference_mth([hashlib.sha256(f).digest() for f in files])
    assert done.root == reference_mth([hashlib.sha256(files[0]).digest()])
    assert verify_ledger(ledger.directory, keys.ring).ok
    # Reopening reads the same ledger.
    assert Ledger.open(ledger.directory).origin == ledger.origin


def test_empty_ledger(tmp_path: Path, keys: Any) -> None:
    ledger = Ledger.open(tmp_path / "e", create=True)
    report = verify_ledger(ledger.directory, keys.ring)
    assert report.ok and report.size == 0 and report.runs == () and report.notes == ()
    assert list_runs(ledger.directory) == [] and last_envelope(ledger.directory) is None
    assert log_lines([]) == ["No runs in the ledger."]


def test_not_a_ledger(tmp_path: Path, keys: Any) -> None:
    with pytest.raises(LedgerError, match="does not exist"):
        verify_ledger(tmp_path / "missing", keys.ring)
    with pytest.raises(LedgerError, match="is not a respai ledger"):
        verify_ledger(tmp_path, keys.ring)
    with pytest.raises(LedgerError, match="not a respai ledger"):
        Ledger.open(tmp_path, create=False)
    (tmp_path / "x").write_text("{}")
    with pytest.raises(LedgerError, match="exists and is not a directory"):
        Ledger.open(tmp_path / "x", create=True)
    assert LedgerError("m").exit_code == 2


def test_append_refuses_a_run_that_is_not_next(tmp_path: Path, keys: Any) -> None:
    directory = tmp_path / "l"
    append_run(directory, keys.key, "r1")
    kid = key_id(keys.key.public_key())
    stale = seal(make_predicate("r2"), None, keys.key, kid)  # sealed as if the ledger were empty
    with Ledger.open(directory).append_lock() as head, pytest.raises(LedgerError) as info:
        head.append(stale, keys.key)
    assert "chain" in info.value.message and "seq 4" in info.value.message
    # Signed by another key than the one passed.
    with Ledger.open(directory).append_lock() as head:
        env = seal(
            make_predicate("r2"),
            None,
            keys.key,
            kid,
            prev_record_id=head.last_record_id,
            start_seq=head.next_seq,
        )
        with pytest.raises(LedgerError, match="signature"):
            head.append(env, keys.key2)
    assert len(run_paths(directory)) == 1
    assert verify_ledger(directory, keys.ring).ok


def test_two_keys_in_one_ledger(tmp_path: Path, keys: Any) -> None:
    directory = tmp_path / "l"
    append_run(directory, keys.key, "r1")
    append_run(directory, keys.key2, "r2")
    assert verify_ledger(directory, keys.ring).ok


def test_an_old_format_ledger_is_refused_with_a_clear_message(three: Path, keys: Any) -> None:
    info = json.loads((three / "ledger.json").read_text())
    (three / "ledger.json").write_text(json.dumps({**info, "format": "respai-ledger/1"}))
    with pytest.raises(LedgerFormatError, match="format 1") as opened:
        Ledger.open(three)
    assert "record ids only" in opened.value.message
    assert opened.value.hint is not None and "respai==0.2.0" in opened.value.hint
    with pytest.raises(LedgerFormatError, match="format 1"):
        verify_ledger(three, keys.ring)
    with pytest.raises(LedgerFormatError):
        append_run(three, keys.key, "run-d")
    assert opened.value.exit_code == 2
