"""Parallel first runs share one key; parallel key creation lists every key."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from respai.record import KeyRing
from respai.record.dsse import sign_envelope, signature_valid
from respai.sealing import signing_key

WORKERS = 8
PAYLOAD = b'{"a concurrent first run": true}'


# Each child waits for the go file, so all of them race for the key folder at once.
_CHILD = """
import json, sys, time
from pathlib import Path
from respai.record import new_key
from respai.record.dsse import sign_envelope
from respai.sealing import signing_key

folder, go, what = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
(go.parent / f"ready-{sys.argv[4]}").touch()
while not go.exists():
    time.sleep(0.005)
if what == "first-run":
    # What `respai evaluate` does with no --key: find the key, else create one, then sign.
    sk = signing_key(None, folder)
    print(json.dumps([sk.key_id, sign_envelope(PAYLOAD, sk.key, sk.key_id)]))
else:
    print(json.dumps([new_key(folder, passphrase=None).key_id, None]))
"""


def _in_processes(what: str, folder: Path) -> list[tuple[str, Any]]:
    go = folder.parent / "go"
    code = f"PAYLOAD = {PAYLOAD!r}\n" + _CHILD
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(folder), str(go), what, str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(WORKERS)
    ]
    deadline = time.monotonic() + 120
    while len(list(go.parent.glob("ready-*"))) < WORKERS and time.monotonic() < deadline:
        time.sleep(0.01)  # every child has imported respai
    go.touch()
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
        kid, envelope = json.loads(out)
        results.append((kid, envelope))
    return results


def _one_key_signs_all(folder: Path, results: list[tuple[str, Any]]) -> None:
    assert len(list(folder.glob("respai-*.key"))) == 1
    ring = KeyRing.load(folder / "keys.json")
    (entry,) = ring.entries
    assert {kid for kid, _ in results} == {entry.key_id}
    for _, envelope in results:
        assert signature_valid(envelope, entry.public_key)


def test_parallel_first_runs_in_processes_make_one_key(tmp_path: Path) -> None:
    folder = tmp_path / "keys"  # does not exist yet: every run would create it
    _one_key_signs_all(folder, _in_processes("first-run", folder))


def test_parallel_first_runs_in_threads_make_one_key(tmp_path: Path) -> None:
    folder = tmp_path / "keys"
    barrier = threading.Barrier(WORKERS)

    def run() -> tuple[str, Any]:
        barrier.wait()
        sk = signing_key(None, folder)
        return sk.key_id, sign_envelope(PAYLOAD, sk.key, sk.key_id)

    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(lambda _: run(), range(WORKERS)))
    _one_key_signs_all(folder, results)


def test_parallel_new_keys_are_all_listed(tmp_path: Path) -> None:
    folder = tmp_path / "keys"
    made = {kid for kid, _ in _in_processes("new-key", folder)}
    assert len(made) == WORKERS
    listed = {entry.key_id for entry in KeyRing.load(folder / "keys.json")}
    assert listed == made
    assert len(list(folder.glob("respai-*.key"))) == WORKERS


def test_a_failed_first_run_keeps_a_key_another_run_picked_up(tmp_path: Path) -> None:
    """Run A makes the first key, run B signs with it, then A fails: the key stays listed."""
    from respai.sealing import create_signing_key, discard_created_key, find_signing_key

    folder = tmp_path / "keys"
    a = create_signing_key(folder)
    assert a.created and (folder / (a.path.stem + ".pending")).exists()
    b = find_signing_key(None, folder)
    assert b is not None and not b.created and b.key_id == a.key_id
    envelope = sign_envelope(PAYLOAD, b.key, b.key_id)
    discard_created_key(a)  # A failed after B signed
    (entry,) = KeyRing.load(folder / "keys.json").entries
    assert entry.key_id == b.key_id and signature_valid(envelope, entry.public_key)
    assert b.path.exists() and not list(folder.glob("*.pending"))


def test_a_failed_first_run_alone_takes_its_key_back(tmp_path: Path) -> None:
    from respai.sealing import create_signing_key, discard_created_key

    folder = tmp_path / "keys"
    discard_created_key(create_signing_key(folder))
    assert not folder.exists()


def test_a_successful_first_run_settles_its_key(tmp_path: Path) -> None:
    from respai.sealing import create_signing_key, discard_created_key, settle_created_key

    folder = tmp_path / "keys"
    a = create_signing_key(folder)
    settle_created_key(a)
    assert not list(folder.glob("*.pending"))
    discard_created_key(a)  # settled means kept, whatever a caller does later
    assert a.path.exists()
    assert [e.key_id for e in KeyRing.load(folder / "keys.json").entries] == [a.key_id]
