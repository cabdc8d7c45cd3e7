"""The fuzzing suite's shared parts: the ``fuzz`` marker, one fixed budget, one runner.

Every test in ``tests/fuzz/`` feeds mutated bytes to a command, in-process through
:func:`respai.cli.main`, and checks the contract of hostile input (``docs/security.md``):

* the exit code is one the command documents (never 70, the code of a bug);
* no traceback: ``RESPAI_DEBUG=1`` is set while the command runs, so an unexpected
  exception escapes :func:`~respai.cli.main` and fails the example with its traceback,
  which hypothesis then shrinks to a minimal input;
* no hang: each run has a hard time limit (:data:`RUN_SECONDS`, by ``SIGALRM``);
* no unbounded read: each run has a memory cap (:func:`memory_cap`: the address space the
  test process holds when the command starts, plus :data:`MEMORY_HEADROOM`, about 1 GiB,
  set with ``setrlimit(RLIMIT_AS)``), so a read without a bound (``/dev/zero`` as a
  record) fails the example with a ``MemoryError`` instead of taking the machine's memory;
* on exit 2 nothing is written: stdout is empty and the working folder is unchanged.

The budget is fixed: the ``respai-fuzz`` hypothesis profile runs a fixed number of
examples per test (``max_examples`` on each test) with ``derandomize=True``, so a CI run
tries the same inputs every time, and takes the same time: about 1,000 examples, some
30 seconds of CPU (under 90 seconds of wall time on a shared 2-core machine).
``pytest -m fuzz`` runs only this suite and ``-m "not fuzz"`` skips it.
"""

from __future__ import annotations

import os
import resource
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, settings
from hypothesis import strategies as st

from respai.cli import main

#: The longest one command may take before the example fails as a hang (seconds).
RUN_SECONDS = 30

#: How much address space one command may map beyond what the test process held when it
#: started (bytes): 1 GiB, and 64 MiB per core for the engine's threads (a stack and an
#: allocator arena each). The commands fuzzed here read inputs of kilobytes; DuckDB's
#: buffer pool is capped at 512 MB (``RESPAI_MEMORY_LIMIT``).
MEMORY_HEADROOM = (1 << 30) + (64 << 20) * (os.cpu_count() or 1)


def address_space() -> int:
    """The address space this process maps now, in bytes (``VmSize``; Linux only)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("/proc/self/status has no VmSize line")  # pragma: no cover


@contextmanager
def memory_cap(headroom: int = MEMORY_HEADROOM) -> Iterator[int]:
    """Cap this process's address space at what it maps now plus ``headroom``.

    Only the soft limit is lowered (the hard one stays), so it is raised back on exit.
    Yields the cap in bytes. An allocation past it raises ``MemoryError``: a command that
    reads without a bound fails its test, never the machine.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = address_space() + headroom
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield cap
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


#: The profile every fuzz test starts from, ``@settings(settings.get_profile("respai-fuzz"),
#: max_examples=N)`` (importlib mode cannot import this module): ``derandomize`` makes
#: the examples the same on every run, and there is no example database to write.
settings.register_profile(
    "respai-fuzz",
    derandomize=True,
    database=None,
    deadline=None,  # the hard limit is RUN_SECONDS; timing is too noisy on a shared box
    print_blob=False,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # the runner fixture is stateless
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


@pytest.fixture(scope="session", autouse=True)
def _engine_started() -> None:
    """Start DuckDB once before any capped command: its first connection maps some
    600 MB of address space for good (its allocator's reservations), which would
    otherwise count against the first command's headroom."""
    import duckdb

    with duckdb.connect() as con:
        con.execute("SELECT sum(i) FROM range(1000000) t(i)").fetchall()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fuzz: the hypothesis fuzzing suite of tests/fuzz (fixed budget)"
    )


class Hang(BaseException):
    """A command ran past :data:`RUN_SECONDS` (a ``BaseException``: nothing catches it)."""


@dataclass(frozen=True)
class Run:
    """One command's outcome."""

    code: int
    out: str
    err: str


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"the command ran for more than {RUN_SECONDS} s")


