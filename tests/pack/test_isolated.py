"""A pack that reruns a year later, offline: its lock, its wheel, reproduce --isolated.

The fast tests check ``environment.lock`` (the engine's dependency closure, checked
against pyproject.toml's dependencies and installed versions, and on a made-up set of
distributions with markers and extras), the ``--wheel`` refusals, the default choice of
the wheel the running copy was installed from, and that the wheel and the lock are in the
manifest and the signed file list. The slow end-to-end test builds the engine's wheel,
packs with it and reruns the pack with ``reproduce --isolated --wheelhouse DIR``: it needs
a wheelhouse of the locked dependencies (no test may use the network), named by the
environment variable ``RESPAI_TEST_WHEELHOUSE`` (``.ci/run`` downloads one), and is
skipped with that reason without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import respai
from respai.errors import InputError
from respai.pack import build_pack, reproduce_isolated, reproduce_pack
from respai.pack.documents import parse_lock
from respai.pack.environment import (
    choose_wheel,
    dependency_closure,
    lock_text,
    normalise,
    parse_lock_header,
)
from respai.record import engine_code_fingerprint
from respai.version import __version__

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(respai.__file__).resolve().parent

BLOCK = {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}
PLAN = [  # sex, race, applicants, selected
    ("Male", "White", 80, 32),
    ("Female", "White", 70, 21),
    ("Male", "Asian", 40, 18),
    ("Female", "Asian", 35, 10),
    ("Female", "Black or African American", 30, 6),
]


@pytest.fixture(autouse=True)
def _keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))


def _spec(folder: Path, ll: SimpleNamespace) -> Path:
    rows = []
    for sex, race, n, k in PLAN:
        picks = [1] * k + [0] * (n - k)
        random.Random(len(rows)).shuffle(picks)
        rows += [(f"A{len(rows) + i:04d}", sex, race, picks[i]) for i in range(n)]
    ll.write_csv(folder / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], rows)
    return Path(ll.write_spec(folder, BLOCK))


def _wheel(path: Path, *, version: str = __version__, name: str = "respai") -> Path:
    """A wheel of the running package's files, as hatchling lays one out."""
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted(PACKAGE.rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts and file.suffix != ".pyc":
                zf.write(file, "respai/" + file.relative_to(PACKAGE).as_posix())
        zf.writestr(
            f"{name}-{version}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        )
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- the lock


def test_the_lock_is_the_engines_dependency_closure() -> None:
    text = lock_text()
    lock = parse_lock(text)
    # every dependency pyproject.toml declares, at its installed version, and respai
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    for req in declared["dependencies"]:
        name = normalise(req.split(">")[0].split("=")[0].split("[")[0].strip())
        assert lock[name] == metadata.version(name), name
    assert lock["respai"] == __version__
    # the test extra is not the engine's: none of its own packages is locked
    for extra_only in ("pytest", "hypothesis", "statsmodels", "fairlearn", "mkdocs-material"):
        assert extra_only not in lock
    # closed: every unconditional requirement of a locked distribution is locked too
    for name in lock:
        for req in metadata.distribution(name).requires or []:
            if ";" in req:
                continue
            found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
            assert found is not None, req
            dep = normalise(found.group(1))
            assert dep in lock, (name, req)
    # each line is an exact pin of the installed version; the header names Python
    for name, version in lock.items():
        assert metadata.version(name) == version
    header = parse_lock_header(text)
    assert header["python"] == platform.python_version()
    assert header["machine"] == platform.machine()


def test_the_closure_follows_markers_and_extras(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"

    def dist(name: str, version: str, *requires: str) -> None:
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
        lines += [f"Requires-Dist: {r}" for r in requires]
        (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")

    dist(
        "zz-root",
        "1.0",
        "zz_a>=1",
        'zz-b; extra == "plots"',  # an extra of the root: not followed
        'zz-c; python_version < "3"',  # a marker that does not hold
        "zz-d[fast]",  # an extra a requirement asks for: followed
        "zz-missing",  # not installed: left out
    )
    dist("zz_a", "2.0")
    dist("zz-b", "1.0")
    dist("zz-c", "1.0")
    dist("zz-d", "3.1", 'zz-e; extra == "fast"', 'zz-f; extra == "slow"')
    dist("zz-e", "0.5")
    dist("zz-f", "0.5")
    monkeypatch.syspath_prepend(str(site))
    got = dependency_closure("zz-root")
    assert got == [("zz_a", "2.0"), ("zz-d", "3.1"), ("zz-e", "0.5"), ("zz-root", "1.0")]
    assert "zz-root==1.0\n" in lock_text(got)


# ---------------------------------------------------------------- the wheel


def test_a_wheel_of_the_running_code_is_taken(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / f"respai-{__version__}-py3-none-any.whl")
    code = {**engine_code_fingerprint(), "wheel_sha256": None}
    choice = choose_wheel(wheel, code, PACKAGE)
    assert (choice.path, choice.sha256, choice.source) == (wheel, _sha(wheel), "--wheel")
    assert choice.member == f"wheel/{wheel.name}"
    # the running engine's recorded wheel hash, when it is this file's, is no obstacle
    assert choose_wheel(wheel, {**code, "wheel_sha256": _sha(wheel)}, PACKAGE).sha256


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: _wheel(p, version="9.9.9"), "respai 9.9.9, but the engine running"),
        (lambda p: _wheel(p, name="other"), "other " + __version__),
        (lambda p: p.write_bytes(b"not a zip") and p, "cannot be read as a wheel"),
        (lambda p: p.parent / "nowhere.whl", "is not a file"),
    ],
)
def test_a_wheel_that_is_not_the_running_engines_is_refused(
    tmp_path: Path, make: Callable[[Path], Path], says: str
) -> None:
    path = make(tmp_path / "respai.whl")
    with pytest.raises(InputError, match="--wheel") as err:
        choose_wheel(path, engine_code_fingerprint(), PACKAGE)
    assert says in err.value.message


def test_a_wheel_of_other_code_or_another_build_is_refused(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "respai.whl")
    code = {**engine_code_fingerprint(), "wheel_sha256": "ab" * 32}
    with pytest.raises(InputError, match="another build"):
        choose_wheel(wheel, code, PACKAGE)
    other = tmp_path / "other"
    shutil.copytree(PACKAGE, other, ignore=shutil.ignore_patterns("__pycache__"))
    (other / "version.py").write_text("__version__ = " + repr(__version__) + "  # edited\n")
    with pytest.raises(InputError, match=r"respai/version\.py\): the wheel was built from other"):
        choose_wheel(wheel, {**code, "wheel_sha256": None}, other)


def test_without_wheel_the_installed_wheel_is_used_only_when_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = _wheel(tmp_path / f"respai-{__version__}-py3-none-any.whl")
    direct = {"url": wheel.as_uri(), "archive_info": {"hashes": {"sha256": _sha(wheel)}}}

    class Dist:
        def read_text(self, name: str) -> str | None:
            return json.dumps(direct) if name == "direct_url.json" else None

    code = {**engine_code_fingerprint(), "wheel_sha256": _sha(wheel)}
    monkeypatch.setattr(metadata, "distribution", lambda name: Dist())
    choice = choose_wheel(None, code, PACKAGE)
    assert (choice.path, choice.source) == (wheel, "installed")
    # a running copy from a checkout (no wheel hash): no wheel, and why
    none = choose_wheel(None, {**code, "wheel_sha256": None}, PACKAGE)
    assert none.path is None and "not installed from a wheel file" in str(none.reason)
    assert none.to_dict() == {"path": None, "sha256": None, "source": None, "reason": none.reason}
    # the file changed since: not used
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    assert "no longer has the SHA-256" in str(choose_wheel(None, code, PACKAGE).reason)
    wheel.unlink()
    assert "no longer exists" in str(choose_wheel(None, code, PACKAGE).reason)


# ---------------------------------------------------------------- the pack


def test_the_wheel_and_the_lock_are_listed_and_signed(tmp_path: Path, ll: SimpleNamespace) -> None:
    from respai.record import KeyRing, load_public_key, verify_envelope

    wheel = _wheel(tmp_path / f"respai-{__version__}-py3-none-any.whl")
    res = build_pack(_spec(tmp_path, ll), tmp_path / "out" / "pack", today=ll.TODAY, wheel=wheel)
    member = f"wheel/{wheel.name}"
    assert res.wheel == member and res.wheel_note == "--wheel"
    assert (res.out_dir / member).read_bytes() == wheel.read_bytes()
    manifest = json.loads((res.out_dir / "MANIFEST.json").read_text("utf-8"))
    listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    assert manifest["format"] == "1.1"
    report = verify_envelope(
        (res.out_dir / "record.json").read_bytes(),
        KeyRing.from_public_key(load_public_key(res.out_dir / "public_key.pem")),
    )
    assert report.ok
    assert report.predicate is not None
    signed = {f["path"]: f["sha256"] for f in report.predicate["pack"]["files"]}
    for name in (member, "environment.lock", "engine.json"):
        assert listed[name] == signed[name] == _sha(res.out_dir / name), name
    engine = json.loads((res.out_dir / "engine.json").read_text("utf-8"))
    assert engine["wheel"] == {"path": member, "sha256": _sha(wheel), "source": "--wheel"}
    assert "--isolated" in engine["reinstall"]
    assert parse_lock((res.out_dir / "environment.lock").read_text("utf-8")) == {
        normalise(n): v for n, v in dependency_closure()
    }
    with zipfile.ZipFile(res.zip_path) as zf:
        assert zf.read(f"pack/{member}") == wheel.read_bytes()
    assert reproduce_pack(res.out_dir).identical
    # a changed wheel is a hash difference, and --isolated installs nothing from it
    (res.out_dir / member).write_bytes(wheel.read_bytes() + b"\0")
    assert any(d.path == member for d in reproduce_pack(res.out_dir).differences)
    with pytest.raises(InputError, match="nothing from it is installed"):
        reproduce_isolated(res.out_dir, wheelhouse=tmp_path)


def test_pack_says_when_it_carries_no_wheel(
    tmp_path: Path, ll: SimpleNamespace, cli_run: Callable[..., Any]
) -> None:
    spec = _spec(tmp_path, ll)
    run = cli_run("pack", str(spec), "--out", str(tmp_path / "pack"), "--no-ledger")
    assert run.code == 0, run.err
    assert "engine wheel: NONE" in run.err and "--wheel PATH" in run.err
    engine = json.loads((tmp_path / "pack" / "engine.json").read_text("utf-8"))
    assert engine["wheel"]["path"] is None and engine["wheel"]["reason"]
    assert not (tmp_path / "pack" / "wheel").exists()
    bad = cli_run(
        "pack", str(spec), "--out", str(tmp_path / "p2"), "--no-ledger", "--wheel", "x.whl"
    )
    assert bad.code == 2 and "--wheel x.whl is not a file" in bad.err
    assert not (tmp_path / "p2").exists()


def test_reproduce_isolated_refuses_bad_options(
    tmp_path: Path, cli_run: Callable[..., Any]
) -> None:
    assert cli_run("reproduce", "p", "--wheelhouse", str(tmp_path)).code == 2
    both = cli_run(
        "reproduce", "p", "--isolated", "--wheelhouse", str(tmp_path), "--index-url", "u"
    )
    assert both.code == 2 and "both given" in both.err
    gone = cli_run("reproduce", "p", "--isolated", "--wheelhouse", str(tmp_path / "none"))
    assert gone.code == 2 and "is not a folder" in gone.err
    assert cli_run("reproduce", str(tmp_path / "p"), "--isolated").code == 2


# ---------------------------------------------------------------- end to end


def _built_wheel(out: Path) -> Path:
    pytest.importorskip("hatchling", reason="building the wheel needs hatchling (test extra)")
    pytest.importorskip("build", reason="building the wheel needs build (test extra)")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return next(out.glob("respai-*.whl"))


@pytest.mark.slow
def test_an_empty_wheelhouse_names_the_missing_package(
    tmp_path: Path, ll: SimpleNamespace, cli_run: Callable[..., Any]
) -> None:
    wheel = _built_wheel(tmp_path / "dist")
    res = build_pack(_spec(tmp_path, ll), tmp_path / "pack", today=ll.TODAY, wheel=wheel)
    (tmp_path / "empty").mkdir()
    run = cli_run(
        "reproduce", str(res.zip_path), "--isolated", "--wheelhouse", str(tmp_path / "empty")
    )
    assert run.code == 2
    assert "cannot build the fresh environment" in run.err
    assert "pip found no distribution for" in run.err


@pytest.mark.slow
def test_a_pack_reruns_identically_in_a_fresh_environment_with_no_index(
    tmp_path: Path, ll: SimpleNamespace, cli_run: Callable[..., Any]
) -> None:
    house = os.environ.get("RESPAI_TEST_WHEELHOUSE")
    if not house:
        pytest.skip(
            "needs RESPAI_TEST_WHEELHOUSE, a folder of the locked dependencies' wheels "
            "(tests use no network; .ci/run downloads one)"
        )
    wheel = _built_wheel(tmp_path / "dist")
    spec = _spec(tmp_path, ll)
    made = cli_run(
        "pack", str(spec), "--out", str(tmp_path / "pack"), "--no-ledger", "--wheel", str(wheel)
    )
    assert made.code == 0, made.err
    run = cli_run(
        "reproduce", str(tmp_path / "pack.zip"), "--isolated", "--wheelhouse", house, "--json"
    )
    assert run.code == 0, run.err
    out = json.loads(run.out)
    assert out["identical"] and out["reproduce"]["identical"], run.err
    assert out["versions_differ"] == [], out
    assert out["wheel"] == wheel.name
    assert "IDENTICAL" in run.err and "every installed version is the locked one" in run.err
