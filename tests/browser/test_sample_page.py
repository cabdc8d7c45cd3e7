"""The sample page: its numbers equal respai's engine on the same CSV, it signs and
verifies with a per-load ECDSA P-256 key, tampering fails, and it requests nothing."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest

from respai import stats
from respai.battery import DEFAULT_THRESHOLDS, run_battery
from respai.render.sample_page import sample_page_html
from respai.run.group_rules import evaluate_fairness

GROUPS = ["north", "south", "east"]
TOL = 1e-12


def _write_csv(path: Path, rows: int = 300, seed: int = 11) -> None:
    rng = random.Random(seed)
    base = {"north": 0.5, "south": 0.4, "east": 0.3}
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["person_id", "label", "prediction", "score", "region"])
        for i in range(rows):
            group = GROUPS[i % 3]
            label = int(rng.random() < 0.45)
            p = base[group] + (0.25 if label else -0.1)
            prediction: Any = int(rng.random() < p)
            if rng.random() < 0.03:
                prediction = ""  # no prediction: left out of the rates
            region = "" if i in (7, 150) else group  # no group: overall accuracy only
            writer.writerow([100000 + i, label, prediction, f"{rng.random():.3f}", region])


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) <= TOL


def _engine(path: Path) -> dict[str, Any]:
    result = evaluate_fairness(
        {
            "cases": str(path),
            "label": "label",
            "prediction": "prediction",
            "attributes": {"region": GROUPS},
        }
    )
    tests = {
        t.key: t
        for t in run_battery(
            result.counts,
            ["accuracy", "impact_ratio", "selection_rate_diff", "equal_opportunity_diff"],
            DEFAULT_THRESHOLDS,
        )
    }
    grouping = result.counts.groupings[("region",)]
    groups = {}
    for row in result.tables["region"]:
        cell = grouping.groups[row.key]
        groups[row.label] = {
            "cases": row.count,
            "with_prediction": row.with_prediction,
            "accuracy": (cell.tp + cell.tn, cell.predicted),
            "selection_rate": row.metrics["selection"],
            "tpr": row.metrics["true_positive"],
        }
    return {"tests": tests, "groups": groups, "cases": result.counts.total}


def _load(opened: Any, text: str) -> dict[str, Any]:
    page = opened.page
    page.fill("#csv", text)
    page.select_option("#group", "region")
    assert page.input_value("#label") == "label"
    assert page.input_value("#prediction") == "prediction"
    page.click("#compute")
    assert opened.settled() == ("true", "")
    return json.loads(page.text_content("#result") or "")


def test_sample_page_matches_the_engine_and_signs(open_html: Any, tmp_path: Path) -> None:
    path = tmp_path / "decisions.csv"
    _write_csv(path)
    opened = open_html(sample_page_html(), "sample.html")
    assert opened.state() == ("pending", "")
    got = _load(opened, path.read_text(encoding="utf-8"))
    want = _engine(path)

    assert got["cases"] == want["cases"] == 300
    assert got["cases_without_group"] == 2
    accuracy = want["tests"]["accuracy"]
    assert _close(got["overall"]["accuracy"]["value"], accuracy.value)
    # the page's interval is Wilson's over the cases with a prediction; the battery's own
    # interval (since engine 0.3.0) also counts cases without one at their worst
    decided = stats.wilson_interval(
        accuracy.details["correct"], accuracy.details["with_prediction"]
    )
    assert decided is not None
    assert _close(got["overall"]["accuracy"]["interval_95"]["lo"], decided.lo)
    assert _close(got["overall"]["accuracy"]["interval_95"]["hi"], decided.hi)
    assert {g["group"] for g in got["groups"]} == set(GROUPS)
    for g in got["groups"]:
        ref = want["groups"][g["group"]]
        assert g["cases"] == ref["cases"]
        assert g["with_prediction"] == ref["with_prediction"]
        k, n = ref["accuracy"]
        iv = stats.wilson_interval(k, n)
        assert iv is not None
        assert (g["accuracy"]["numerator"], g["accuracy"]["denominator"]) == (k, n)
        assert _close(g["accuracy"]["value"], k / n)
        assert _close(g["accuracy"]["interval_95"]["lo"], iv.lo)
        assert _close(g["accuracy"]["interval_95"]["hi"], iv.hi)
        for metric in ("selection_rate", "tpr"):
            m = ref[metric]
            assert (g[metric]["numerator"], g[metric]["denominator"]) == (
                m.numerator,
                m.denominator,
            )
            assert _close(g[metric]["value"], m.value), (g["group"], metric)
            assert _close(g[metric]["interval_95"]["lo"], m.interval.lo)
            assert _close(g[metric]["interval_95"]["hi"], m.interval.hi)
    for mine, key in (
        ("impact_ratio", "impact_ratio:region"),
        ("selection_rate_difference", "selection_rate_diff:region"),
        ("equal_opportunity_difference", "equal_opportunity_diff:region"),
    ):
        assert _close(got[mine]["value"], want["tests"][key].value), mine
        assert got[mine]["min_group"] == want["tests"][key].details["min_group"]
        assert got[mine]["max_group"] == want["tests"][key].details["max_group"]

    page = opened.page
    assert page.inner_text("#verify-title") == "Verified"
    assert len(page.inner_text("#signature")) == 128  # P1363 r||s, 64 bytes in hex
    before = page.text_content("#result")
    page.click("#tamper")
    assert opened.settled() == ("false", "signature")
    assert page.text_content("#result") != before
    assert page.inner_text("#verify-title") == "Not verified: signature"
    page.click("#reset")
    assert opened.settled() == ("true", "")
    assert page.text_content("#result") == before
    assert opened.requests == [opened.url]
    assert opened.errors == []


def test_sample_page_reads_an_opened_file_and_the_example(open_html: Any, tmp_path: Path) -> None:
    path = tmp_path / "decisions.csv"
    _write_csv(path, rows=90, seed=5)
    opened = open_html(sample_page_html(), "sample.html")
    page = opened.page
    page.set_input_files("#file", str(path))
    assert opened.settled() == ("true", "")
    assert json.loads(page.text_content("#result") or "")["cases"] == 90
    page.click("#example")
    assert opened.settled() == ("true", "")
    result = json.loads(page.text_content("#result") or "")
    assert result["cases"] == 600
    assert result["columns"]["group"] == "region"
    assert opened.requests == [opened.url]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("label,prediction,region\n2,1,a\n", "labels must be 0 or 1"),
        ("label,prediction,region\n,1,a\n", "every case needs a reference label"),
        ("label,prediction,region\n", "at least one case"),
    ],
)
def test_sample_page_explains_bad_input(open_html: Any, text: str, message: str) -> None:
    opened = open_html(sample_page_html(), "sample.html")
    page = opened.page
    page.fill("#csv", text)
    page.click("#compute")
    assert opened.settled()[0] == "error"
    assert message in page.inner_text("#input-error")


def test_sample_page_is_static_and_self_contained() -> None:
    text = sample_page_html()
    assert text == sample_page_html()
    for banned in (
        "fetch(",
        "XMLHttpRequest",
        "WebSocket",
        "sendBeacon",
        "EventSource",
        "http://",
        "https://",
    ):
        assert banned not in text, banned
    assert "connect-src &#x27;none&#x27;" in text
    assert '<pre id="result">' in text


def _contrast(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio of two CSS ``rgb(...)`` colours."""

    def lum(css: str) -> float:
        parts = [float(x) / 255 for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted((lum(fg), lum(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def test_the_primary_button_stays_readable_on_hover(open_html: Any) -> None:
    opened = open_html(sample_page_html(), "sample.html")
    page = opened.page
    page.click("#example")
    assert opened.settled() == ("true", "")
    assert page.is_enabled("#compute")
    page.hover("#compute")
    fg, bg = page.eval_on_selector(
        "#compute", "b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]"
    )
    assert _contrast(fg, bg) >= 4.5, (fg, bg)
