"""The report's per-group table says what the terminal's per-group table says.

Every cell of the report's table is computed from the counts in the signed record; the
terminal computes its table from the same counts before anything is signed. These tests
hold the two to the same strings (layout aside: the report writes counts with thousands
separators and says why an undefined rate is undefined).
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.cli import main
from respai.counts import Cell
from respai.render.report import render_report
from respai.render.report.group_rates import cell_of, count_terms, count_text_of, rate_text
from respai.render.report.walk import page_text
from respai.render.terminal import _measure
from respai.tables import METRICS, measure

SPEC = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """The bundled sample's record and the text ``respai fairness`` prints for it."""
    folder = tmp_path_factory.mktemp("loan")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        mp.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
        code = main(["evaluate", str(SPEC), "--out", str(folder / "out"), "--no-ledger"])
        assert code in (0, 1, 3, 4)
    env = {**os.environ, "COLUMNS": "400"}  # the wide table: one line per group
    run = subprocess.run(
        [sys.executable, "-m", "respai", "fairness", str(SPEC)],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    printed = run.stdout + run.stderr  # the summary is on stderr
    envelope = json.loads((folder / "out" / "record.json").read_text(encoding="utf-8"))
    return envelope, printed


def _rows(html: str) -> dict[str, dict[str, list[str]]]:
    """The report's table cells: by grouping pointer, each group's texts in column order."""
    rows: dict[str, dict[str, list[str]]] = {}
    for b in page_text(html).bound:
        m = re.fullmatch(r"(/predicate/counts/groupings/[^/]*)/groups/(\d+)(/key)?", b.pointer)
        if m and b.fmt in ("items", "table_count", "table_rate"):
            rows.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(b.text)
    return rows


def test_the_report_table_is_the_terminal_table(made: tuple[dict[str, Any], str]) -> None:
    envelope, printed = made
    rows = _rows(render_report(envelope, None))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert len(rows) == len(statement["predicate"]["counts"]["groupings"]) == 3
    lines = printed.splitlines()
    checked = 0
    for groups in rows.values():
        for label, cases, with_prediction, missing, *rates in groups.values():
            assert len(rates) == len(METRICS)
            assert int(cases.replace(",", "")) == int(with_prediction.replace(",", "")) + int(
                missing.replace(",", "")
            )
            # the terminal's wide row: group, count, no pred., then the six cells
            want = r"\s+".join(
                [re.escape(label), cases.replace(",", ""), missing, *map(re.escape, rates)]
            )
            assert sum(1 for line in lines if re.fullmatch(want + r"\s*", line)) == 1, want
            checked += 1
    assert checked == 2 + 3 + 6  # sex, age band and their intersection
    assert any("precision" in line for line in lines)


_count = st.one_of(st.integers(0, 3), st.integers(0, 10**4), st.integers(0, 10**13))


@settings(max_examples=400, deadline=None)
@given(_count, _count, _count, _count, _count, _count)
def test_every_cell_is_the_terminals_text(
    tp: int, fp: int, tn: int, fn: int, m1: int, m0: int
) -> None:
    cell = Cell(tp=tp, fp=fp, tn=tn, fn=fn, missing_pos=m1, missing_neg=m0)
    record = {"key": ["g"], **cell.to_dict()}
    assert cell_of(record) == cell
    for key, rate in METRICS.items():
        m = measure(*rate.fraction(cell), rate.over)
        shown = rate_text(record, key)
        if m.value is None:
            assert m.undefined is not None
            assert shown == f"undefined: {m.undefined.reason}"
            assert _measure(m) == f"— (0/{m.denominator})"
        else:
            assert shown == _measure(m)
    assert count_text_of(record, "cases") == f"{cell.n:,}"
    assert count_text_of(record, "missing") == f"{cell.missing:,}"
    assert count_text_of(record, "with_prediction") == f"{cell.predicted:,}"


def test_malformed_counts_are_a_dash_and_unknown_keys_a_question_mark() -> None:
    good = Cell(tp=1, fp=2, tn=3, fn=4).to_dict()
    assert rate_text(good, "accuracy") == "?"  # not a column of the table
    assert count_text_of(good, None) == "?"
    for bad in ({**good, "tp": -1}, {**good, "fp": 1.5}, {**good, "tn": True}, {"tp": 1}):
        assert rate_text(bad, "precision") == "—"
        assert count_text_of(bad, "cases") == "—"
    assert rate_text({**good, "tp": 2**53 - 1}, "selection") == "—"  # total past 2**53 - 1


def test_a_count_that_is_not_a_sum_is_refused() -> None:
    with pytest.raises(ValueError, match="sum of the counts"):
        count_terms(lambda c: min(c.positives, c.negatives))
    with pytest.raises(ValueError, match="empty group"):
        count_terms(lambda c: c.tp + 1)
    assert count_terms(lambda c: c.n) == {
        "tp": 1,
        "fp": 1,
        "tn": 1,
        "fn": 1,
        "missing_prediction_label_1": 1,
        "missing_prediction_label_0": 1,
    }


def test_a_long_table_lists_the_groups_at_each_end_and_undefined_rates_say_why(
    made: tuple[dict[str, Any], str],
) -> None:
    import importlib.util

    from respai.render.extremes import EACH

    spec = importlib.util.spec_from_file_location(
        "report_variants", Path(__file__).with_name("report_variants.py")
    )
    assert spec is not None and spec.loader is not None
    variants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(variants)
    envelope, _ = made
    statement = variants.many_groups(json.loads(base64.b64decode(envelope["payload"])), 73)
    html = render_report(
        {**envelope, "payload": base64.b64encode(json.dumps(statement).encode()).decode()}, None
    )
    for groups in _rows(html).values():
        assert len(groups) == 2 * EACH
        assert "17" not in groups  # its counts are malformed: it has no number of cases
    assert "undefined: no cases predicted 1" in html
    assert "undefined: no cases labelled 1 with a prediction" in html
    assert f"With 73 groups, the table lists only the {EACH} with the fewest" in html
