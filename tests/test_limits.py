"""One set of limits for every JSON and YAML reader, and for a pack's zip archive."""

from __future__ import annotations

import csv
import json
import os
import zipfile
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.cli import main
from respai.limits import MAX_CSV_NAME_CHARS, MAX_JSON_DEPTH
from respai.record import RecordError, loads_strict

DEEP = "[" * 1000 + "]" * 1000


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    public = Ed25519PrivateKey.generate().public_key()
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (tmp_path / "key.pem").write_bytes(pem)


def test_deep_json_and_a_huge_integer_are_refused_naming_the_limit() -> None:
    with pytest.raises(RecordError, match="MAX_JSON_DEPTH"):
        loads_strict(DEEP, source="x.json")
    with pytest.raises(RecordError, match="MAX_JSON_INTEGER_DIGITS"):
        loads_strict('{"n": ' + "7" * 5000 + "}")
    assert loads_strict("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None


def test_deep_json_in_a_record_does_not_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "record.json").write_text('{"payload": ' + DEEP + "}")
    assert main(["verify", "--key", "key.pem", "record.json"]) == 1
    assert "MAX_JSON_DEPTH" in capsys.readouterr().err


def test_a_5000_digit_integer_in_a_record_does_not_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "record.json").write_text('{"payload": ' + "9" * 5000 + "}")
    assert main(["verify", "--key", "key.pem", "record.json"]) == 1
    assert "MAX_JSON_INTEGER_DIGITS" in capsys.readouterr().err


def test_deep_json_in_keys_json_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "record.json").write_text("{}")
    (tmp_path / "keys.json").write_text('{"keys": ' + DEEP + "}")
    assert main(["verify", "--keys", "keys.json", "record.json"]) == 2
    err = capsys.readouterr().err
    assert "keys.json" in err and "MAX_JSON_DEPTH" in err


def test_deep_json_in_a_pack_manifest_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "MANIFEST.json").write_text('{"files": ' + DEEP + "}")
    assert main(["reproduce", "pack"]) == 2
    err = capsys.readouterr().err
    assert "MANIFEST.json" in err and "MAX_JSON_DEPTH" in err


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("fairness: " + "[" * 1000 + "]" * 1000 + "\n", "MAX_YAML_DEPTH"),
        ("fairness:\n  min_cell: " + "3" * 5000 + "\n", "MAX_YAML_INTEGER_DIGITS"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
                for p, c in zip("abcdefgh", "bcdefghi", strict=True)
            ),
            "MAX_YAML_NODES",
        ),
        ("a: &a [*a]\n", "refers to the value it is inside"),
    ],
)
def test_hostile_yaml_in_a_spec_is_bad_input(
    text: str, limit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "spec.yaml").write_text(text)
    assert main(["fairness", "spec.yaml"]) == 2
    err = capsys.readouterr().err
    assert "spec.yaml" in err and limit in err


def test_a_zip_bomb_is_refused_before_unpacking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with zipfile.ZipFile(tmp_path / "pack.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pack/MANIFEST.json", "{}")
        with zf.open("pack/inputs/zeros.csv", "w") as fh:
            for _ in range(64):
                fh.write(bytes(1 << 20))
    assert (tmp_path / "pack.zip").stat().st_size < 1 << 20
    assert main(["reproduce", "pack.zip"]) == 2
    err = capsys.readouterr().err
    assert "MAX_PACK_RATIO" in err and "nothing was unpacked" in err


def test_a_symlinked_input_in_a_pack_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "pack"
    (pack / "inputs").mkdir(parents=True)
    (tmp_path / "elsewhere.csv").write_text("a\n1\n")
    (pack / "inputs" / "spec.yaml").write_text("fairness: {}\n")
    os.symlink(tmp_path / "elsewhere.csv", pack / "inputs" / "decisions.csv")
    manifest = {
        "kind": "respai.ll144.pack",
        "files": [{"path": "inputs/decisions.csv", "sha256": "0" * 64}],
        "inputs": {"spec": "inputs/spec.yaml", "decisions": "inputs/decisions.csv"},
    }
    (pack / "MANIFEST.json").write_text(json.dumps(manifest))
    assert main(["reproduce", "pack"]) == 2
    err = capsys.readouterr().err
    assert "decisions.csv" in err and "symbolic link" in err


def test_a_checkpoint_size_of_5000_digits_does_not_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Path(__file__).resolve().parent.parent / "src" / "respai" / "samples"
    os.chdir(tmp_path)
    assert main(["evaluate", str(spec / "loan_screen.yaml"), "--out", "o"]) == 1
    (checkpoint,) = (tmp_path / ".respai" / "checkpoints").glob("*.txt")
    lines = checkpoint.read_text(encoding="utf-8").split("\n")
    lines[1] = "9" * 5000
    checkpoint.write_text("\n".join(lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai"]) == 1
    err = capsys.readouterr().err
    assert "at most 19 digits" in err and "9" * 100 not in err


@pytest.mark.parametrize("depth", [5000])
def test_deep_json_in_a_jsonl_cases_file_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    nested = "[" * depth + "]" * depth
    (tmp_path / "cases.jsonl").write_text(
        '{"label": 1, "prediction": 1, "sex": "f"}\n'
        + f'{{"label": {nested}, "prediction": 1, "sex": "m"}}\n',
        encoding="utf-8",
    )
    (tmp_path / "spec.yaml").write_text(
        "fairness:\n  cases: cases.jsonl\n  label: label\n  prediction: prediction\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: r, rate: error, attribute: sex, worst_group: {max: 0.5}}\n",
        encoding="utf-8",
    )
    assert main(["fairness", str(tmp_path / "spec.yaml")]) == 2
    assert "cases.jsonl" in capsys.readouterr().err


def test_a_csv_header_field_past_the_field_limit_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python's csv module reads no field longer than its limit, which is ours
    assert csv.field_size_limit() == MAX_CSV_NAME_CHARS
    long_name = "x" * (MAX_CSV_NAME_CHARS + 1)
    rows = "".join(f"{i % 2},{i % 3 % 2},{'fm'[i % 2]},1\n" for i in range(20))
    (tmp_path / "cases.csv").write_text(
        f'label,prediction,sex,"{long_name}"\n' + rows, encoding="utf-8"
    )
    (tmp_path / "spec.yaml").write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: r, rate: error, attribute: sex, worst_group: {max: 0.5}}\n",
        encoding="utf-8",
    )
    assert main(["fairness", str(tmp_path / "spec.yaml")]) == 2
    err = capsys.readouterr().err
    assert "cases.csv" in err and "MAX_CSV_NAME_CHARS" in err and "131,072" in err
