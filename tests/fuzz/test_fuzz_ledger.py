"""Fuzzing a ledger: ``respai verify --ledger`` never crashes, and a changed run fails.

A genuine ledger of two runs comes from ``respai evaluate``. Each example mutates one of
its files (a run's signed record, a checkpoint, ``ledger.json``) and runs
``respai verify --ledger .respai --json``: exit 0, 1 or 2, never anything else, nothing
written on exit 2, and exit 0 never when a run's bytes changed (each run's Merkle leaf is
the SHA-256 of its whole file).
"""

from __future__ import annotations

import shutil
import tempfile
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
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  attributes:
    sex: [female, male]
  min_cell: 5
  rules:
    - {id: error-by-sex, rate: error, attribute: sex, worst_group: {max: 0.6}}
"""
CASES = "label,prediction,sex\n" + "".join(
    f"{i % 2},{(i // 2) % 2},{('female', 'male')[i % 2]}\n" for i in range(40)
)


@dataclass(frozen=True)
class Ledger:
    """A genuine two-run ledger and its key folder, every file by its relative path."""

    files: dict[str, bytes]


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ledger]:
    folder = tmp_path_factory.mktemp("ledger")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "cases.csv").write_text(CASES, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "home"))
        mp.chdir(folder)
        for out in ("o1", "o2"):
            assert main(["evaluate", "spec.yaml", "--out", out]) in (0, 1, 3, 4)
    files = {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for top in (".respai", "home")
        for p in (folder / top).rglob("*")
        if p.is_file()
    }
    yield Ledger(files)


def _folder(root: Path, files: dict[str, bytes]) -> Path:
    folder = Path(tempfile.mkdtemp(dir=root))
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if name.endswith(".key"):
            path.chmod(0o600)
    return folder


def _verify(cli: Any, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("RESPAI_HOME", str(folder / "home"))
    before = cli.snapshot(folder)
    run = cli.run(["verify", "--ledger", ".respai", "--json"], folder)
    cli.check(run, (0, 1, 2), folder, before)
    return run


def test_the_genuine_ledger_verifies(
    ledger: Ledger, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _verify(cli, _folder(tmp_path, ledger.files), monkeypatch)
    assert run.code == 0, run.err


TOKENS = (b'"', b"{", b"}", b",", b"\n", b"0", b"9" * 30, b"=", b"\xe2\x80\x94 ", b"\\u0000")


@settings(settings.get_profile("respai-fuzz"), max_examples=40)
@given(data=st.data())
def test_mutated_ledger_file(
    data: st.DataObject,
    ledger: Ledger,
    cli: Any,
    mutate: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = sorted(n for n in ledger.files if n.startswith(".respai/") and n != ".respai/lock")
    name = data.draw(st.sampled_from(names), label="file")
    changed = data.draw(mutate(ledger.files[name], TOKENS), label="bytes")
    folder = _folder(tmp_path, {**ledger.files, name: changed})
    try:
        run = _verify(cli, folder, monkeypatch)
        if run.code == 0 and name.startswith(".respai/runs/"):
            assert changed == ledger.files[name], run.err
    finally:
        shutil.rmtree(folder)
