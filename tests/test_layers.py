"""The architecture holds: only the engine module imports a dataframe engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import respai

PKG = Path(respai.__file__).resolve().parent
ENGINES = {"duckdb", "narwhals", "pandas", "polars", "pyarrow", "pyspark"}
#: The engine layer: DuckDB and narwhals in engine.py, the Spark session in spark.py.
ENGINE_MODULES = {"engine.py", "spark.py"}


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_engine_imports_an_engine() -> None:
    offenders = {
        p.relative_to(PKG).as_posix(): sorted(imported(p) & ENGINES)
        for p in PKG.rglob("*.py")
        if p.name not in ENGINE_MODULES and imported(p) & ENGINES
    }
    assert offenders == {}


def test_pure_modules_import_no_engine_module_of_ours() -> None:
    for name in ("stats.py", "rules.py", "counts.py", "tables.py"):
        tree = ast.parse((PKG / name).read_text())
        mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "respai.engine" not in mods or name == "tables.py", name
        assert "respai.load" not in mods, name


def test_help_does_not_import_heavy_modules() -> None:
    code = ("import sys; from respai.cli import main; main(['--help']); "
            "print(sorted(m for m in ('duckdb','narwhals','scipy','rich','yaml') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"
