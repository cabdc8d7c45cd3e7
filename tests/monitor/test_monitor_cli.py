"""respai monitor end to end: streams continue from verified runs, refusals write nothing."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest

from respai.cli import main

SPEC = """\
system: {name: loans}
fairness:
  label: label
  prediction: prediction
  attributes:
    sex: [f, m]
  min_cell: 10
  rules:
    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.2}
"""


def _batches(folder: Path, n: int, gap: float, seed: int = 1, size: int = 400) -> list[Path]:
    rng = random.Random(seed)
    out = []
    for b in range(n):
        rows = ["label,prediction,sex"]
        for _ in range(size):
            s = rng.choice("fm")
            rate = 0.3 if s == "f" else 0.3 + gap
            rows.append(f"{int(rng.random() < 0.5)},{int(rng.random() < rate)},{s}")
        path = folder / f"batch{seed}-{b}.csv"
        path.write_text("\n".join(rows) + "\n")
        out.append(path)
    (folder / "spec.yaml").write_text(SPEC)
    return out


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # spec, batches, outputs and the ledger side by side


def _tree(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_a_stream_continues_and_a_verdict_change_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _batches(tmp_path, 1, 0.0, size=120)
    later = _batches(tmp_path, 6, 0.0, seed=2, size=600)
    assert main(["monitor", "spec.yaml", *map(str, first)]) == 3
    capsys.readouterr()
    code = main(["monitor", "spec.yaml", *map(str, later), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert [look["look"] for look in out["looks"]] == list(range(1, 8))
    assert out["new_looks"] == list(range(2, 8))
    assert code == 0 and out["verdict"] == "PASS"
    change = out["changes"][0]
    assert change["rule"] == "sel" and change["from"] == "INSUFFICIENT_EVIDENCE"
    assert change["to"] == "PASS" and change["look"] > 1
    group = out["looks"][-1]["rules"][0]["groups"][0]
    assert {"group", "cases", "events", "interval"} <= set(group)
    # cumulative: the last look counts every case of the seven batches
    total = sum(g["cases"] for g in out["looks"][-1]["rules"][0]["groups"])
    assert total == 120 + 6 * 600


def test_a_clear_gap_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batches = _batches(tmp_path, 4, 0.45, size=500)
    assert main(["monitor", "spec.yaml", *map(str, batches), "--out", "out"]) == 1
    assert "verdict (latest look 4): FAIL" in capsys.readouterr().err
    assert main(["verify", "out/record.json"]) == 0
    page = (tmp_path / "out" / "report.html").read_text()
    assert "<svg" in page and "polygon" in page


def test_an_earlier_look_that_does_not_verify_stops_the_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batches = _batches(tmp_path, 2, 0.0)
    assert main(["monitor", "spec.yaml", str(batches[0])]) in (0, 3)
    (run,) = (tmp_path / ".respai" / "runs").glob("*.json")
    envelope = json.loads(run.read_text())
    payload = base64.b64decode(envelope["payload"]).replace(b'"look":1', b'"look":1 ')
    envelope["payload"] = base64.b64encode(payload.replace(b"[400,", b"[401,")).decode()
    run.write_text(json.dumps(envelope))
    capsys.readouterr()
    before = _tree(tmp_path)
    assert main(["monitor", "spec.yaml", str(batches[1])]) == 2
    err = capsys.readouterr().err
    assert "does not verify" in err and "monitoring stream" in err
    assert _tree(tmp_path) == before


def test_a_bad_batch_refuses_every_batch_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batches = _batches(tmp_path, 2, 0.0)
    batches[1].write_text("label,prediction,sex\n1,2,f\n")
    before = _tree(tmp_path)
    assert main(["monitor", "spec.yaml", *map(str, batches), "--out", "out"]) == 2
    assert "respai: error:" in capsys.readouterr().err
    assert _tree(tmp_path) == before


def test_without_a_rule_monitoring_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batches = _batches(tmp_path, 1, 0.0)
    (tmp_path / "spec.yaml").write_text(SPEC.split("  rules:")[0])
    assert main(["monitor", "spec.yaml", str(batches[0])]) == 2
    assert "at least one rule" in capsys.readouterr().err


def test_a_changed_spec_starts_a_new_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batches = _batches(tmp_path, 2, 0.0)
    main(["monitor", "spec.yaml", str(batches[0])])
    (tmp_path / "spec.yaml").write_text(SPEC.replace("0.2}", "0.25}"))
    capsys.readouterr()
    main(["monitor", "spec.yaml", str(batches[1]), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert [look["look"] for look in out["looks"]] == [1]


def _credit_months(folder: Path, seed: int = 26) -> list[Path]:
    """Six months of 1,500 cases, half women, half positive; women's FNR 0.5 -> 0.7."""
    rng = random.Random(seed)
    out = []
    for month in range(1, 7):
        rows = ["label,prediction,sex"]
        for _ in range(1500):
            s = rng.choice("fm")
            y = int(rng.random() < 0.5)
            fnr = (0.7 if month >= 4 else 0.5) if s == "f" else 0.48
            pred = int(rng.random() >= fnr) if y else int(rng.random() < 0.2)
            rows.append(f"{y},{pred},{s}")
        path = folder / f"month{month}.csv"
        path.write_text("\n".join(rows) + "\n")
        out.append(path)
    (folder / "fnr.yaml").write_text(
        SPEC.replace("min_cell: 10", "min_cell: 10").replace(
            "{id: sel, rate: selection, attribute: sex, max_group_gap: 0.2}",
            "{id: fnr-gap, rate: false_negative, attribute: sex, max_group_gap: 0.1}",
        )
    )
    return out


