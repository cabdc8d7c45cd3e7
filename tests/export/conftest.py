"""A signed record from a real ``respai evaluate`` run, with a failing and a passing rule."""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from respai.cli import main

SPEC = """\
system: {name: screener, version: "2.1"}
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  probability: score
  unit: applicant_id
  attributes:
    sex: [Female, Male]
  rules:
    - {id: selection-gap, rate: selection, attribute: sex, max_group_gap: 0.05}
    - {id: error-cap, rate: error, attribute: sex, worst_group: {max: 0.9}}
evaluation:
  score: score
"""


def write_cases(path: Path, n: int = 400, seed: int = 3) -> None:
    """Cases where women are selected far less often than men (the gap rule fails)."""
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["applicant_id", "label", "prediction", "score", "sex"])
        for i in range(n):
            sex = "Female" if i % 2 else "Male"
            y = int(rng.random() < 0.5)
            bias = -0.25 if sex == "Female" else 0.1
            score = min(1.0, max(0.0, rng.gauss(0.35 + 0.3 * y + bias, 0.15)))
            w.writerow([f"a{i}", y, int(score > 0.5), f"{score:.3f}", sex])


@dataclass(frozen=True)
class Run:
    """A sealed run: its folder, record and key folder."""

    folder: Path
    record: Path
    keys: Path


def make_run(folder: Path) -> Run:
    """Write the spec and cases into ``folder`` and run ``respai evaluate`` there."""
    folder.mkdir(parents=True, exist_ok=True)
    write_cases(folder / "cases.csv")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    code = main(
        [
            "evaluate",
            str(folder / "spec.yaml"),
            "--out",
            str(folder / "out"),
            "--no-ledger",
            "-q",
        ]
    )
    assert code == 1  # the selection gap fails
    return Run(folder, folder / "out" / "record.json", folder / "keys")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = tmp_path_factory.mktemp("export")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        return make_run(folder)


@pytest.fixture
def home(run: Run, monkeypatch: pytest.MonkeyPatch) -> Run:
    """The run, with RESPAI_HOME pointing at its key folder."""
    monkeypatch.setenv("RESPAI_HOME", str(run.keys))
    return run
