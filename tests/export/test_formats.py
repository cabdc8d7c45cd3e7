"""The format table: the one list of formats ``respai export``, its help and its page read."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from respai.export import export_document
from respai.export.formats import FORMATS
from respai.export.record import VerifiedRecord

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "commands" / "export.md"


def test_the_format_option_offers_the_table() -> None:
    from respai.cli.export import export

    option = next(p for p in export.params if p.name == "fmt")
    assert list(option.type.choices) == list(FORMATS)
    for entry in FORMATS.values():
        assert f"{entry.name}: {entry.description}" in (option.help or "")


def test_the_export_page_lists_exactly_the_table() -> None:
    text = PAGE.read_text()
    assert re.findall(r"^## ([a-z][a-z0-9-]*)$", text, re.MULTILINE) == list(FORMATS)
    synopsis = re.search(r"--format ([\w|-]+)", text)
    assert synopsis is not None and synopsis.group(1).split("|") == list(FORMATS)
    table = text.split("\n## Formats\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("|")][2:]
    cells = [[c.strip() for c in row.strip("|").split(" | ")] for row in rows]
    assert [re.sub(r"\[`([^`]+)`\].*", r"\1", row[0]) for row in cells] == list(FORMATS)
    for row, entry in zip(cells, FORMATS.values(), strict=True):
        assert row[1] == f"`{entry.suffix}`"
        assert row[2].startswith("yes") == entry.signs


def test_every_writer_is_a_function_of_its_module() -> None:
    for entry in FORMATS.values():
        module, _, function = entry.writer.partition(":")
        assert module.startswith("respai.export.")
        assert callable(getattr(importlib.import_module(module), function))


def _record() -> VerifiedRecord:
    predicate = {"verdict": "PASS", "records": [], "system": {"name": "s"}}
    return VerifiedRecord("record.json", "0" * 64, {"predicate": predicate}, {})


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown export format 'csv'"):
        export_document("csv", _record())


def test_a_format_that_signs_needs_a_key() -> None:
    signed = [name for name, entry in FORMATS.items() if entry.signs]
    assert signed == ["in-toto-test-result"]
    with pytest.raises(ValueError, match="needs a signing key"):
        export_document("in-toto-test-result", _record())
