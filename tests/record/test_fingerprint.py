"""Fingerprints of files, directories and the engine code."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

import respai
from respai.record import canonical_bytes, engine_code_fingerprint, file_fingerprint


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
    assert set(first) == {"sha256", "files", "version", "git_commit", "git_dirty"}
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
