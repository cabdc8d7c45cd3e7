"""A monitoring stream counts each batch once, and is named by its criteria, not its bytes."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def _batch(folder: Path, name: str, seed: int, size: int = 400, gap: float = 0.0) -> Path:
    rng = random.Random(seed)
    rows = ["label,prediction,sex"]
    for _ in range(size):
        s = rng.choice("fm")
        rate = 0.3 if s == "f" else 0.3 + gap
        rows.append(f"{int(rng.random() < 0.5)},{int(rng.random() < rate)},{s}")
    path = folder / name
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.json")}


def _everything(tmp_path: Path) -> tuple[set[str], dict[str, bytes]]:
    """Every path under the working folder and the key folder, and the ledger's files."""
    keys = Path(os.environ["RESPAI_HOME"])
    paths = {p.as_posix() for p in [*tmp_path.rglob("*"), *keys.parent.rglob("*")]}
    return paths, _tree(tmp_path / ".respai") if (tmp_path / ".respai").exists() else {}


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["monitor", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _start(record: Path) -> dict[str, Any]:
    import base64

    envelope = json.loads(record.read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    start: dict[str, Any] = statement["predicate"]["records"][0]
    return start


def test_one_batch_given_13_times_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fair = _batch(tmp_path, "fair.csv", 1)
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", *[str(fair)] * 13]) == 2
    err = capsys.readouterr().err
    assert "fair.csv" in err and "look 1" in err and "given twice in this call" in err
    assert "Traceback" not in err
    assert _everything(tmp_path) == before  # no ledger, no record, no key


def test_the_13_times_attack_on_a_stream_in_the_ledger_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fair = _batch(tmp_path, "fair.csv", 1)
    assert main(["monitor", "spec.yaml", str(fair)]) == 3
    capsys.readouterr()
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", *[str(fair)] * 12]) == 2
    err = capsys.readouterr().err
    assert "already look 1 of the monitoring stream monitor:loans:" in err
    assert _everything(tmp_path) == before


def test_a_batch_repeated_within_one_call_names_both_looks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _batch(tmp_path, "a.csv", 1), _batch(tmp_path, "b.csv", 2)
    same = tmp_path / "a-again.csv"
    same.write_bytes(a.read_bytes())  # another name, the same outcomes
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", str(a), str(b), str(same)]) == 2
    err = capsys.readouterr().err
    assert "a-again.csv" in err and "look 1 (a.csv) and look 3" in err
    assert _everything(tmp_path) == before


def test_a_batch_repeated_in_a_later_call_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = (_batch(tmp_path, f"{n}.csv", i) for i, n in enumerate("abc"))
    assert main(["monitor", "spec.yaml", str(a), str(b)]) in (0, 3)
    capsys.readouterr()
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", str(c), str(b), "--out", "out"]) == 2
    err = capsys.readouterr().err
    assert "b.csv" in err and "already look 2" in err
    assert _everything(tmp_path) == before
    code, out = _json(capsys, "spec.yaml", str(c))  # the stream goes on with new outcomes
    assert code in (0, 3) and [look["look"] for look in out["looks"]] == [1, 2, 3]


def test_a_comment_or_a_reordered_spec_continues_the_same_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = (_batch(tmp_path, f"{n}.csv", i) for i, n in enumerate("abc"))
    _, first = _json(capsys, "spec.yaml", str(a))
    (tmp_path / "spec.yaml").write_text(SPEC + "# reviewed on Monday\n")
    _, second = _json(capsys, "spec.yaml", str(b))
    assert second["stream"] == first["stream"]
    assert [look["look"] for look in second["looks"]] == [1, 2]
    reordered = SPEC.replace(
        "  label: label\n  prediction: prediction\n", "  prediction: prediction\n  label: label\n"
    )
    (tmp_path / "spec.yaml").write_text(reordered.replace("0.2}", "0.20}"))
    _, third = _json(capsys, "spec.yaml", str(c))
    assert third["stream"] == first["stream"] and third["criteria_id"] == first["criteria_id"]
    assert [look["look"] for look in third["looks"]] == [1, 2, 3]


def test_reordered_group_values_continue_the_same_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _batch(tmp_path, "a.csv", 1), _batch(tmp_path, "b.csv", 2)
    _, first = _json(capsys, "spec.yaml", str(a))
    (tmp_path / "spec.yaml").write_text(SPEC.replace("sex: [f, m]", "sex: [m, f]"))
    code, second = _json(capsys, "spec.yaml", str(b))
    assert code in (0, 3)
    assert second["stream"] == first["stream"] and second["criteria_id"] == first["criteria_id"]
    assert [look["look"] for look in second["looks"]] == [1, 2]
    assert second["new_looks"] == [2]
    # the first batch is look 1 of this stream: given again, it is refused, not recounted
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", str(a)]) == 2
    assert "already look 1 of the monitoring stream" in capsys.readouterr().err
    assert _everything(tmp_path) == before


def test_a_changed_criterion_starts_a_different_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _batch(tmp_path, "a.csv", 1), _batch(tmp_path, "b.csv", 2)
    _, first = _json(capsys, "spec.yaml", str(a))
    (tmp_path / "spec.yaml").write_text(SPEC.replace("min_cell: 10", "min_cell: 20"))
    _, other = _json(capsys, "spec.yaml", str(b))
    assert other["stream"] != first["stream"] and other["criteria_id"] != first["criteria_id"]
    assert [look["look"] for look in other["looks"]] == [1]
    assert other["new_stream"] is None
    (tmp_path / "spec.yaml").write_text(SPEC)  # back to the first criteria: its stream
    _, back = _json(capsys, "spec.yaml", str(b))
    assert back["stream"] == first["stream"] and [x["look"] for x in back["looks"]] == [1, 2]


def test_new_stream_with_a_reason_starts_a_new_stream_and_the_record_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = (_batch(tmp_path, f"{n}.csv", i, 2000, 0.45) for i, n in enumerate("abc"))
    code, first = _json(capsys, "spec.yaml", str(a))
    assert code == 1  # a FAIL stream
    capsys.readouterr()
    reason = "model v2 deployed on 1 March; v1's stream is closed"
    code = main(["monitor", "spec.yaml", str(b), "--new-stream", reason, "--out", "out"])
    text = capsys.readouterr().err
    assert f"leaving the stream {first['stream']}: {reason}" in text
    monitor = _start(tmp_path / "out" / "record.json")["monitor"]
    assert monitor["stream"] == first["stream"] + "#2"
    assert monitor["new_stream"] == {"reason": reason, "replaces": first["stream"]}
    assert monitor["earlier_looks"] == 0 and monitor["criteria_id"] == first["criteria_id"]
    assert main(["verify", "out/record.json"]) == 0
    _, later = _json(capsys, "spec.yaml", str(c))  # without the flag: the newest stream
    assert later["stream"] == first["stream"] + "#2"
    assert [look["look"] for look in later["looks"]] == [1, 2] and later["new_stream"] is None
    assert main(["verify", "--ledger", ".respai"]) == 0


@pytest.mark.parametrize(
    "args",
    [
        ["a.csv", "--new-stream"],
        ["a.csv", "--new-stream", ""],
        ["a.csv", "--new-stream", "   "],
        ["--new-stream", "a.csv", "b.csv"],  # the batch taken as the reason
        ["a.csv", "--new-stream", "why", "--no-ledger"],
    ],
)
def test_new_stream_without_a_reason_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    _batch(tmp_path, "a.csv", 1), _batch(tmp_path, "b.csv", 2)
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", *args]) == 2
    err = capsys.readouterr().err
    assert "--new-stream" in err and "Traceback" not in err
    assert _everything(tmp_path) == before


def _without_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign what an older respai signed: the same batch at two looks (a forged stream)."""
    import respai.monitor.run

    monkeypatch.setattr(respai.monitor.run, "_refuse_repeat", lambda *a, **k: None)


def test_verify_ledger_names_a_stream_holding_a_batch_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _batch(tmp_path, "a.csv", 1), _batch(tmp_path, "b.csv", 2)
    assert main(["monitor", "spec.yaml", str(a), str(b)]) in (0, 3)
    assert main(["verify", "--ledger", ".respai"]) == 0
    with monkeypatch.context() as m:
        _without_the_check(m)
        assert main(["monitor", "spec.yaml", str(b)]) in (0, 3)  # signed with the test key
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (problem,) = [p for p in report["problems"] if "twice" in p]
    assert "monitoring stream monitor:loans:" in problem and "b.csv" in problem
    assert "at look 2 (runs/000000000000-" in problem and "at look 3" in problem
    assert all(run["ok"] for run in report["runs"])  # every run verifies on its own


def test_verify_ledger_names_a_batch_twice_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a = _batch(tmp_path, "a.csv", 1)
    _without_the_check(monkeypatch)
    assert main(["monitor", "spec.yaml", str(a), str(a)]) in (0, 3)
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai"]) == 1
    err = capsys.readouterr().err
    assert "holds the batch a.csv" in err and "at look 1 (the same run) and at look 2" in err
    assert "does NOT verify" in err


def _old_format(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Write monitoring runs as respai did before streams were named by criteria."""
    import respai.monitor.seal

    real = respai.monitor.seal.monitor_predicate

    def old(res: Any, **kw: Any) -> Any:
        predicate = real(res, **kw)
        start = predicate["records"][0]
        monitor = start["monitor"]
        for field in ("criteria_id", "criteria", "new_stream"):
            del monitor[field]
        monitor["stream"] = f"monitor:loans:{start['spec']['sha256'][:16]}"
        for rec in predicate["records"][1:-1]:
            rec["details"]["stream"] = monitor["stream"]
        return predicate

    monkeypatch.setattr(respai.monitor.seal, "monitor_predicate", old)
    return lambda: monkeypatch.setattr(respai.monitor.seal, "monitor_predicate", real)


def test_an_old_format_stream_is_not_left_without_a_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = _batch(tmp_path, "a.csv", 1), _batch(tmp_path, "b.csv", 2)
    restore = _old_format(monkeypatch)
    assert main(["monitor", "spec.yaml", str(a)]) in (0, 3)
    restore()
    assert main(["verify", "--ledger", ".respai"]) == 0  # old runs still verify
    (tmp_path / "spec.yaml").write_text(SPEC + "# a comment\n")
    capsys.readouterr()
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", str(b)]) == 2
    err = capsys.readouterr().err
    assert "written before streams were named by their criteria" in err
    assert "--new-stream" in err and "monitor:loans:" in err
    assert _everything(tmp_path) == before
    code, out = _json(capsys, "spec.yaml", str(b), "--new-stream", "respai upgraded")
    assert code in (0, 3) and [look["look"] for look in out["looks"]] == [1]
    assert out["new_stream"]["replaces"].startswith("monitor:loans:")
    _, later = _json(capsys, "spec.yaml", str(a))  # the new stream continues from now on
    assert later["stream"] == out["stream"] and len(later["looks"]) == 2
    assert main(["verify", "--ledger", ".respai"]) == 0


def test_the_same_threshold_from_a_policy_continues_and_another_one_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = (_batch(tmp_path, f"{n}.csv", i) for i, n in enumerate("abc"))
    _, first = _json(capsys, "spec.yaml", str(a))
    (tmp_path / "same.yaml").write_text("rules:\n  sel: {max_group_gap: 0.2}\n")
    _, same = _json(capsys, "spec.yaml", str(b), "--policy", "same.yaml")
    assert same["stream"] == first["stream"] and len(same["looks"]) == 2
    (tmp_path / "tight.yaml").write_text("rules:\n  sel: {max_group_gap: 0.1}\n")
    _, tight = _json(capsys, "spec.yaml", str(c), "--policy", "tight.yaml")
    assert tight["stream"] != first["stream"] and len(tight["looks"]) == 1


def _edited_criteria(monkeypatch: pytest.MonkeyPatch, rehash: bool) -> None:
    """Sign runs whose criteria say alpha 0.5, with or without a matching criteria id."""
    import hashlib

    import respai.monitor.seal
    from respai.record.canonical import canonical_bytes

    real = respai.monitor.seal.monitor_predicate

    def edited(res: Any, **kw: Any) -> Any:
        predicate = real(res, **kw)
        monitor = predicate["records"][0]["monitor"]
        monitor["criteria"]["fairness"]["alpha"] = 0.5
        if rehash:
            digest = hashlib.sha256(canonical_bytes(monitor["criteria"])).hexdigest()
            monitor["criteria_id"] = f"sha256:{digest}"
        return predicate

    monkeypatch.setattr(respai.monitor.seal, "monitor_predicate", edited)


def test_verify_ledger_names_a_criteria_id_that_is_not_its_criteria(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a = _batch(tmp_path, "a.csv", 1)
    with monkeypatch.context() as m:
        _edited_criteria(m, rehash=False)
        assert main(["monitor", "spec.yaml", str(a)]) in (0, 3)
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai"]) == 1
    assert "the criteria document the run holds has another SHA-256" in capsys.readouterr().err


def test_a_stream_continued_with_other_criteria_is_named_and_not_continued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = (_batch(tmp_path, f"{n}.csv", i) for i, n in enumerate("abc"))
    assert main(["monitor", "spec.yaml", str(a)]) in (0, 3)
    with monkeypatch.context() as m:
        _edited_criteria(m, rehash=True)
        assert main(["monitor", "spec.yaml", str(b)]) in (0, 3)
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai"]) == 1
    err = capsys.readouterr().err
    assert "is continued with the criteria sha256:" in err and "but began with" in err
    before = _everything(tmp_path)
    assert main(["monitor", "spec.yaml", str(c)]) == 2
    assert "declares the criteria" in capsys.readouterr().err
    assert _everything(tmp_path) == before
