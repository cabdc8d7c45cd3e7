"""SHA-256 fingerprints of what a run used: the dataset and model files, and respai's code.

A file's identity is the SHA-256 of its exact bytes, with its size and media type. A
directory (a dataset split over files) is a sorted per-file manifest of **every** regular
file under it (:func:`list_folder`: hidden names, ``*.pyc`` and subfolders included; a
link to a folder, a pipe, a socket or a device is refused), so nothing an engine could
read in it is left out. The engine code is the manifest of the files of the installed
``respai`` package as they are on disk (without ``__pycache__`` and compiled ``.pyc``
files), plus the git commit and a dirty flag when the package runs from a checkout or was
built from one, and the SHA-256 of the wheel it was installed from when pip recorded it.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.record.canonical import canonical_bytes

__all__ = [
    "MEDIA_TYPES",
    "descriptor_fingerprint",
    "engine_code_fingerprint",
    "engine_code_fingerprint_started",
    "file_fingerprint",
    "folder_fingerprint",
    "list_folder",
    "manifest_digest",
    "spark_hidden",
    "wheel_sha256",
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


def _package_files(directory: Path) -> list[Path]:
    """The files of respai's own package, without compiled ``__pycache__`` / ``.pyc`` files."""
    out: list[Path] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out.extend(Path(root) / f for f in files if not f.endswith((".pyc", ".pyo")))
    return sorted(out, key=lambda p: p.relative_to(directory).as_posix())


FileState = tuple[int, int, int, int, int]
"""A file's ``(device, inode, size, modified ns, changed ns)`` when it was listed."""


def spark_hidden(name: str) -> bool:
    """Whether Spark (Hadoop) skips a file or folder of this name inside a folder it reads.

    Spark leaves out names that start with ``.``, names that start with ``_`` and hold no
    ``=`` (``_SUCCESS``, ``_metadata``, ``_temporary``; ``_k=v`` is a partition) and names
    that end with ``._COPYING_``. ``*.pyc`` files are read like any other.

    Examples
    --------
    >>> [spark_hidden(n) for n in ("_SUCCESS", ".part-0.crc", "_k=1", "part-1.pyc")]
    [True, True, False, False]
    """
    return (
        name.startswith(".")
        or (name.startswith("_") and "=" not in name)
        or name.endswith("._COPYING_")
    )


def _state(st: os.stat_result) -> FileState:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _folder_error(directory: Path, relative: str, what: str) -> InputError:
    return InputError(
        f"the folder {directory} holds {relative}, which {what}; respai fingerprints every "
        "file in a folder of cases, so it refuses what it cannot read as a file.",
        f"Move {relative} out of the folder (or replace it with the file itself).",
    )


def _list_into(
    directory: Path, folder: Path, prefix: str, out: list[tuple[str, FileState]]
) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        raise InputError(
            f"cannot list the folder {folder}: {exc.strerror or exc}.",
            "Check that the folder exists and that you may read it.",
        ) from None
    for entry in entries:
        relative = prefix + entry.name
        try:
            found = os.stat(entry.path)  # through a link: the file Spark would open
        except OSError as exc:
            raise _folder_error(
                directory, relative, f"cannot be read ({exc.strerror or exc}: a broken link?)"
            ) from None
        if stat.S_ISDIR(found.st_mode):
            if entry.is_symlink():
                raise _folder_error(directory, relative, "is a link to a folder")
            _list_into(directory, Path(entry.path), relative + "/", out)
        elif stat.S_ISREG(found.st_mode):
            out.append((relative, _state(found)))
        else:
            raise _folder_error(
                directory, relative, "is not a regular file (a pipe, socket or device)"
            )


def list_folder(directory: Path) -> list[tuple[str, FileState]]:
    """Every regular file under ``directory``, recursively, sorted by its relative path.

    Nothing is skipped: hidden names, ``*.pyc`` files and ``__pycache__`` folders are
    listed like any other file. A link to a regular file is listed (its target's state);
    a link to a folder, a broken link, a pipe, a socket or a device is refused.

    Parameters
    ----------
    directory
        The folder of cases.

    Returns
    -------
    list of (str, tuple)
        ``(relative POSIX path, (device, inode, size, modified ns, changed ns))``.

    Raises
    ------
    respai.errors.InputError
        For an entry that is not a regular file or a folder, or a folder that cannot be
        listed.
    """
    out: list[tuple[str, FileState]] = []
    _list_into(Path(directory), Path(directory), "", out)
    return sorted(out, key=lambda e: e[0])


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
    for path in _package_files(directory):
        digest, size = _sha256_file(path)
        entries.append({"path": path.relative_to(directory).as_posix(), "sha256": digest})
        total += size
    return entries, total


def folder_fingerprint(
    directory: Path, listing: list[tuple[str, FileState]] | None = None
) -> dict[str, Any]:
    """The fingerprint of a folder of cases: the manifest of the files of ``listing``.

    Parameters
    ----------
    directory
        The folder.
    listing
        :func:`list_folder` of it, taken when the engine was handed its files; listed
        now when omitted.

    Returns
    -------
    dict
        ``{name, media_type: "inode/directory", size_bytes, sha256, files}``; ``sha256``
        is :func:`manifest_digest` of ``[{path, sha256}]`` over every listed file.

    Raises
    ------
    respai.errors.InputError
        When a file's size is not the size it had when it was listed.
    """
    directory = Path(directory)
    entries = []
    total = 0
    for relative, state in list_folder(directory) if listing is None else listing:
        digest, size = _sha256_file(directory / relative)
        if size != state[2]:
            raise InputError(
                f"{directory / relative} changed while respai read it (size {state[2]} -> "
                f"{size} bytes); run again when nothing is writing the folder.",
                "Wait until the export that writes the folder has finished, then run again.",
            )
        entries.append({"path": relative, "sha256": digest})
        total += size
    return {
        "name": directory.name,
        "media_type": "inode/directory",
        "size_bytes": total,
        "sha256": manifest_digest(entries),
        "files": len(entries),
    }


