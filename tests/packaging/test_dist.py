"""The built wheel: its files, the commit it carries, the wheel hash a record names.

The fast tests check how :func:`respai.record.engine_code_fingerprint` reads a build's
``_build_info.json`` and pip's ``direct_url.json``; the slow one builds the sdist and the
wheel with ``python -m build --no-isolation`` (hatchling and build are test
dependencies), checks them with ``scripts/check_dist.py``, installs the wheel with pip
into a folder of its own and asks the installed copy for its fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from respai.record import fingerprint

ROOT = Path(__file__).resolve().parents[2]
SHA = "ab" * 32
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _fake_install(site: Path, direct_url: object | None) -> Path:
    """A site folder with a ``respai`` package and its ``.dist-info`` (pip's layout)."""
    package = site / "respai"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    info = site / "respai-9.9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: respai\nVersion: 9.9.9\n")
    (info / "RECORD").write_text("respai/__init__.py,,\n", encoding="utf-8")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url), encoding="utf-8")
    return package


def test_the_wheel_hash_comes_from_pips_direct_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _fake_install(
        tmp_path / "site",
        {
            "url": "file:///dist/respai-9.9.9-py3-none-any.whl",
            "archive_info": {"hash": f"sha256={SHA}", "hashes": {"sha256": SHA}},
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert fingerprint.wheel_sha256(package) == SHA
    # another copy of respai (the one a test imports) is not the installed wheel
    assert fingerprint.wheel_sha256(Path(fingerprint.__file__).parents[1]) is None
    # two .dist-info folders of respai beside the package: which one is unknown
    second = tmp_path / "site" / "respai-9.9.8.dist-info"
    second.mkdir()
    assert fingerprint.wheel_sha256(package) is None
    second.rmdir()
    # a copy of respai elsewhere, without a .dist-info beside it, is not the wheel
    elsewhere = tmp_path / "other" / "respai"
    elsewhere.mkdir(parents=True)
    assert fingerprint.wheel_sha256(elsewhere) is None
    assert fingerprint.wheel_sha256(package) == SHA


@pytest.mark.parametrize(
    "direct_url",
    [
        None,  # installed from an index: pip writes no direct_url.json
        {"url": "file:///src/respai", "dir_info": {"editable": True}},
        {"url": "file:///dist/respai-9.9.9.tar.gz", "archive_info": {"hash": f"sha256={SHA}"}},
        {"url": "file:///dist/respai-9.9.9-py3-none-any.whl", "archive_info": {}},
        {"url": "file:///d/respai-9.9.9-py3-none-any.whl", "archive_info": {"hash": "md5=ab"}},
        {"url": "file:///d/respai-9.9.9-py3-none-any.whl", "archive_info": {"hash": "sha256=x"}},
        "not an object",
    ],
)
def test_no_wheel_hash_unless_pip_recorded_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct_url: object
) -> None:
    package = _fake_install(tmp_path / "site", direct_url)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert fingerprint.wheel_sha256(package) is None


def test_the_build_info_names_the_commit(tmp_path: Path) -> None:
    info = tmp_path / "_build_info.json"
    info.write_text(json.dumps({"git_commit": COMMIT, "git_dirty": False}), encoding="utf-8")
    assert fingerprint._build_info(tmp_path) == (COMMIT, False)
    for bad in ({"git_commit": "HEAD"}, {"git_commit": None}, [COMMIT], "{"):
        info.write_text(bad if isinstance(bad, str) else json.dumps(bad), encoding="utf-8")
        assert fingerprint._build_info(tmp_path) == (None, None)
    info.unlink()
    assert fingerprint._build_info(tmp_path) == (None, None)


def test_a_checkout_names_its_commit_from_git() -> None:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    code = fingerprint.engine_code_fingerprint()
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if Path(fingerprint.__file__).resolve().is_relative_to(ROOT):
        assert (code["git_commit"], code["commit_from"]) == (head, "checkout")
        assert code["wheel_sha256"] is None


@pytest.mark.slow
def test_the_built_wheel_holds_the_package_and_names_its_commit_and_hash(
    tmp_path: Path,
) -> None:
    pytest.importorskip("hatchling")
    pytest.importorskip("build")
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("building names a commit only from a git checkout")
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    checked = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_dist.py"), str(dist)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr

    (wheel,) = dist.glob("*.whl")
    target = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target",
         str(target), str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    probe = (
        "import json, respai, respai.record as r; "
        "print(json.dumps([respai.__file__, r.engine_code_fingerprint()]))"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    ran = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    where, code = json.loads(ran.stdout)
    assert Path(where).resolve().is_relative_to(target.resolve())
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert code["git_commit"] == head
    assert code["commit_from"] == "build"
    assert code["wheel_sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
