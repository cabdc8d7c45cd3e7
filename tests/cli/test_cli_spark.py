"""``--engine spark`` on the command line gives the same answer as DuckDB."""

from __future__ import annotations

import json
import os
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main

SPEC = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"

try:
    import pyspark  # noqa: F401

    HAVE_SPARK = True
except ImportError:  # pragma: no cover - CI installs it
    HAVE_SPARK = False
if not HAVE_SPARK and os.environ.get("CI"):
    raise RuntimeError("pyspark is a test dependency and must be installed in CI")
pytestmark = pytest.mark.skipif(not HAVE_SPARK, reason="pyspark is not installed")


def _json(*args: str) -> tuple[int, dict[str, Any]]:
    buf = StringIO()
    with redirect_stdout(buf):
        code = main([*args, "--json", "--quiet"])
    return code, json.loads(buf.getvalue())


def test_fairness_on_spark_equals_duckdb() -> None:
    code_d, duck = _json("fairness", str(SPEC))
    code_s, spark = _json("fairness", str(SPEC), "--engine", "spark")
    assert code_d == code_s == 1
    assert duck == spark


def test_evaluate_on_spark_equals_duckdb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    _, duck = _json("evaluate", str(SPEC), "--no-ledger", "--out", str(tmp_path / "d"))
    _, spark = _json(
        "evaluate", str(SPEC), "--no-ledger", "--out", str(tmp_path / "s"), "--engine", "spark"
    )
    for payload in (duck, spark):
        for key in ("run_id", "timestamp", "record"):
            payload.pop(key)
    assert duck == spark
