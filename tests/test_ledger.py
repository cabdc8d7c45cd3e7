"""The local ledger: chained runs, signed checkpoints, tamper detection, crashes, locking."""

from __future__ import annotations

import base64
import errno
import hashlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import respai.ledger.store as store_mod
from respai.ledger import (
    EMPTY_ROOT,
    LEDGER_FORMAT,
    CheckpointError,
    Ledger,
    LedgerError,
    LedgerFormatError,
    checkpoint_body,
    find_run,
    last_envelope,
    leaf_hash,
    list_runs,
    log_lines,
    merkle_root,
    note_key_hash,
    read_run,
    run_leaf,
    sign_checkpoint,
    verify_checkpoint,
    verify_ledger,
)
from respai.ledger.merkle import Frontier, MerkleTree
from respai.record import (
    GENESIS,
    KeyRing,
    canonical_bytes,
    format_timestamp,
    key_id,
    load_private_key,
    new_key,
    now_utc,
    seal,
    sign_envelope,
)

# -- a small record that passes the schema ----------------------------------------------


def make_predicate(
    run_id: str,
    *,
    values: dict[str, float | None] | None = None,
    verdicts: dict[str, str] | None = None,
    dataset_sha256: str = "1f" * 32,
    system: tuple[str, str] = ("loan-screen", "1.0"),
    thresholds: dict[str, float] | None = None,
) -> dict[str, Any]:
    values = {"accuracy": 0.81, "impact_ratio:sex": 0.9} if values is None else values
    verdicts = verdicts or {}
    thresholds = thresholds or {}
    tests = []
    for name, value in values.items():
        test: dict[str, Any] = {
            "record_type": "test",
            # An id of no battery kind, so the schema asks for no kind's details: the
            # ledger reads none of them.
            "test_id": "ledger_" + name.split(":")[0],
            "test_key": name,
            "value": value,
            "verdict": verdicts.get(name, "PASS"),
            "threshold": {
                "comparison": ">=",
                "value": thresholds.get(name, 0.7),
                "source": "default",
            },
            "interval": None,
        }
        if value is None:
            test["undefined_reason"] = "no case in a group"
        tests.append(test)
    worst = "FAIL" if "FAIL" in verdicts.values() else "PASS"
    return {
        "schema_version": "1.0",
        "run_id": run_id,
        "timestamp": format_timestamp(now_utc()),
        "engine": {"name": "respai-evidence-engine", "version": "0.1.0"},
        "system": {"name": system[0], "version": system[1]},
        "verdict": worst,
        "fingerprints": {
            "dataset": {
                "name": "cases.csv",
                "media_type": "text/csv",
                "size_bytes": 1234,
                "sha256": dataset_sha256,
            },
            "model": None,
            "engine_code": {
                "sha256": "3d" * 32,
                "files": 3,
                "version": "0.1.0",
                "git_commit": None,
                "git_dirty": None,
            },
        },
        "records": [
            {"record_type": "run_start", "planned_tests": list(values)},
            *tests,
            {"record_type": "run_end", "verdict": worst},
        ],
        "control_mapping": {"version": "t", "review_status": "test", "relation": "supports"},
        "claims": {"states": [], "does_not_state": []},
        "caveats": [],
    }


def append_run(directory: Path, key: Ed25519PrivateKey, run_id: str, **kw: Any) -> Any:
    ledger = Ledger.open(directory, create=True)
    return ledger.seal_and_append(make_predicate(run_id, **kw), key)


# -- keys -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("keys")
    first = new_key(directory, passphrase=None)
    second = new_key(directory, passphrase=None)
    stranger = new_key(tmp_path_factory.mktemp("other-keys"), passphrase=None)

    class Keys:
        key = load_private_key(first.private_key, None)
        key_file = first.private_key
        key2 = load_private_key(second.private_key, None)
        key2_file = second.private_key
        other = load_private_key(stranger.private_key, None)
        ring = KeyRing.load(first.keys_json)  # lists key and key2, not other
        keys_json = first.keys_json

    return Keys


