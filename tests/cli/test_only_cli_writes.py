"""Only the ``cli`` package prints or exits, and inside it only ``output`` writes stdout.

An AST scan of ``src/respai``: outside ``cli/`` no module calls ``print``, ``click.echo``,
``sys.exit`` or ``os._exit``, raises ``SystemExit``, imports click or touches
``sys.stdout``/``sys.stderr``; the few that legitimately write somewhere are listed below
with the reason, and an entry that no longer matches fails too, so the list stays true.
Inside ``cli/``, machine output has one writer: only ``cli/output.py`` touches
``sys.stdout``, calls ``json.dump(s)`` or ``click.echo``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import respai

PKG = Path(respai.__file__).resolve().parent
CLI = PKG / "cli"

#: (module, what it does) -> why it may. Everything else outside cli/ is refused.
ALLOWED = {
    ("progress.py", "sys.stderr"): "the progress bar draws on standard error (only when it "
    "is a terminal, never with --quiet)",
    ("render/terminal.py", "Console(stderr=...)"): "print_fairness draws the fairness "
    "summary on standard error when no file is given",
    ("record/keys.py", "getpass.getpass"): "the key passphrase prompt, written to the "
    "terminal by getpass, never to standard output",
}


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def writes(path: Path) -> set[str]:
    """What the module does that prints, exits or writes to a standard stream."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {"import click" for a in node.names if a.name.split(".")[0] == "click"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "click":
            found.add("import click")
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if _dotted(exc) == "SystemExit":
                found.add("raise SystemExit")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in {
                "print",
                "click.echo",
                "click.secho",
                "sys.exit",
                "os._exit",
                "getpass.getpass",
                "json.dump",
                "json.dumps",
            }:
                found.add(name)
            if (
                name is not None
                and name.split(".")[-1].lower().endswith("console")
                and any(k.arg == "stderr" for k in node.keywords)
            ):
                found.add("Console(stderr=...)")
        elif isinstance(node, ast.Attribute) and _dotted(node) in {"sys.stdout", "sys.stderr"}:
            found.add(str(_dotted(node)))
    return found


def test_only_the_cli_prints_or_exits() -> None:
    # json.dump(s) writes files elsewhere (records, packs): only the cli's own use counts
    found = {
        (p.relative_to(PKG).as_posix(), what)
        for p in PKG.rglob("*.py")
        if not p.is_relative_to(CLI)
        for what in writes(p) - {"json.dump", "json.dumps"}
    }
    assert found == set(ALLOWED)


def test_in_the_cli_only_output_writes_stdout() -> None:
    stdout = {"sys.stdout", "json.dump", "json.dumps", "click.echo", "click.secho", "print"}
    found = {
        (p.relative_to(PKG).as_posix(), what)
        for p in CLI.rglob("*.py")
        for what in writes(p) & stdout
    }
    assert found == {
        ("cli/output.py", "sys.stdout"),
        ("cli/output.py", "json.dumps"),
        ("cli/output.py", "click.echo"),  # echo(), to standard error
    }


def test_the_scan_sees_what_it_refuses(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import sys, click\nfrom rich.console import Console\n"
        "def f():\n    print('x')\n    click.echo('y', err=True)\n    sys.stdout.write('z')\n"
        "    Console(stderr=True)\n    sys.exit(1)\n    raise SystemExit(2)\n",
        encoding="utf-8",
    )
    assert writes(module) == {
        "import click",
        "print",
        "click.echo",
        "sys.stdout",
        "Console(stderr=...)",
        "sys.exit",
        "raise SystemExit",
    }
