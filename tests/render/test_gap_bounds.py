"""A rule's largest gap has one lower bound on every page: ``max(lo, 0)``, never negative.

The record (and ``--json``) keep the raw bound ``max lo_i - hi_j``, which is negative
when the intervals overlap; the terminal's reason showed 0.0000 while the HTML report
showed -0.046. Every output now shows the bound of :func:`respai.render.gap.shown_gap_bounds`.
"""

from __future__ import annotations

import base64
import csv
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main
from respai.render.gap import shown_gap_bounds


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    with (tmp_path / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["label", "prediction", "sex"])
        for i in range(160):  # equal selection rates: the intervals overlap
            w.writerow([i % 2, (i // 4) % 2, "f" if i % 4 < 2 else "m"])
    (tmp_path / "spec.yaml").write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.1}\n"
        "evaluation:\n  tests: [class_balance]\n",
        encoding="utf-8",
    )
    code = main(
        [
            "evaluate",
            str(tmp_path / "spec.yaml"),
            "--out",
            str(tmp_path / "o"),
            "--no-ledger",
            "-q",
        ]
    )
    assert code == 3  # the gap straddles 0.1
    return tmp_path / "o" / "record.json"


def _rule(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    (rule,) = [r for r in predicate["records"] if r.get("test_id") == "group_rule"]
    return rule  # type: ignore[no-any-return]


def test_the_record_keeps_the_raw_bound_and_every_page_shows_zero(
    record: Path, tmp_path: Path
) -> None:
    rule = _rule(record)
    raw = rule["details"]["gap_bounds"]
    assert raw["lo"] < 0  # the record: the bound the verdict was decided from
    lo, hi = shown_gap_bounds(raw) or (None, None)
    assert lo == 0.0 and hi == raw["hi"]
    assert f"between {lo:.4f} and {hi:.4f}" in rule["reason"]  # the terminal shows this
    html = (record.parent / "report.html").read_text(encoding="utf-8")
    assert f"gap in [{lo:.4f}, {hi:.4f}]" in html
    assert f"lies between {lo:.4f} and {hi:.4f}" in html
    assert f"{raw['lo']:.4f}" not in html
    bom = tmp_path / "bom.json"
    assert main(["export", str(record), "--format", "cyclonedx", "-o", str(bom)]) == 0
    metrics = json.loads(bom.read_text(encoding="utf-8"))["components"][0]["modelCard"][
        "quantitativeAnalysis"
    ]["performanceMetrics"]
    (gap,) = [m for m in metrics if m["type"].startswith("largest gap")]
    assert float(gap["confidenceInterval"]["lowerBound"]) == lo


def test_the_page_script_shows_the_same_bound() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    from respai.render.report.formats import FORMATS
    from respai.render.report.script_tables import script_tables

    assets = Path(__file__).resolve().parents[2] / "src/respai/render/report_assets/bind.js"
    cases = [
        {
            "interval": None,
            "grouping": ["sex"],
            "details": {
                "gap_bounds": {"lo": lo, "hi": 0.25},
                "rate": "selection",
                "groups": [],
                "threshold": {"max_group_gap": 0.2},
            },
        }
        for lo in (-0.046, -1e-12, 0.0, 0.0312)
    ]
    names = ("interval_cell", "rule_caption")
    script = (
        script_tables()
        + "\n"
        + assets.read_text(encoding="utf-8")
        + f"\nvar cases = {json.dumps(cases)}, names = {json.dumps(names)};\n"
        + "console.log(JSON.stringify(cases.map(function (r) {"
        + " return names.map(function (n) { return RespaiBind.format(n, r, null); }); })));"
    )
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [[FORMATS[n](r, None) for n in names] for r in cases]
    assert json.loads(done.stdout)[0][0] == "gap in [0.0000, 0.2500]"


def test_the_api_and_the_terminal_show_one_gap_text(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 point 5: to_dict() and the notebook showed [-0.0115, 0.1329], the CLI 0.0000."""
    import respai

    raw = _rule(record)["details"]["gap_bounds"]
    lo, hi = shown_gap_bounds(raw) or (None, None)
    text = f"[{lo:.4f}, {hi:.4f}]"
    spec = (tmp_path / "spec.yaml").read_text(encoding="utf-8")
    floor = "    - {id: floor, rate: selection, attribute: sex, worst_group: {min: 0.2}}\n"
    (tmp_path / "spec.yaml").write_text(spec.replace("evaluation:", floor + "evaluation:"))
    capsys.readouterr()
    assert main(["fairness", str(tmp_path / "spec.yaml")]) == 3
    fairness_err = capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "spec.yaml"), "--out", str(tmp_path / "e")]) == 3
    evaluate_err = capsys.readouterr().err
    assert f"\n  largest gap: {text}\n" in fairness_err
    assert f"\n    largest gap: {text}\n" in evaluate_err
    for err in (fairness_err, evaluate_err):  # a floor rule has no gap, and shows none
        assert err.count("largest gap:") == 1

    result = respai.evaluate_fairness(tmp_path / "spec.yaml")
    sel, floor_rule = result.to_dict()["rules"]
    assert sel["gap_bounds"] == raw and raw["lo"] < 0  # the bound decided on, as recorded
    assert sel["largest_gap"] == {"lo": lo, "hi": hi} and floor_rule["largest_gap"] is None
    for html in (result._repr_html_(), respai.evaluate(tmp_path / "spec.yaml")._repr_html_()):
        assert "<th>largest gap</th>" in html
        assert f"<td>{text}</td>" in html and "<td>—</td>" in html
        assert "null" not in html and f"{raw['lo']:.4f}" not in html
