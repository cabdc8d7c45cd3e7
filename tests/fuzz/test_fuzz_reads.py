"""The fuzz suite runs under a memory cap, and an endless file is never read to its end.

Every command the suite runs is capped (``tests/fuzz/conftest.py``, :func:`memory_cap`):
a read without a bound fails its example with a ``MemoryError``. These tests check the
cap is there, then run the reads that once had no bound (``/dev/zero`` as a record, a
pack, a ledger's ``ledger.json``, run or checkpoint) under it: each is refused at once.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

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


def test_each_command_runs_under_a_memory_cap(
    capped: Callable[[], AbstractContextManager[int]],
) -> None:
    # the cap the runner sets holds: an allocation past it fails, and it is lifted after
    with capped() as cap, pytest.raises(MemoryError):
        bytearray(cap)
    assert len(bytearray(1 << 30)) == 1 << 30


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding a signed record (``out/record.json``), its ledger and keys."""
    folder = tmp_path_factory.mktemp("signed")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "cases.csv").write_text(CASES, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "home"))
        mp.chdir(folder)
        assert main(["evaluate", "spec.yaml", "--out", "out"]) in (0, 1, 3, 4)
    yield folder


def _zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["verify", "/dev/zero"], 1),
        (["verify", "zero.json"], 1),
        (["verify", "out/record.json", "--data", "/dev/zero"], 1),
        (["verify", "--ledger", "ledger.json"], 1),
        (["verify", "--ledger", "run"], 1),
        (["verify", "--ledger", "checkpoint"], 1),
        (["report", "/dev/zero", "-o", "r.html"], 2),
        (["export", "/dev/zero", "--format", "junit", "-o", "r.xml"], 2),
        (["reproduce", "/dev/zero"], 2),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, list) else str(v),
)
def test_an_endless_file_is_refused_under_the_cap(
    cli: Any, signed: Path, tmp_path: Path, argv: list[str], code: int
) -> None:
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    (folder / "zero.json").symlink_to("/dev/zero")
    keys = ["--keys", str(folder / "home" / "keys.json")]
    if argv[:2] == ["verify", "--ledger"]:
        book = folder / ".respai"
        which = argv[2]
        if which == "ledger.json":
            _zero(book / "ledger.json")
        elif which == "run":
            _zero(next((book / "runs").iterdir()))
        else:
            _zero(next((book / "checkpoints").iterdir()))
        argv = ["verify", "--ledger", str(book)]
    if argv[0] != "reproduce":
        argv = [*argv, *keys]
    before = cli.snapshot(folder)
    run = cli.run(argv, folder)
    cli.check(run, [code], folder, before)
    assert "not a regular file" in run.err, run.err
