"""Where the command line's output goes: JSON to standard output, people's text to stderr.

:func:`emit_json` is the one writer of machine output: every ``--json`` document goes
through it, so every command writes JSON the same way (indented, UTF-8 characters kept,
no NaN or infinity, one final newline, flushed). :func:`echo` writes a line for people
to standard error, and :func:`console` makes the rich console the renderers draw on, also
on standard error. Standard output carries nothing but the JSON.

Text for people is neutralised here, where every line passes: :func:`echo` shows control,
escape and bidi characters escaped (line breaks kept) and :func:`console` is a
:class:`respai.render.terminal.TerminalConsole`, which does the same for what rich
draws. JSON is left as it is: ``json.dumps`` escapes control characters already.
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from respai.render.escape import terminal_text

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["console", "echo", "emit_json", "flush_streams", "silence_streams", "write_stdout"]


def key_created(path: object, key_id: str) -> None:
    """Tell the user that a signing key was made for them, and where it is."""
    echo(
        f"respai: no signing key was configured, so a new one was created: {path} "
        f"(key id {key_id}). Its public key and keys.json are beside it; publish them so "
        "others can verify your records."
    )


def emit_json(payload: dict[str, Any]) -> None:
    """Write ``payload`` to standard output as the ``--json`` document.

    Parameters
    ----------
    payload
        JSON-ready data (finite numbers only: NaN or infinity raise ``ValueError``).
    """
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False))
    sys.stdout.write("\n")
    sys.stdout.flush()


def write_stdout(document: bytes) -> None:
    """Write an exported document (its exact bytes) to standard output, flushed.

    Parameters
    ----------
    document
        The bytes, as a file written with ``-o`` would hold them.
    """
    sys.stdout.flush()
    sys.stdout.buffer.write(document)
    sys.stdout.buffer.flush()


def flush_streams() -> None:
    """Flush standard output and error now (a closed pipe raises here, not at exit)."""
    sys.stdout.flush()
    sys.stderr.flush()


def silence_streams() -> None:
    """Point standard output and error at /dev/null, after their reader went away.

    Python flushes both at exit; into a closed pipe that flush would fail again and print
    "Exception ignored". A stream that is not a real file (a test's capture) is left.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError):
                continue
    finally:
        os.close(devnull)


def echo(message: str = "") -> None:
    """Write one line for people (``message`` and a newline) to standard error.

    Parameters
    ----------
    message
        The text; its control, escape and bidi characters are shown escaped (see
        :func:`respai.render.escape.terminal_text`), its line breaks kept.
    """
    click.echo(terminal_text(message, keep_newlines=True), err=True)


def console() -> Console:
    """A rich console on standard error, with markup, emoji and highlighting off.

    Its text has control, escape and bidi characters shown escaped (see
    :class:`respai.render.terminal.TerminalConsole`).
    """
    from respai.render.terminal import terminal_console

    return terminal_console(stderr=True)
