"""Every path a command reads is a regular file read within a bound.

For each command path that reads a file a user or another file names (a record,
``--data``, a ledger's ``ledger.json``, runs, checkpoints and lock, a pack, a monitor
batch, ``--keys``, ``--key``, the ``keys.json`` beside a signing key), four kinds of
file that once hung or read without end: a FIFO, ``/dev/zero`` itself, a symbolic link
to ``/dev/zero``, and a (sparse) file one byte over the limit. Each is refused at once:
exit 1 from ``respai verify`` (the record or ledger does not verify), exit 2 elsewhere,
with a message naming the file and, for a file too large, the limit.

Each command runs in a subprocess under an address-space cap of about 2 GiB
(``RLIMIT_AS``) and a timeout, so a read without a bound fails its test (exit 70,
``MemoryError``) and a hang fails it by the timeout: neither can take the machine or CI
with it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from respai.limits import (
    MAX_CHECKPOINT_BYTES,
    MAX_JSON_BYTES,
    MAX_KEY_FILE_BYTES,
)

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

#: The most address space one command may map: an unbounded read stops here. A run maps
#: some 1.5 GiB (DuckDB reserves much of it), and 64 MiB per core for the engine's threads.
ADDRESS_SPACE = 2 * 1024**3 + (64 << 20) * (os.cpu_count() or 1)
#: The longest one command may take: a hang fails here.
TIMEOUT = 60

_RUNNER = (
    "import resource, sys; "
    f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE}, {ADDRESS_SPACE})); "
    "from respai.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RESPAI_HOME": str(folder / "home")}
    return subprocess.run(
        [sys.executable, "-c", _RUNNER, *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a spec, its cases, a signed record (``out/``), the ledger and keys."""
    folder = tmp_path_factory.mktemp("signed")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "cases.csv").write_text(CASES, encoding="utf-8")
    proc = _run(folder, "evaluate", "spec.yaml", "--out", "out")
    assert proc.returncode in (0, 1, 3, 4), proc.stderr
    return folder


# --- the four kinds of file -------------------------------------------------------------


def _fifo(path: Path, limit: int) -> None:
    os.mkfifo(path)


def _link(path: Path, limit: int) -> None:
    path.symlink_to("/dev/zero")


def _oversize(path: Path, limit: int) -> None:
    with path.open("wb") as fh:  # sparse: one byte over the limit, no disk used
        fh.truncate(limit + 1)


KINDS: dict[str, Callable[[Path, int], None]] = {
    "fifo": _fifo,
    "device": _link,  # replaced by the path /dev/zero itself where a command names it
    "link": _link,
    "oversize": _oversize,
}


@dataclass(frozen=True)
class Case:
    """A command path: which file it reads, the command, the exit code and the words."""

    target: str  # the file to replace, relative to the folder
    argv: tuple[str, ...]  # ``{target}`` stands for the file as the command names it
    code: int
    limit: int = 0  # 0: the path has no size limit (data), so no oversize case
    named: bool = True  # the command names the target (so ``/dev/zero`` can stand in)


KEYS = ("--keys", "home/keys.json")
CASES_BY_PATH: dict[str, Case] = {
    "verify-record": Case("rec.json", ("verify", "{target}", *KEYS), 1, MAX_JSON_BYTES),
    "verify-data": Case("data.csv", ("verify", "out/record.json", "--data", "{target}", *KEYS), 1),
    "verify-ledger.json": Case(
        ".respai/ledger.json", ("verify", "--ledger", ".respai", *KEYS), 1, MAX_JSON_BYTES, False
    ),
    "verify-ledger-run": Case(
        ".respai/runs/*", ("verify", "--ledger", ".respai", *KEYS), 1, MAX_JSON_BYTES, False
    ),
    "verify-ledger-checkpoint": Case(
        ".respai/checkpoints/*",
        ("verify", "--ledger", ".respai", *KEYS),
        1,
        MAX_CHECKPOINT_BYTES,
        False,
    ),
    "reproduce": Case("pack.zip", ("reproduce", "{target}"), 2),
    "reproduce-manifest": Case(
        "pack/MANIFEST.json", ("reproduce", "pack"), 2, MAX_JSON_BYTES, False
    ),
    "report": Case("rec.json", ("report", "{target}", *KEYS, "-o", "r.html"), 2, MAX_JSON_BYTES),
    "export": Case(
        "rec.json",
        ("export", "{target}", *KEYS, "--format", "junit", "-o", "r.xml"),
        2,
        MAX_JSON_BYTES,
    ),
    "monitor-batch": Case("batch.csv", ("monitor", "spec.yaml", "{target}"), 2),
    "keys.json": Case(
        "k.json", ("verify", "out/record.json", "--keys", "{target}"), 2, MAX_KEY_FILE_BYTES
    ),
    "public-key": Case(
        "k.pem", ("verify", "out/record.json", "--key", "{target}"), 2, MAX_KEY_FILE_BYTES
    ),
    "keys.json-beside-the-signing-key": Case(
        "home/keys.json", ("evaluate", "spec.yaml", "--out", "o2"), 2, MAX_KEY_FILE_BYTES, False
    ),
}
LIMIT_NAMES = {
    MAX_JSON_BYTES: "MAX_JSON_BYTES",
    MAX_CHECKPOINT_BYTES: "MAX_CHECKPOINT_BYTES",
    MAX_KEY_FILE_BYTES: "MAX_KEY_FILE_BYTES",
}
PARAMS = [
    pytest.param(name, kind, id=f"{name}-{kind}")
    for name, case in CASES_BY_PATH.items()
    for kind in KINDS
    if not (kind == "oversize" and not case.limit) and not (kind == "device" and not case.named)
]


