"""Where the command line's output goes: JSON to standard output, people's text to stderr.

:func:`emit_json` is the one writer of machine output: every ``--json`` document goes
through it, so every command writes JSON the same way (indented, UTF-8 characters kept,
no NaN or infinity, one final newline, flushed). :func:`echo` writes a line for people
to standard error, and :func:`console` makes the rich console the renderers draw on, also
on standard error. Standard output carries nothing but the JSON.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["console", "echo", "emit_json"]


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


def echo(message: str = "") -> None:
    """Write one line for people (``message`` and a newline) to standard error."""
    click.echo(message, err=True)


def console() -> Console:
    """A rich console on standard error, with markup, emoji and highlighting off."""
    from rich.console import Console

    return Console(stderr=True, markup=False, emoji=False, highlight=False)
