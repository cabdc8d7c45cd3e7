"""Witness cosignatures (C2SP tlog-cosignature): two local witnesses, honest and forked ledgers.

A witness cosigns a checkpoint only when it extends the last one it cosigned; readers ask
for a quorum with ``respai verify --ledger DIR --witness VKEY --quorum N``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.ledger.helpers import append_run, reference_mth

from respai.cli import main
from respai.ledger.consistency import consistency_proof, verify_consistency
from respai.ledger.merkle import run_leaf
from respai.ledger.witness import (
    WitnessRefusal,
    check_cosignatures,
    cosign,
    cosignature_key_id,
    cosignature_message,
    parse_vkey,
)
from respai.record import load_private_key, new_key
from respai.record.keys import public_key_raw


@pytest.fixture
def log_key(tmp_path: Path) -> Any:
    files = new_key(tmp_path / "log-keys", passphrase=None)

    class Log:
        key = load_private_key(files.private_key, None)
        public = files.public_key

    return Log


def _init(tmp_path: Path, name: str, log_key: Any, capsys: pytest.CaptureFixture[str]) -> str:
    state = tmp_path / name.replace("/", "_")
    code = main(["witness", "init", "--name", name, "--dir", str(state), "--log-key",
                 str(log_key.public)])  # fmt: skip
    assert code == 0
    err = capsys.readouterr().err
    vkey = next(line.split()[-1] for line in err.splitlines() if line.startswith("vkey:"))
    assert (state / "witness.vkey").read_text().strip() == vkey
    return vkey


@pytest.fixture
def witnesses(tmp_path: Path, log_key: Any, capsys: pytest.CaptureFixture[str]) -> Any:
    class W:
        w1 = _init(tmp_path, "example.org/w1", log_key, capsys)
        w2 = _init(tmp_path, "example.net/w2", log_key, capsys)
        s1 = tmp_path / "example.org_w1"
        s2 = tmp_path / "example.net_w2"

    return W


@pytest.fixture
def ledger(tmp_path: Path, log_key: Any) -> Path:
    directory = tmp_path / "ledger"
    for run in ("run-a", "run-b", "run-c"):
        append_run(directory, log_key.key, run)
    return directory


def _cosign(ledger: Path, state: Path, *extra: str) -> int:
    return main(["witness", "cosign", *extra, "--ledger", str(ledger), "--state", str(state)])


def _verify(ledger: Path, log_key: Any, *witness_args: str) -> int:
    args = ["verify", "--ledger", str(ledger), "--key", str(log_key.public), *witness_args]
    return main(args)


def test_init_writes_a_private_key_only_its_owner_reads(witnesses: Any) -> None:
    mode = stat.S_IMODE((witnesses.s1 / "witness.key").stat().st_mode)
    assert mode == 0o600
    name, public = parse_vkey(witnesses.w1)
    assert name == "example.org/w1"
    # the C2SP key ID: SHA-256(name || "\n" || 0x04 || key)[:4], written independently
    raw = public_key_raw(public)
    want = hashlib.sha256(b"example.org/w1\n\x04" + raw).digest()[:4]
    assert witnesses.w1.split("+", 2)[1] == want.hex() == cosignature_key_id(name, public).hex()
    assert base64.b64decode(witnesses.w1.split("+", 2)[2]) == b"\x04" + raw


def test_an_honest_ledger_cosigned_by_both_meets_quorum_two(
    ledger: Path, log_key: Any, witnesses: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cosign(ledger, witnesses.s1) == 0
    assert _cosign(ledger, witnesses.s2) == 0
    capsys.readouterr()
    both = ["--witness", witnesses.w1, "--witness", witnesses.w2, "--quorum", "2", "--json"]
    assert _verify(ledger, log_key, *both) == 0
    out = json.loads(capsys.readouterr().out)["witnesses"]
    assert out["ok"] is True and out["signed"] == 2 and out["checkpoint_size"] == 3
    # a witness key given as its vkey file works too
    assert _verify(ledger, log_key, "--witness", str(witnesses.s1 / "witness.vkey")) == 0


def test_quorum_two_with_one_cosignature_fails(
    ledger: Path, log_key: Any, witnesses: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cosign(ledger, witnesses.s1) == 0
    capsys.readouterr()
    both = ["--witness", witnesses.w1, "--witness", witnesses.w2, "--quorum", "2"]
    assert _verify(ledger, log_key, *both) == 1
    err = capsys.readouterr().err
    assert "ok    witness example.org/w1" in err
    assert "FAIL  witness example.net/w2" in err and "no cosignature" in err
    assert "quorum: 1 of 2" in err
    # the same witness named twice is one witness
    assert _verify(ledger, log_key, "--witness", witnesses.w1, "--witness", witnesses.w1,
                   "--quorum", "2") == 2  # fmt: skip


def test_a_newer_checkpoint_needs_new_cosignatures(
    ledger: Path, log_key: Any, witnesses: Any
) -> None:
    assert _cosign(ledger, witnesses.s1) == 0
    append_run(ledger, log_key.key, "run-d")
    assert _verify(ledger, log_key, "--witness", witnesses.w1) == 1
    assert _cosign(ledger, witnesses.s1) == 0  # size 4 extends size 3
    assert _verify(ledger, log_key, "--witness", witnesses.w1) == 0


def test_a_rollback_is_refused(
    ledger: Path, log_key: Any, witnesses: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    append_run(ledger, log_key.key, "run-d")
    assert _cosign(ledger, witnesses.s1) == 0
    capsys.readouterr()
    assert _cosign(ledger, witnesses.s1, str(ledger / "checkpoints" / "3.txt")) == 1
    err = capsys.readouterr().err
    assert "Rollback refused" in err and "size 3" in err and "size 4" in err
    assert not (ledger / "witness" / "3").exists()


def test_a_forked_ledger_is_refused_by_both_witnesses(
    tmp_path: Path,
    ledger: Path,
    log_key: Any,
    witnesses: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # both cosign the common history, then the log forks: two copies, a different run each
    assert _cosign(ledger, witnesses.s1) == 0
    assert _cosign(ledger, witnesses.s2) == 0
    other = tmp_path / "fork"
    shutil.copytree(ledger, other)
    append_run(ledger, log_key.key, "run-d", values={"accuracy": 0.9})
    append_run(other, log_key.key, "run-d-other", values={"accuracy": 0.5})
    # each witness is shown one branch first, then the other
    assert _cosign(ledger, witnesses.s1) == 0
    assert _cosign(other, witnesses.s2) == 0
    capsys.readouterr()
    assert _cosign(other, witnesses.s1) == 1
    assert "Fork refused" in capsys.readouterr().err
    assert _cosign(ledger, witnesses.s2) == 1
    assert "Fork refused" in capsys.readouterr().err
    # a longer branch that does not extend what the witness saw is refused too
    append_run(other, log_key.key, "run-e")
    assert _cosign(other, witnesses.s1) == 1
    err = capsys.readouterr().err
    assert "Fork refused" in err and "consistency proof" in err
    # so neither branch reaches quorum 2
    both = ["--witness", witnesses.w1, "--witness", witnesses.w2, "--quorum", "2"]
    assert _verify(ledger, log_key, *both) == 1
    assert _verify(other, log_key, *both) == 1


def test_an_edited_cosignature_fails_verify(
    ledger: Path, log_key: Any, witnesses: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cosign(ledger, witnesses.s1) == 0
    path = ledger / "witness" / "3" / "example.org_w1.txt"
    lines = path.read_text().split("\n")
    name_blob = lines[-2].split(" ")
    blob = bytearray(base64.b64decode(name_blob[2]))
    blob[11] ^= 1  # the time: the signature no longer covers the message
    lines[-2] = " ".join([*name_blob[:2], base64.b64encode(bytes(blob)).decode()])
    path.write_text("\n".join(lines))
    capsys.readouterr()
    assert _verify(ledger, log_key, "--witness", witnesses.w1) == 1
    assert "does not verify" in capsys.readouterr().err


def test_a_cosignature_copied_onto_another_checkpoint_counts_for_nothing(
    ledger: Path, log_key: Any, witnesses: Any
) -> None:
    assert _cosign(ledger, witnesses.s1) == 0
    append_run(ledger, log_key.key, "run-d")
    size3 = ledger / "witness" / "3" / "example.org_w1.txt"
    (ledger / "witness" / "4").mkdir()
    shutil.copy(size3, ledger / "witness" / "4" / "example.org_w1.txt")
    assert _verify(ledger, log_key, "--witness", witnesses.w1) == 1


def test_a_checkpoint_from_an_untrusted_log_key_is_refused(
    tmp_path: Path, witnesses: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    stranger = tmp_path / "stranger"
    append_run(stranger, Ed25519PrivateKey.generate(), "run-a")
    capsys.readouterr()
    assert _cosign(stranger, witnesses.s1) == 1
    assert "not signed by any trusted key" in capsys.readouterr().err


def test_runs_that_do_not_give_the_root_are_refused(
    ledger: Path, witnesses: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    run = sorted((ledger / "runs").glob("*.json"))[1]
    run.write_bytes(run.read_bytes() + b" ")
    capsys.readouterr()
    assert _cosign(ledger, witnesses.s1) == 1
    assert "not the root of the ledger's first 3 run" in capsys.readouterr().err


def test_the_library_cosignature_verifies_with_the_c2sp_message(
    ledger: Path, witnesses: Any
) -> None:
    done = cosign(ledger, witnesses.s1, now=1_700_000_000)
    assert done.previous_size is None and done.timestamp == 1_700_000_000
    text = done.path.read_text()
    checkpoint = (ledger / "checkpoints" / "3.txt").read_text()
    line = text[len(checkpoint) :]
    name, public = parse_vkey(witnesses.w1)
    assert line.startswith(f"\u2014 {name} ")
    blob = base64.b64decode(line.split(" ")[2])
    assert blob[:4] == cosignature_key_id(name, public)
    assert int.from_bytes(blob[4:12], "big") == 1_700_000_000
    body = checkpoint[: checkpoint.index("\n\n") + 1]
    message = b"cosignature/v1\ntime 1700000000\n" + body.encode()
    assert cosignature_message(body, 1_700_000_000) == message
    public.verify(blob[12:], message)  # raises if not
    # a cosignature from the future (beyond the tolerance) is refused
    report = check_cosignatures(ledger, [parse_vkey(witnesses.w1)], 1, now=1_600_000_000)
    assert not report.ok and "later than now" in report.checks[0].detail
    with pytest.raises(WitnessRefusal):
        cosign(ledger, witnesses.s1, ledger / "checkpoints" / "1.txt")


def test_consistency_proofs_against_roots_recomputed_from_the_leaves(ledger: Path) -> None:
    leaves = [run_leaf(p.read_bytes()) for p in sorted((ledger / "runs").glob("*.json"))]
    for n in range(len(leaves) + 1):
        for m in range(n + 1):
            proof = consistency_proof(leaves[:n], m)
            old, new = reference_mth(leaves[:m]), reference_mth(leaves[:n])
            assert verify_consistency(m, n, old, new, proof)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 70),
    data=st.data(),
)
def test_consistency_proofs_hold_and_catch_a_changed_leaf(n: int, data: Any) -> None:
    leaves = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(n)]
    m = data.draw(st.integers(1, n))
    proof = consistency_proof(leaves, m)
    old, new = reference_mth(leaves[:m]), reference_mth(leaves)
    assert verify_consistency(m, n, old, new, proof)
    changed = list(leaves)
    changed[data.draw(st.integers(0, m - 1))] = b"changed"
    assert not verify_consistency(m, n, reference_mth(changed[:m]), new, proof)
    assert not verify_consistency(m, n, old, reference_mth(changed), proof)
    if m < n:
        assert not verify_consistency(n, m, new, old, proof)  # never backwards


SPEC = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"


def test_runs_of_respai_evaluate_cosigned_by_two_witnesses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", str(SPEC), "--out", "o1"]) == 1  # the sample fails its gate

    class Log:
        public = tmp_path / "o1" / "public_key.pem"

    w1, w2 = (_init(tmp_path, n, Log, capsys) for n in ("a.example/w", "b.example/w"))
    states = [tmp_path / "a.example_w", tmp_path / "b.example_w"]
    for state in states:
        assert _cosign(Path(".respai"), state) == 0
    assert main(["evaluate", str(SPEC), "--out", "o2"]) == 1
    for state in states:
        assert _cosign(Path(".respai"), state) == 0
    capsys.readouterr()
    both = ["--witness", w1, "--witness", w2, "--quorum", "2"]
    assert _verify(Path(".respai"), Log, *both) == 0
    assert "quorum: 2 of 2 trusted witness(es) cosigned checkpoint 2" in capsys.readouterr().err
