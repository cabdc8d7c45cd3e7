"""``respai keys retire`` and ``respai keys revoke``: keys.json edited, records judged by it."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main
from respai.record import KeyRing, parse_timestamp


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
    assert main(["keys", "new"]) == 0  # stdin is not a terminal: no prompt, no passphrase
    return tmp_path / "keys"


def _entry(folder: Path) -> dict[str, Any]:
    (entry,) = json.loads((folder / "keys.json").read_text(encoding="utf-8"))["keys"]
    return entry  # type: ignore[no-any-return]


def _record(tmp_path: Path) -> Path:
    with (tmp_path / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["label", "prediction", "sex"])
        for i in range(120):
            w.writerow([i % 2, (i // 4) % 2, "f" if i % 4 < 2 else "m"])
    (tmp_path / "spec.yaml").write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.9}\n",
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
    assert code in (0, 1, 3, 4)
    return tmp_path / "o" / "record.json"


def test_retire_sets_not_after_and_refuses_to_move_it(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kid = _entry(folder)["key_id"]
    before = dt.datetime.now(dt.UTC)
    assert main(["keys", "retire", kid]) == 0
    retired = parse_timestamp(_entry(folder)["not_after"])
    assert before - dt.timedelta(seconds=1) <= retired <= dt.datetime.now(dt.UTC)
    assert _entry(folder)["revoked_at"] is None
    assert "Publish the updated keys.json" in capsys.readouterr().err
    ring = KeyRing.load(folder / "keys.json")
    assert ring.find(kid, retired)[1] == "valid"  # inclusive window
    assert ring.find(kid, retired + dt.timedelta(days=1))[1].startswith("expired")
    assert main(["keys", "retire", kid]) == 2  # already retired: not moved
    assert parse_timestamp(_entry(folder)["not_after"]) == retired


def test_retire_at_a_given_time(folder: Path) -> None:
    kid = _entry(folder)["key_id"]
    assert main(["keys", "retire", kid, "--at", "2030-01-31T12:00:00Z"]) == 0
    assert parse_timestamp(_entry(folder)["not_after"]) == dt.datetime(
        2030, 1, 31, 12, tzinfo=dt.UTC
    )


def test_revoke_keeps_the_reason_and_the_key_verifies_nothing(
    folder: Path, tmp_path: Path
) -> None:
    record = _record(tmp_path)
    keys_json = str(folder / "keys.json")
    assert main(["verify", str(record), "--keys", keys_json]) == 0
    kid = _entry(folder)["key_id"]
    assert main(["keys", "revoke", kid, "--reason", "laptop lost\x1b[2J"]) == 0
    entry = _entry(folder)
    assert entry["revocation_reason"] == "laptop lost\x1b[2J"  # kept as given, in JSON
    assert entry["revoked_at"] is not None
    assert main(["verify", str(record), "--keys", keys_json]) == 1
    assert main(["keys", "revoke", kid]) == 2  # already revoked: not moved
    # a revoked key no longer signs
    assert (
        main(
            [
                "evaluate",
                str(tmp_path / "spec.yaml"),
                "--out",
                str(tmp_path / "o"),
                "--no-ledger",
                "-q",
            ]
        )
        == 2
    )


@pytest.mark.parametrize(
    "args",
    [
        ["keys", "retire", "sha256:" + "0" * 64],  # not listed
        ["keys", "revoke", "sha256:" + "0" * 64],
        ["keys", "retire", "not-a-key-id"],
        ["keys", "revoke", "abc"],
        ["keys", "retire", "sha256:" + "0" * 64, "--at", "yesterday"],
    ],
)
def test_bad_key_ids_and_times_exit_2_and_leave_keys_json(
    folder: Path, args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = (folder / "keys.json").read_bytes()
    assert main(args) == 2
    assert (folder / "keys.json").read_bytes() == before
    assert "respai: error:" in capsys.readouterr().err


def test_a_folder_without_keys_json_exits_2(tmp_path: Path) -> None:
    assert main(["keys", "retire", "sha256:" + "0" * 64, "--dir", str(tmp_path / "none")]) == 2
