"""Shared helpers for the LL144 tests: write files and specs, run the command in-process."""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from respai.cli import main
from respai.ll144.audit import LL144Result, run_ll144

TODAY = dt.date(2026, 12, 1)


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for row in rows:
            writer.writerow(["" if v is None else v for v in row])
    return path


def write_spec(
    folder: Path,
    ll144: dict[str, Any],
    *,
    data: dict[str, Any] | None = None,
    system: dict[str, Any] | None = None,
    name: str = "spec.yaml",
) -> Path:
    doc: dict[str, Any] = {
        "system": system
        or {"name": "screener", "version": "1.0", "first_distributed": "2025-03-01"},
        "data": {
            "cases": "decisions.csv",
            "source": "historical",
            "explanation": "Decisions of 2025, self-reported categories.",
            **(data or {}),
        },
        "ll144": {"audit_date": "2026-11-30", **ll144},
    }
    path = folder / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def cli_run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    def run(*args: str) -> Run:
        code = main(list(args))
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


@pytest.fixture
def audit() -> Callable[..., LL144Result]:
    def run(spec: Path, **kwargs: Any) -> LL144Result:
        return run_ll144(spec, today=TODAY, **kwargs)

    return run


@pytest.fixture(scope="session")
def ll() -> SimpleNamespace:
    """The helpers above, for test modules (importlib mode cannot import conftest)."""
    return SimpleNamespace(write_csv=write_csv, write_spec=write_spec, TODAY=TODAY)
