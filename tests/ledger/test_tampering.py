"""Tamper detection: every edit, drop, swap, replacement or re-signing of a run is named,
also against a checkpoint kept elsewhere."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.ledger.helpers import append_run, decode, make_predicate, problems_mentioning, run_paths

from respai.ledger import (
    Ledger,
    LedgerError,
    list_runs,
    merkle_root,
    read_run,
    run_leaf,
    sign_checkpoint,
    verify_ledger,
)
from respai.record import canonical_bytes, key_id, seal, sign_envelope


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
