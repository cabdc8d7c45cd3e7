"""The metric and battery registries: every rate recounts by hand, every test id is named
in the report, mapped to clauses and documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import battery, metrics, tables
from respai.blocks import test_names as all_test_names
from respai.controls import load_controls
from respai.counts import Cell
from respai.render.report import render_report
from respai.rules import rate_counts

ROOT = Path(__file__).resolve().parents[2]
METRICS_PAGE = ROOT / "docs" / "methods" / "metrics.md"
BATTERY_PAGE = ROOT / "docs" / "methods" / "battery.md"

CELLS = st.builds(
    Cell,
    tp=st.integers(0, 50),
    fp=st.integers(0, 50),
    tn=st.integers(0, 50),
    fn=st.integers(0, 50),
    missing_pos=st.integers(0, 20),
    missing_neg=st.integers(0, 20),
)


def cases_of(cell: Cell) -> list[tuple[int, int | None]]:
    """The cell as a list of ``(label, prediction)`` cases, ``None`` for no prediction."""
    return (
        [(1, 1)] * cell.tp
        + [(0, 1)] * cell.fp
        + [(0, 0)] * cell.tn
        + [(1, 0)] * cell.fn
        + [(1, None)] * cell.missing_pos
        + [(0, None)] * cell.missing_neg
    )


def recount(key: str, cases: list[tuple[int, int | None]]) -> tuple[int, int, int | None]:
    """``(numerator, denominator, missing)`` of a rate, by walking the cases one by one."""
    predicted = [(y, p) for y, p in cases if p is not None]
    if key == "selection":
        return sum(p == 1 for _, p in predicted), len(predicted), len(cases) - len(predicted)
    if key == "true_positive":
        over = [p for y, p in predicted if y == 1]
        return over.count(1), len(over), sum(y == 1 and p is None for y, p in cases)
    if key == "false_positive":
        over = [p for y, p in predicted if y == 0]
        return over.count(1), len(over), sum(y == 0 and p is None for y, p in cases)
    if key == "false_negative":
        over = [p for y, p in predicted if y == 1]
        return over.count(0), len(over), sum(y == 1 and p is None for y, p in cases)
    if key == "error":
        wrong = sum(y != p for y, p in predicted)
        return wrong, len(predicted), len(cases) - len(predicted)
    if key == "accuracy":
        right = sum(y == p for y, p in predicted)
        return right, len(predicted), len(cases) - len(predicted)
    unscored = len(cases) - len(predicted)  # any of them could have been predicted 1 or 0
    if key in ("precision", "false_discovery"):
        chosen = [y for y, p in predicted if p == 1]
        return chosen.count(1 if key == "precision" else 0), len(chosen), unscored
    if key in ("negative_predictive", "false_omission"):
        rejected = [y for y, p in predicted if p == 0]
        return rejected.count(0 if key == "negative_predictive" else 1), len(rejected), unscored
    if key == "minority_share":
        ones = sum(y == 1 for y, _ in cases)
        return min(ones, len(cases) - ones), len(cases), None
    raise AssertionError(f"no independent recount for the new rate {key!r}: write one")


@settings(max_examples=200, deadline=None)
@given(cell=CELLS)
def test_every_rate_equals_a_recount_case_by_case(cell: Cell) -> None:
    cases = cases_of(cell)
    for key, rate in metrics.RATES.items():
        num, den, missing = recount(key, cases)
        assert rate.fraction(cell) == (num, den), key
        assert (rate.missing is None) == (missing is None), key
        assert rate.missing_count(cell) == (missing or 0), key


@settings(max_examples=100, deadline=None)
@given(cell=CELLS)
def test_rule_rates_read_the_registry(cell: Cell) -> None:
    for rate in metrics.Rate:
        num, den, missing = recount(rate.metric.key, cases_of(cell))
        assert missing is not None, rate  # a rule rate must know its missing cases
        assert rate_counts(rate, cell) == (den + missing, num, missing)


def test_registry_entries_are_well_formed() -> None:
    assert len({r.name for r in metrics.RATES.values()}) == len(metrics.RATES)
    for key, rate in metrics.RATES.items():
        assert rate.key == key
        assert rate.anchor == f"methods/metrics.md#{key}"
        assert rate.counted and rate.over and rate.formula
    assert set(tables.METRICS) <= set(metrics.RATES)
    assert all(tables.METRICS[k] is metrics.RATES[k] for k in tables.METRICS)


def test_unlabelled_cell_gives_the_selection_rate() -> None:
    assert metrics.SELECTION_RATE.fraction(metrics.unlabelled(0, 0)) == (0, 0)
    assert metrics.SELECTION_RATE.fraction(metrics.unlabelled(7, 7)) == (7, 7)
    with pytest.raises(ValueError, match="between 0 and cases"):
        metrics.unlabelled(8, 7)


# -- the battery registry ---------------------------------------------------------------


def test_battery_registry_is_consistent() -> None:
    ids = [t.value for t in battery.TestId]
    assert list(battery.REGISTRY) == ids[: len(battery.REGISTRY)]  # battery first, in order
    assert tuple(battery.REGISTRY) == battery.BATTERY
    for test_id, entry in battery.REGISTRY.items():
        assert entry.id == test_id
        assert battery.DEFAULT_THRESHOLDS[test_id] is entry.default
        assert entry.default.comparison in (">=", "<=")
        assert entry.metric is None or entry.metric is metrics.RATES[entry.metric.key]
        assert entry.per_grouping == (test_id in battery.PER_GROUPING)
        assert entry.per_grouping == (entry.details is battery.DetailsKind.GROUP_RATES)
    assert set(battery.TEST_NAMES) == set(battery.REGISTRY)
    assert set(all_test_names()) >= set(ids)


def test_every_test_id_is_in_the_control_mapping() -> None:
    # and the mapping names no test the registry does not have
    assert tuple(load_controls().tests) == tuple(t.value for t in battery.TestId)


def test_report_embeds_every_test_name() -> None:
    page = render_report({"payload": "", "payloadType": "x", "signatures": []}, None)
    found = re.search(
        r'<script type="application/json" id="respai-test-names">(.*?)</script>', page, re.S
    )
    assert found is not None
    names = json.loads(found.group(1))
    assert names == all_test_names()
    # every registered kind's test ids: the blocks' and the monitor's (blocks.record_kinds)
    assert set(names) == {t.value for t in battery.TestId} | {
        "paired_difference",
        "regression_rule",
        "ranking_rule",
        "monitor_rule",
    }
    for test_id in battery.REGISTRY:
        assert names[test_id].strip(), test_id
    script = (ROOT / "src" / "respai" / "render" / "report_assets" / "report.js").read_text()
    assert "respai-test-names" in script
    for test_id, name in names.items():  # the script spells no id or label
        assert f'"{test_id}"' not in script and f'"{name}"' not in script, test_id


# -- the docs ---------------------------------------------------------------------------


def _sections(page: str) -> dict[str, str]:
    """Section anchor -> body, for headings with an explicit ``{#anchor}``."""
    parts = re.split(r"^#{2,4} .*?\{#([\w-]+)\}\s*$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def test_metrics_page_documents_every_rate() -> None:
    page = METRICS_PAGE.read_text(encoding="utf-8")
    sections = _sections(page)
    assert list(sections)[: len(metrics.RATES)] == list(metrics.RATES)
    for key, rate in metrics.RATES.items():
        body = sections[key]
        assert f"`{rate.formula}`" in body, key
        assert f"**Counted:** {rate.counted}." in body, key
        assert f"**Over:** {rate.over}." in body, key
        assert f"**Direction:** {rate.harm.value}." in body, key
    for heading in ("How to add a rate", "How to add a battery test"):
        assert f"## {heading}" in page


def test_metrics_page_lists_every_battery_test() -> None:
    page = METRICS_PAGE.read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \|$", page, re.M)
    expected = [
        (
            t.id.value,
            t.name,
            f"`{t.metric.key}`" if t.metric else "—",
            f"{t.default.comparison.replace('>=', '≥').replace('<=', '≤')} {t.default.value:.2f}",
        )
        for t in battery.REGISTRY.values()
    ]
    assert rows == expected


def test_every_battery_anchor_is_a_heading_of_the_battery_page() -> None:
    page = BATTERY_PAGE.read_text(encoding="utf-8")
    anchors = set()
    for heading in re.findall(r"^#{2,4} (.+)$", page, re.M):
        explicit = re.search(r"\{#([\w-]+)\}\s*$", heading)
        anchors.add(explicit.group(1) if explicit else _slug(heading))
    for entry in battery.REGISTRY.values():
        page_name, anchor = entry.anchor.split("#")
        assert page_name == "methods/battery.md"
        assert anchor in anchors, entry.id


# -- the predictive rates against scikit-learn -----------------------------------------


@settings(max_examples=100, deadline=None)
@given(pairs=st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=80))
def test_predictive_rates_match_sklearn(pairs: list[tuple[int, int]]) -> None:
    from sklearn.metrics import confusion_matrix, precision_score

    y = [a for a, _ in pairs]
    p = [b for _, b in pairs]
    cell = Cell(
        tp=sum(a == b == 1 for a, b in pairs),
        fp=sum(a == 0 and b == 1 for a, b in pairs),
        tn=sum(a == b == 0 for a, b in pairs),
        fn=sum(a == 1 and b == 0 for a, b in pairs),
    )
    tn, fp, fn, tp = confusion_matrix(y, p, labels=[0, 1]).ravel()
    assert (cell.tp, cell.fp, cell.tn, cell.fn) == (tp, fp, tn, fn)
    expected = {
        "precision": precision_score(y, p, zero_division=np.nan),
        # the negative predictive value is the precision of label 0
        "negative_predictive": precision_score(y, p, pos_label=0, zero_division=np.nan),
    }
    expected["false_discovery"] = 1 - expected["precision"]
    expected["false_omission"] = 1 - expected["negative_predictive"]
    for key, want in expected.items():
        num, den = metrics.RATES[key].fraction(cell)
        if np.isnan(want):
            assert den == 0, key
        else:
            assert num / den == pytest.approx(want, abs=1e-12), key


@settings(max_examples=150, deadline=None)
@given(st.lists(CELLS, min_size=0, max_size=9), st.sampled_from(sorted(metrics.RATES)))
def test_group_counts_of_columns_are_the_counts_of_each_cell(cells: list[Cell], key: str) -> None:
    """The array path (every registered rate, ``min`` ones falling back) agrees with
    counting one cell at a time, and both with :func:`respai.rules.rate_counts`."""
    from respai.counts import CellColumns
    from respai.spec.parsed import Rate

    rate = metrics.RATES[key]
    keys = [(f"g{i}",) for i in range(len(cells))]
    array = np.array([list(c.to_dict().values()) for c in cells], dtype=np.int64)
    columns = CellColumns(keys, array.reshape(len(cells), 6))
    plain = dict(zip(keys, cells, strict=True))
    got = metrics.group_counts(rate, columns)
    assert got == metrics.group_counts(rate, plain)
    assert all(type(v) is int for row in got for v in row[1:])
    by_rule = {r.metric.key: r for r in Rate}
    if key in by_rule:
        assert got == [(k, *rate_counts(by_rule[key], c)) for k, c in plain.items()]
