"""The compact per-group section (issue 30 point 2): counts as columns, rows re-derived.

A grouping with more than ``COMPACT_MIN_GROUPS`` declared groups is written as columns
of integers and its test records leave the per-group rows out (``schema_version`` 1.1);
``respai verify`` re-derives the summaries they state. The threshold is lowered here so
the golden case's 48-value ``store`` attribute is compact and the run stays small; the
same case at the real threshold gives the byte-stable 1.0 record of ``tests/golden``.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint
from tests.golden.case import STORES, write_case

import respai.run.evidence as evidence
from respai.cli import main
from respai.recompute import _upper_gap, check_compact


def _predicate(out: Path) -> dict[str, Any]:
    envelope = json.loads((out / "record.json").read_text(encoding="utf-8"))
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return dict(statement["predicate"])


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str, limit: int | None) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    if not (tmp_path / "spec.yaml").exists():
        write_case(tmp_path)
    if limit is not None:
        monkeypatch.setattr(evidence, "COMPACT_MIN_GROUPS", limit)
    assert main(["evaluate", "spec.yaml", "--out", out, "--no-ledger", "--quiet"]) in (0, 1, 3)
    if limit is not None:
        monkeypatch.setattr(evidence, "COMPACT_MIN_GROUPS", 1000)
    return tmp_path / out


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any]]:
    """The golden case's record as written (1.0) and with ``store`` compact (1.1)."""
    full = _predicate(_run(tmp_path, monkeypatch, "full", None))
    compact = _predicate(_run(tmp_path, monkeypatch, "compact", 40))
    return full, compact


def test_small_groupings_keep_the_1_0_layout(both: tuple[dict[str, Any], dict[str, Any]]) -> None:
    full, _ = both
    assert full["schema_version"] == "1.0"
    assert all("layout" not in g for g in full["counts"]["groupings"].values())
    assert check_compact(full) is None


def test_compact_columns_hold_the_same_counts(both: tuple[dict[str, Any], dict[str, Any]]) -> None:
    full, compact = both
    assert compact["schema_version"] == "1.1"
    store = compact["counts"]["groupings"]["store"]
    assert store["layout"] == "columns" and store["group_count"] == STORES
    cols = store["columns"]
    rows = full["counts"]["groupings"]["store"]["groups"]
    assert cols["key"] == [r["key"] for r in rows]
    for name in ("tp", "fp", "tn", "fn", "missing_prediction_label_1"):
        assert cols[name] == [r[name] for r in rows]
    ranks = full["counts"]["groupings"]["store"]["rank_sums"]
    assert store["rank_sums"]["twice_u"] == [r["twice_u"] for r in ranks]
    bins = full["counts"]["groupings"]["store"]["calibration_bins"]
    assert store["calibration_bins"]["bins"] == [[x for b in r["bins"] for x in b] for r in bins]
    # the smaller groupings are written as before
    assert compact["counts"]["groupings"]["sex"] == full["counts"]["groupings"]["sex"]


def test_compact_tests_keep_verdicts_and_summaries(
    both: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    full, compact = both
    pairs = list(zip(full["records"], compact["records"], strict=True))
    stripped = 0
    for a, b in pairs:
        if a["record_type"] != "test":
            continue
        assert (a["test_key"], a["verdict"], a["value"], a["reason"]) == (
            b["test_key"],
            b["verdict"],
            b["value"],
            b["reason"],
        )
        if b.get("grouping") == ["store"]:
            assert b["details"]["groups"] == [] and a["details"]["groups"]
            assert b["details"]["groups_derived"]["from"] == "counts.groupings.store"
            rest = {k: v for k, v in b["details"].items() if k not in ("groups", "groups_derived")}
            assert rest == {k: v for k, v in a["details"].items() if k != "groups"}
            stripped += 1
        elif b["test_id"] == "auc":
            assert b["details"]["per_group"]["store"] == []
            assert b["details"]["per_group"]["sex"] == a["details"]["per_group"]["sex"]
            assert "store" in b["details"]["per_group_derived"]
    assert stripped >= 3


def test_verify_rederives_a_compact_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, monkeypatch, "compact", 40)
    capsys.readouterr()
    assert main(["verify", str(out / "record.json")]) == 0
    seen = capsys.readouterr()
    text = seen.out + seen.err
    assert "ok    derived: 1 compact grouping(s), 48 groups" in text
    assert main(["verify", str(out / "report.html")]) == 0
    # recounted from the data: the columns are compared count by count
    args = ["verify", str(out / "record.json"), "--data", "cases.csv", "--spec", "spec.yaml"]
    assert main(args) == 0
    seen = capsys.readouterr()
    assert "ok    counts: all" in seen.out + seen.err


