"""What the scripts that generate the docs' command examples share.

Each ``gen_<command>_examples.py`` defines ``generate() -> {file name: text}`` from real
runs in a temporary folder, and ends with ``sys.exit(write_or_check(generate(), __file__))``;
``tests/test_generated_examples.py`` checks every one of them is current.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"


def run_respai(work: Path, *args: str, columns: int = 100) -> subprocess.CompletedProcess[str]:
    """``python -m respai ARGS`` in ``work``, with a key folder and home of its own.

    ``PYTHONPATH`` is passed on, so a checkout's ``src`` put first on the path (a worktree
    beside an editable install) is the respai that runs.
    """
    path = {k: v for k, v in os.environ.items() if k == "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        cwd=work,
        capture_output=True,
        text=True,
        env={
            "PATH": "/usr/bin:/bin",
            "COLUMNS": str(columns),
            "HOME": str(work),
            "RESPAI_HOME": str(work / "keys"),
            **path,
        },
        check=False,
    )


def write_or_check(files: Mapping[str, str], script: str) -> int:
    """Write ``files`` under ``docs/examples``; with ``--check``, compare instead (1: stale)."""
    if "--check" in sys.argv:
        stale = [n for n, t in files.items() if (EXAMPLES / n).read_text(encoding="utf-8") != t]
        if stale:
            print(f"stale examples: {', '.join(stale)}; run {Path(script).name}")
            return 1
        return 0
    for name, text in files.items():
        (EXAMPLES / name).write_text(text, encoding="utf-8")
    return 0
