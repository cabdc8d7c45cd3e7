"""The architecture holds: only the engine package imports a dataframe engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import respai

PKG = Path(respai.__file__).resolve().parent
ENGINES = {"duckdb", "narwhals", "pandas", "polars", "pyarrow", "pyspark"}
#: The engine layer: the ``engine/`` package (DuckDB, narwhals, the Spark session).
ENGINE_PACKAGE = PKG / "engine"


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
        if not p.is_relative_to(ENGINE_PACKAGE) and imported(p) & ENGINES
    }
    assert offenders == {}


def test_the_engine_layer_is_the_engine_package() -> None:
    # a module that moved out of the package (or a stray engine.py) would be allowed
    # nothing; every engine module is inside it, and it does use the engines
    assert not (PKG / "engine.py").exists() and not (PKG / "spark.py").exists()
    used = set().union(*(imported(p) for p in ENGINE_PACKAGE.rglob("*.py")))
    assert {"duckdb", "narwhals"} <= used


#: Modules that are functions of counts and declarations: no file, no engine, no YAML.
PURE_MODULES = ("stats", "rules", "counts", "tables", "metrics", "battery", "eeo1", "spec.model")


def modules_named(path: Path) -> set[str]:
    """Every module an ``import`` anywhere in the file names, in full (lazy ones too)."""
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_pure_modules_import_no_engine_module_of_ours() -> None:
    banned = (
        "yaml",
        "respai.engine",
        "respai.spark",
        "respai.load",
        "respai.spec.loading",
        "respai.spec.yaml_io",
    )
    offenders = {}
    for name in PURE_MODULES:
        mods = modules_named(PKG / f"{name.replace('.', '/')}.py")
        bad = sorted(m for m in mods if any(m == b or m.startswith(f"{b}.") for b in banned))
        if bad:
            offenders[name] = bad
    assert offenders == {}


def test_pure_modules_load_no_yaml_or_engine() -> None:
    code = (
        "import sys; "
        + "; ".join(f"import respai.{name}" for name in PURE_MODULES)
        + "; print(sorted(m for m in ('yaml','duckdb','narwhals','pyarrow') "
        "if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys; from respai.cli import main; main(['--help']); "
        "print(sorted(m for m in ('duckdb','narwhals','scipy','rich','yaml') "
        "if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"
