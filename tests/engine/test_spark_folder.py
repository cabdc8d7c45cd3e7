"""A folder of part files on Spark: the files fingerprinted are the files counted.

Spark reads ``part-1.pyc`` like any part file; respai's folder fingerprint once skipped
``*.pyc``, ``*.pyo`` and ``__pycache__``, so 300 added rows changed the counts and not
the fingerprint. Spark is now handed the explicit list of the files respai lists, and a
folder holding a file Spark would not count (or would count but respai would not hash)
is refused. These tests start a local Spark (marked slow by ``tests/conftest.py``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from respai import engine
from respai.cli import main
from respai.errors import InputError
from respai.record import canonical_bytes


def _part(path: Path, rows: int, start: int = 0, sex: str = "f") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            "y": [(start + i) % 2 for i in range(rows)],
            "p": [((start + i) // 2) % 2 for i in range(rows)],
            "sex": [sex if i % 3 else "m" for i in range(rows)],
        }
    )
    pq.write_table(table, path)


def _rows(source: engine.Source) -> int:
    return int(source._frame.to_native().count())


def _manifest_sha256(folder: Path, names: list[str]) -> str:
    entries = [
        {"path": n, "sha256": hashlib.sha256((folder / n).read_bytes()).hexdigest()}
        for n in sorted(names)
    ]
    return hashlib.sha256(canonical_bytes(entries)).hexdigest()


def test_a_pyc_part_file_is_counted_and_fingerprinted(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _part(folder / "part-0.parquet", 200)
    _part(folder / "part-1.pyc", 300, start=1)
    source = engine.open_spark_file(folder, "parquet", session=spark)
    assert _rows(source) == 500
    fp = source.fingerprint()
    assert fp is not None and fp["files"] == 2
    assert fp["sha256"] == _manifest_sha256(folder, ["part-0.parquet", "part-1.pyc"])


def test_hidden_files_are_fingerprinted_but_not_counted(spark: Any, tmp_path: Path) -> None:
    # Spark's own rule: names starting with '_' (without '=') or '.' are not data
    folder = tmp_path / "data"
    _part(folder / "part-0.parquet", 100)
    _part(folder / "_old.parquet", 50)
    _part(folder / "_temporary" / "part-9.parquet", 70)
    _part(folder / "__pycache__" / "part-8.pyc", 80)
    (folder / "_SUCCESS").write_bytes(b"")
    (folder / ".part-0.parquet.crc").write_bytes(b"crc")
    source = engine.open_spark_file(folder, "parquet", session=spark)
    assert _rows(source) == 100
    fp = source.fingerprint()
    assert fp is not None and fp["files"] == 6
    names = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
    assert fp["sha256"] == _manifest_sha256(folder, names)


def test_partition_folders_are_read_with_their_column(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _part(folder / "region=eu" / "part-0.parquet", 40)
    _part(folder / "region=us" / "part-0.pyc", 60)
    source = engine.open_spark_file(folder, "parquet", session=spark)
    assert _rows(source) == 100
    assert "region" in source.columns
    native = source._frame.to_native()
    assert {r["region"]: r["count"] for r in native.groupBy("region").count().collect()} == {
        "eu": 40,
        "us": 60,
    }


@pytest.mark.parametrize(
    ("layout", "named", "why"),
    [
        ({"part-0.parquet": 10, "cache/part-1.pyc": 5}, "cache/part-1.pyc",
         "subfolder 'cache', which is not a partition"),
        ({"region=eu/part-0.parquet": 10, "part-1.parquet": 5}, "part-1.parquet",
         "beside the partition folders of region=eu/part-0.parquet"),
        ({"part-0.parquet": 10, "backup/part-0.parquet": 5}, "backup/part-0.parquet",
         "subfolder 'backup'"),
    ],
)  # fmt: skip
def test_a_file_spark_would_not_count_in_the_folder_is_refused(
    spark: Any, tmp_path: Path, layout: dict[str, int], named: str, why: str
) -> None:
    folder = tmp_path / "data"
    for relative, rows in layout.items():
        _part(folder / relative, rows)
    with pytest.raises(InputError) as caught:
        engine.open_spark_file(folder, "parquet", session=spark)
    assert f"holds {named}, which Spark would not read" in str(caught.value)
    assert why in str(caught.value)


def test_a_folder_of_only_hidden_files_is_refused(spark: Any, tmp_path: Path) -> None:
    _part(tmp_path / "data" / "_part-0.parquet", 10)
    with pytest.raises(InputError, match="holds no file Spark would read"):
        engine.open_spark_file(tmp_path / "data", "parquet", session=spark)


def test_a_file_added_while_spark_counts_is_refused(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _part(folder / "part-0.parquet", 10)
    source = engine.open_spark_file(folder, "parquet", session=spark)
    _part(folder / "part-1.pyc", 300)
    assert _rows(source) == 10  # Spark was handed part-0 alone
    with pytest.raises(InputError, match=r"part-1\.pyc was added while respai read"):
        source.fingerprint()


def test_a_csv_folder_with_a_bracketed_name_is_read_literally(spark: Any, tmp_path: Path) -> None:
    folder = tmp_path / "cases[1]"
    folder.mkdir()
    (folder / "part-0.csv").write_text("y,p,sex\n1,0,f\n0,0,m\n", encoding="utf-8")
    (folder / "part-1.pyc").write_text("y,p,sex\n1,1,f\n", encoding="utf-8")
    (tmp_path / "cases1").mkdir()  # what cases[1] would match as a pattern
    (tmp_path / "cases1" / "part-0.csv").write_text("y,p,sex\n" + "1,1,m\n" * 50)
    source = engine.open_spark_file(folder, "csv", ",", ["sex"], spark)
    assert _rows(source) == 3


SPEC = """\
system: {name: spark-folder}
fairness:
  cases: data
  format: parquet
  label: y
  prediction: p
  attributes: {sex: [f, m]}
  rules:
    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.5}
