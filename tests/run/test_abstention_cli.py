"""Blanking decisions never improves a run's exit code (issue 25, point 4), end to end.

Hypothesis draws a case file (two attributes' groups, labels, decisions with group-wise
selection and error rates), runs ``respai fairness`` and ``respai evaluate`` on it, then
blanks decisions (at random, or adversarially: one group's wrong decisions, one group's
selections, or enough of a group to push it under ``min_cell``) and runs them again. The
exit code's verdict (1 FAIL, 3 INSUFFICIENT_EVIDENCE, 4 MANUAL_REVIEW, 0 PASS; DESIGN's
contract, worst to best) must never be better after the blanks.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from respai.cli import main
from respai.types import Verdict

#: A verdict's rank from an exit code (worst is highest).
RANK = {v.exit_code: v.severity for v in Verdict}

SPEC = """\
system: {name: abstain, version: "1"}
data:
  cases: cases.csv
  id: id
  source: test
  explanation: generated for the test
fairness:
  label: y
  prediction: p
  min_cell: 30
  attributes: {sex: [F, M], band: [young, old]}
  intersections: [[sex, band]]
  rules:
    - {id: sel-gap, rate: selection, attribute: sex, max_group_gap: 0.1}
    - {id: sel-ratio, rate: selection, attribute: band, min_group_ratio: 0.8}
    - {id: fnr-worst, rate: false_negative, attribute: [sex, band], worst_group: {max: 0.3}}
    - {id: err-worst, rate: error, attribute: band, worst_group: {max: 0.25}}
evaluation:
  tests: [accuracy, impact_ratio, selection_rate_diff, equal_opportunity_diff]
"""


@contextmanager
def inside(folder: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def write_cases(folder: Path, seed: int, n: int, gap: float, error: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    band = rng.choice(["young", "old"], n, p=[0.8, 0.2])
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < error, 1 - y, y)
    # group F's qualified cases are turned down more often (with probability gap)
    p = np.where((sex == "F") & (y == 1) & (rng.random(n) < gap), 0, p)
    return pd.DataFrame(
        {"id": [f"c{i}" for i in range(n)], "sex": sex, "band": band, "y": y, "p": p}
    )


def run(folder: Path, frame: pd.DataFrame, capsys: pytest.CaptureFixture[str]) -> tuple[int, int]:
    """Exit codes of ``respai fairness`` and ``respai evaluate`` on ``frame``."""
    frame.to_csv(folder / "cases.csv", index=False)
    with inside(folder):
        fairness = main(["fairness", "spec.yaml", "--json"])
        evaluate = main(["evaluate", "spec.yaml", "--json", "--no-ledger", "--out", "ev"])
    err = capsys.readouterr().err
    assert fairness != 2 and evaluate != 2, err[-800:]
    return fairness, evaluate


def blank(
    frame: pd.DataFrame, how: str, share: float, seed: int, group: str | None = None
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    out = frame.copy()
    out["p"] = out["p"].astype("Int64")
    group = group or str(rng.choice(["F", "M"]))
    in_group = out["sex"] == group
    if how == "random":
        chosen = rng.random(len(out)) < share
    elif how == "wrong":  # a group's wrong decisions
        chosen = in_group & (out["p"] != out["y"]) & (rng.random(len(out)) < max(share, 0.5))
        chosen = chosen if share < 1 else in_group & (out["p"] != out["y"])
    elif how == "selections":  # a group's selections
        chosen = in_group & (out["p"] == 1) & (rng.random(len(out)) < max(share, 0.5))
    else:  # push the small band's intersection cells under min_cell
        chosen = (out["band"] == "old") & in_group & (rng.random(len(out)) < 0.8)
    out.loc[np.asarray(chosen, dtype=bool), "p"] = pd.NA
    return out


def check_blanking(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    seed: int,
    n: int,
    gap: float,
    how: str,
    share: float,
) -> None:
    """Run both commands before and after blanking; the exit code may not improve."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    frame = write_cases(folder, seed, n, gap, 0.1)
    before = run(folder, frame, capsys)
    after = run(folder, blank(frame, how, share, seed + 1), capsys)
    for command, b, a in zip(("fairness", "evaluate"), before, after, strict=True):
        assert RANK[a] >= RANK[b], f"{command}: exit {b} became {a} by blanking ({how})"


def test_blanking_a_groups_wrong_decisions_does_not_escape_a_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The statistician's escape: a FAILing file, one group's wrong decisions blanked."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    frame = write_cases(folder, 7, 1500, 0.5, 0.1)
    before = run(folder, frame, capsys)
    assert before == (1, 1)
    # engine 0.3.0 read INSUFFICIENT_EVIDENCE (exit 3) for respai fairness here
    after = run(folder, blank(frame, "wrong", 1.0, 8, group="F"), capsys)
    assert after == (1, 1)


@pytest.mark.slow
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    n=st.sampled_from([300, 900, 3000]),
    gap=st.sampled_from([0.0, 0.05, 0.1, 0.3]),
    how=st.sampled_from(["random", "wrong", "selections", "small"]),
    share=st.sampled_from([0.01, 0.05, 0.3]),
)
def test_blanking_decisions_never_improves_the_exit_code(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    seed: int,
    n: int,
    gap: float,
    how: str,
    share: float,
) -> None:
    check_blanking(tmp_path, capsys, seed, n, gap, how, share)
