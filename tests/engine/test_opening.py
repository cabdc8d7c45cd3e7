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


def test_a_closed_source_gives_its_connection_back(tmp_path: Path) -> None:
    import duckdb

    from respai.engine.opening import open_file

    path = tmp_path / "cases.csv"
    path.write_text("label,prediction\n1,0\n0,1\n", encoding="utf-8")
    source = open_file(path)
    assert source.columns == ["label", "prediction"]
    source.close()
    source.close()  # twice is nothing
    with pytest.raises(duckdb.ConnectionException):
        source._con.execute("SELECT 1")  # type: ignore[union-attr]
