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
