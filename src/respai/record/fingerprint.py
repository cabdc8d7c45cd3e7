"""SHA-256 fingerprints of what a run used: the dataset and model files, and respai's code.

A file's identity is the SHA-256 of its exact bytes, with its size and media type. A
directory (a dataset split over files) is a sorted per-file manifest. The engine code is
the manifest of the files of the installed ``respai`` package as they are on disk, plus
the git commit and a dirty flag when the package runs from a checkout.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Any

from respai.record.canonical import canonical_bytes

__all__ = [
    "MEDIA_TYPES",
    "descriptor_fingerprint",
    "engine_code_fingerprint",
    "file_fingerprint",
    "manifest_digest",
]

CHUNK = 1 << 20

MEDIA_TYPES = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".txt": "text/plain",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".ndjson": "application/jsonl",
    ".parquet": "application/vnd.apache.parquet",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".onnx": "application/onnx",
    ".skops": "application/x-skops",
    ".gz": "application/gzip",
    ".zip": "application/zip",
}
"""Media types by file suffix; anything else is ``application/octet-stream``."""


def _sha256_file(path: Path) -> tuple[str, int]:
    """The SHA-256 and size of a regular file (a FIFO or a device raises NotARegularFile)."""
    from respai.io import open_regular

    fd = open_regular(path)
    try:
        return _sha256_descriptor(fd)
    finally:
        os.close(fd)


def _sha256_descriptor(fd: int) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    while chunk := os.pread(fd, CHUNK, size):
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def _files_under(directory: Path) -> list[Path]:
    out: list[Path] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out.extend(Path(root) / f for f in files if not f.endswith((".pyc", ".pyo")))
    return sorted(out, key=lambda p: p.relative_to(directory).as_posix())


def manifest_digest(entries: list[dict[str, str]]) -> str:
    """Return the hex SHA-256 over the canonical bytes of ``[{path, sha256}]``, sorted by path.

    Examples
    --------
    >>> manifest_digest([]) == hashlib.sha256(b"[]").hexdigest()
    True
    """
    ordered = sorted(entries, key=lambda e: e["path"])
    return hashlib.sha256(canonical_bytes(ordered)).hexdigest()


def _manifest(directory: Path) -> tuple[list[dict[str, str]], int]:
    entries = []
    total = 0
    for path in _files_under(directory):
        digest, size = _sha256_file(path)
        entries.append({"path": path.relative_to(directory).as_posix(), "sha256": digest})
        total += size
    return entries, total


def file_fingerprint(path: Path) -> dict[str, Any]:
    """Return ``{name, media_type, size_bytes, sha256}`` of the bytes at ``path``.

    Parameters
    ----------
    path
        A file, read in 1 MiB chunks, or a directory, fingerprinted as the manifest of
        its files (``media_type`` ``inode/directory``, ``size_bytes`` the total, an
        extra ``files`` count, and ``sha256`` over the sorted ``[{path, sha256}]`` as
        in :func:`manifest_digest`).

    Returns
    -------
    dict
        The fingerprint; ``name`` is the file's base name.

    Raises
    ------
    respai.io.NotARegularFile
        When the file, or a file in the directory, is a FIFO, a device or a socket (or a
        link to one): it is not read.
    OSError
        When a file cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        entries, total = _manifest(path)
        return {
            "name": path.name,
            "media_type": "inode/directory",
            "size_bytes": total,
            "sha256": manifest_digest(entries),
            "files": len(entries),
        }
    digest, size = _sha256_file(path)
    return {
        "name": path.name,
        "media_type": MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream"),
        "size_bytes": size,
        "sha256": digest,
    }


def descriptor_fingerprint(fd: int, name: str) -> dict[str, Any]:
    """Return ``{name, media_type, size_bytes, sha256}`` of the file open as ``fd``.

    The same fingerprint as :func:`file_fingerprint` gives for the file's path, but read
    from an open descriptor with ``pread`` (from byte 0, leaving its offset alone), so it
    is the very file another reader of that descriptor sees, and it may run on a thread.

    Parameters
    ----------
    fd
        An open, readable descriptor of a regular file.
    name
        The file's base name as the user named it (it also gives the media type).

    Returns
    -------
    dict
        The fingerprint.
    """
    digest, size = _sha256_descriptor(fd)
    return {
        "name": name,
        "media_type": MEDIA_TYPES.get(Path(name).suffix.lower(), "application/octet-stream"),
        "size_bytes": size,
        "sha256": digest,
    }


def _git(package_dir: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(package_dir), *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _git_state(package_dir: Path) -> tuple[str | None, bool | None]:
    # Only when the package's own files are tracked: a wheel installed into a virtual
    # environment that sits inside some other repository is not "from a checkout".
    tracked = _git(package_dir, "ls-files", "--", "__init__.py")
    if not tracked or not tracked.strip():
        return None, None
    head = _git(package_dir, "rev-parse", "HEAD")
    if head is None or not head.strip():
        return None, None
    status = _git(package_dir, "status", "--porcelain", "--", ".")
    return head.strip(), (None if status is None else bool(status.strip()))


def engine_code_fingerprint() -> dict[str, Any]:
    """Return the fingerprint of the respai code that is running.

    Every file under the imported ``respai`` package directory (editable or installed),
    except ``__pycache__`` and compiled ``.pyc`` files, is hashed as it is on disk.

    Returns
    -------
    dict
        ``sha256`` (over the canonical bytes of the sorted ``[{path, sha256}]`` list),
        ``files`` (how many), ``version`` (``respai.__version__``), and ``git_commit``
        and ``git_dirty`` (whether the package directory differs from that commit) when
        the package runs from a git checkout, else ``None``.
    """
    import respai

    package_dir = Path(respai.__file__).resolve().parent
    entries, _ = _manifest(package_dir)
    commit, dirty = _git_state(package_dir)
    return {
        "sha256": manifest_digest(entries),
        "files": len(entries),
        "version": respai.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
    }
