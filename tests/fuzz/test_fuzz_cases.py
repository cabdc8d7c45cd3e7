"""Fuzzing the cases file: mutated CSV and JSONL bytes never crash, hang or write.

The base is a valid cases file (CSV, and the same cases as JSONL) under a valid spec.
Each example flips, deletes or inserts bytes, the inserted ones drawn from the tokens
that break readers (quotes, delimiters, line ends, NUL and non-UTF-8 bytes, byte-order
marks, non-finite and 5,000-digit numbers, deep JSON nesting, long fields, control and
bidi characters), and runs ``respai fairness spec.yaml --json``: exit 0, 1, 3 or 4 when
the file still reads as valid cases, 2 when it does not, never anything else.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.fuzz

COLUMNS = ["person_id", "label", "prediction", "score", "sex", "age_band"]
SPEC = """\
fairness:
  cases: {cases}
  label: label
  prediction: prediction
  probability: score
  unit: person_id
  attributes:
    sex: [female, male]
    age_band: [under_30, 30_to_60, over_60]
  min_cell: 5
  rules:
    - {{id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.05}}
    - {{id: error-by-age, rate: error, attribute: age_band, worst_group: {{max: 0.35}}}}
"""
RECORDS = [
    {
        "person_id": i + 1,
        "label": i % 2,
        "prediction": (i // 2) % 2,
        "score": round((i * 37 % 100) / 100, 2),
        "sex": ("female", "male")[i % 2],
        "age_band": ("under_30", "30_to_60", "over_60")[i % 3],
    }
    for i in range(40)
]
CSV = (
    ",".join(COLUMNS)
    + "\n"
    + "".join(",".join(str(r[c]) for c in COLUMNS) + "\n" for r in RECORDS)
).encode()
JSONL = "".join(json.dumps(r) + "\n" for r in RECORDS).encode()

CSV_TOKENS: tuple[bytes, ...] = (
    b",",
    b",,",
    b";",
    b"|",
    b'"',
    b'""',
    b'"a,b"',
    b'"\n"',
    b"\n\n",
    b"person_id,label",
    b"label",
    b"2",
    b"-1",
    b"inf",
    b"-inf",
    b"nan",
    b"0.5O",
    b"true",
    b"\xef\xbb\xbf",
    b"\xc3",
    b"=cmd|' /C calc'!A0",
    b"<script>alert(1)</script>",
)
JSON_TOKENS: tuple[bytes, ...] = (
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"',
    b'\\"',
    b"\\u0000",
    b"\\ud800",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b'"label": 2, ',
    b'"label": "1", ',
    b'"score": 1e999, ',
    b'"score": "NaN", ',
    b'"sex": ["female"], ',
    b'"sex": {"a": 1}, ',
    b'"person_id": 1, ',
    b'"person_id": ' + b"9" * 4400 + b", ",
    b'"label": ' + b"[" * 300 + b"]" * 300 + b", ",
    b'"x": "\\u001b[2J\\u202e", ',
    b"Infinity",
)


def _folder(root: Path, name: str, data: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(dir=root))
    (folder / "spec.yaml").write_text(SPEC.format(cases=name), encoding="utf-8")
    (folder / name).write_bytes(data)
    return folder


@pytest.mark.parametrize(("name", "data"), [("cases.csv", CSV), ("cases.jsonl", JSONL)])
def test_the_base_cases_are_valid(name: str, data: bytes, cli: Any, tmp_path: Path) -> None:
    """The mutations start from files that load (so a refusal is the mutation's doing)."""
    run = cli.run(["fairness", "spec.yaml", "--json"], _folder(tmp_path, name, data))
    assert run.code in (0, 1, 3, 4), run.err
    assert json.loads(run.out)["cases"] == len(RECORDS)


def _one(cli: Any, root: Path, name: str, data: bytes) -> None:
    folder = _folder(root, name, data)
    try:
        before = cli.snapshot(folder)
        run = cli.run(["fairness", "spec.yaml", "--json"], folder)
        cli.check(run, (0, 1, 2, 3, 4), folder, before)
    finally:
        shutil.rmtree(folder)


@settings(settings.get_profile("respai-fuzz"), max_examples=40)
@given(data=st.data())
def test_mutated_csv(
    data: st.DataObject, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    _one(cli, tmp_path, "cases.csv", data.draw(mutate(CSV, CSV_TOKENS), label="cases.csv"))


@settings(settings.get_profile("respai-fuzz"), max_examples=40)
@given(data=st.data())
def test_mutated_jsonl(
    data: st.DataObject, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    _one(cli, tmp_path, "cases.jsonl", data.draw(mutate(JSONL, JSON_TOKENS), label="jsonl"))
