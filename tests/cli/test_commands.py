"""The command table: each command comes from the module named for it, loaded when named."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from respai.cli import COMMANDS, all_commands, cli, main


def test_every_command_is_in_the_table_under_its_own_module() -> None:
    commands = all_commands()
    assert set(commands) == set(COMMANDS)
    for name, command in commands.items():
        assert command.callback is not None
        assert command.callback.__module__ == COMMANDS[name], name


def test_a_run_imports_only_its_own_command_module() -> None:
    code = (
        "import sys\n"
        "from respai.cli import main\n"
        "main(['verify', '--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('respai.cli.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = out.strip().splitlines()[-1]
    assert "'respai.cli.verify'" in loaded
    for other in ("respai.cli.site", "respai.cli.demo", "respai.cli.evaluate"):
        assert f"'{other}'" not in loaded


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f"  {name} " in result.output, name


def test_an_unknown_command_is_a_usage_error() -> None:
    assert main(["evalute"]) == 2
