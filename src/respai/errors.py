"""One error family for everything a user can get wrong.

Every error carries a one-paragraph ``message`` that names the file, key, column, row or
value at fault, an optional ``hint`` saying how to fix it, and the process ``exit_code``
the command line uses. Undefined or under-powered statistics are *not* errors: they are
values with a reason (see :mod:`respai.types`). Exceptions are kept for bad input, bad
specs and broken records, and the CLI catches them in exactly one place.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "Error",
    "InputError",
    "SpecError",
    "did_you_mean",
]


class Error(Exception):
    """Base class of every error respai raises on purpose.

    Parameters
    ----------
    message
        What is wrong, naming the file, key, column, row or value.
    hint
        How to fix it, or ``None``.
    """

    exit_code: int = 2

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def diagnostics(self) -> str:
        """Return the message and the hint as one paragraph for people."""
        if self.hint:
            return f"{self.message} {self.hint}"
        return self.message


class SpecError(Error):
    """The spec or policy file is malformed: unknown key, wrong type, bad value."""


class InputError(Error):
    """The data cannot be evaluated as declared: missing column, bad value, bad file."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest choice, or ``""`` when none is close.

    Examples
    --------
    >>> did_you_mean("lable", ["label", "prediction"])
    " Did you mean 'label'?"
    >>> did_you_mean("zzz", ["label"])
    ''
    """
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" Did you mean '{close[0]}'?" if close else ""
