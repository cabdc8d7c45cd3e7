"""respai.heap: freed memory handed back between the phases of a large run."""

from __future__ import annotations

import json
import math
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from respai import heap

SAMPLES = Path(__file__).resolve().parents[1] / "src" / "respai" / "samples"


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="malloc_trim is glibc's",
)
def test_glibc_gives_the_pages_back() -> None:
    assert heap.trim_heap() is True


def test_without_the_call_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    heap._libc_function.cache_clear()
    monkeypatch.setattr(sys, "platform", "darwin")
    try:
        assert heap.trim_heap() is False
        assert heap.set_mmap_threshold() is False
    finally:
        heap._libc_function.cache_clear()


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="mallopt is glibc's",
)
def test_glibc_takes_a_fixed_mmap_threshold() -> None:
    # in a process of its own: the setting lasts as long as the process
    code = (
        "import respai.heap as h; "
        "print(h.set_mmap_threshold(1 << 20), h.tune_this_process(), "
        "h.for_groups(5), h.for_groups(5000))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"] * 4


def test_only_the_command_sets_thresholds_and_by_its_groups(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    trims: list[tuple[int, int]] = []

    def mallopt(param: int, value: int) -> int:
        trims.append((param, value))
        return 1

    monkeypatch.setattr(heap, "set_mmap_threshold", lambda n=4 << 20: calls.append(n) or True)
    monkeypatch.setattr(heap, "_libc_function", lambda name: mallopt)
    monkeypatch.setattr(heap, "_OWN_PROCESS", [False, False])
    trim = heap._M_TRIM_THRESHOLD
    assert heap.for_groups(10**6) is False and calls == []  # the API's caller: left alone
    assert heap.tune_this_process() is True and calls == [4 << 20]
    # few groups first: glibc's largest moving thresholds
    assert heap.for_groups(heap.MANY_GROUPS - 1) is True
    assert calls[-1] == heap.FEW_GROUPS_THRESHOLD_BYTES == 32 << 20
    assert trims[-1] == (trim, 64 << 20)
    # then a block of many groups: the low thresholds, and they stay for a later small block
    assert heap.for_groups(heap.MANY_GROUPS) is True
    assert calls[-1] == 4 << 20 and trims[-1] == (trim, 128 << 10)
    assert heap.for_groups(3) is True
    assert calls[-1] == 4 << 20 and trims[-1] == (trim, 128 << 10)


def test_a_run_asks_with_its_declared_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from respai.api import evaluate

    asked: list[int] = []
    monkeypatch.setattr(heap, "for_groups", lambda groups: asked.append(groups) or False)
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    evaluate(SAMPLES / "loan_screen.yaml", out=tmp_path / "out")
    from respai.run.group_rules import spec_of

    fairness = spec_of(SAMPLES / "loan_screen.yaml").fairness
    assert fairness is not None
    sizes = {a: len(v) for a, v in fairness.attributes.items()}
    groups = sum(math.prod(sizes[a] for a in g) for g in fairness.groupings)
    assert asked[0] == groups > len(fairness.groupings)


def _calls(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[int]:
    calls: list[int] = []

    def trim() -> bool:
        calls.append(1)
        return True

    monkeypatch.setattr(module, "trim_heap", trim)
    return calls


def test_the_report_of_a_large_record_trims_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from respai.api import evaluate
    from respai.render.report import document

    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    evaluate(SAMPLES / "loan_screen.yaml", out=tmp_path / "out")
    envelope = json.loads((tmp_path / "out" / "record.json").read_text())
    calls = _calls(monkeypatch, document)
    page = document.render_report(envelope, None)
    assert calls == []  # a small record: the heap is left as it is
    monkeypatch.setattr(document, "TRIM_MIN_BYTES", 1)
    assert document.render_report(envelope, None) == page and calls == [1]


def test_letting_a_large_cube_go_trims(monkeypatch: pytest.MonkeyPatch) -> None:
    from respai.engine import count_pass

    class Pool:
        released = 0

        def release_unused(self) -> None:
            Pool.released += 1

    calls = _calls(monkeypatch, heap)
    monkeypatch.setattr(count_pass, "_ARROW_POOLS", [])
    count_pass.release_memory()
    assert calls == [] and Pool.released == 0  # no cube came as Arrow: nothing is touched
    monkeypatch.setattr(count_pass, "_ARROW_POOLS", [Pool()])
    count_pass.release_memory()
    assert calls == [1] and Pool.released == 1
