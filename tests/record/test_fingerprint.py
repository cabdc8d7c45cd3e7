"""Fingerprints of files, directories and the engine code."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import respai
from respai.engine.files import LocalFolder
from respai.errors import InputError
from respai.record import canonical_bytes, engine_code_fingerprint, file_fingerprint
from respai.record.fingerprint import list_folder


def test_file_fingerprint_matches_hashlib(tmp_path: Path) -> None:
    data = os.urandom((5 << 20) // 2 + 17)  # more than two 1 MiB chunks
    path = tmp_path / "cases.csv"
    path.write_bytes(data)
    assert file_fingerprint(path) == {
        "name": "cases.csv",
        "media_type": "text/csv",
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("a.parquet", "application/vnd.apache.parquet"),
        ("a.JSONL", "application/jsonl"),
        ("m.onnx", "application/onnx"),
        ("blob.bin", "application/octet-stream"),
    ],
)
def test_media_types(tmp_path: Path, name: str, media_type: str) -> None:
    (tmp_path / name).write_bytes(b"")
    fp = file_fingerprint(tmp_path / name)
    assert fp["media_type"] == media_type
    assert fp["sha256"] == hashlib.sha256(b"").hexdigest()


def test_directory_manifest(tmp_path: Path) -> None:
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "b.csv").write_bytes(b"b")
    (tmp_path / "d" / "sub" / "a.csv").write_bytes(b"aa")
    fp = file_fingerprint(tmp_path / "d")
    manifest = [
        {"path": "b.csv", "sha256": hashlib.sha256(b"b").hexdigest()},
        {"path": "sub/a.csv", "sha256": hashlib.sha256(b"aa").hexdigest()},
    ]
    assert fp["sha256"] == hashlib.sha256(canonical_bytes(manifest)).hexdigest()
    assert fp["size_bytes"] == 3
    assert fp["files"] == 2
    assert fp["media_type"] == "inode/directory"


def test_engine_code_fingerprint_is_stable() -> None:
    first = engine_code_fingerprint()
    second = engine_code_fingerprint()
    assert first == second
    assert set(first) == {
        "sha256",
        "files",
        "version",
        "git_commit",
        "git_dirty",
        "commit_from",
        "wheel_sha256",
    }
    assert first["version"] == respai.__version__
    package = Path(respai.__file__).resolve().parent
    expected = sum(
        1
        for p in package.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    assert first["files"] == expected
    assert len(first["sha256"]) == 64


def test_engine_code_fingerprint_without_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    fp = engine_code_fingerprint()
    assert fp["git_commit"] is None
    assert fp["git_dirty"] is None
    assert fp["commit_from"] is None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_folder_fingerprint_covers_every_file_spark_could_read(tmp_path: Path) -> None:
    # Spark reads part-1.pyc (and respai hands it the file): the manifest holds it, and
    # the compiled-file names, hidden names and __pycache__ that Spark might read too
    folder = tmp_path / "data"
    files = {
        "part-0.parquet": b"p0",
        "part-1.pyc": b"p1",
        "part-2.pyo": b"p2",
        "__pycache__/part-3.parquet": b"p3",
        "_SUCCESS": b"",
        ".part-0.parquet.crc": b"crc",
    }
    for relative, data in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    fp = file_fingerprint(folder)
    manifest = [{"path": p, "sha256": _digest(d)} for p, d in sorted(files.items())]
    assert fp["sha256"] == hashlib.sha256(canonical_bytes(manifest)).hexdigest()
    assert fp["files"] == len(files)
    before = fp["sha256"]
    (folder / "part-1.pyc").write_bytes(b"300 more rows")
    assert file_fingerprint(folder)["sha256"] != before


def test_list_folder_sorts_by_relative_path(tmp_path: Path) -> None:
    for relative in ("b", "a/z", "a.x", "A"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(b"")
    assert [p for p, _ in list_folder(tmp_path)] == ["A", "a.x", "a/z", "b"]


def test_a_link_to_a_folder_inside_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "more.parquet").write_bytes(b"rows")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "part-0.parquet").write_bytes(b"rows")
    (tmp_path / "data" / "more").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError, match=r"holds more, which is a link to a folder"):
        file_fingerprint(tmp_path / "data")


def test_a_link_to_a_file_is_fingerprinted_as_its_target(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "target.parquet").write_bytes(b"target")
    (tmp_path / "data" / "part-0.parquet").symlink_to(tmp_path / "target.parquet")
    manifest = [{"path": "part-0.parquet", "sha256": _digest(b"target")}]
    fp = file_fingerprint(tmp_path / "data")
    assert fp["sha256"] == hashlib.sha256(canonical_bytes(manifest)).hexdigest()


def test_a_pipe_inside_a_folder_is_refused_without_waiting_on_it(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "part-0.parquet").write_bytes(b"rows")
    os.mkfifo(tmp_path / "data" / "part-1.pyc")
    code = (
        "import sys\nfrom pathlib import Path\nfrom respai.errors import InputError\n"
        "from respai.record import file_fingerprint\n"
        "try:\n    file_fingerprint(Path(sys.argv[1]))\n"
        "except InputError as e:\n    print(e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "data")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert "holds part-1.pyc, which is not a regular file" in proc.stdout, proc.stderr


def test_a_broken_link_inside_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "part-0.parquet").symlink_to(tmp_path / "gone")
    with pytest.raises(InputError, match=r"holds part-0\.parquet, which cannot be read"):
        file_fingerprint(tmp_path / "data")


def test_a_local_folder_refuses_a_file_added_after_it_was_listed(tmp_path: Path) -> None:
    (tmp_path / "part-0.parquet").write_bytes(b"rows")
    folder = LocalFolder.open(tmp_path)
    (tmp_path / "part-1.pyc").write_bytes(b"more rows")
    with pytest.raises(InputError, match=r"part-1.pyc was added while respai read"):
        folder.fingerprint()


def test_a_local_folder_refuses_a_file_rewritten_after_it_was_listed(tmp_path: Path) -> None:
    (tmp_path / "part-0.parquet").write_bytes(b"rows")
    folder = LocalFolder.open(tmp_path)
    (tmp_path / "part-0.parquet").write_bytes(b"other rows")
    with pytest.raises(InputError, match=r"part-0.parquet changed while respai read"):
        folder.fingerprint()


def test_a_local_folder_knows_its_size_as_listed(tmp_path: Path) -> None:
    # the count pass reads a large folder's cells as Arrow (engine.files.ARROW_FROM_BYTES)
    (tmp_path / "part-0.parquet").write_bytes(b"x" * 10)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "part-1.parquet").write_bytes(b"y" * 5)
    folder = LocalFolder.open(tmp_path)
    (tmp_path / "part-0.parquet").write_bytes(b"x" * 99)  # what was listed counts
    assert folder.size == 15


def test_the_code_hashed_on_a_thread_is_the_code_hashed_now() -> None:
    from respai.record.fingerprint import engine_code_fingerprint_started

    wait = engine_code_fingerprint_started()
    assert wait() == engine_code_fingerprint()


def test_a_failure_of_the_hash_on_its_thread_reaches_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from respai.record import fingerprint

    def unreadable() -> dict[str, object]:
        raise PermissionError("a package file cannot be read")

    monkeypatch.setattr(fingerprint, "engine_code_fingerprint", unreadable)
    wait = fingerprint.engine_code_fingerprint_started()
    with pytest.raises(PermissionError, match="cannot be read"):
        wait()
