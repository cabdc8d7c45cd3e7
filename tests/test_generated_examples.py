"""The command examples in the docs are what the commands print today.

Each ``scripts/gen_<command>_examples.py`` regenerates its examples from real runs; this
test runs its ``generate()`` and compares with the files under ``docs/examples``, and
checks that the command's page shows every one of them.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("paired", "monitor", "plan", "init", "export", "site", "witness")
#: scripts/gen_commands_examples.py writes the examples of these pages, each file named
#: after its command (``ll144.txt``, ``sample-page-help.txt``).
SHARED = ("compare", "ledger", "ll144", "log", "pack", "report", "reproduce", "sample-page")


def _generator(command: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        path = ROOT / "scripts" / f"gen_{command}_examples.py"
        spec = importlib.util.spec_from_file_location(f"gen_{command}_examples", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "scripts"))


@pytest.mark.parametrize("command", COMMANDS)
def test_examples_are_current_and_shown(command: str) -> None:
    files = _generator(command).generate()
    page = (ROOT / "docs" / "commands" / f"{command}.md").read_text(encoding="utf-8")
    for name, text in files.items():
        shown = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
        assert shown == text, f"docs/examples/{name} is stale: run gen_{command}_examples.py"
        assert f"examples/{name}" in page, f"docs/commands/{command}.md does not show {name}"


def test_the_shared_generators_examples_are_current_and_shown() -> None:
    files = _generator("commands").generate()
    assert sorted(_generator("commands").COMMANDS) == sorted(SHARED)
    shown_on = {c: set() for c in SHARED}
    for name, text in files.items():
        shown = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
        assert shown == text, f"docs/examples/{name} is stale: run gen_commands_examples.py"
        command = max((c for c in SHARED if name.startswith(f"{c}-") or name.startswith(f"{c}.")),
                      key=len)  # fmt: skip
        page = (ROOT / "docs" / "commands" / f"{command}.md").read_text(encoding="utf-8")
        assert f"examples/{name}" in page, f"docs/commands/{command}.md does not show {name}"
        shown_on[command].add(name)
    assert all(shown_on.values()), f"a page has no generated example: {shown_on}"
