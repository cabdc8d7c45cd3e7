"""The staged output folder: contents made when written, all files or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from respai.io import StagedFolder


def _anything(_: Path) -> bool:
    return True


def test_a_content_given_as_a_function_is_made_when_its_turn_comes(tmp_path: Path) -> None:
    made: list[str] = []

    def page() -> str:
        made.append("page")
        assert (staged.staging / "record.json").read_bytes() == b"{}"  # written before
        return "<p>é</p>"

    staged = StagedFolder(tmp_path / "out", _anything)
    staged.write_all({"record.json": lambda: b"{}", "report.html": page, "note.txt": "n"})
    assert made == ["page"]
    staged.commit()
    staged.finish()
    assert (tmp_path / "out" / "report.html").read_text(encoding="utf-8") == "<p>é</p>"
    assert (tmp_path / "out" / "note.txt").read_text(encoding="utf-8") == "n"


def test_a_content_function_that_fails_leaves_no_folder(tmp_path: Path) -> None:
    def broken() -> str:
        raise RuntimeError("the page could not be made")

    staged = StagedFolder(tmp_path / "out", _anything)
    with pytest.raises(RuntimeError):
        staged.write_all({"record.json": b"{}", "report.html": broken})
    staged.rollback()
    assert list(tmp_path.iterdir()) == []