@pytest.fixture
def three(tmp_path: Path, keys: Any) -> Path:
    """A ledger with three runs of 4, 3 and 5 records."""
    directory = tmp_path / ".respai"
    append_run(directory, keys.key, "run-a")
    append_run(directory, keys.key, "run-b", values={"accuracy": 0.8})
    append_run(directory, keys.key, "run-c", values={"accuracy": 0.7, "auc": 0.75, "x": None})
    return directory


def run_paths(directory: Path) -> list[Path]:
    return sorted((directory / "runs").glob("*.json"))


def decode(envelope: dict[str, Any]) -> dict[str, Any]:
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return statement


def problems_mentioning(report: Any, *words: str) -> list[str]:
    return [p for p in report.problems if all(w in p for w in words)]


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


# -- tampering --------------------------------------------------------------------------


def test_dropped_middle_run_is_named(three: Path, keys: Any) -> None:
    run_paths(three)[1].unlink()
    report = verify_ledger(three, keys.ring)
    assert not report.ok
    dropped = problems_mentioning(report, "runs/000000000007-run-c.json", "seq 4..6 are missing")
    assert dropped and "a run was dropped" in dropped[0]
    assert "after runs/000000000000-run-a.json" in dropped[0]
    # The signed checkpoints after run b commit to the run that is gone.
    gone = problems_mentioning(report, "checkpoints/2.txt", "runs it commits to are gone")
    assert gone and "seq 4 is missing after runs/000000000000-run-a.json" in gone[0]
    assert problems_mentioning(report, "checkpoints/3.txt", "runs it commits to are gone")
    assert not problems_mentioning(report, "checkpoints/1.txt")
    assert report.lines()[-1].startswith("The ledger does NOT verify")


def test_swapped_run_files_are_reported_out_of_order(three: Path, keys: Any) -> None:
    a, b, _ = run_paths(three)
    tmp = a.with_name("swap")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)
    report = verify_ledger(three, keys.ring)
    assert not report.ok
    order = problems_mentioning(report, "out of order")
    assert order and "runs/000000000000-run-a.json" in order[0]
    assert "runs/000000000004-run-b.json" in order[0]
    assert problems_mentioning(report, "runs/000000000000-run-a.json", "holds run 'run-b'")
    assert problems_mentioning(report, "runs/000000000004-run-b.json", "first record is seq 0")
    # The content itself is intact: no run is reported as edited.
    assert not problems_mentioning(report, "does not verify")


def test_edited_value_names_the_run_and_failed_checks(three: Path, keys: Any) -> None:
    path = run_paths(three)[1]
    envelope = read_run(path)
    statement = decode(envelope)
    statement["predicate"]["records"][1]["value"] = 0.99
    envelope["payload"] = base64.b64encode(canonical_bytes(statement)).decode()
    path.write_bytes(canonical_bytes(envelope))
    report = verify_ledger(three, keys.ring)
    assert not report.ok
    edited = problems_mentioning(report, "runs/000000000004-run-b.json", "does not verify")
    assert len(edited) == 1
    assert "failed: signature, record_id" in edited[0]
    assert "bad signature" in edited[0] and "does not match its content" in edited[0]
    bad = [r for r in report.runs if not r.ok]
    assert [r.file.name for r in bad] == ["000000000004-run-b.json"]
    assert bad[0].report.failed == ("signature", "record_id")
    # The ids were not touched, so the chain still holds; but the run file's bytes
    # changed, so every checkpoint whose tree holds run b no longer matches.
    assert problems_mentioning(report, "checkpoints/2.txt", "does not match")
    assert problems_mentioning(report, "checkpoints/3.txt", "does not match")
    assert len(report.problems) == 3


def test_deleted_last_run_means_the_tail_was_removed(three: Path, keys: Any) -> None:
    run_paths(three)[-1].unlink()
    report = verify_ledger(three, keys.ring)
    assert not report.ok
    tail = problems_mentioning(report, "checkpoints/3.txt", "tail was removed")
    assert tail and "holds only 2" in tail[0] and "the last 1 run(s)" in tail[0]
    # Appending on top of the truncated ledger is refused, so the evidence is kept.
    with pytest.raises(LedgerError, match="tail was removed"):
        append_run(three, keys.key, "run-d")


