"""Check a built sdist and wheel hold every file of the package the code reads.

    python scripts/check_dist.py DIST_FOLDER

``DIST_FOLDER`` holds what ``python -m build`` wrote: one ``respai-*.tar.gz`` and one
``respai-*-py3-none-any.whl``. The check fails (exit 1, naming each problem) unless:

- the wheel holds every file of ``src/respai`` (Python modules and the package data the
  code reads at run time: ``controls.yaml``, the JSON schemas, the report and sample-page
  assets, the bundled samples, ``py.typed``), byte for byte, and no file of the package
  that is not in the source tree except ``respai/_build_info.json``;
- the sdist holds the same files under ``src/respai``;
- both carry ``_build_info.json`` naming the commit the build came from (when the
  source tree is a git checkout: the same commit as ``git rev-parse HEAD``);
- the wheel's version is ``respai.version.__version__`` of the source tree, and it has
  the ``respai`` console script.

Compiled files (``__pycache__``, ``*.pyc``) are not package files and are ignored.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "respai"
BUILD_INFO = "_build_info.json"


def source_files() -> dict[str, bytes]:
    """The package's files in the source tree, by path relative to ``src/respai``."""
    out = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            out[path.relative_to(PACKAGE).as_posix()] = path.read_bytes()
    out.pop(BUILD_INFO, None)
    return out


def _version() -> str:
    text = (PACKAGE / "version.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if found is None:
        raise SystemExit("check_dist: no __version__ in src/respai/version.py")
    return found.group(1)


def _head() -> str | None:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def _compare(kind: str, found: dict[str, bytes], expected: dict[str, bytes]) -> list[str]:
    problems = []
    info = found.pop(BUILD_INFO, None)
    missing = sorted(set(expected) - set(found))
    extra = sorted(set(found) - set(expected))
    changed = sorted(p for p in set(found) & set(expected) if found[p] != expected[p])
    if missing:
        problems.append(f"the {kind} lacks {len(missing)} package files: {', '.join(missing)}")
    if extra:
        problems.append(f"the {kind} has files not in src/respai: {', '.join(extra)}")
    if changed:
        problems.append(f"the {kind} holds other bytes for: {', '.join(changed)}")
    if info is None:
        problems.append(f"the {kind} has no respai/{BUILD_INFO} (is hatch_build.py in use?)")
    else:
        data = json.loads(info)
        head = _head()
        if not isinstance(data.get("git_commit"), str):
            problems.append(f"the {kind}'s {BUILD_INFO} names no commit: {data}")
        elif head is not None and data["git_commit"] != head:
            problems.append(
                f"the {kind}'s {BUILD_INFO} names commit {data['git_commit']}, HEAD is {head}"
            )
    return problems


def check(dist: Path) -> list[str]:
    """Every problem found with the sdist and wheel in ``dist`` (empty: they are good)."""
    wheels = sorted(dist.glob("respai-*.whl"))
    sdists = sorted(dist.glob("respai-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [f"expected one wheel and one sdist in {dist}, found {wheels + sdists}"]
    expected = source_files()
    version = _version()
    problems = []
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        found = {
            n.removeprefix("respai/"): wheel.read(n)
            for n in names
            if n.startswith("respai/") and not n.endswith("/")
        }
        meta = f"respai-{version}.dist-info/"
        if f"{meta}METADATA" not in names:
            problems.append(f"the wheel is not version {version} (no {meta}METADATA)")
        else:
            entry = wheel.read(f"{meta}entry_points.txt").decode("utf-8")
            if "respai = respai.cli:entry" not in entry:
                problems.append("the wheel has no respai console script")
    problems += _compare("wheel", found, expected)
    prefix = f"respai-{version}/src/respai/"
    with tarfile.open(sdists[0]) as sdist:
        found = {}
        for member in sdist.getmembers():
            if member.isfile() and member.name.startswith(prefix):
                handle = sdist.extractfile(member)
                assert handle is not None
                found[member.name.removeprefix(prefix)] = handle.read()
    problems += _compare("sdist", found, expected)
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    problems = check(Path(sys.argv[1]))
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_dist: the sdist and wheel in {sys.argv[1]} hold every package file")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
