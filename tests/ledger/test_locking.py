"""Locking: an appender killed at any point, and two processes appending at once, leave a
ledger that verifies."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.ledger import helpers
from tests.ledger.helpers import append_run, run_paths

from respai.ledger import Ledger, verify_ledger

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
    args = [sys.executable, "-c", CHILD, helpers.__file__, str(directory), str(key_file)]
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
