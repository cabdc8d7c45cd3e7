"""The engine a pack carries: its wheel and the exact versions of what it needs.

A pack is meant to rerun a year later on a machine that has none of today's packages, so
it carries two things besides the numbers:

- ``environment.lock``: respai's version and every distribution respai needs to run (the
  closure of its ``Requires-Dist`` entries as :mod:`importlib.metadata` reports them,
  markers evaluated for this interpreter, extras left out unless a requirement asks for
  them), each as ``name==version``, with the Python version and the platform;
- the engine's wheel (``wheel/respai-<version>-...whl``), when the person building the
  pack named it with ``--wheel`` or the running copy was installed from a wheel file that
  still exists where pip recorded it and still has the SHA-256 pip recorded.

:func:`choose_wheel` decides which wheel (if any) goes in and refuses, with a clear
reason, a wheel that is not the running engine's: another name or version in its
metadata, a SHA-256 other than the one the running engine was installed from, or package
files that differ from the running engine's. Nothing here reads a wheel the user did not
name, except the very file pip says the running copy came from.
"""

from __future__ import annotations

import dataclasses
import hashlib
import platform
import re
import zipfile
from collections.abc import Iterable, Mapping
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from respai.errors import InputError

__all__ = [
    "LOCK_NAME",
    "WHEEL_FOLDER",
    "WheelChoice",
    "choose_wheel",
    "dependency_closure",
    "lock_text",
    "normalise",
    "parse_lock_header",
]

LOCK_NAME = "environment.lock"
"""The pack's lock file."""

