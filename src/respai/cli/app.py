"""The ``respai`` click group and :func:`main`, the one place that catches errors.

Every command module of this package adds its command to :data:`cli`. :func:`main` runs
the group and turns whatever a command raises into an exit code: a
:class:`respai.errors.Error` becomes one paragraph on standard error and its exit code
(2 for bad input or a bad spec), a usage error click's message and 2, anything else an
"internal error" paragraph and 70 (``RESPAI_DEBUG=1`` re-raises it). A command that
finishes raises ``SystemExit`` with its verdict's exit code.

The options several commands share (:data:`ENGINE_OPTION`, :data:`QUIET_OPTION`) are
defined here once; ``--engine`` offers the names of the engine table
(:data:`respai.engine.registry.ENGINES`). Nothing heavy is imported at module level, so
``respai --help`` starts fast.
"""

from __future__ import annotations

import importlib
import io
import os
from pathlib import Path
from typing import Any, NoReturn

import click

from respai.cli.output import echo, flush_streams, silence_streams
from respai.engine.registry import DEFAULT_ENGINE, ENGINES
from respai.errors import Error
from respai.render.escape import terminal_text
from respai.version import __version__

__all__ = [
    "COMMANDS",
    "ENGINE_OPTION",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "JUNIT_OPTION",
    "QUIET_OPTION",
    "all_commands",
    "check_junit_path",
    "cli",
    "entry",
    "main",
]

EXIT_USAGE = 2
"""Exit code of a usage error, bad input or a bad spec."""

EXIT_INTERNAL = 70
"""Exit code of a bug in respai (an exception that is not a :class:`respai.errors.Error`)."""

EXIT_BROKEN_PIPE = 141
"""Exit code when the reader of standard output or error went away (``respai ... | head``).

128 + SIGPIPE (13), what a shell reports for a program a closed pipe stopped: never a
verdict code, so a pipeline cannot read a cut-off run as PASS or FAIL.
"""


ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(list(ENGINES)),
    default=DEFAULT_ENGINE,
    show_default=True,
    help="Where the count pass over the cases file runs: "
    + ", or ".join(e.description for e in ENGINES.values())
    + ".",
)
QUIET_OPTION = click.option("--quiet", "-q", is_flag=True, help="No progress display.")
JUNIT_OPTION = click.option(
    "--junit",
    type=click.Path(path_type=Path),
    help="Also write the verdicts as JUnit XML here (one testcase per test and rule; "
    "FAIL a failure, INSUFFICIENT_EVIDENCE and MANUAL_REVIEW skipped), for CI test "
    "reporters. Not written when the run is refused (exit 2).",
)
LEDGER_OPTION = click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="Append-only ledger the signed run is chained into.",
)
NO_LEDGER_OPTION = click.option(
    "--no-ledger",
    is_flag=True,
    help="Do not append to a ledger (the record then starts its own chain).",
)


