"""A run that continues a stream copies its earlier looks, and verify --ledger checks each copy.

Each ``respai monitor`` call of a stream holds, in ``run_start.monitor.history``, the
``monitor_rule`` test record of every earlier look, copied from the verified run that
decided it and naming that run and record. ``respai verify --ledger`` compares every copy
with the record it names: a copy edited before signing, a look left out, or a copy naming
a record no earlier run holds is each named, though every run verifies on its own.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main
from respai.monitor.ledger_check import HISTORY_FIELDS

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
    - {id: worst, rate: selection, attribute: sex, worst_group: {max: 0.9}}
"""


def _batch(folder: Path, name: str, seed: int, size: int = 300) -> Path:
    rng = random.Random(seed)
    rows = ["label,prediction,sex"]
    for _ in range(size):
        s = rng.choice("fm")
        rows.append(f"{int(rng.random() < 0.5)},{int(rng.random() < 0.3)},{s}")
    path = folder / name
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC)


def _predicate(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text())
    predicate: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    return predicate


def _three_runs(tmp_path: Path) -> list[dict[str, Any]]:
    for i in range(1, 4):
        batch = _batch(tmp_path, f"b{i}.csv", i)
        assert main(["monitor", "spec.yaml", str(batch), "--out", f"out{i}"]) in (0, 3)
    return [_predicate(tmp_path / f"out{i}" / "record.json") for i in range(1, 4)]


def test_each_run_copies_every_earlier_look_from_the_record_that_decided_it(
    tmp_path: Path,
) -> None:
    runs = _three_runs(tmp_path)
    assert [r["records"][0]["monitor"]["history"] for r in runs[:1]] == [[]]
    history = runs[2]["records"][0]["monitor"]["history"]
    assert [(h["look"], h["rule"]) for h in history] == [
        (1, "sel"),
        (1, "worst"),
        (2, "sel"),
        (2, "worst"),
    ]
    tests = {r["record_id"]: r for run in runs[:2] for r in run["records"] if "test_id" in r}
    for copy in history:
        original = tests[copy["from"]["record_id"]]  # each names its own look's record
        assert copy["from"]["run_id"] == original["run_id"]
        assert original["details"]["look"] == copy["look"]
        for field in HISTORY_FIELDS:
            assert copy[field] == original[field]
    # look 1 is copied from the first run itself, not from the second run's copy of it
    assert {h["from"]["run_id"] for h in history if h["look"] == 1} == {runs[0]["run_id"]}
    assert main(["verify", "--ledger", ".respai"]) == 0


def _sign_edited_history(
    monkeypatch: pytest.MonkeyPatch, edit: Callable[[list[dict[str, Any]]], None]
) -> None:
    """Sign the next run with its history edited (as a faulty or forging signer would)."""
    import respai.monitor.seal

    real = respai.monitor.seal.monitor_predicate

    def edited(res: Any, **kw: Any) -> Any:
        predicate = real(res, **kw)
        edit(predicate["records"][0]["monitor"]["history"])
        return predicate

    monkeypatch.setattr(respai.monitor.seal, "monitor_predicate", edited)


def _raise_rate(history: list[dict[str, Any]]) -> None:
    group = history[0]["details"]["groups"][0]["batch"]
    group["rate"] = group["rate"] + 0.01


def _drop_look(history: list[dict[str, Any]]) -> None:
    del history[-1]


def _name_another_record(history: list[dict[str, Any]]) -> None:
    history[1]["from"]["record_id"] = "sha256:" + "0" * 64


def _say_pass(history: list[dict[str, Any]]) -> None:
    history[0]["verdict"] = "PASS" if history[0]["verdict"] != "PASS" else "FAIL"


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (_raise_rate, "differs from the record it names"),
        (_say_pass, "differs from the record it names"),
        (_drop_look, "not every rule at each of its 2 earlier look(s)"),
        (_name_another_record, "which no earlier run of the ledger that verifies holds"),
    ],
)
def test_verify_ledger_names_a_copy_that_is_not_its_original(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    edit: Callable[[list[dict[str, Any]]], None],
    words: str,
) -> None:
    for i in (1, 2):
        assert main(["monitor", "spec.yaml", str(_batch(tmp_path, f"b{i}.csv", i))]) in (0, 3)
    with monkeypatch.context() as m:
        _sign_edited_history(m, edit)
        assert main(["monitor", "spec.yaml", str(_batch(tmp_path, "b3.csv", 3))]) in (0, 3)
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert all(run["ok"] for run in report["runs"])  # every run verifies on its own
    (problem,) = [p for p in report["problems"] if "history" in p or "copy of look" in p]
    assert words in problem and "monitor:loans:" in problem
    if edit is _raise_rate:
        assert "copy of look 1 of rule sel (history/0)" in problem and "in details" in problem
    if edit is _say_pass:
        assert "in verdict" in problem


def test_the_next_run_copies_the_originals_not_an_edited_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in (1, 2):
        assert main(["monitor", "spec.yaml", str(_batch(tmp_path, f"b{i}.csv", i))]) in (0, 3)
    with monkeypatch.context() as m:
        _sign_edited_history(m, _say_pass)
        assert main(["monitor", "spec.yaml", str(_batch(tmp_path, "b3.csv", 3))]) in (0, 3)
    assert main(["monitor", "spec.yaml", str(_batch(tmp_path, "b4.csv", 4)), "--out", "o"]) in (
        0,
        3,
    )
    first = _predicate(next(iter(sorted((tmp_path / ".respai" / "runs").glob("*.json")))))
    copy = _predicate(tmp_path / "o" / "record.json")["records"][0]["monitor"]["history"][0]
    assert copy["verdict"] == first["records"][1]["verdict"]
