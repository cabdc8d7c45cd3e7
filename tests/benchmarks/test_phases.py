"""The phase timer still wraps functions that exist and that the run really calls."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

from respai.cli import main

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "phases.py"


def test_phases_times_every_phase_of_a_real_run(tmp_path: Path) -> None:
    with contextlib.suppress(SystemExit):
        main(["demo"])
    demo = Path("respai-demo")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "loan_screen.yaml", "--out", str(tmp_path / "out")],
        cwd=demo,
        capture_output=True,
        text=True,
        check=False,
    )
    table = done.stderr
    for phase in ("open the file", "count pass", "AUC pass", "evaluate:", "record:"):
        row = next((line for line in table.splitlines() if phase in line), None)
        assert row is not None, table
    assert (tmp_path / "out" / "record.json").is_file()