def test_corrupted_checkpoint_signature(three: Path, keys: Any) -> None:
    path = three / "checkpoints" / "2.txt"
    text = path.read_text()
    body, sig = text.rsplit(" ", 1)
    raw = bytearray(base64.b64decode(sig))
    raw[10] ^= 0xFF
    path.write_text(f"{body} {base64.b64encode(bytes(raw)).decode()}\n")
    report = verify_ledger(three, keys.ring)
    assert not report.ok
    assert problems_mentioning(report, "checkpoints/2.txt", "not signed by any trusted key")
    assert len(report.problems) == 1


def test_edited_checkpoint_root(three: Path, keys: Any) -> None:
    # A checkpoint signed by a trusted key for another tree: the root does not match.
    origin = Ledger.open(three).origin
    (three / "checkpoints" / "2.txt").write_text(sign_checkpoint(origin, 2, bytes(32), keys.key))
    report = verify_ledger(three, keys.ring)
    assert problems_mentioning(report, "checkpoints/2.txt", "does not match")


def test_run_resigned_with_a_key_not_in_the_ring(three: Path, keys: Any) -> None:
    path = run_paths(three)[1]
    payload = base64.b64decode(read_run(path)["payload"])
    forged = sign_envelope(payload, keys.other, key_id(keys.other.public_key()))
    path.write_bytes(canonical_bytes(forged))
    report = verify_ledger(three, keys.ring)
    assert not report.ok
    found = problems_mentioning(report, "runs/000000000004-run-b.json", "failed: signature")
    assert found and "unknown key" in found[0]


def test_replaced_run_breaks_the_next_link_and_the_checkpoints(three: Path, keys: Any) -> None:
    # Even the key holder cannot quietly replace a run: the next run's link and the
    # checkpoints signed after it still name the original records.
    path = run_paths(three)[1]
    kid = key_id(keys.key.public_key())
    first = decode(read_run(run_paths(three)[0]))["predicate"]["records"][-1]["record_id"]
    forged = seal(
        make_predicate("run-b", values={"accuracy": 0.99}), None, keys.key, kid,
        prev_record_id=first, start_seq=4,
    )  # fmt: skip
    path.write_bytes(canonical_bytes(forged))
    report = verify_ledger(three, keys.ring)
    link = problems_mentioning(report, "runs/000000000007-run-c.json", "broken link")
    assert link and "runs/000000000004-run-b.json" in link[0]
    assert problems_mentioning(report, "checkpoints/2.txt", "does not match")
    assert problems_mentioning(report, "checkpoints/3.txt", "does not match")
    assert not problems_mentioning(report, "checkpoints/1.txt")
    assert not problems_mentioning(report, "does not verify")  # each run is validly signed


def test_duplicated_run_claims_the_same_seq(three: Path, keys: Any) -> None:
    path = run_paths(three)[1]
    (path.parent / "000000000004-run-b2.json").write_bytes(path.read_bytes())
    report = verify_ledger(three, keys.ring)
    assert problems_mentioning(report, "run-b2.json", "two runs claim the same seq")


def test_missing_ledger_json_and_renamed_run(three: Path, keys: Any) -> None:
    (three / "ledger.json").unlink()
    path = run_paths(three)[0]
    path.rename(path.with_name("000000000000-someone-else.json"))
    report = verify_ledger(three, keys.ring)
    assert problems_mentioning(report, "ledger.json is missing")
    assert problems_mentioning(report, "000000000000-someone-else.json", "holds run 'run-a'")
    # The checkpoints still verify against the origin they name.
    assert all(c.ok for c in report.checkpoints)
    with pytest.raises(LedgerError, match=r"no ledger\.json"):
        Ledger.open(three, create=False)
    with pytest.raises(LedgerError, match=r"no ledger\.json"):
        Ledger.open(three, create=True)


def test_unexpected_and_unreadable_files(three: Path, keys: Any) -> None:
    run_paths(three)[-1].write_text("not json")
    (three / "runs" / "notes.json").write_text("{}")
    report = verify_ledger(three, keys.ring)
    assert problems_mentioning(report, "runs/notes.json", "not a run or checkpoint file name")
    assert problems_mentioning(report, "runs/000000000007-run-c.json", "is not JSON")
    assert list_runs(three)[-1].problem is not None
    with pytest.raises(LedgerError, match=r"cannot be read|is not JSON"):
        append_run(three, keys.key, "run-d")