"""


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_verify_data_sees_a_changed_pyc_part_file(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    _part(tmp_path / "data" / "part-0.parquet", 200)
    _part(tmp_path / "data" / "part-1.pyc", 300, start=1, sex="m")
    code, out, err = _cli(
        "evaluate", "spec.yaml", "--engine", "spark", "--no-ledger", "--out", "o", "--json"
    )
    assert code in (0, 1, 3), err
    payload = json.loads(out)
    assert payload["counts"]["cases"] == 500  # part-1.pyc's 300 rows are counted
    assert payload["fingerprints"]["dataset"]["files"] == 2  # and fingerprinted
    record = tmp_path / "o" / "record.json"
    keys = str(tmp_path / "keys" / "keys.json")
    assert _cli("verify", str(record), "--data", "data", "--keys", keys)[0] == 0
    code, out, err = _cli(
        "verify", str(record), "--data", "data", "--spec", "spec.yaml", "--keys", keys, "--json"
    )
    assert code == 0, out + err
    assert json.loads(out)["counts"]["ok"] is True  # Spark counted the same 500 cases
    shutil.copy(tmp_path / "data" / "part-0.parquet", tmp_path / "data" / "part-1.pyc")
    code, out, err = _cli("verify", str(record), "--data", "data", "--keys", keys)
    assert code == 1, out + err
    code, out, err = _cli(
        "verify", str(record), "--data", "data", "--spec", "spec.yaml", "--keys", keys, "--json"
    )
    assert code == 1, out + err
    assert "cases: record 500, data 400" in json.loads(out)["counts"]["differences"]


def test_evaluate_refuses_a_folder_it_would_not_count_whole_and_writes_nothing(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    _part(tmp_path / "data" / "part-0.parquet", 200)
    _part(tmp_path / "data" / "backup" / "part-1.pyc", 300)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code, out, err = _cli("evaluate", "spec.yaml", "--engine", "spark", "--out", "o", "--json")
    assert code == 2, out + err
    assert out == ""
    assert err.startswith("respai: error:") and "holds backup/part-1.pyc" in err
    assert "Traceback" not in err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_jsonl_folder_named_like_a_hidden_one_is_read_whole(spark: Any, tmp_path: Path) -> None:
    # the folder's own name is not a part's: '_cases' is read, its '_SUCCESS' is not
    folder = tmp_path / "_cases"
    folder.mkdir()
    (folder / "part-0.jsonl").write_text('{"y": 1, "p": 0, "sex": "f"}\n' * 3)
    (folder / "part-1.pyc").write_text('{"y": 0, "p": 1, "sex": "m"}\n' * 4)
    (folder / "_SUCCESS").write_text("")
    source = engine.open_spark_file(folder, "jsonl", session=spark)
    assert _rows(source) == 7
    fp = source.fingerprint()
    assert fp is not None and fp["files"] == 3
