"""Record kinds: every test id has one owner, and the exports file each record under it.

A monitoring run's ``monitor_rule`` records are the monitor's (a kind registered in
``blocks.RECORD_KINDS``, not a spec block), the battery claims only its own test ids, and
a test id nobody owns is exported as ``unknown`` under its own id, never under a block.
"""

from __future__ import annotations

import base64
import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from respai import blocks
from respai.battery import REGISTRY, TestId
from respai.cli import main
from respai.export.cyclonedx import cyclonedx_bom
from respai.export.junit import record_junit
from respai.export.outcomes import record_outcomes


def _all_test_ids() -> set[str]:
    named = {t for k in blocks.record_kinds() for t in k.test_names}
    return named | {t.value for t in TestId}


def test_every_known_test_id_has_exactly_one_owner() -> None:
    owners = {t: [k.name for k in blocks.record_kinds() if k.owns(t)] for t in _all_test_ids()}
    assert {t: o for t, o in owners.items() if len(o) != 1} == {}
    assert owners["monitor_rule"] == ["monitor"]
    assert owners["paired_difference"] == ["paired"]
    assert owners["calibration"] == ["fairness"]


def test_the_battery_claims_only_its_own_test_ids() -> None:
    battery = blocks.block_named("evaluation")
    assert {t for t in _all_test_ids() if battery.owns(t)} == set(REGISTRY)
    for unknown in ("monitor_rule", "no_such_test", "", "regression_mae"):
        assert not battery.owns(unknown)
    assert blocks.owner_of_test("no_such_test") is blocks.UNOWNED
    assert blocks.owner_of_test(None) is blocks.UNOWNED


def test_the_monitor_is_a_record_kind_and_not_a_spec_block() -> None:
    monitor = blocks.record_kind_named("monitor")
    assert "monitor" not in blocks.BLOCKS and not isinstance(monitor, blocks.Block)
    assert [k.name for k in blocks.record_kinds()] == [*blocks.BLOCKS, *blocks.RECORD_KINDS]
    assert monitor.suite == "respai.monitor" and monitor.outcome_kind == "monitor"
    with pytest.raises(KeyError):
        blocks.record_kind_named("no_such_kind")


def _test(test_id: str, key: str, verdict: str, **extra: Any) -> dict[str, Any]:
    return {
        "record_type": "test",
        "record_id": f"r-{key}",
        "test_id": test_id,
        "test_key": key,
        "verdict": verdict,
        "reason": f"why {key}",
        "value": None,
        "interval": None,
        "undefined_reason": "see details",
        **extra,
    }


def _monitor(look: int, verdict: str) -> dict[str, Any]:
    interval = {"method": "cs", "confidence": 0.95}
    return _test(
        "monitor_rule",
        f"monitor:sel:look{look}",
        verdict,
        grouping=["sex"],
        details={
            "rule": "sel",
            "look": look,
            "rate": "selection",
            "groups": [
                {
                    "group": "f",
                    "cases": 100,
                    "rate": 0.3,
                    "interval": {"lo": 0.2, "hi": 0.4, **interval},
                },
                {
                    "group": "m",
                    "cases": 90,
                    "rate": 0.7,
                    "interval": {"lo": 0.6, "hi": 0.8, **interval},
                },
            ],
            "gap_bounds": {"lo": 0.2 + look / 100, "hi": 0.6},
        },
    )


def _predicate() -> dict[str, Any]:
    return {
        "system": {"name": "kinds"},
        "verdict": "FAIL",
        "records": [
            {"record_type": "run_start"},
            _test("accuracy", "accuracy", "PASS", value=0.9),
            _monitor(1, "INSUFFICIENT_EVIDENCE"),
            _monitor(2, "FAIL"),
            _test("regression_mae", "regression_mae", "PASS", value=1.5, grouping=["sex"]),
            {"record_type": "run_end"},
        ],
    }


