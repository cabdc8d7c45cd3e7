"""Hatch build hook: write the commit a wheel or sdist was built from into the package.

A non-editable install has no git checkout to ask at run time, so the build writes
``respai/_build_info.json`` (``{"git_commit": ..., "git_dirty": ...}``) into the sdist and
the wheel, and :func:`respai.record.engine_code_fingerprint` reads it back. When the build
runs from a git checkout, the commit is ``git rev-parse HEAD`` and ``git_dirty`` says
whether the package folder differs from it. When it runs from an unpacked sdist (``python
-m build`` builds the wheel from the sdist), there is no checkout: the file the sdist
carries is used as it is. An editable install writes nothing (the checkout is asked at
run time).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

NAME = "_build_info.json"


def _git(root: str, *args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", root, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def build_info(root: str) -> dict[str, Any] | None:
    """The commit and dirty flag of the checkout at ``root``; None when it is not one."""
    tracked = _git(root, "ls-files", "--", "src/respai/__init__.py")
    if not tracked or not tracked.strip():
        return None
    head = _git(root, "rev-parse", "HEAD")
    if head is None or not head.strip():
        return None
    status = _git(root, "status", "--porcelain", "--", "src/respai")
    return {
        "git_commit": head.strip(),
        "git_dirty": None if status is None else bool(status.strip()),
    }


class CustomBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Add ``respai/_build_info.json`` to the sdist and the (non-editable) wheel."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Write the build info to a temporary file and include it in the artifact."""
        if self.target_name == "wheel" and version == "editable":
            return
        info = build_info(self.root)
        if info is None:
            return  # an unpacked sdist: it carries src/respai/_build_info.json already
        self._tmp = tempfile.mkdtemp(prefix="respai-build-info-")
        path = Path(self._tmp) / NAME
        path.write_text(json.dumps(info, sort_keys=True) + "\n", encoding="utf-8")
        inside = "respai" if self.target_name == "wheel" else "src/respai"
        build_data["force_include"][str(path)] = f"{inside}/{NAME}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the temporary file."""
        tmp = getattr(self, "_tmp", None)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