def _tree(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): p.lstat().st_mtime_ns
        for p in folder.rglob("*")
        if not p.name.startswith(".tmp")
    }


@pytest.mark.parametrize(("name", "kind"), PARAMS)
def test_a_file_that_is_no_bounded_regular_file_is_refused_at_once(
    signed: Path, tmp_path: Path, name: str, kind: str
) -> None:
    case = CASES_BY_PATH[name]
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    (folder / "pack").mkdir()
    target = next(folder.glob(case.target)) if "*" in case.target else folder / case.target
    target.unlink(missing_ok=True)
    KINDS[kind](target, case.limit)
    shown = "/dev/zero" if kind == "device" else str(target.relative_to(folder))
    argv = [a.replace("{target}", shown) for a in case.argv]
    before = _tree(folder)
    proc = _run(folder, *argv)
    assert proc.returncode == case.code, proc.stderr
    if kind == "oversize":
        assert LIMIT_NAMES[case.limit] in proc.stderr, proc.stderr
    else:
        assert "not a regular file" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    if case.code == 2:  # refused: nothing written, no ledger entry, no key
        assert proc.stdout == ""
        assert _tree(folder) == before


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_data_folder_holding_no_regular_file_is_not_read(
    signed: Path, tmp_path: Path, kind: str
) -> None:
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    (folder / "data").mkdir()
    (folder / "data" / "part-0.csv").write_text(CASES, encoding="utf-8")
    KINDS[kind](folder / "data" / "part-1.csv", 0)
    proc = _run(folder, "verify", "out/record.json", "--data", "data", *KEYS)
    assert proc.returncode == 1, proc.stderr
    assert "FAIL  data:" in proc.stderr and "not a regular file" in proc.stderr


def test_a_data_file_that_is_no_regular_file_is_not_recounted(
    signed: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    os.mkfifo(folder / "data.csv")
    proc = _run(
        folder, "verify", "out/record.json", "--data", "data.csv", "--spec", "spec.yaml", *KEYS
    )
    assert proc.returncode == 1, proc.stderr
    assert "FAIL  counts: data.csv not recounted" in proc.stderr


@pytest.mark.parametrize("kind", ["fifo", "link"])
def test_a_ledger_lock_that_is_no_regular_file_appends_nothing(
    signed: Path, tmp_path: Path, kind: str
) -> None:
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    lock = folder / ".respai" / "lock"
    lock.unlink()
    KINDS[kind](lock, 0)
    before = _tree(folder)
    proc = _run(folder, "evaluate", "spec.yaml", "--out", "o2")
    assert proc.returncode == 2, proc.stderr
    assert "ledger lock" in proc.stderr and "not a regular file" in proc.stderr
    assert _tree(folder) == before


def test_a_ledger_json_that_is_a_fifo_is_not_replaced(signed: Path, tmp_path: Path) -> None:
    # appending to a ledger whose ledger.json is a FIFO: refused, not a new ledger over it
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    (folder / ".respai" / "ledger.json").unlink()
    os.mkfifo(folder / ".respai" / "ledger.json")
    proc = _run(folder, "evaluate", "spec.yaml", "--out", "o2")
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr
    assert (folder / ".respai" / "ledger.json").is_fifo()
    assert not (folder / "o2").exists()


def test_log_names_a_run_that_is_a_fifo(signed: Path, tmp_path: Path) -> None:
    folder = tmp_path / "w"
    shutil.copytree(signed, folder, symlinks=True)
    run = next((folder / ".respai" / "runs").iterdir())
    run.unlink()
    os.mkfifo(run)
    proc = _run(folder, "log", ".respai")
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert "not a regular file" in proc.stdout + proc.stderr
