"""A cases path is one file, read literally; the record fingerprints the file counted.

DuckDB and Spark read a path as a pattern: ``cases[12].csv`` would be ``cases1.csv`` and
``cases2.csv``. Beside every literal file here sit files its name matches as a pattern,
with other rows, so a count of the wrong file shows.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from respai import engine
from respai.cli import main
from respai.errors import InputError

#: Literal names and, for each, files its name matches as a glob pattern.
PATTERNS = {
    "cases[12].csv": ["cases1.csv", "cases2.csv"],
    "cases?.csv": ["cases1.csv", "casesX.csv"],
    "cases*.csv": ["cases1.csv", "cases-old.csv"],
}


def _rows(n: int) -> list[dict[str, Any]]:
    return [
        {"id": i, "label": i % 2, "prediction": (i // 2) % 2, "sex": "f" if i % 3 else "m"}
        for i in range(n)
    ]


def _csv(path: Path, n: int) -> None:
    lines = ["id,label,prediction,sex"]
    lines += [f"{r['id']},{r['label']},{r['prediction']},{r['sex']}" for r in _rows(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _jsonl(path: Path, n: int) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(n)), encoding="utf-8")


def _parquet(path: Path, n: int) -> None:
    rows = _rows(n)
    pq.write_table(pa.table({k: [r[k] for r in rows] for k in rows[0]}), path)


WRITERS: dict[str, Callable[[Path, int], None]] = {
    ".csv": _csv,
    ".jsonl": _jsonl,
    ".parquet": _parquet,
}


def _folder(tmp_path: Path, literal: str, decoys: list[str], suffix: str = ".csv") -> Path:
    """The literal file with 60 rows; each decoy with 7 or 11 rows, in the same format."""
    literal = literal.removesuffix(".csv") + suffix
    write = WRITERS[suffix]
    write(tmp_path / literal, 60)
    for i, name in enumerate(decoys):
        write(tmp_path / (name.removesuffix(".csv") + suffix), 7 + 4 * i)
    (tmp_path / "spec.yaml").write_text(
        'system: {name: t, version: "1"}\n'
        "fairness:\n"
        f"  cases: {json.dumps(literal)}\n"
        "  label: label\n  prediction: prediction\n  unit: id\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n"
        "    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.5}\n",
        encoding="utf-8",
    )
    return tmp_path / literal


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*args: str) -> tuple[int, dict[str, Any]]:
    buf = StringIO()
    with redirect_stdout(buf):
        code = main([*args, "--json"])
    return code, json.loads(buf.getvalue()) if buf.getvalue().strip() else {}


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
@pytest.mark.parametrize("literal", list(PATTERNS))
def test_open_file_counts_only_the_literal_file(tmp_path: Path, literal: str, suffix: str) -> None:
    path = _folder(tmp_path, literal, PATTERNS[literal], suffix)
    source = engine.open_file(path, text_columns=["sex"])
    cube = engine.count_cube(source, ["sex", "label", "prediction"], None, 1)
    assert sum(c.n for c in cube) == 60
    fingerprint = source.fingerprint()
    assert fingerprint is not None
    assert fingerprint["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert fingerprint["name"] == path.name
    assert fingerprint["size_bytes"] == path.stat().st_size


@pytest.mark.parametrize("literal", list(PATTERNS))
def test_fairness_counts_only_the_literal_file(
    home: Path, literal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _folder(home, literal, PATTERNS[literal])
    code, out = _run("fairness", str(home / "spec.yaml"))
    assert code in (0, 1, 3), capsys.readouterr().err
    assert sum(g["cases"] for g in out["rules"][0]["groups"]) == 60


@pytest.mark.parametrize("literal", list(PATTERNS))
def test_evaluate_counts_and_fingerprints_the_literal_file(
    home: Path, literal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _folder(home, literal, PATTERNS[literal])
    code, out = _run("evaluate", str(home / "spec.yaml"), "--no-ledger", "--out", "out")
    assert code in (0, 1, 3), capsys.readouterr().err
    dataset = out["fingerprints"]["dataset"]
    assert dataset["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert dataset["name"] == literal
    envelope = json.loads((home / "out" / "record.json").read_text(encoding="utf-8"))
    import base64

    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    assert predicate["counts"]["cases"] == 60
    assert predicate["fingerprints"]["dataset"] == dataset


def test_read_errors_name_the_path_not_the_descriptor(tmp_path: Path) -> None:
    path = tmp_path / "bad[1].csv"
    path.write_bytes(b"a,b\n1,x\n2,y\n3,\xff\n")
    (tmp_path / "bad1.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        source = engine.open_file(path)
        engine.count_cube(source, ["a", "b"], None, 1)
    text = caught.value.diagnostics()
    assert str(path) in text and "UTF-8 at line 4" in text
    assert "/proc/" not in text and "/dev/fd" not in text


def test_a_file_appended_to_during_the_count_is_refused(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _folder(home, "cases.csv", [])
    real = engine.count_cube

    def count_then_append(*args: Any, **kwargs: Any) -> Any:
        cube = real(*args, **kwargs)
        with path.open("a", encoding="utf-8") as fh:  # an export still writing
            fh.write("999,1,1,f\n")
        return cube

    monkeypatch.setattr(engine, "count_cube", count_then_append)
    code = main(["evaluate", str(home / "spec.yaml"), "--out", "out"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{path} changed while respai read it" in " ".join(err.split())
    assert not (home / "out").exists()
    assert not (home / ".respai").exists()  # no ledger either


def test_a_file_replaced_during_the_run_is_refused(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # an atomic writer renames a new file over the old one: the same size, another inode
    path = _folder(home, "cases.csv", [])
    real = engine.count_cube

    def count_then_replace(*args: Any, **kwargs: Any) -> Any:
        cube = real(*args, **kwargs)
        other = home / "next.csv"
        other.write_bytes(path.read_bytes().replace(b",f\n", b",m\n", 1))
        os.replace(other, path)
        return cube

    monkeypatch.setattr(engine, "count_cube", count_then_replace)
    code = main(["fairness", str(home / "spec.yaml")])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2, err
    assert f"{path} changed while respai read it" in err and "another file" in err


def test_a_pipe_is_not_a_cases_file(tmp_path: Path) -> None:
    fifo = tmp_path / "cases.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        engine.open_file(fifo)


def test_the_descriptor_stays_open_while_the_view_can_run(tmp_path: Path) -> None:
    # the DuckDB view reads the descriptor lazily: dropping the source's other
    # references must not let another file take over its number
    import gc

    path = _folder(tmp_path, "cases.csv", [])
    frame = engine.open_file(path)._frame
    gc.collect()
    _csv(tmp_path / "other.csv", 3)
    with (tmp_path / "other.csv").open("rb"):
        rows = frame.select("id").to_native().fetchall()
    assert len(rows) == 60


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local Spark session (skipped without pyspark; ``tests/engine/test_spark.py`` makes CI
    run it)."""
    pytest.importorskip("pyspark")
    yield engine.spark_session("local[1]")


@pytest.mark.parametrize("literal", list(PATTERNS))
def test_spark_reads_only_the_literal_file(spark: Any, tmp_path: Path, literal: str) -> None:
    # Spark (Hadoop) expands * ? [ ] { } too: the path reaches it escaped
    path = _folder(tmp_path, literal, PATTERNS[literal])
    source = engine.open_spark_file(path, None, ",", ["sex"], spark)
    cube = engine.count_cube(source, ["sex", "label", "prediction"], None, 1)
    assert sum(c.n for c in cube) == 60
    fingerprint = source.fingerprint()
    assert fingerprint is not None
    assert fingerprint["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