def _accepted(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> Any:
    from respai.types import accepted_verdicts

    try:
        return accepted_verdicts(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


ACCEPT_OPTION = click.option(
    "--accept",
    "accepted",
    multiple=True,
    metavar="VERDICT",
    callback=_accepted,
    help="Let this verdict through the gate (repeatable): MANUAL_REVIEW or "
    "INSUFFICIENT_EVIDENCE, never FAIL. The exit code is 0 when every verdict worse than "
    "PASS is accepted, else the worst one's that is not; the verdicts themselves are "
    "unchanged, and the run states what was accepted.",
)
KEY_OPTION = click.option(
    "--key",
    type=click.Path(path_type=Path),
    help="Ed25519 private key (PKCS#8 PEM); passphrase from RESPAI_KEY_PASSPHRASE or a "
    "prompt. Default: the newest key in the key folder, one made there when it has none.",
)

TIMESTAMP_OPTION = click.option(
    "--timestamp",
    "timestamps",
    multiple=True,
    metavar="URL",
    envvar="RESPAI_TIMESTAMP",
    help="RFC 3161 time-stamping authority: a token over the signed record is asked from "
    "it and kept beside the record (timestamps.json). Repeatable; default: the URLs in "
    "RESPAI_TIMESTAMP (space-separated). An authority that gives no token fails the run "
    "(exit 2) and nothing is written.",
)


def all_commands() -> dict[str, click.Command]:
    """Every command of :data:`cli` by name, each command module imported."""
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module)
    return dict(cli.commands)


def check_junit_path(path: Path | None) -> None:
    """Refuse a ``--junit`` path that cannot be a file, before any data is read.

    Raises
    ------
    respai.errors.InputError
        When ``path`` is a folder.
    """
    from respai.errors import InputError

    if path is not None and path.is_dir():
        raise InputError(
            f"--junit {path} is a folder; give a file name, e.g. {path / 'respai-junit.xml'}."
        )


class _PipeClosed(Exception):
    """A command's reader closed the pipe (click would turn the OSError into exit 1)."""


#: Each command and the module whose import adds it to :data:`cli`. A run imports its own
#: command's module only (``respai evaluate`` does not load the code of ``respai site``);
#: ``respai --help`` and :func:`all_commands` import them all.
COMMANDS: dict[str, str] = {
    "compare": "respai.cli.ledger",
    "demo": "respai.cli.demo",
    "evaluate": "respai.cli.evaluate",
    "export": "respai.cli.export",
    "fairness": "respai.cli.fairness",
    "init": "respai.cli.init",
    "keys": "respai.cli.keys",
    "ledger": "respai.cli.ledger",
    "ll144": "respai.cli.ll144",
    "log": "respai.cli.ledger",
    "monitor": "respai.cli.monitor",
    "pack": "respai.cli.pack",
    "paired": "respai.cli.paired",
    "plan": "respai.cli.plan",
    "report": "respai.cli.report",
    "reproduce": "respai.cli.pack",
    "sample-page": "respai.cli.report",
    "site": "respai.cli.site",
    "verify": "respai.cli.verify",
    "witness": "respai.cli.witness",
}


class _Group(click.Group):
    """The group: commands loaded when named, a closed pipe carried past click's handling."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(module)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(COMMANDS))

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise _PipeClosed from exc


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="respai")
def cli() -> None:
    """Evidence about an AI system's decisions that an outsider can check.

    Exit codes: 0 PASS, 1 FAIL, 2 usage or input error, 3 INSUFFICIENT_EVIDENCE,
    4 MANUAL_REVIEW. The worst verdict of the run decides.
    """


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit code (never raises).

    A closed pipe on standard output or error (``respai fairness --json | head -2``)
    ends the run quietly with :data:`EXIT_BROKEN_PIPE` (141), never a verdict code:
    the files the run had written stay, the message it could not show is dropped.

    Parameters
    ----------
    argv
        The arguments after ``respai``; ``None`` reads them from ``sys.argv``.

    Returns
    -------
    int
        The command's exit code; 2 for a usage or input error, 130 when interrupted,
        141 when a reader closed the pipe, 70 for a bug in respai.
    """
    try:
        code = _run(argv)
        flush_streams()  # here, not at exit, so a closed pipe is seen as one
    except (BrokenPipeError, _PipeClosed):
        silence_streams()
        return EXIT_BROKEN_PIPE
    return code


def entry() -> NoReturn:
    """The ``respai`` command (and ``python -m respai``): :func:`main`, then a quick exit.

    Python's own shutdown after a run takes every module and object apart one by one
    (numpy, DuckDB, SciPy's functions, rich): about 60 ms, a seventh of a small file's
    whole run, spent on memory the operating system takes back at once anyway. So once
    :func:`main` has returned (every file it wrote is written, synced and in place, its
    messages flushed), the command waits for any thread that is not a daemon, runs the
    exit handlers registered with :mod:`atexit` (the removal of DuckDB's spill folder
    among them) and flushes both streams again, then ends the process with
    :func:`os._exit` and the run's exit code. :func:`main` itself returns the code, for
    callers in Python.
    """
    import atexit
    import threading

    from respai.heap import tune_this_process

    tune_this_process()  # large blocks get pages of their own, given back when freed
    code = main()
    try:
        for thread in threading.enumerate():
            if thread is not threading.current_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()  # what the interpreter's shutdown would run first
        flush_streams()
    except OSError:  # the reader went away after main's own flush: nothing is lost
        pass
    finally:
        os._exit(code)


def _run(argv: list[str] | None) -> int:
    try:
        cli.main(args=argv, prog_name="respai", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except click.exceptions.Abort:
        echo("respai: aborted.")
        return EXIT_USAGE
    except click.exceptions.ClickException as exc:  # it may repeat what was typed
        shown = io.StringIO()
        exc.show(file=shown)
        echo(shown.getvalue().rstrip("\n"))  # echo escapes what it shows
        return EXIT_USAGE
    except Error as exc:
        echo(f"respai: error: {terminal_text(exc.diagnostics())}")
        return exc.exit_code
    except KeyboardInterrupt:
        echo("respai: interrupted.")
        return 130
    except (BrokenPipeError, _PipeClosed):
        raise  # main's: quietly, whatever the command was doing
    except Exception as exc:
        if os.environ.get("RESPAI_DEBUG"):
            raise
        echo(
            f"respai: internal error ({type(exc).__name__}: {terminal_text(exc)}). This is a "
            "bug in respai, not in your input; please report it. Set RESPAI_DEBUG=1 to see the "
            "traceback."
        )
        return EXIT_INTERNAL
    return 0