def test_a_drift_is_flagged_by_the_change_detector_within_three_batches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    months = _credit_months(tmp_path)
    assert main(["monitor", "fnr.yaml", *map(str, months[:3])]) == 3
    capsys.readouterr()
    code = main(["monitor", "fnr.yaml", *map(str, months[3:]), "--json", "--window", "3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    rules = [look["rules"][0] for look in out["looks"]]
    assert [r["cumulative_verdict"] for r in rules[:3]] == ["INSUFFICIENT_EVIDENCE"] * 3
    alarm = rules[-1]["change"]["alarm_look"]
    assert alarm is not None and 4 <= alarm <= 6
    assert all(r["verdict"] == "FAIL" for r in rules[alarm - 1 :])
    assert rules[-1]["change"]["method"] == "cusum-e-detector"
    assert "average run length" in rules[-1]["change"]["guarantee"]
    # each look shows its own batch: counts, rate and a one-off interval
    g = rules[4]["groups"][0]
    assert g["batch"]["rate"] == pytest.approx(g["batch"]["events"] / g["batch"]["cases"])
    assert g["batch"]["interval"]["method"] == "clopper-pearson"
    # the window of the last three batches decides on the drifted months alone
    window = rules[-1]["window"]
    assert window["first_look"] == 4 and window["batches"] == 3
    assert window["verdict"] == "FAIL"
    assert "not anytime-valid" in window["guarantee"]
    # the record keeps the change statistic per look and its guarantee
    runs = sorted((tmp_path / ".respai" / "runs").glob("*.json"))
    record = json.loads(runs[-1].read_text())
    payload = json.loads(base64.b64decode(record["payload"]))
    start = payload["predicate"]["records"][0]["monitor"]
    assert start["change_method"] == "cusum-e-detector" and start["change_horizon"] == 100
    tests = [r for r in payload["predicate"]["records"] if r.get("record_type") == "test"]
    assert tests[-1]["details"]["change"]["alarm_look"] == alarm


def test_the_change_statistic_is_recomputed_from_the_recorded_batch_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A verifier needs only counts.monitor.looks to recompute every look's statistic."""
    from respai.monitor import change as cd

    months = _credit_months(tmp_path)
    assert main(["monitor", "fnr.yaml", *map(str, months), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    record = json.loads(next((tmp_path / ".respai" / "runs").glob("*.json")).read_text())
    payload = json.loads(base64.b64decode(record["payload"]))
    batches = [
        b["rules"]["fnr-gap"]["groups"] for b in payload["predicate"]["counts"]["monitor"]["looks"]
    ]
    dets = cd.detectors_of_rule(["f", "m"], gap=0.1, worst_max=None, worst_min=None)
    states: dict[str, cd.ChangeState] = {}
    before: dict[str, tuple[int, int, int]] = {}
    last: dict[str, tuple[int, int, int]] = {}
    for look, groups in zip(out["looks"], batches, strict=True):
        batch = {g: (c[0], c[1], c[2]) for g, c in groups.items()}
        for det in dets:
            states[det.label] = cd.update(
                states.get(det.label), cd.batch_log_evalues(det, batch, before, last)
            )
        last = batch
        before = {
            g: tuple(a + b for a, b in zip(before.get(g, (0, 0, 0)), batch[g], strict=True))
            for g in batch
        }
        shown = {
            d["detector"]: d["log_statistic"] for d in look["rules"][0]["change"]["detectors"]
        }
        for det in dets:
            assert shown[det.label] == pytest.approx(states[det.label].log_statistic, rel=1e-12)


def test_status_lists_the_streams_of_a_ledger_with_their_looks_and_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    months = _credit_months(tmp_path)
    assert main(["monitor", "fnr.yaml", *map(str, months)]) == 1
    assert main(["monitor", "fnr.yaml", str(months[0]), "--new-stream", "model v4"]) == 3
    capsys.readouterr()
    assert main(["monitor", "--status", ".respai", "--json"]) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    first, second = doc["streams"]
    assert first["looks"] == 6 and first["latest_verdict"] == "FAIL"
    assert first["change_alarm_look"] in (4, 5, 6)
    assert second["stream"].endswith("#2") and second["looks"] == 1
    assert second["new_stream"] == {"reason": "model v4", "replaces": first["stream"]}
    assert "2 monitoring stream(s)" in out.err and "looks: 1-3 INSUFFICIENT_EVIDENCE" in out.err
    # a repeated batch is still refused in the new stream's ledger
    assert main(["monitor", "fnr.yaml", str(months[0])]) == 2
    assert "already look 1" in capsys.readouterr().err


def test_status_and_window_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    months = _credit_months(tmp_path)
    assert main(["monitor", "--status", "nowhere"]) == 2
    assert "no ledger at nowhere" in capsys.readouterr().err
    assert main(["monitor", "--status", ".respai", "fnr.yaml"]) == 2
    assert main(["monitor", "fnr.yaml", str(months[0]), "--window", "0"]) == 2
    assert main(["monitor"]) == 2
    assert not (tmp_path / ".respai").exists()


def test_log_shows_the_kind_and_junit_names_the_monitoring_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    months = _credit_months(tmp_path)
    assert main(["monitor", "fnr.yaml", *map(str, months[:2]), "--out", "out"]) == 3
    capsys.readouterr()
    assert main(["log"]) == 0
    err = capsys.readouterr().err
    assert "KIND" in err and " monitor " in err
    assert main(["export", "out/record.json", "--format", "junit", "-o", "junit.xml"]) == 0
    xml = (tmp_path / "junit.xml").read_text()
    assert '<testsuite name="respai.monitor"' in xml
    assert "Monitored rule fnr-gap at look 2" in xml
