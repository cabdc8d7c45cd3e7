"""The plan examples in the docs are what the command prints today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_docs_examples_are_current() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_plan_examples", ROOT / "scripts" / "gen_plan_examples.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, text in module.generate().items():
        shown = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
        assert shown == text, f"docs/examples/{name} is stale: run scripts/gen_plan_examples.py"


def test_the_command_page_shows_every_example() -> None:
    page = (ROOT / "docs" / "commands" / "plan.md").read_text(encoding="utf-8")
    for name in ("plan-help.txt", "plan.yaml", "plan.txt", "plan.json", "plan-refused.txt"):
        assert f"examples/{name}" in page, name