def file_fingerprint(path: Path) -> dict[str, Any]:
    """Return ``{name, media_type, size_bytes, sha256}`` of the bytes at ``path``.

    Parameters
    ----------
    path
        A file, read in 1 MiB chunks, or a directory, fingerprinted as the manifest of
        every file under it (:func:`folder_fingerprint`: ``media_type``
        ``inode/directory``, ``size_bytes`` the total, an extra ``files`` count, and
        ``sha256`` over the sorted ``[{path, sha256}]`` as in :func:`manifest_digest`).

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
        return folder_fingerprint(path)
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


def _build_info(package_dir: Path) -> tuple[str | None, bool | None]:
    """The commit written into the package when its wheel or sdist was built (hatch_build.py)."""
    import json

    try:
        info = json.loads((package_dir / "_build_info.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    commit = info.get("git_commit") if isinstance(info, dict) else None
    dirty = info.get("git_dirty") if isinstance(info, dict) else None
    if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{40,64}", commit):
        return None, None
    return commit, dirty if isinstance(dirty, bool) else None


def wheel_sha256(package_dir: Path) -> str | None:
    """The SHA-256 of the wheel the running package was installed from, when pip recorded it.

    pip writes ``direct_url.json`` into the ``.dist-info`` folder of a distribution
    installed from a file or URL (PEP 610); for a wheel file its ``archive_info`` holds the
    wheel's hash. pip puts that folder beside the package, so only a ``respai-*.dist-info``
    folder in the running package's own folder is read (never another copy of respai on
    the path; two such folders, a broken install, give ``None``), without a search of the
    whole path (about 15 ms). Only a ``sha256`` hash counts. An install from a package
    index, or from a checkout (editable or not), records no wheel hash: the result is
    then ``None``.
    """
    import json
    from importlib import metadata

    try:
        infos = [p for p in package_dir.resolve().parent.glob("respai-*.dist-info") if p.is_dir()]
        if len(infos) != 1:
            return None
        text = metadata.PathDistribution(infos[0]).read_text("direct_url.json")
        data = json.loads(text) if text else None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not str(data.get("url", "")).endswith(".whl"):
        return None
    archive = data.get("archive_info")
    if not isinstance(archive, dict):
        return None
    hashes = archive.get("hashes")
    found = hashes.get("sha256") if isinstance(hashes, dict) else None
    if found is None and isinstance(archive.get("hash"), str):
        algorithm, _, value = archive["hash"].partition("=")
        found = value if algorithm == "sha256" else None
    return found if isinstance(found, str) and re.fullmatch(r"[0-9a-f]{64}", found) else None


def engine_code_fingerprint() -> dict[str, Any]:
    """Return the fingerprint of the respai code that is running.

    Every file under the imported ``respai`` package directory (editable or installed),
    except ``__pycache__`` and compiled ``.pyc`` files, is hashed as it is on disk.

    Returns
    -------
    dict
        ``sha256`` (over the canonical bytes of the sorted ``[{path, sha256}]`` list),
        ``files`` (how many), ``version`` (``respai.__version__``); ``git_commit`` and
        ``git_dirty`` (whether the package's files differed from that commit) with
        ``commit_from``: ``"checkout"`` when the package runs from a git checkout,
        ``"build"`` when a wheel or sdist built from a checkout carries them
        (``respai/_build_info.json``), else all three ``None``; and ``wheel_sha256``,
        the SHA-256 of the wheel file pip installed the package from (:func:`wheel_sha256`),
        else ``None``.
    """
    from respai.version import __version__

    package_dir = Path(__file__).resolve().parents[1]  # the respai package
    entries, _ = _manifest(package_dir)
    commit, dirty = _git_state(package_dir)
    source = "checkout" if commit else None
    if commit is None:
        commit, dirty = _build_info(package_dir)
        source = "build" if commit else None
    return {
        "sha256": manifest_digest(entries),
        "files": len(entries),
        "version": __version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "commit_from": source,
        "wheel_sha256": wheel_sha256(package_dir),
    }


def engine_code_fingerprint_started() -> Callable[[], dict[str, Any]]:
    """Start :func:`engine_code_fingerprint` on a second thread; return the wait for it.

    Hashing the package's few hundred files (and, from a checkout, asking git for the
    commit) spends most of its time reading files, hashing and waiting for git, none of
    which holds Python's lock. A command that starts it before its count pass has it
    done while DuckDB reads the cases; the returned function waits for the result (or
    raises what the hashing raised) and is the fingerprint of this run only: nothing is
    kept for another run.
    """
    import threading

    outcome: list[tuple[bool, Any]] = []

    def work() -> None:
        try:
            outcome.append((True, engine_code_fingerprint()))
        except BaseException as exc:  # handed to the waiting thread
            outcome.append((False, exc))

    thread = threading.Thread(target=work, name="respai-code-fingerprint", daemon=True)
    thread.start()

    def result() -> dict[str, Any]:
        thread.join()
        done, value = outcome[0]
        if not done:
            raise value
        return dict(value)

    return result
