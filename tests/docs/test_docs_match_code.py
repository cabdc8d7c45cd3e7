"""The documentation matches the code: every command has its page, every version is today's.

- Every command ``respai --help`` lists (and every subcommand of a group) has a page
  ``docs/commands/<command>.md`` with a synopsis, its options, its exit codes and an
  example, the page is in ``mkdocs.yml``'s nav, and ``docs/index.md`` names the command.
- Every engine version the docs name (``respai-evidence-engine/X.Y.Z``, ``engine X.Y.Z``,
  ``respai X.Y.Z``, ``respai==X.Y.Z``) is the package's ``respai.version.__version__``,
  unless the passage is historical: the methods changelog, a passage between
  ``<!-- historical -->`` and ``<!-- /historical -->``, or a mention that says when
  something changed or was (``from``, ``since``, ``until``, ``before``, ``after``, ``in``
  or ``to`` the version: "in engine 0.3.0 the FAIL read ...", "used up to engine 0.3.0").
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
import yaml

from respai.cli import all_commands, cli
from respai.version import __version__

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
COMMANDS = sorted(all_commands())

_VERSION = re.compile(
    r"(?P<before>\b\w+\s+)?"
    r"(?P<name>respai-evidence-engine/|engine\s+|respai\s+|respai==)"
    r"v?(?P<version>\d+\.\d+\.\d+)",
    re.IGNORECASE,
)
_CHANGE_WORDS = {"from", "since", "until", "before", "after", "in", "to"}
_HISTORICAL = re.compile(r"<!-- historical -->.*?<!-- /historical -->", re.DOTALL)
#: Always historical: the changelog lists every version there was.
_HISTORICAL_FILES = {"docs/methods/changelog.md"}


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in _nav_pages(item)]
    if isinstance(nav, dict):
        return [p for v in nav.values() for p in _nav_pages(v)]
    return []


def _nav() -> list[str]:
    # mkdocs.yml is plain YAML (no !!python tags), so the safe loader reads it
    return _nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])


def _page(command: str) -> str:
    return (DOCS / "commands" / f"{command}.md").read_text(encoding="utf-8")


def test_the_cli_has_the_commands_this_test_expects() -> None:
    # a guard that the import found the real command group, not an empty one
    assert {"evaluate", "fairness", "ll144", "pack", "reproduce", "compare", "log"} <= set(
        COMMANDS
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_page_in_the_nav(command: str) -> None:
    path = DOCS / "commands" / f"{command}.md"
    assert path.is_file(), f"respai {command} has no page docs/commands/{command}.md"
    assert f"commands/{command}.md" in _nav(), f"docs/commands/{command}.md is not in the nav"
    page = _page(command)
    assert page.startswith(f"# respai {command}\n"), f"{path} does not open with its title"
    found = cli.commands[command]
    if isinstance(found, click.Group):  # one section per subcommand, with its synopsis
        for sub in found.commands:
            assert f"## respai {command} {sub}" in page, f"{path} has no section for {sub}"
    else:
        assert "## Synopsis" in page, f"{path} has no synopsis"
    assert re.search(r"exit codes?\b", page, re.IGNORECASE), f"{path} gives no exit codes"
    assert '--8<-- "examples/' in page, f"{path} shows no example generated from a real run"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_a_command_is_on_its_page(command: str) -> None:
    found = cli.commands[command]
    commands = (
        list(found.commands.values()) if isinstance(found, click.Group) else [found]
    )  # a group (keys): the options of each subcommand
    page = _page(command)
    for cmd in commands:
        for param in cmd.params:
            if isinstance(param, click.Option):
                longest = max(param.opts, key=len)
                assert f"`{longest}" in page, f"docs/commands/{command}.md omits {longest}"


def test_the_index_lists_every_command() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"(commands/{command}.md)" in index, f"docs/index.md does not list {command}"


def _doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    files += sorted(p for p in (DOCS / "examples").rglob("*") if p.is_file())
    return files


def _stale(text: str) -> list[str]:
    text = _HISTORICAL.sub("", text)
    out = []
    for m in _VERSION.finditer(text):
        before = (m.group("before") or "").strip().lower()
        if m.group("version") != __version__ and before not in _CHANGE_WORDS:
            line = text.count("\n", 0, m.start()) + 1
            out.append(f"line {line}: {m.group(0).strip()!r}")
    return out


def test_every_engine_version_in_the_docs_is_the_packages() -> None:
    stale = {}
    for path in _doc_files():
        name = path.relative_to(ROOT).as_posix()
        if name in _HISTORICAL_FILES:
            continue
        found = _stale(path.read_text(encoding="utf-8", errors="replace"))
        if found:
            stale[name] = found
    assert not stale, (
        f"the docs name engine versions other than respai {__version__}: {stale}. Update "
        "them (regenerate docs/examples with the scripts/gen_*_examples.py that wrote them), "
        "or mark a historical passage with <!-- historical --> ... <!-- /historical -->."
    )


def test_the_version_check_tells_current_from_historical() -> None:
    v = __version__
    assert _stale(f"engine `respai-evidence-engine/{v}`; respai {v}; respai=={v}") == []
    assert len(_stale("the engine is respai-evidence-engine/0.0.1 and respai 0.0.2")) == 2
    assert _stale("since engine 0.0.1 the battery; until engine 0.0.1 it was Wilson's") == []
    assert _stale("in engine 0.0.1 the FAIL read it; used up to engine 0.0.1") == []
    assert _stale("<!-- historical -->\nrespai 0.0.1 wrote it\n<!-- /historical -->") == []
    assert _stale("Engine 0.0.1 implements this page") == ["line 1: 'Engine 0.0.1'"]
