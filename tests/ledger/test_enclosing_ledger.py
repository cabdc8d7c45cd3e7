"""The ledger folder an output lies in: a folder above it holding ledger.json, or .respai."""

from __future__ import annotations

from pathlib import Path

from respai.ledger.layout import enclosing_ledger


def test_the_nearest_folder_holding_ledger_json_is_the_ledger(tmp_path: Path) -> None:
    book = tmp_path / "book"
    (book / "runs").mkdir(parents=True)
    (book / "ledger.json").write_text("{}")
    assert enclosing_ledger(book / "runs" / "x.json") == book.resolve()
    assert enclosing_ledger(book) == book.resolve()
    assert enclosing_ledger(tmp_path / "elsewhere.xml") is None
    assert enclosing_ledger(".respai") == Path(".respai").resolve()  # even before it exists
