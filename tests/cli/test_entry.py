"""The ``respai`` command ends with ``os._exit`` after main (respai.cli.app.entry).

Python's shutdown is skipped, so everything it would have done that matters must have
happened first: the exit code is the run's, every byte written to a pipe arrives, the
exit handlers run (DuckDB's spill folder is removed), and a thread that is not a daemon
finishes its work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    rows = "".join(f"{i % 2},{(i // 3) % 2},{'fm'[i % 4 < 2]}\n" for i in range(400))
    (tmp_path / "cases.csv").write_text("label,prediction,sex\n" + rows, encoding="utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(
        "system: {name: t, version: '1'}\n"
        "fairness:\n  name: t\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.01}\n",
        encoding="utf-8",
    )
    return path


def _respai(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        capture_output=True,
        env={**os.environ, **env},
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_the_exit_code_and_the_whole_output_arrive(spec: Path, tmp_path: Path) -> None:
    done = _respai("fairness", str(spec), "--json", env={}, cwd=tmp_path)
    assert done.returncode in (1, 3), done.stderr  # the gap rule's verdict, not 0
    body = json.loads(done.stdout)  # every byte of the JSON came through the pipe
    assert body["verdict"] in ("FAIL", "INSUFFICIENT_EVIDENCE")
    assert b"\nassumptions\n" in done.stderr and done.stderr.endswith(b"\n")  # the summary, whole
    usage = _respai("no-such-command", env={}, cwd=tmp_path)
    assert usage.returncode == 2 and b"No such command" in usage.stderr


def test_the_exit_handlers_run_and_the_spill_folder_goes(spec: Path, tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = _respai(
        "evaluate",
        str(spec),
        "--no-ledger",
        "--out",
        str(tmp_path / "out"),
        env={"TMPDIR": str(temp), "RESPAI_HOME": str(tmp_path / "home")},
        cwd=tmp_path,
    )
    assert done.returncode in (1, 3), done.stderr
    assert (tmp_path / "out" / "record.json").is_file()
    assert not any(temp.glob("respai-duckdb-*")), list(temp.iterdir())


def test_entry_runs_atexit_handlers_and_waits_for_threads(tmp_path: Path) -> None:
    # a handler and a slow non-daemon thread, registered by the running code itself; and
    # the command marks its process as its own before it runs (respai.heap)
    marker, written, own = tmp_path / "atexit", tmp_path / "thread", tmp_path / "own"
    code = (
        "import atexit, sys, threading, time\n"
        "import respai.heap as heap\n"
        f"heap.tune_this_process = lambda: bool(open({str(own)!r}, 'w').write('own'))\n"
        "import respai.cli.app as app\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
        "def slow():\n"
        f"    time.sleep(0.3); open({str(written)!r}, 'w').write('done')\n"
        "threading.Thread(target=slow).start()\n"
        "sys.argv = ['respai', '--version']\n"
        "app.entry()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert b"respai, version" in done.stdout
    assert marker.read_text() == "ran" and written.read_text() == "done"
    assert own.read_text() == "own"