WHEEL_FOLDER = "wheel"
"""The pack folder that holds the engine's wheel."""

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
_EXTRA = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")
_BUILD_INFO = "respai/_build_info.json"


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares it (lower case, runs of ``-_.`` as ``-``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _marker_holds(marker: str, extras: Iterable[str]) -> bool:
    """Whether a requirement's environment marker holds here for the extras asked for.

    Evaluated with :mod:`packaging` when it is installed; without it, a marker that
    names an extra holds only for an extra asked for, and any other marker holds (the
    closure is then limited to the distributions that are installed, see
    :func:`dependency_closure`).
    """
    wanted = sorted({normalise(e) for e in extras})
    try:
        from packaging.markers import InvalidMarker, Marker
    except ImportError:  # pragma: no cover - packaging is nearly always installed
        named = _EXTRA.findall(marker)
        return not named or any(normalise(n) in wanted for n in named)
    try:
        parsed = Marker(marker)
    except InvalidMarker:
        return False
    if not wanted:
        return bool(parsed.evaluate({"extra": ""}))
    return any(parsed.evaluate({"extra": e}) for e in wanted)


def dependency_closure(root: str = "respai") -> list[tuple[str, str]]:
    """``root`` and every installed distribution it needs, as ``(name, version)``, sorted.

    The closure follows each distribution's ``Requires-Dist`` entries whose marker holds
    in this interpreter (:func:`_marker_holds`), with the extras a requirement names
    (``name[extra]``); the root's own extras are not followed (a pack reruns with the
    engine's core dependencies). A requirement that is not installed is left out (its
    marker said it is needed but nothing provides it: the engine ran without it).

    Parameters
    ----------
    root
        The distribution to start from.

    Returns
    -------
    list of (str, str)
        The distributions' names as their metadata spells them and their versions,
        sorted by normalised name; empty when ``root`` itself is not installed.
    """
    from importlib import metadata

    found: dict[str, tuple[str, str]] = {}
    asked: dict[str, set[str]] = {}
    todo: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    while todo:
        name, extras = todo.pop()
        key = normalise(name)
        if key in found and extras <= asked.get(key, set()):
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found[key] = (str(dist.metadata["Name"] or name), str(dist.version))
        asked.setdefault(key, set()).update(extras)
        for req in dist.requires or []:
            spec, _, marker = req.partition(";")
            match = _NAME.match(spec)
            if match is None:
                continue
            if marker.strip() and not _marker_holds(marker.strip(), asked[key]):
                continue
            sub = frozenset(e.strip() for e in (match.group(2) or "").split(",") if e.strip())
            todo.append((match.group(1), sub))
    return [found[k] for k in sorted(found)]


def lock_text(closure: Iterable[tuple[str, str]] | None = None) -> str:
    """``environment.lock``: the Python version, the platform and ``name==version`` lines.

    Parameters
    ----------
    closure
        The ``(name, version)`` pairs to lock (default: :func:`dependency_closure`).

    Returns
    -------
    str
        Comment lines (``# python: 3.11.7``, ``# implementation: CPython``, ``# platform:
        ...``, ``# machine: ...``) then one ``name==version`` line per distribution; pip
        reads the file as a requirements file.
    """
    pairs = list(dependency_closure() if closure is None else closure)
    lines = [
        "# respai and every distribution it needs, at the exact versions it ran with when",
        "# this pack was built. respai reproduce PACK --isolated installs them (pip reads",
        "# this file as a requirements file).",
        f"# python: {platform.python_version()}",
        f"# implementation: {platform.python_implementation()}",
        f"# platform: {platform.platform()}",
        f"# machine: {platform.machine()}",
    ]
    lines += [f"{name}=={version}" for name, version in pairs]
    return "\n".join(lines) + "\n"


def parse_lock_header(text: str) -> dict[str, str]:
    """The ``# key: value`` lines of an ``environment.lock`` (``python``, ``platform``...)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        match = re.match(r"^#\s*(python|implementation|platform|machine):\s*(.+?)\s*$", raw)
        if match:
            out[match.group(1)] = match.group(2)
    return out


@dataclasses.dataclass(frozen=True, slots=True)
class WheelChoice:
    """The engine's wheel a pack carries, or why it carries none.

    Attributes
    ----------
    path
        The wheel file to copy into the pack, or ``None``.
    sha256
        Its SHA-256, or ``None``.
    source
        ``"--wheel"`` (named by the person building the pack), ``"installed"`` (the file
        the running copy was installed from), or ``None``.
    reason
        Why the pack carries no wheel (``None`` when it carries one).
    """

    path: Path | None
    sha256: str | None
    source: str | None
    reason: str | None

    @property
    def member(self) -> str | None:
        """The wheel's path inside the pack (``wheel/<file name>``), or ``None``."""
        return None if self.path is None else f"{WHEEL_FOLDER}/{self.path.name}"

    def to_dict(self) -> dict[str, Any]:
        """The choice as ``engine.json`` records it."""
        if self.path is None:
            return {"path": None, "sha256": None, "source": None, "reason": self.reason}
        return {"path": self.member, "sha256": self.sha256, "source": self.source}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _running_files(package_dir: Path) -> dict[str, str]:
    """SHA-256 of every file of the running package, as ``respai/<path>`` (no caches)."""
    import os

    out: dict[str, str] = {}
    for root, dirs, files in os.walk(package_dir):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(root) / name
            out["respai/" + path.relative_to(package_dir).as_posix()] = _sha256(path)
    out.pop(_BUILD_INFO, None)
    return out


def _wheel_metadata(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The wheel's ``METADATA`` fields (``Name``, ``Version``) and its package files' hashes.

    Raises
    ------
    InputError
        When the file is not a readable wheel (a zip with one ``.dist-info/METADATA``).
    """
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            meta = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
            if len(meta) != 1:
                raise InputError(
                    f"--wheel {path} is not a wheel: it holds {len(meta)} .dist-info/METADATA "
                    "files, a wheel holds one.",
                    "Give the .whl file that python -m build wrote for this engine.",
                )
            headers = HeaderParser().parsestr(zf.read(meta[0]).decode("utf-8", "replace"))
            files = {
                n: hashlib.sha256(zf.read(n)).hexdigest()
                for n in names
                if n.startswith("respai/") and not n.endswith("/") and n != _BUILD_INFO
            }
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise InputError(
            f"--wheel {path} cannot be read as a wheel: {getattr(exc, 'strerror', None) or exc}.",
            "Give the .whl file that python -m build wrote for this engine.",
        ) from None
    fields = {k: str(headers.get(k) or "") for k in ("Name", "Version")}
    return fields, files


def _check_named(path: Path, engine_code: Mapping[str, Any], package_dir: Path) -> str:
    """Refuse a ``--wheel`` that is not the running engine's; return its SHA-256."""
    from respai.version import __version__

    if not path.is_file():
        raise InputError(
            f"--wheel {path} is not a file.",
            "Give the .whl file of the engine that is running (python -m build --wheel "
            "writes it into dist/).",
        )
    fields, files = _wheel_metadata(path)
    if normalise(fields["Name"]) != "respai" or fields["Version"] != __version__:
        raise InputError(
            f"--wheel {path} is {fields['Name'] or 'a package with no name'} "
            f"{fields['Version'] or '(no version)'}, but the engine running is respai "
            f"{__version__}: a pack carries the wheel of the engine that computed its numbers.",
            f"Build the wheel of respai {__version__} (python -m build --wheel) and give "
            "that file, or run the pack command with the engine the wheel holds.",
        )
    digest = _sha256(path)
    installed = engine_code.get("wheel_sha256")
    if installed and installed != digest:
        raise InputError(
            f"--wheel {path} has SHA-256 {digest}, but the engine running was installed "
            f"from a wheel with SHA-256 {installed}: that file is another build.",
            "Give the wheel file the running engine was installed from, or leave out "
            "--wheel to let respai use it when it still exists.",
        )
    running = _running_files(package_dir)
    differ = sorted(n for n in {*files, *running} if files.get(n) != running.get(n))
    if differ:
        raise InputError(
            f"--wheel {path} holds respai {__version__}, but {len(differ)} of its package "
            "file(s) differ from the engine running ("
            + ", ".join(differ[:5])
            + (" ..." if len(differ) > 5 else "")
            + "): the wheel was built from other code.",
            "Build the wheel again from the code that is running (python -m build "
            "--wheel), then give the new file.",
        )
    return digest


def _installed_wheel(engine_code: Mapping[str, Any]) -> tuple[Path | None, str]:
    """The wheel file pip recorded for the running copy, when it still matches; else why not."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    recorded = engine_code.get("wheel_sha256")
    if not recorded:
        return None, (
            "the running engine was not installed from a wheel file (an editable install, "
            "a checkout or a package index), and no --wheel was given"
        )
    try:
        text = metadata.distribution("respai").read_text("direct_url.json") or ""
        url = str(json.loads(text).get("url", ""))
    except (metadata.PackageNotFoundError, OSError, ValueError, AttributeError):
        url = ""
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return None, "pip did not record a local wheel file for the running engine"
    where = Path(unquote(parsed.path))
    if not where.is_file():
        return None, (
            f"the wheel the running engine was installed from ({where}) no longer exists"
        )
    if _sha256(where) != recorded:
        return None, (
            f"the file at {where} no longer has the SHA-256 the running engine was "
            f"installed from ({recorded})"
        )
    return where, ""


def choose_wheel(
    wheel: str | Path | None,
    engine_code: Mapping[str, Any],
    package_dir: Path | None = None,
) -> WheelChoice:
    """The engine wheel a pack carries.

    Parameters
    ----------
    wheel
        The file named with ``--wheel``, or ``None``.
    engine_code
        :func:`respai.record.engine_code_fingerprint` of the running engine.
    package_dir
        The running ``respai`` package folder (default: the imported one).

    Returns
    -------
    WheelChoice
        The named wheel; without one, the file the running copy was installed from when
        it still exists with the recorded SHA-256; else no wheel, with the reason.

    Raises
    ------
    InputError
        When the named wheel is not a readable wheel of the running engine: another name
        or version, a SHA-256 other than the one the running engine was installed from,
        or package files that differ from the running engine's.
    """
    import respai

    here = Path(respai.__file__).resolve().parent if package_dir is None else package_dir
    if wheel is not None:
        path = Path(wheel)
        return WheelChoice(path, _check_named(path, engine_code, here), "--wheel", None)
    found, why = _installed_wheel(engine_code)
    if found is not None:
        return WheelChoice(found, str(engine_code["wheel_sha256"]), "installed", None)
    return WheelChoice(None, None, None, why)