class Runner:
    """Runs ``respai ARGV`` in a folder, in-process, under the hard time limit."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys

    def run(self, argv: Sequence[str], cwd: Path) -> Run:
        """Run the command in ``cwd`` and return its exit code, stdout and stderr."""
        self._capsys.readouterr()
        old = Path.cwd()
        os.chdir(cwd)
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(RUN_SECONDS)
        try:
            with memory_cap():
                code = main(list(argv))
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
            os.chdir(old)
        out, err = self._capsys.readouterr()
        return Run(code, out, err)

    @staticmethod
    def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
        """Every path under ``folder``: its size (-1 for a folder) and modification time."""
        out: dict[str, tuple[int, int]] = {}
        for path in folder.rglob("*"):
            st = path.lstat()
            out[str(path.relative_to(folder))] = (
                st.st_size if path.is_file() else -1,
                st.st_mtime_ns,
            )
        return out

    def check(
        self,
        run: Run,
        allowed: Sequence[int],
        folder: Path,
        before: dict[str, tuple[int, int]],
    ) -> None:
        """The contract for one run: a documented code; on exit 2 one error, no writes."""
        if currently_in_test_context():  # --hypothesis-show-statistics shows the mix
            event(f"exit {run.code}")
        assert run.code in allowed, f"exit {run.code}, stderr: {run.err[:800]!r}"
        assert "Traceback" not in run.err
        assert "internal error" not in run.err
        if run.code == 2:
            assert run.out == "", f"stdout is not empty on exit 2: {run.out[:300]!r}"
            assert run.err.startswith(("respai: error: ", "Usage:")), run.err[:500]
            assert self.snapshot(folder) == before, "a run that exited 2 wrote files"


@pytest.fixture
def capped() -> Callable[[], AbstractContextManager[int]]:
    """:func:`memory_cap` (the runner's cap), for a test that checks the cap itself."""
    return memory_cap


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Runner:
    """The runner; ``RESPAI_DEBUG=1`` so that a bug escapes as its own exception."""
    monkeypatch.setenv("RESPAI_DEBUG", "1")
    return Runner(capsys)


# --- mutations --------------------------------------------------------------------------

#: Tokens that break parsers in interesting ways, for any text format.
COMMON_TOKENS: tuple[bytes, ...] = (
    b"\x00",
    b"\x1b[2J",
    "\u202e".encode(),
    "\ufeff".encode(),
    b"\xff\xfe",
    b"\xe9",
    b"\r",
    b"\r\n",
    b"\n",
    b"\t",
    b"9" * 5000,
    b"-0",
    b"1e309",
    b"NaN",
    b"x" * 3000,
    "é中🙂".encode(),
)


def mutations(base: bytes, tokens: Sequence[bytes]) -> st.SearchStrategy[bytes]:
    """``base`` changed by one to four edits: a byte flipped, bytes deleted, a token
    inserted, or a token written over a stretch of bytes."""
    size = max(len(base), 1)
    position = st.integers(0, size)
    edit = st.one_of(
        st.tuples(st.just("flip"), position, st.integers(1, 255)),
        st.tuples(st.just("delete"), position, st.integers(1, 80)),
        st.tuples(st.just("insert"), position, st.sampled_from([*tokens, *COMMON_TOKENS])),
        st.tuples(st.just("overwrite"), position, st.sampled_from([*tokens, *COMMON_TOKENS])),
    )
    return st.lists(edit, min_size=1, max_size=4).map(lambda edits: _apply(base, edits))


def _apply(base: bytes, edits: Sequence[tuple[str, int, object]]) -> bytes:
    data = bytearray(base)
    for kind, where, arg in edits:
        at = where % (len(data) + 1)
        if kind == "flip" and data:
            at = min(at, len(data) - 1)
            assert isinstance(arg, int)
            data[at] ^= arg
        elif kind == "delete":
            assert isinstance(arg, int)
            del data[at : at + arg]
        elif kind == "insert":
            assert isinstance(arg, bytes)
            data[at:at] = arg
        elif kind == "overwrite":
            assert isinstance(arg, bytes)
            data[at : at + len(arg)] = arg
    return bytes(data)


@pytest.fixture
def mutate() -> Callable[[bytes, Sequence[bytes]], st.SearchStrategy[bytes]]:
    """:func:`mutations`, for ``data.draw(mutate(base, tokens))`` in a test."""
    return mutations