# -- crashes ----------------------------------------------------------------------------


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


def forge_run(path: Path, key: Ed25519PrivateKey, **changes: Any) -> None:
    """Rewrite a run's top-level fields and re-seal it with ``key`` in the same place."""
    predicate = decode(read_run(path))["predicate"]
    records = predicate["records"]
    predicate.update(changes)
    forged = seal(
        predicate, None, key, key_id(key.public_key()),
        prev_record_id=records[0]["prev_record_id"], start_seq=records[0]["seq"],
    )  # fmt: skip
    path.write_bytes(canonical_bytes(forged) + b"\n")


def test_a_rewritten_and_resigned_run_fails_a_checkpoint_kept_elsewhere(
    tmp_path: Path, keys: Any
) -> None:
    # The key holder rewrites run 1's timestamp and dataset fingerprint, re-seals it with
    # the same key in the same place, and re-signs every local checkpoint. The record ids
    # do not cover those fields, so the chain and run 2 are untouched and the forged
    # ledger verifies on its own. Leaves over record ids (respai 0.2.0) left the kept
    # checkpoint verifying too; a leaf over the run file's bytes does not.
    directory = tmp_path / "l"
    append_run(directory, keys.key, "run-1")
    append_run(directory, keys.key, "run-2")
    kept = (directory / "checkpoints" / "2.txt").read_text()  # copied out, e.g. to CI
    first, second = run_paths(directory)
    # run 2's own time: later than run 1's, yet the times stay in order (time_order)
    later = decode(read_run(second))["predicate"]["timestamp"]
    assert later != decode(read_run(first))["predicate"]["timestamp"]
    forge_run(first, keys.key, timestamp=later,
              fingerprints={**decode(read_run(first))["predicate"]["fingerprints"],
                            "dataset": {"name": "cases.csv", "media_type": "text/csv",
                                        "size_bytes": 99, "sha256": "2e" * 32}})  # fmt: skip
    origin = Ledger.open(directory).origin
    leaves = [run_leaf(p.read_bytes()) for p in (first, second)]
    for size in (1, 2):
        text = sign_checkpoint(origin, size, merkle_root(leaves[:size]), keys.key)
        (directory / "checkpoints" / f"{size}.txt").write_text(text)
    forged = verify_ledger(directory, keys.ring)
    assert forged.ok, forged.lines()  # locally, the rewrite is perfect
    assert decode(read_run(first))["predicate"]["timestamp"] == later

    (directory / "checkpoints" / "2.txt").write_text(kept)
    report = verify_ledger(directory, keys.ring)
    assert not report.ok
    assert [c.file.name for c in report.checkpoints if not c.ok] == ["2.txt"]
    (problem,) = report.problems
    assert problem.startswith("checkpoints/2.txt: the signed root does not match")
    assert "re-signed" in problem
    assert all(r.ok for r in report.runs)  # each run, on its own, verifies


def test_append_refuses_a_history_changed_under_its_own_checkpoint(three: Path, keys: Any) -> None:
    # One byte of whitespace added to run b: its envelope still parses and verifies,
    # but its leaf changed, so the root of checkpoints/3.txt no longer holds. The
    # signer will not sign a new root on top of that.
    path = run_paths(three)[1]
    path.write_bytes(path.read_bytes() + b" ")
    with pytest.raises(LedgerError, match=r"no longer have the root that checkpoints/3\.txt"):
        append_run(three, keys.key, "run-d")
    assert len(run_paths(three)) == 3  # nothing was appended
    report = verify_ledger(three, keys.ring)
    assert all(r.ok for r in report.runs)
    assert problems_mentioning(report, "checkpoints/2.txt", "does not match")
    # A checkpoint signed by another key is not this signer's to vouch for: it appends.
    append_run(three, keys.key2, "run-d")
    assert len(run_paths(three)) == 4


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


CHILD = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("ledger_test_helpers", sys.argv[1])
helpers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(helpers)
from pathlib import Path
from respai.record import load_private_key
key = load_private_key(Path(sys.argv[3]), None)
count, tag = int(sys.argv[4]), sys.argv[5]
print("ready", flush=True)
if sys.argv[6] == "wait":
    sys.stdin.readline()
