"""One error family for everything a user can get wrong.

Every error carries a one-paragraph ``message`` that names the file, key, column, row or
value at fault, an optional ``hint`` saying how to fix it, and the process ``exit_code``
the command line uses. Undefined or under-powered statistics are *not* errors: they are
values with a reason (see :mod:`respai.types`). Exceptions are kept for bad input, bad
specs and broken records, and the CLI catches them in exactly one place.
"""

from __future__ import annotations

from collections.abc import Iterable

from respai.render.escape import terminal_text

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
        """Return the message and the hint as one paragraph for people.

        Control, escape and bidi characters a value in the message may hold (a column
        name, a rule id, a file's line) are shown escaped (see
        :func:`respai.render.escape.terminal_text`), so the paragraph is safe to print.
        """
        if self.hint:
            return terminal_text(f"{self.message} {self.hint}")
        return terminal_text(self.message)


class SpecError(Error):
    """The spec or policy file is malformed: unknown key, wrong type, bad value."""


class InputError(Error):
    """The data cannot be evaluated as declared: missing column, bad value, bad file."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest choice, or ``""`` when none is close.

    The choice is shown with its control characters escaped (a column name from a data
    file's header can hold an escape sequence).

    Examples
    --------
    >>> did_you_mean("lable", ["label", "prediction"])
    " Did you mean 'label'?"
    >>> did_you_mean("zzz", ["label"])
    ''
    """
    import difflib  # imported only when a name is wrong: 6 ms of every start otherwise

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" Did you mean '{terminal_text(close[0])}'?" if close else ""
