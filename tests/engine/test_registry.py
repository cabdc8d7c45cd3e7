"""The engine table: the one list of engines the loader, ``--engine`` and the docs read."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import respai.engine
from respai.engine.registry import DEFAULT_ENGINE, ENGINES, engine_named
from respai.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _table_rows(page: Path, heading: str) -> list[list[str]]:
    """The body rows of the first Markdown table under ``heading``, cell by cell."""
    text = page.read_text().split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split(" | ")] for row in rows[2:]]


def test_the_engine_option_offers_the_table() -> None:
    from respai.cli.evaluate import evaluate_command as evaluate
    from respai.cli.fairness import fairness

    for command in (evaluate, fairness):
        option = next(p for p in command.params if p.name == "engine")
        assert list(option.type.choices) == list(ENGINES)
        assert option.default == DEFAULT_ENGINE


def test_the_scale_page_lists_exactly_the_table() -> None:
    rows = _table_rows(ROOT / "docs" / "scale.md", "## Engines")
    names = [re.match(r"`([^`]+)`", row[0]) for row in rows]
    assert [m.group(1) if m else row[0] for m, row in zip(names, rows, strict=True)] == list(
        ENGINES
    )
    for row, entry in zip(rows, ENGINES.values(), strict=True):
        assert ("(default)" in row[0]) == (entry.name == DEFAULT_ENGINE)
        assert (f'"respai[{entry.extra}]"' in row[2]) == (entry.extra is not None), row
        assert row[3] == ("yes" if entry.joins else "no")


@pytest.mark.parametrize("command", ["evaluate", "fairness"])
def test_the_command_pages_name_exactly_the_table(command: str) -> None:
    page = (ROOT / "docs" / "commands" / f"{command}.md").read_text()
    found = re.findall(r"^\| `--engine ([^`]+)` \|", page, re.MULTILINE)
    assert [names.split("\\|") for names in found] == [list(ENGINES)]


def test_every_opener_is_an_engine_function() -> None:
    import importlib

    for entry in ENGINES.values():
        module, _, function = entry.opener.partition(":")
        assert callable(getattr(importlib.import_module(module), function))


def test_an_unknown_engine_is_refused_with_a_suggestion() -> None:
    with pytest.raises(InputError, match=r"'duckbd' is not an engine\. Did you mean 'duckdb'\?"):
        engine_named("duckbd")
    assert engine_named("spark") is ENGINES["spark"]


def test_the_table_imports_no_engine() -> None:
    code = (
        "import sys; import respai.engine.registry; "
        "print(sorted(m for m in ('duckdb','narwhals','pyarrow','pyspark') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_package_names_resolve_on_first_use() -> None:
    # respai.engine imports each public name from its module when first used
    assert set(respai.engine._HOMES) == set(respai.engine.__all__)
    for name in respai.engine.__all__:
        assert getattr(respai.engine, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        respai.engine.nothing  # noqa: B018