report = len(sys.argv) > 7 and sys.argv[7] == "report"
i = 0
while count < 0 or i < count:
    helpers.append_run(Path(sys.argv[2]), key, f"{tag}-{i}")
    i += 1
    if report:
        print("appended", flush=True)
"""


def spawn(
    directory: Path,
    key_file: Path,
    count: int,
    tag: str,
    wait: bool = False,
    report: bool = False,
) -> subprocess.Popen[str]:
    """A child appending ``count`` runs (``-1``: until killed); ``report``: a line each."""
    args = [sys.executable, "-c", CHILD, __file__, str(directory), str(key_file)]
    return subprocess.Popen(
        [*args, str(count), tag, "wait" if wait else "go", "report" if report else "quiet"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_killed_appender_leaves_a_ledger_that_verifies(tmp_path: Path, keys: Any) -> None:
    # Each child is killed only after it has reported `done` appends, then after a short
    # pause that lands the kill somewhere in a later append: the ledger has runs however
    # slow the machine is (a fixed sleep after start could end before the first append
    # under load), and where the kill lands still varies. The seed is fixed, so a
    # failure names the schedule that found it.
    directory = Ledger.open(tmp_path / "l", create=True).directory
    rng = random.Random(636)
    schedule = [(rng.randint(1, 3), rng.uniform(0.0, 0.2)) for _ in range(5)]
    appended = 0
    for i, (done, delay) in enumerate(schedule):
        with spawn(directory, keys.key_file, -1, f"kill{i}", report=True) as proc:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
            for _ in range(done):
                assert proc.stdout.readline() == "appended\n", schedule
            time.sleep(delay)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
        appended += done
        report = verify_ledger(directory, keys.ring)
        assert report.ok, (schedule, report.lines())
    killed_runs = len(run_paths(directory))
    assert killed_runs >= appended > 0, schedule  # a run it reported is never lost
    append_run(directory, keys.key, "after")  # the ledger is still usable
    report = verify_ledger(directory, keys.ring)
    assert report.ok and len(report.runs) == killed_runs + 1, (schedule, report.lines())


def test_two_processes_appending_at_once(tmp_path: Path, keys: Any) -> None:
    directory = tmp_path / "l"
    with (
        spawn(directory, keys.key_file, 10, "p", wait=True) as p,
        spawn(directory, keys.key2_file, 10, "q", wait=True) as q,
    ):
        for proc in (p, q):
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        for proc in (p, q):
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        assert p.wait(timeout=60) == 0 and q.wait(timeout=60) == 0
    report = verify_ledger(directory, keys.ring)
    assert report.ok, report.lines()
    assert len(report.runs) == 20 and report.size == 80
    seqs = [(r.first_seq, r.last_seq) for r in report.runs]
    assert seqs == [(4 * i, 4 * i + 3) for i in range(20)]
    assert {r.run_id.split("-")[0] for r in report.runs if r.run_id} == {"p", "q"}
    assert len(list((directory / "checkpoints").glob("*.txt"))) == 20


# -- Merkle tree ------------------------------------------------------------------------


def reference_mth(leaves: list[bytes]) -> bytes:
    """RFC 6962 section 2.1, written out as the recursion."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < n:
        k *= 2
    return hashlib.sha256(b"\x01" + reference_mth(leaves[:k]) + reference_mth(leaves[k:])).digest()


# The RFC 6962 reference inputs and tree heads of the Certificate Transparency test suite.
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    bytes(range(0x50, 0x58)),
    bytes(range(0x60, 0x70)),
]
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def test_merkle_root_known_vectors() -> None:
    assert merkle_root([]) == EMPTY_ROOT
    assert merkle_root([]).hex() == CT_ROOTS[0]
    assert merkle_root([b""]).hex() == CT_ROOTS[1] == leaf_hash(b"").hex()
    for size in range(len(CT_LEAVES) + 1):
        assert merkle_root(CT_LEAVES[:size]).hex() == CT_ROOTS[size], size


