"""``respai report`` verifies first: a record that does not verify gets no page and exit 1."""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path

import pytest

from respai.cli import main


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
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


def test_a_verified_record_gets_its_page(record: Path, tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    assert main(["report", str(record), "-o", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'id="respai-public-key">{' in text


def test_a_tampered_record_gets_no_page_and_exit_1(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["system"] = {"name": "someone else"}
    envelope["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(envelope), encoding="utf-8")
    page = tmp_path / "bad.html"
    assert (
        main(["report", str(bad), "--key", str(record.parent / "public_key.pem"), "-o", str(page)])
        == 1
    )
    assert not page.exists()
    err = capsys.readouterr().err
    assert "NOT verified" in err and "FAIL  signature" in err


def test_a_record_signed_by_another_key_gets_no_page(record: Path, tmp_path: Path) -> None:
    from respai.record import new_key

    other = new_key(tmp_path / "other", passphrase=None)
    page = tmp_path / "x.html"
    assert main(["report", str(record), "--key", str(other.public_key), "-o", str(page)]) == 1
    assert main(["report", str(record), "--keys", str(other.keys_json), "-o", str(page)]) == 1
    assert not page.exists()
