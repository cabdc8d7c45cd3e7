"""``respai export``: verify first, exit 1 and write nothing when the record does not verify."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from respai.cli import main


def _record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small signed record from ``respai evaluate`` (fairness rules and battery)."""
    import csv

    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    with (tmp_path / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "label", "prediction", "sex"])
        for i in range(200):
            w.writerow([f"c{i}", i % 2, (i // 2) % 2, "f" if i % 4 < 2 else "m"])
    (tmp_path / "spec.yaml").write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  unit: id\n  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.5}\n",
        encoding="utf-8",
    )
    code = main(
        [
            "evaluate",
            str(tmp_path / "spec.yaml"),
            "--out",
            str(tmp_path / "out"),
            "--no-ledger",
            "-q",
        ]
    )
    assert code in (0, 1, 3, 4)
    return tmp_path / "out" / "record.json"


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _record(tmp_path, monkeypatch)


def _tampered(record: Path) -> Path:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["verdict"] = (
        "PASS" if statement["predicate"]["verdict"] != "PASS" else "FAIL"
    )
    envelope["payload"] = base64.b64encode(
        json.dumps(statement, separators=(",", ":"), sort_keys=True).encode()
    ).decode()
    bad = record.with_name("tampered.json")
    bad.write_text(json.dumps(envelope), encoding="utf-8")
    return bad


@pytest.mark.parametrize("fmt", ["cyclonedx", "in-toto-test-result", "junit"])
def test_a_record_that_does_not_verify_exits_1_and_writes_nothing(
    record: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _tampered(record)
    out = record.parent / f"export.{fmt}"
    assert main(["export", str(bad), "--format", fmt, "-o", str(out)]) == 1
    assert not out.exists()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "FAIL  signature" in captured.err and "NOT verified" in captured.err


def test_a_record_signed_by_an_untrusted_key_exits_1(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from respai.record import new_key

    other = new_key(tmp_path / "other", passphrase=None)
    out = tmp_path / "bom.json"
    code = main(
        [
            "export",
            str(record),
            "--format",
            "cyclonedx",
            "--keys",
            str(other.keys_json),
            "-o",
            str(out),
        ]
    )
    assert code == 1 and not out.exists()
    assert "unknown key" in capsys.readouterr().err


def test_without_output_the_document_goes_to_stdout_and_nothing_else_does(
    record: Path, tmp_path: Path
) -> None:
    import os

    env = {**os.environ, "RESPAI_HOME": str(tmp_path / "keys")}
    done = subprocess.run(
        [sys.executable, "-m", "respai", "export", str(record), "--format", "cyclonedx"],
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bomFormat"] == "CycloneDX"
    assert done.stderr == b""


def test_a_public_key_verifies_the_record(record: Path, tmp_path: Path) -> None:
    out = tmp_path / "j.xml"
    code = main(
        [
            "export",
            str(record),
            "--format",
            "junit",
            "--public-key",
            str(record.parent / "public_key.pem"),
            "-o",
            str(out),
        ]
    )
    assert code == 0 and out.read_bytes().startswith(b"<?xml")


def test_an_unknown_format_is_a_usage_error(record: Path) -> None:
    assert main(["export", str(record), "--format", "spdx"]) == 2
    assert main(["export", str(record)]) == 2  # --format is required