def test_merkle_root_matches_the_recursion_on_random_leaves() -> None:
    rng = random.Random(6962)
    for n in [*range(0, 70), 127, 128, 129, 255, 300]:
        leaves = [rng.randbytes(32) for _ in range(n)]
        assert merkle_root(leaves) == reference_mth(leaves), n
    leaves = [rng.randbytes(32) for _ in range(40)]
    tree = MerkleTree(leaves)
    assert all(tree.root(m) == reference_mth(leaves[:m]) for m in range(41))
    with pytest.raises(ValueError, match="outside"):
        tree.root(41)
    frontier = Frontier()
    assert frontier.root() == EMPTY_ROOT
    for m, leaf in enumerate(leaves, start=1):
        frontier.append(leaf)
        assert frontier.size == m and frontier.root() == reference_mth(leaves[:m])
    assert Frontier(leaves).root() == merkle_root(leaves)


def test_run_leaf_is_the_sha256_of_the_run_file(three: Path) -> None:
    for path in run_paths(three):
        data = path.read_bytes()
        assert run_leaf(data) == hashlib.sha256(data).digest()
    assert run_leaf(b"a") != run_leaf(b"a ")


# -- checkpoints ------------------------------------------------------------------------


ORIGIN = "respai.local/ledger/test"


def test_checkpoint_round_trip(keys: Any) -> None:
    root = merkle_root(CT_LEAVES)
    text = sign_checkpoint(ORIGIN, 8, root, keys.key)
    body, block = text.split("\n\n")
    assert body + "\n" == checkpoint_body(ORIGIN, 8, root)
    assert body.split("\n") == [ORIGIN, "8", base64.b64encode(root).decode()]
    assert block.startswith(f"\u2014 {ORIGIN} ") and block.endswith("\n")
    blob = base64.b64decode(block.split(" ")[2])
    assert blob[:4] == note_key_hash(ORIGIN, keys.key.public_key()) and len(blob) == 68
    raw = keys.key.public_key().public_bytes_raw()
    assert blob[:4] == hashlib.sha256(ORIGIN.encode() + b"\n\x01" + raw).digest()[:4]
    keys.key.public_key().verify(blob[4:], (body + "\n").encode())
    assert verify_checkpoint(text, [keys.key.public_key()]) == (ORIGIN, 8, root)
    assert verify_checkpoint(text, keys.ring, origin=ORIGIN).size == 8
    # An unknown signer's extra line is ignored.
    extra = sign_checkpoint(ORIGIN, 8, root, keys.other).split("\n\n")[1]
    assert verify_checkpoint(text + extra, keys.ring).root == root
    assert verify_checkpoint(text.split("\n\n")[0] + "\n\n" + extra + block, keys.ring)


def test_checkpoint_refused(keys: Any) -> None:
    root = merkle_root(CT_LEAVES)
    text = sign_checkpoint(ORIGIN, 8, root, keys.key)
    with pytest.raises(CheckpointError, match="is for the ledger"):
        verify_checkpoint(text, keys.ring, origin="respai.local/ledger/other")
    with pytest.raises(CheckpointError, match="not signed by any trusted key"):
        verify_checkpoint(text, [keys.other.public_key()])
    with pytest.raises(CheckpointError, match="not signed by any trusted key"):
        verify_checkpoint(text.replace("\n8\n", "\n9\n"), keys.ring)
    # Signed under another name than the origin: not a signature for this checkpoint.
    renamed = text.replace(f"\u2014 {ORIGIN} ", "\u2014 someone ")
    with pytest.raises(CheckpointError, match="not signed by any trusted key"):
        verify_checkpoint(renamed, keys.ring)
    with pytest.raises(CheckpointError, match="em dash"):
        verify_checkpoint(text.replace("\u2014", "-"), keys.ring)
    with pytest.raises(CheckpointError, match="no signature block"):
        verify_checkpoint(checkpoint_body(ORIGIN, 8, root), keys.ring)
    with pytest.raises(CheckpointError, match="leading zeros"):
        verify_checkpoint(text.replace("\n8\n", "\n08\n"), keys.ring)
    with pytest.raises(CheckpointError, match="newline"):
        verify_checkpoint(text.rstrip("\n"), keys.ring)
    with pytest.raises(CheckpointError, match="origin"):
        sign_checkpoint("has space", 1, root, keys.key)
