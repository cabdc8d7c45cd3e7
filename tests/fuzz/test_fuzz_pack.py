"""Fuzzing a pack's manifest: ``respai reproduce`` never crashes, hangs or writes.

A genuine pack comes from ``respai pack`` on a small LL144 audit. Each example mutates
the bytes of ``MANIFEST.json`` inside the pack's ``.zip`` (paths, hashes, sizes, the
inputs it names: tokens such as ``../``, absolute paths, NUL bytes, deep nesting and
5,000-digit sizes) and runs ``respai reproduce pack.zip``: exit 0 only when every field
reproduce checks is unchanged (all but ``format``, ``engine`` and unknown keys), 1 when
something differs, 2 when the pack cannot be read; never anything else, and nothing
written in the working folder.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.cli import main

pytestmark = pytest.mark.fuzz

SPEC = """\
system:
  name: screener
  version: "1.0"
  first_distributed: "2025-03-01"
data:
  cases: decisions.csv
  source: historical
  explanation: Decisions of 2025, self-reported categories.
ll144:
  audit_date: "2026-11-30"
  kind: selection
  selected: advanced
  sex: sex
  race: race
  auditor:
    name: A. Auditor
    organisation: Independent Audits LLC
    independence_statement: No involvement in building, selling or using the tool.
"""
PLAN = [("Male", "White", 40, 16), ("Female", "White", 40, 12), ("Male", "Asian", 30, 12)]


def _decisions() -> str:
    rows = ["applicant_id,sex,race,advanced"]
    for sex, race, n, k in PLAN:
        picks = [1] * k + [0] * (n - k)
        random.Random(len(rows)).shuffle(picks)
        rows += [f"A{len(rows) + i:04d},{sex},{race},{p}" for i, p in enumerate(picks)]
    return "\n".join(rows) + "\n"


@dataclass(frozen=True)
class Pack:
    """A genuine pack archive and the name of its manifest member."""

    members: dict[str, bytes]
    manifest: str


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pack]:
    folder = tmp_path_factory.mktemp("pack")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "decisions.csv").write_text(_decisions(), encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "home"))
        mp.chdir(folder)
        assert main(["pack", "spec.yaml", "--out", "pk", "--no-ledger"]) == 0
    with zipfile.ZipFile(folder / "pk.zip") as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    (manifest,) = [name for name in members if name.endswith("/MANIFEST.json")]
    yield Pack(members, manifest)


def _write_zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_the_genuine_pack_reproduces(pack: Pack, cli: Any, tmp_path: Path) -> None:
    _write_zip(tmp_path / "pack.zip", pack.members)
    run = cli.run(["reproduce", "pack.zip"], tmp_path)
    assert run.code == 0, run.err


MANIFEST_TOKENS = (
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"null",
    b"../",
    b"../../etc/passwd",
    b"/etc/passwd",
    b"inputs/",
    b"\\\\",
    b"\\u0000",
    b"record.json",
    b"MANIFEST.json",
    b"-1",
    b"9" * 5000,
    b"[" * 300 + b"]" * 300,
    b'"path": "inputs/../../x", ',
    b'"decisions": "/dev/zero", ',
    b'"spec": "MANIFEST.json", ',
)


@settings(settings.get_profile("respai-fuzz"), max_examples=25)
@given(data=st.data())
def test_mutated_manifest(
    data: st.DataObject, pack: Pack, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    original = pack.members[pack.manifest]
    manifest = data.draw(mutate(original, MANIFEST_TOKENS), label="MANIFEST.json")
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    try:
        _write_zip(folder / "pack.zip", {**pack.members, pack.manifest: manifest})
        before = cli.snapshot(folder)
        run = cli.run(["reproduce", "pack.zip", "--json"], folder)
        cli.check(run, (0, 1, 2), folder, before)
        if run.code == 0:
            assert _checked(manifest) == _checked(original), run.err
    finally:
        shutil.rmtree(folder)


def _checked(manifest: bytes) -> object:
    """What reproduce checks a manifest for: everything but its format and engine (an
    other engine is a note, not a difference) and keys it does not know."""
    doc = json.loads(manifest)
    files = sorted((f["path"], f["sha256"], f["size_bytes"]) for f in doc["files"])
    return [doc[k] for k in ("kind", "inputs", "run_id", "key_id", "created")], files


@pytest.mark.parametrize("field", ["run_id", "key_id", "created", "size_bytes"])
def test_an_edited_manifest_field_is_a_difference(
    field: str, pack: Pack, cli: Any, tmp_path: Path
) -> None:
    """Found by the fuzzer: these fields were read by nobody, so an edit read IDENTICAL."""
    doc = json.loads(pack.members[pack.manifest])
    if field == "size_bytes":
        doc["files"][0]["size_bytes"] += 1
    else:
        doc[field] = "edited"
    edited = json.dumps(doc, indent=2).encode()
    _write_zip(tmp_path / "pack.zip", {**pack.members, pack.manifest: edited})
    run = cli.run(["reproduce", "pack.zip", "--json"], tmp_path)
    assert run.code == 1, run.err
    (found,) = json.loads(run.out)["differences"]
    assert found["where"] == "MANIFEST.json" and field in found["path"]
