"""Reproducing a pack in a fresh environment built from its own wheel and lock.

:func:`reproduce_isolated` is ``respai reproduce PACK --isolated``: it makes a new virtual
environment (:mod:`venv`, with pip from :mod:`ensurepip`) in a temporary folder, installs
the engine's wheel the pack carries and every distribution of its ``environment.lock`` at
the locked version, from a wheelhouse the user names (``pip install --no-index
--find-links DIR``: no package index is asked) or from an index the user names
(``--index-url URL``), runs the plain ``respai reproduce PACK --json`` with that
environment's Python (``-I``: no ``PYTHONPATH``, no user site, not the current folder),
and reports its outcome with every installed version that differs from the lock.

Before anything is installed, the wheel is checked against the pack's ``MANIFEST.json``,
``engine.json`` and the file list signed in ``record.json`` (verified with the pack's
public key): a pack whose wheel is not the one it signed is refused, so no code from a
changed pack is installed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.io import read_bounded
from respai.pack.archive import opened, read_manifest, read_pack_text, sha256_file
from respai.pack.documents import parse_lock
from respai.pack.environment import LOCK_NAME, normalise, parse_lock_header
from respai.record.canonical import MAX_JSON_BYTES, loads_strict

__all__ = ["IsolatedResult", "reproduce_isolated"]

PIP_TIMEOUT = 1800
"""Seconds pip may take to install the environment."""

RERUN_TIMEOUT = 3600
"""Seconds the rerun in the fresh environment may take."""

_VERSIONS = (
    "import importlib.metadata as m, json, sys, respai\n"
    "print(json.dumps({'prefix': sys.prefix, 'respai': respai.__file__, 'dists': "
    "{d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}}))\n"
)


@dataclasses.dataclass(frozen=True, slots=True)
class IsolatedResult:
    """What :func:`reproduce_isolated` found.

    Attributes
    ----------
    pack
        The pack that was rerun.
    exit_code
        The plain reproduce's exit code in the fresh environment (0 identical, 1
        different, 2 a pack it could not read).
    outcome
        Its ``--json`` outcome (:meth:`respai.pack.ReproduceResult.to_dict`), or ``None``
        when it printed none (exit code 2).
    report
        What it printed for people (its standard error).
    source
        Where the packages came from, in words.
    wheel
        The pack's wheel that was installed, or ``None`` (``respai==VERSION`` was
        installed from the wheelhouse or index instead).
    locked
        How many distributions ``environment.lock`` lists.
    differs
        ``(name, locked, installed)`` for every locked distribution installed at another
        version (``installed`` ``None``: not installed).
    notes
        Other things to know (another Python than the pack's, no wheel in the pack).
    """

    pack: Path
    exit_code: int
    outcome: dict[str, Any] | None
    report: str
    source: str
    wheel: str | None
    locked: int
    differs: tuple[tuple[str, str, str | None], ...]
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data (``respai reproduce --isolated --json``)."""
        return {
            "kind": "respai.reproduce.isolated",
            "pack": str(self.pack),
            "exit_code": self.exit_code,
            "identical": self.exit_code == 0,
            "source": self.source,
            "wheel": self.wheel,
            "locked": self.locked,
            "versions_differ": [
                {"name": n, "locked": a, "installed": b} for n, a, b in self.differs
            ],
            "notes": list(self.notes),
            "reproduce": self.outcome,
        }


_PIP_KEPT = ("PIP_CERT", "PIP_CLIENT_CERT", "PIP_PROXY", "PIP_DEFAULT_TIMEOUT", "PIP_TRUSTED_HOST")
"""The pip settings kept from the environment when the user names the source: how to
connect, never where to look."""


def _child_env(named_source: bool) -> dict[str, str]:
    """The environment for pip and the rerun: this one without Python's own variables.

    When the user named the wheelhouse or index, pip reads no configuration file and no
    ``PIP_*`` variable but the connection ones of :data:`_PIP_KEPT`, so no other index,
    ``find-links`` folder or constraint file is used.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.pop("VIRTUAL_ENV", None)
    if named_source:
        env = {k: v for k, v in env.items() if not k.startswith("PIP_") or k in _PIP_KEPT}
        env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    return env


def _python(env_dir: Path) -> Path:
    if os.name == "nt":  # pragma: no cover - the tests run on POSIX
        return env_dir / "Scripts" / "python.exe"
    return env_dir / "bin" / "python"


def _read_engine(folder: Path) -> dict[str, Any]:
    try:
        doc = loads_strict(read_bounded(folder / "engine.json", MAX_JSON_BYTES))
    except (OSError, ValueError) as exc:
        raise InputError(
            f"the pack's engine.json cannot be read: {exc}.",
            "Restore the pack from its .zip archive.",
        ) from None
    return doc if isinstance(doc, dict) else {}


def _checked_wheel(folder: Path, listed: dict[str, str], engine: dict[str, Any]) -> Path | None:
    """The pack's wheel, checked against the manifest and the signed record; or ``None``."""
    from respai.pack.reproduce import _check_record

    entry = engine.get("wheel")
    member = entry.get("path") if isinstance(entry, dict) else None
    if not member:
        return None
    member = str(member)
    path = folder / member
    if not re.fullmatch(r"wheel/[^/]+\.whl", member) or member not in listed or not path.is_file():
        raise InputError(
            f"the pack's engine.json names the wheel {member!r}, which is not a file listed "
            "in its MANIFEST.json.",
            "Restore the pack from its .zip archive; respai reproduce PACK (without "
            "--isolated) lists every difference.",
        )
    digest = sha256_file(path)
    diffs, predicate, _ = _check_record(folder)
    signed: dict[str, str] = {}
    if predicate is not None and isinstance(predicate.get("pack"), dict):
        signed = {
            str(f.get("path")): str(f.get("sha256"))
            for f in predicate["pack"].get("files", [])
            if isinstance(f, dict)
        }
    if diffs or digest != listed[member] or signed.get(member) != digest:
        raise InputError(
            f"the pack's wheel {member} (SHA-256 {digest}) is not the wheel its signed "
            "record lists, or the record does not verify: nothing from it is installed.",
            "Run respai reproduce PACK (without --isolated) to see every difference, and "
            "restore the pack from a copy you trust.",
        )
    return path


def _missing_package(output: str) -> str | None:
    for pattern in (
        r"No matching distribution found for ([^\s]+)",
        r"Could not find a version that satisfies the requirement ([^\s]+)",
    ):
        found = re.search(pattern, output)
        if found:
            return found.group(1)
    return None


def _run(
    cmd: Sequence[str], cwd: Path, timeout: int, named_source: bool = True
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            list(cmd),
            cwd=cwd,
            env=_child_env(named_source),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(
            f"{cmd[2] if len(cmd) > 2 else cmd[0]} in the fresh environment did not finish "
            f"within {timeout} s.",
            "Check the wheelhouse or index is reachable, then try again.",
        ) from None


def reproduce_isolated(
    pack_dir: str | Path,
    *,
    wheelhouse: str | Path | None = None,
    index_url: str | None = None,
) -> IsolatedResult:
    """Rerun a pack in a fresh virtual environment built from its wheel and lock.

    Parameters
    ----------
    pack_dir
        The pack folder or its ``.zip``.
    wheelhouse
        A folder of wheels to install from, with no package index (``pip install
        --no-index --find-links``).
    index_url
        A package index to install from (``pip install --index-url``). With neither,
        pip's own configuration decides.

    Returns
    -------
    IsolatedResult
        The rerun's exit code and outcome, and every locked version that differs.

    Raises
    ------
    InputError
        When the pack cannot be read, its wheel is not the one it signed, both or a
        missing ``wheelhouse`` is given, or the environment cannot be built (the
        paragraph names the package pip could not find).
    """
    if wheelhouse is not None and index_url is not None:
        raise InputError(
            "--wheelhouse and --index-url were both given; the fresh environment is "
            "installed from one of them.",
            "Give --wheelhouse DIR to install with no package index, or --index-url URL.",
        )
    if wheelhouse is not None and not Path(wheelhouse).is_dir():
        raise InputError(
            f"--wheelhouse {wheelhouse} is not a folder.",
            "Give a folder of wheels, for example one made with: pip download -d DIR "
            "--no-deps -r LOCK (the pack's environment.lock without its respai line).",
        )
    pack = Path(pack_dir).absolute()
    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="respai-isolated-") as tmp_text:
        tmp = Path(tmp_text)
        with opened(pack) as folder:
            listed, _ = read_manifest(folder)
            engine = _read_engine(folder)
            try:
                lock_text = read_pack_text(folder / LOCK_NAME)
            except (OSError, UnicodeDecodeError) as exc:
                raise InputError(
                    f"the pack's {LOCK_NAME} cannot be read: {exc}.",
                    "Restore the pack from its .zip archive.",
                ) from None
            packed = _checked_wheel(folder, listed, engine)
            wheel = None
            if packed is not None:
                wheel = tmp / packed.name
                shutil.copyfile(packed, wheel)
        lock = parse_lock(lock_text)
        header = parse_lock_header(lock_text)
        version = str((engine.get("engine") or {}).get("version") or lock.get("respai") or "")
        if header.get("python") and header["python"] != platform.python_version():
            notes.append(
                f"python: the pack was built with Python {header['python']}; the fresh "
                f"environment uses this Python, {platform.python_version()}."
            )
        pins = [f"{name}=={v}" for name, v in sorted(lock.items()) if name != "respai"]
        if wheel is None:
            notes.append(
                f"the pack carries no engine wheel: respai=={version} was installed from "
                "the wheelhouse or index instead (the rerun's notes say whether its code "
                "is the pack's)."
            )
        target = str(wheel) if wheel is not None else f"respai=={version}"
        (tmp / "requirements.txt").write_text("\n".join(pins) + "\n", encoding="utf-8")
        if wheelhouse is not None:
            where = ["--no-index", "--find-links", str(Path(wheelhouse).absolute())]
            source = f"the wheelhouse {wheelhouse} (no package index)"
        elif index_url is not None:
            where = ["--index-url", index_url]
            source = f"the package index {index_url}"
        else:
            where = []
            source = "pip's configured package index"
        env_dir = tmp / "venv"
        try:
            import venv

            venv.EnvBuilder(with_pip=True, clear=True, symlinks=os.name != "nt").create(env_dir)
        except (OSError, subprocess.CalledProcessError) as exc:
            raise InputError(
                f"cannot create a virtual environment in {env_dir}: {exc}.",
                "This Python needs its venv and ensurepip modules (on Debian and Ubuntu: "
                "the python3-venv package).",
            ) from None
        py = str(_python(env_dir))
        install = [py, "-I", "-m", "pip", "install", "--no-input", *where]
        named = wheelhouse is not None or index_url is not None
        proc = _run(
            [*install, target, "-r", str(tmp / "requirements.txt")], tmp, PIP_TIMEOUT, named
        )
        if proc.returncode != 0:
            output = proc.stdout + proc.stderr
            missing = _missing_package(output)
            tail = " | ".join(line.strip() for line in output.strip().splitlines()[-4:])
            raise InputError(
                "cannot build the fresh environment from "
                + source
                + ": "
                + (
                    f"pip found no distribution for {missing}."
                    if missing
                    else f"pip failed (exit code {proc.returncode})."
                )
                + f" pip said: {tail}",
                "Add the missing wheels to the wheelhouse (for example: pip download -d "
                "DIR --no-deps NAME==VERSION for each line of the pack's environment.lock "
                "but respai), or name an index that holds them with --index-url.",
            )
        seen = _run([py, "-I", "-c", _VERSIONS], tmp, 300)
        try:
            found = json.loads(seen.stdout)
            installed = {normalise(n): str(v) for n, v in found["dists"].items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            raise InputError(
                "the fresh environment's Python cannot import respai: "
                + (seen.stderr.strip().splitlines() or ["no output"])[-1],
                "The pack's wheel or a locked dependency does not run on this Python "
                "and platform; rerun on the Python the pack's environment.lock names.",
            ) from None
        if not str(found.get("respai", "")).startswith(str(found.get("prefix", "\0"))):
            notes.append(f"respai in the fresh environment runs from {found.get('respai')}.")
        differs = tuple(
            (name, want, installed.get(name))
            for name, want in sorted(lock.items())
            if installed.get(name) != want
        )
        rerun = _run(
            [py, "-I", "-m", "respai", "reproduce", str(pack), "--json"], tmp, RERUN_TIMEOUT
        )
    outcome: dict[str, Any] | None
    try:
        parsed = json.loads(rerun.stdout) if rerun.stdout.strip() else None
        outcome = parsed if isinstance(parsed, dict) else None
    except ValueError:
        outcome = None
    return IsolatedResult(
        pack=Path(pack_dir),
        exit_code=rerun.returncode if rerun.returncode in (0, 1, 2) else 2,
        outcome=outcome,
        report=rerun.stderr,
        source=source,
        wheel=None if wheel is None else wheel.name,
        locked=len(lock),
        differs=differs,
        notes=tuple(notes),
    )
