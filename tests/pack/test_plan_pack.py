"""respai pack --plan: the LL144 audit held to a plan, and the plan record in the pack."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from tests.plan.helpers import predicate, runs

from respai.cli import main
from respai.ledger import verify_ledger
from respai.pack import reproduce_pack
from respai.record import KeyRing

SPEC = """\
system: {name: screener, version: "1.0", first_distributed: "2025-03-01"}
data:
  cases: decisions.csv
  source: historical
  explanation: Decisions of 2025, self-reported categories.
ll144:
  audit_date: "2026-11-30"
  kind: selection
  selected: advanced
  sex: sex
  race: race
  margin: 0.05
"""


def _decisions(folder: Path) -> None:
    rng = random.Random(9)
    with (folder / "decisions.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["applicant_id", "sex", "race", "advanced"])
        for i in range(300):
            sex = rng.choice(["Male", "Female"])
            race = rng.choice(["White", "Asian", "Black or African American"])
            w.writerow([f"A{i:04d}", sex, race, int(rng.random() < 0.4)])


def test_pack_with_the_plan_holds_it_and_names_it(tmp_path: Path, capsys) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    assert main(["plan", str(spec), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    _decisions(tmp_path)
    out = tmp_path / "pack"
    assert main(["pack", str(spec), "--out", str(out), "--plan", plan["plan_id"]]) == 0
    capsys.readouterr()
    pred = predicate(out / "record.json")
    assert pred["records"][0]["plan"]["plan_id"] == plan["plan_id"]
    plan_run = runs(Path(".respai"))[0]
    assert (out / "plan.json").read_bytes() == plan_run.read_bytes()
    assert "plan.json" in {f["path"] for f in pred["pack"]["files"]}
    again = reproduce_pack(out)
    assert again.identical, again.differences
    assert verify_ledger(Path(".respai"), KeyRing.load(Path("keys") / "keys.json")).ok


def test_pack_refuses_a_changed_margin_and_writes_nothing(tmp_path: Path, capsys) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    assert main(["plan", str(spec), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    _decisions(tmp_path)
    spec.write_text(SPEC.replace("margin: 0.05", "margin: 0.1"))
    out = tmp_path / "pack"
    assert main(["pack", str(spec), "--out", str(out), "--plan", plan["plan_id"]]) == 2
    assert "ll144.margin: planned 0.05, now 0.1" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "pack.zip").exists()
    assert len(runs(Path(".respai"))) == 1
