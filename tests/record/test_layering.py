"""respai.record stands alone: verification needs only the record."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import respai.record

PKG = Path(respai.record.__file__).resolve().parent
FORBIDDEN = {
    "respai.stats",
    "respai.rules",
    "respai.engine",
    "respai.counts",
    "respai.load",
    "respai.run",
    "respai.results",
    "duckdb",
    "narwhals",
    "pandas",
    "polars",
    "pyarrow",
    "numpy",
    "scipy",
}


def test_record_imports_no_stats_rules_or_dataframes() -> None:
    for path in PKG.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not any(name == f or name.startswith(f + ".") for f in FORBIDDEN), (
                    path.name,
                    name,
                )


def test_importing_record_loads_no_heavy_module() -> None:
    code = (
        "import sys, respai.record; "
        f"print(sorted(m for m in {sorted(FORBIDDEN)!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