def test_a_wrong_summary_or_count_is_caught(both: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, compact = both
    ok = check_compact(compact)
    assert ok is not None and ok.ok, ok
    rule = next(
        i for i, r in enumerate(compact["records"]) if r.get("test_key") == "rule:sel-store"
    )
    wrong = copy.deepcopy(compact)
    wrong["records"][rule]["details"]["gap_bounds"]["hi"] -= 0.01
    found = check_compact(wrong)
    assert found is not None and not found.ok and "gap_bounds.hi" in found.detail
    wrong = copy.deepcopy(compact)
    cols = wrong["counts"]["groupings"]["store"]["columns"]
    cols["fp"][0] += cols["tn"][0]
    cols["tn"][0] = 0  # the same cases, all selected: the highest rate and the gap move
    found = check_compact(wrong)
    assert found is not None and not found.ok
    wrong = copy.deepcopy(compact)
    wrong["counts"]["groupings"]["store"]["columns"]["tp"][3] += 5
    found = check_compact(wrong)
    assert found is not None and not found.ok and "add up" in found.detail
    wrong = copy.deepcopy(compact)
    wrong["counts"]["groupings"]["store"]["columns"]["tp"].pop()
    found = check_compact(wrong)
    assert found is not None and not found.ok


def test_every_grouping_compact_still_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every rule kind of the golden case (reference, ratio, equalized odds, worst group,
    an intersection) over compact groupings: the record verifies and re-derives."""
    out = _run(tmp_path, monkeypatch, "all", 1)
    predicate = _predicate(out)
    assert all(g["layout"] == "columns" for g in predicate["counts"]["groupings"].values())
    found = check_compact(predicate)
    assert found is not None and found.ok, found
    capsys.readouterr()
    assert main(["verify", str(out / "record.json")]) == 0
    assert main(["report", str(out / "record.json"), "-o", str(tmp_path / "r.html")]) == 0


def test_upper_gap_equals_statsmodels_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        g = int(rng.integers(2, 9))
        n = rng.integers(0, 40, g).tolist()
        missing = [int(rng.integers(0, 4)) for _ in range(g)]
        k = [int(rng.integers(0, x + 1)) for x in n]
        alpha = 0.05 / g
        los, his = [], []
        for ki, ni, mi in zip(k, n, missing, strict=True):
            total = ni + mi
            if total == 0:
                los.append(0.0)
                his.append(1.0)
                continue
            los.append(float(proportion_confint(ki, total, alpha, method="beta")[0]))
            his.append(float(proportion_confint(ki + mi, total, alpha, method="beta")[1]))
        brute = max(his[i] - los[j] for i in range(g) for j in range(g) if i != j)
        assert _upper_gap(k, n, missing, alpha) == pytest.approx(brute, abs=1e-12)


@pytest.mark.slow
def test_100k_groups_evaluate_and_verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One attribute of 100,000 declared values: the run completes and its record verifies."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    groups, rows = 100_000, 300_000
    rng = np.random.default_rng(3)
    g, y, s = rng.integers(0, groups, rows), rng.integers(0, 2, rows), rng.random(rows)
    with (tmp_path / "cases.csv").open("w", encoding="utf-8") as fh:
        fh.write("store,label,prediction,score\n")
        fh.writelines(
            f"s{a},{b},{int(d > 0.5)},{d:.6f}\n"
            for a, b, d in zip(g.tolist(), y.tolist(), s.tolist(), strict=True)
        )
    values = ", ".join(f"s{i}" for i in range(groups))
    (tmp_path / "spec.yaml").write_text(
        'system: {name: many, version: "1"}\nfairness:\n  name: many\n  cases: cases.csv\n'
        "  label: label\n  prediction: prediction\n  probability: score\n"
        f"  attributes:\n    store: [{values}]\n  rules:\n"
        "    - {id: sel-store, rate: selection, attribute: store, max_group_gap: 0.5}\n"
        "evaluation:\n  tests: [accuracy, auc, impact_ratio, selection_rate_diff]\n"
        "  score: score\n",
        encoding="utf-8",
    )
    assert main(["evaluate", "spec.yaml", "--out", "out", "--no-ledger", "--quiet"]) in (0, 1, 3)
    assert _predicate(tmp_path / "out")["schema_version"] == "1.1"
    assert main(["verify", "out/record.json"]) == 0


def test_an_equalized_odds_rule_over_a_compact_grouping_derives_each_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its two error-rate rules (``parts``) leave their rows out too, and each part's gap
    bound and small cells are re-derived: a wrong one is named with its rate."""
    predicate = _predicate(_run(tmp_path, monkeypatch, "all", 1))
    rule = next(r for r in predicate["records"] if r.get("test_key") == "rule:eo-age")
    parts = rule["details"]["parts"]
    assert [p["rate"] for p in parts] == ["false_positive", "false_negative"]
    assert all(p["groups"] == [] and p["groups_derived"]["from"] for p in parts)
    found = check_compact(predicate)
    assert found is not None and found.ok, found
    wrong = copy.deepcopy(predicate)
    eo = next(r for r in wrong["records"] if r.get("test_key") == "rule:eo-age")
    eo["details"]["parts"][1]["gap_bounds"]["hi"] += 0.02
    found = check_compact(wrong)
    assert found is not None and not found.ok
    assert "test rule:eo-age (false_negative): gap_bounds.hi" in found.detail


def test_the_page_reads_a_compact_record_without_its_bins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page parses the payload with each compact grouping's calibration bins left
    empty (it shows none), and is the same page, byte for byte, as with them parsed."""
    from respai.record.keys import load_public_key, public_key_raw
    from respai.render.report import document, render_report, render_report_bytes

    out = _run(tmp_path, monkeypatch, "compact", 40)
    envelope = json.loads((out / "record.json").read_text(encoding="utf-8"))
    raw = base64.b64decode(envelope["payload"])
    cut = document._unshown_bins(raw)
    assert len(cut) < len(raw) and b'"calibration_bins":{"bins":[]' in cut
    key = public_key_raw(load_public_key(out / "public_key.pem"))
    page = (out / "report.html").read_bytes()
    assert render_report_bytes(envelope, key) == page
    assert render_report(envelope, key).encode("utf-8") == page
    monkeypatch.setattr(document, "_unshown_bins", lambda payload: payload)
    assert render_report_bytes(envelope, key) == page
