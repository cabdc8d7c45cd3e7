"""Opening a cases file: pyarrow's import is started only for a file read as Arrow."""

from __future__ import annotations

from pathlib import Path

import pytest

from respai.engine import files, opening


@pytest.mark.parametrize(("threshold", "started"), [(0, True), (1 << 40, False)])
def test_pyarrow_is_preloaded_only_for_a_file_read_as_arrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threshold: int, started: bool
) -> None:
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(files, "ARROW_FROM_BYTES", threshold)
    monkeypatch.setattr(opening, "preload", lambda modules: calls.append(modules))
    path = tmp_path / "cases.csv"
    path.write_text("g,y\na,1\nb,0\n", encoding="utf-8")
    source = opening.open_file(path)
    assert files.arrow_pays(source.file) is started
    assert calls == ([("pyarrow",)] if started else [])


def test_a_source_without_a_file_is_not_read_as_arrow() -> None:
    assert files.arrow_pays(None) is False
