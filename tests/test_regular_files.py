"""Only regular files are read: a FIFO or a device named as a spec, policy, model or cases
file is refused at once (exit 2), never waited on."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from respai.io import FileTooLarge, NotARegularFile, read_bounded
from respai.model_file import is_pickle_file

SAMPLE = Path(__file__).resolve().parent.parent / "src" / "respai" / "samples"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RESPAI_HOME": str(cwd / "keys")}
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _spec(folder: Path, **changes: str) -> Path:
    text = (SAMPLE / "loan_screen.yaml").read_text(encoding="utf-8")
    text = text.replace("cases: loan_screen.csv", f"cases: {SAMPLE / 'loan_screen.csv'}")
    for old, new in changes.items():
        text = text.replace(old, new)
    path = folder / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_spec_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "spec.yaml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    proc = _run("fairness", str(target), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr


def test_a_policy_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "policy.yaml")
    proc = _run("fairness", str(_spec(tmp_path)), "--policy", "policy.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


def test_a_model_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "model.onnx")
    spec = _spec(tmp_path)
    spec.write_text(
        spec.read_text(encoding="utf-8")
        + "evaluation:\n  model: model.onnx\n  features: [score]\n",
        encoding="utf-8",
    )
    proc = _run("evaluate", str(spec), "--out", "out", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".respai").exists()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_cases_file_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "cases.csv"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    spec = _spec(tmp_path, **{str(SAMPLE / "loan_screen.csv"): str(target)})
    proc = _run("fairness", str(spec), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr


def test_a_keys_json_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "keys.json")
    proc = _run("verify", "--ledger", str(tmp_path), "--keys", "keys.json", cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


def test_a_public_key_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "key.pem")
    (tmp_path / "record.json").write_text("{}", encoding="utf-8")
    proc = _run("verify", "record.json", "--key", "key.pem", cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


@pytest.fixture
def _no_hang() -> Iterator[None]:
    """Fail a test that blocks (on a FIFO) instead of hanging the run: SIGALRM in 10 s."""

    def _alarm(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("blocked for 10 s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.usefixtures("_no_hang")
@pytest.mark.parametrize("kind", ["fifo", "device", "link"])
def test_read_bounded_refuses_what_is_no_regular_file(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "f.json"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "link":
        target.symlink_to("/dev/zero")
    else:
        target = Path("/dev/zero")
    with pytest.raises(NotARegularFile) as caught:
        read_bounded(target, 100)
    assert caught.value.strerror == "not a regular file (a pipe, a device or a socket)"
    assert str(caught.value) == f"{target} is not a regular file (a pipe, a device or a socket)"
    assert not is_pickle_file(target)


def test_a_socket_is_no_regular_file() -> None:
    folder = Path(tempfile.mkdtemp(prefix="rs", dir="/tmp"))  # a socket path is short
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(folder / "s"))
            with pytest.raises(NotARegularFile):
                read_bounded(folder / "s", 100)
    finally:
        shutil.rmtree(folder)


@pytest.mark.usefixtures("_no_hang")
def test_read_bounded_reads_up_to_its_limit_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 2048)
    assert read_bounded(path, 2048) == b"x" * 2048
    with pytest.raises(FileTooLarge) as caught:
        read_bounded(path, 2047, "MAX_THING")
    assert caught.value.limit == 2047
    assert "larger than 2,047 bytes (MAX_THING)" in str(caught.value)
    with pytest.raises(FileTooLarge, match=r"larger than 1 KiB \(MAX_THING\)"):
        read_bounded(path, 1024, "MAX_THING")
    with pytest.raises(IsADirectoryError):
        read_bounded(tmp_path, 10)
