"""Shared fixtures: one parametrised engine fixture runs every count path on every engine."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

#: In CI (``CI`` set) every property test draws the same examples on every run, so CI
#: is green or red for the code, not for the draw; locally the draws stay random, and an
#: example that finds a bug is kept as an ``@example`` so CI runs it from then on.
settings.register_profile("respai-ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("respai-ci")

ENGINES = ["duckdb-csv", "duckdb-jsonl", "duckdb-parquet", "pandas", "polars", "pyarrow"]

Rows = Sequence[dict[str, Any]]

#: Test files that start a JVM (Spark) or a browser (Chromium), and any test using the
#: ``spark`` fixture: marked ``slow``, so ``pytest -m "not slow"`` is the fast subset;
#: ``pytest`` (and CI) runs everything.
SLOW_FILES = ("test_spark.py", "test_cli_spark.py")
SLOW_FOLDERS = ("browser",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath))
        spark = "spark" in getattr(item, "fixturenames", ())
        if spark or path.name in SLOW_FILES or any(part in SLOW_FOLDERS for part in path.parts):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for the whole pytest run (a JVM takes seconds to start).

    Skipped without pyspark, except in CI, which must run the Spark tests. Tests that
    start Spark another way (``--engine spark``, ``engine.spark_session()``) get this
    same session while it runs; it is stopped once, when the run ends.
    """
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(
                "pyspark is not installed, but CI must run the Spark tests "
                '(pip install -e ".[test]" installs it)'
            )
        pytest.skip("pyspark is not installed")
    from respai.engine.spark import spark_session

    session = spark_session("local[2]")
    yield session
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session.stop()


@pytest.fixture(autouse=True)
def _private_keys_and_ledger(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test gets its own key folder and working folder, so a command that signs
    (and so creates a key and appends to ``.respai/``) never touches the user's keys or
    the repository. A test may set ``RESPAI_HOME`` or change folder again itself."""
    work = tmp_path_factory.mktemp("work")
    monkeypatch.setenv("RESPAI_HOME", str(work / "keys"))
    monkeypatch.chdir(work)


def _columns(rows: Rows, columns: Sequence[str]) -> dict[str, list[Any]]:
    return {c: [r.get(c) for r in rows] for c in columns}


def write_cases(engine: str, rows: Rows, columns: Sequence[str], folder: Path) -> Any:
    """Put ``rows`` where ``engine`` reads them: a file path, or a DataFrame."""
    import pyarrow as pa

    data = _columns(rows, columns)
    if engine == "duckdb-csv":
        path = folder / "cases.csv"
        with path.open("w", encoding="utf-8") as fh:
            fh.write(",".join(columns) + "\n")
            for r in rows:
                fh.write(",".join("" if r.get(c) is None else str(r[c]) for c in columns) + "\n")
        return path
    if engine == "duckdb-jsonl":
        path = folder / "cases.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({c: r.get(c) for c in columns}) + "\n")
        return path
    table = pa.table(data)
    if engine == "duckdb-parquet":
        import pyarrow.parquet as pq

        path = folder / "cases.parquet"
        pq.write_table(table, path)
        return path
    if engine == "pandas":
        return table.to_pandas()
    if engine == "polars":
        import polars as pl

        return pl.from_arrow(table)
    return table


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine a count test runs on."""
    return str(request.param)


@pytest.fixture
def run_engine(engine: str, tmp_path: Path) -> Callable[..., Any]:
    """Evaluate ``spec`` (a fairness dict) on ``rows`` through the chosen engine."""
    from respai.load import load_counts
    from respai.spec import parse_fairness

    def run(spec: dict[str, Any], rows: Rows, columns: Sequence[str]) -> Any:
        source = write_cases(engine, rows, columns, tmp_path)
        if isinstance(source, Path):
            parsed = parse_fairness({**spec, "cases": str(source)})
            return load_counts(parsed).counts
        return load_counts(parse_fairness(spec), source).counts

    return run


@pytest.fixture(scope="session")
def cases_writer() -> Callable[..., Any]:
    """:func:`write_cases`, for test modules (importlib mode cannot import conftest)."""
    return write_cases


@pytest.fixture(scope="session")
def engine_names() -> list[str]:
    """Every engine path a count test can run on."""
    return list(ENGINES)
