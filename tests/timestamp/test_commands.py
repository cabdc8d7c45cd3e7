"""Every signing command takes --timestamp through the one sealed-run path.

``evaluate`` and ``plan`` are covered in ``test_timestamp.py``; here ``ll144 --out``,
``pack`` and :func:`respai.evaluate`, each stamped by the local authority, each verified
with its root certificate; and the pack still reproduces with the tokens in it.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import zipfile
from pathlib import Path

import pytest
from tests.plan.helpers import write_cases, write_spec
from tests.timestamp.authority import LocalAuthority
from tests.timestamp.conftest import ca

import respai
from respai.cli import main
from respai.errors import InputError
from respai.pack import reproduce_pack
from respai.record.timestamp import SIDECAR

LL144_SPEC = """\
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


def _ll144_files(folder: Path) -> Path:
    rng = random.Random(9)
    with (folder / "decisions.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["applicant_id", "sex", "race", "advanced"])
        for i in range(300):
            sex = rng.choice(["Male", "Female"])
            race = rng.choice(["White", "Asian", "Black or African American"])
            w.writerow([f"A{i:04d}", sex, race, int(rng.random() < 0.4)])
    spec = folder / "spec.yaml"
    spec.write_text(LL144_SPEC)
    return spec


def _verified(record: Path, authority: LocalAuthority) -> str:
    code = main(
        ["verify", str(record), "--keys", "keys/keys.json", "--tsa-cert", str(ca(authority))]
    )
    return "ok" if code == 0 else "failed"


def test_ll144_out_is_stamped_and_can_be_rerun_into_its_folder(
    authority: LocalAuthority, tmp_path: Path, capsys
) -> None:
    spec = _ll144_files(tmp_path)
    out = tmp_path / "audit"
    for _ in range(2):  # the second run replaces the first's folder, tokens and all
        assert main(["ll144", str(spec), "--out", str(out), "--timestamp", authority.url]) == 0
    capsys.readouterr()
    assert (out / SIDECAR).is_file()
    assert _verified(out / "record.json", authority) == "ok"
    assert "existed no later than" in capsys.readouterr().err


def test_a_pack_holds_its_tokens_and_still_reproduces(
    authority: LocalAuthority, tmp_path: Path, capsys
) -> None:
    spec = _ll144_files(tmp_path)
    out = tmp_path / "pack"
    assert main(["pack", str(spec), "--out", str(out), "--timestamp", authority.url]) == 0
    capsys.readouterr()
    assert _verified(out / "record.json", authority) == "ok"
    with zipfile.ZipFile(tmp_path / "pack.zip") as zf:
        assert zf.read(f"pack/{SIDECAR}") == (out / SIDECAR).read_bytes()
    again = reproduce_pack(out)
    assert again.identical, again.differences
    assert not any(SIDECAR in n for n in again.notes)


def test_the_api_stamps_a_sealed_run(authority: LocalAuthority, tmp_path: Path) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    result = respai.evaluate(spec, out=tmp_path / "out", timestamps=[authority.url])
    assert result.sealed is not None
    doc = json.loads((tmp_path / "out" / SIDECAR).read_text())
    from respai.record.timestamp import record_message

    assert doc["sha256"] == hashlib.sha256(record_message(result.sealed.envelope)).hexdigest()
    with pytest.raises(InputError, match="no output folder"):
        respai.evaluate(spec, timestamps=[authority.url])


MONITOR_SPEC = """\
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


def test_a_monitor_look_is_stamped(authority: LocalAuthority, tmp_path: Path, capsys) -> None:
    rng = random.Random(3)
    rows = ["label,prediction,sex"] + [
        f"{int(rng.random() < 0.5)},{int(rng.random() < 0.3)},{rng.choice('fm')}"
        for _ in range(300)
    ]
    batch = tmp_path / "batch.csv"
    batch.write_text("\n".join(rows) + "\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(MONITOR_SPEC)
    out = tmp_path / "look"
    code = main(
        ["monitor", str(spec), str(batch), "--out", str(out), "--timestamp", authority.url]
    )
    assert code in (0, 1, 3)
    capsys.readouterr()
    assert _verified(out / "record.json", authority) == "ok"
    code = main(
        [
            "verify",
            "--ledger",
            ".respai",
            "--keys",
            "keys/keys.json",
            "--tsa-cert",
            str(ca(authority)),
        ]
    )
    assert code == 0