def test_a_monitor_record_is_filed_under_monitoring_and_an_unknown_one_under_unknown() -> None:
    predicate = _predicate()
    kinds = {o.key: o.kind for o in record_outcomes(predicate)}
    assert kinds == {
        "accuracy": "battery",
        "monitor:sel:look1": "monitor",
        "monitor:sel:look2": "monitor",
        "regression_mae": "unknown",
    }
    root = ET.fromstring(record_junit(predicate))
    suites = {
        s.get("name"): [c.get("name") for c in s.iter("testcase")] for s in root.iter("testsuite")
    }
    assert suites == {
        "respai.battery": ["Accuracy [accuracy]"],
        "respai.monitor": [
            "Monitored rule sel at look 1 [monitor:sel:look1]",
            "Monitored rule sel at look 2 [monitor:sel:look2]",
        ],
        "respai.unknown": ["regression_mae by sex [regression_mae]"],
    }
    bom = cyclonedx_bom(predicate, record_name="record.json", record_sha256="0" * 64)
    card = bom["components"][0]["modelCard"]
    types = [m["type"] for m in card["quantitativeAnalysis"]["performanceMetrics"]]
    assert "monitor_rule" not in types  # not the battery's metrics of a foreign record
    assert types.count("selection rate (monitored rule sel, look 2)") == 2
    assert "largest gap in selection rate (monitored rule sel, look 1)" in types
    assert "regression_mae" in types  # shown by its own id, generically
    harms = [a["harms"] for a in card["considerations"]["fairnessAssessments"]]
    assert harms == [
        "Monitored rule sel at look 1: INSUFFICIENT_EVIDENCE. why monitor:sel:look1",
        "Monitored rule sel at look 2: FAIL. why monitor:sel:look2",
    ]  # an unowned record is no fairness assessment


MONITOR = """\
system: {name: kinds, version: "1"}
fairness:
  label: y
  prediction: p
  attributes:
    sex: [Female, Male]
    race: [White, Black or African American]
  min_cell: 10
  rules:
    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.3}
"""
DATA = """\
data:
  cases: cases.csv
  id: id
  source: test
  explanation: generated for the test
"""
SPEC = DATA + MONITOR
LL144 = """\
ll144:
  kind: selection
  selected: p
  sex: sex
  race: race
"""
PAIRED = """\
paired:
  cases: pairs.csv
  pair: pair
  variant: variant
  variants: [control, other]
  outcome: advanced
  max_difference: 0.2
"""


def _cases(path: Path, n: int, rng: random.Random) -> None:
    rows = ["id,y,p,sex,race"]
    for i in range(n):
        sex = rng.choice(["Female", "Male"])
        race = rng.choice(["White", "Black or African American"])
        y = int(rng.random() < 0.5)
        rows.append(f"c{i},{y},{int(rng.random() < 0.4)},{sex},{race}")
    path.write_text("\n".join(rows) + "\n")


def _write(folder: Path) -> None:
    rng = random.Random(5)
    _cases(folder / "cases.csv", 400, rng)
    for week in (0, 1):
        _cases(folder / f"week{week}.csv", 150, rng)
    pairs = ["pair,variant,advanced"]
    for i in range(80):
        pairs += [f"{i},control,{int(rng.random() < 0.5)}", f"{i},other,{int(rng.random() < 0.5)}"]
    (folder / "pairs.csv").write_text("\n".join(pairs) + "\n")
    (folder / "spec.yaml").write_text(SPEC)
    (folder / "monitor.yaml").write_text(MONITOR)
    (folder / "all.yaml").write_text(SPEC + LL144 + PAIRED)
    (folder / "ll144.yaml").write_text(SPEC + LL144)


def _predicates(ledger: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for run in sorted((ledger / "runs").glob("*.json")):
        envelope = json.loads(run.read_text())
        predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
        out[predicate.get("kind", "respai.evaluate")] = predicate
    return out


@pytest.mark.slow  # four signing commands, about 4 to 6 s; the synthetic tests above are fast
def test_every_test_record_a_command_writes_has_exactly_one_owner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path)
    for args in (
        ["evaluate", "all.yaml", "--out", "ev"],  # the battery, the rules, LL144, paired
        ["ll144", "ll144.yaml", "--out", "ll"],
        ["plan", "spec.yaml"],
        ["monitor", "monitor.yaml", "week0.csv", "week1.csv", "--out", "mon"],
    ):
        assert main(args) in (0, 1, 3, 4), capsys.readouterr().err
    predicates = _predicates(tmp_path / ".respai")
    assert {"respai.plan", "respai.monitor"} <= set(predicates) and len(predicates) == 4
    seen: dict[str, set[str]] = {}
    for kind, predicate in predicates.items():
        for rec in predicate["records"]:
            if rec["record_type"] != "test":
                continue
            owners = [k.name for k in blocks.record_kinds() if k.owns(rec["test_id"])]
            assert len(owners) == 1, (kind, rec["test_id"], owners)
            seen.setdefault(owners[0], set()).add(kind)
    assert set(seen) == {"evaluation", "fairness", "ll144", "paired", "monitor"}
    assert seen["monitor"] == {"respai.monitor"}
    assert "unknown" not in {o.kind for p in predicates.values() for o in record_outcomes(p)}
