"""How a cell of the data matches a declared value, whatever format the data came in.

A declared value (an attribute's group, a ``label_map`` or ``prediction_map`` key) is
text. A cell matches it when its text is equal, or equal after trimming spaces at either
end, or when both spell **the same number exactly**. The last step is what makes a CSV
file, where a column of ``1.0`` / ``0.0`` is text, give the same verdict as the same data
in Parquet or a DataFrame, where the column is a float and is read as ``1`` / ``0``.

A number spelling is, in ASCII only::

    [+-] (0 | 1-9 digits) [. digits] [e|E [+-] digits]     or    [+-] . digits [e ...]

so ``1``, ``1.0``, ``1.00``, ``+1``, ``1.``, ``1e0``, ``10E-1`` and ``-0`` are numbers,
and ``007``, ``1,0``, ``1_000``, ``0x1``, ``inf``, ``nan`` and ``١`` (an Arabic-Indic
one) are not: they are compared as text only. A leading zero before more digits makes a
code (``007``, ``02134``), not a number. Two spellings are the same number when their
decimal values are equal, compared digit by digit, never through a binary float:
``0.1`` and ``0.10`` are the same number, ``0.1`` and ``0.1000000000000000055`` are not.

The module is pure (no engine, no YAML): the spec parser uses :func:`same_number_pair`
to refuse two declared values that are one number, and the gate uses
:class:`DeclaredValues` to match cells.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

__all__ = [
    "BinaryValues",
    "DeclaredValues",
    "NumberKey",
    "number_key",
    "same_number_pair",
]

_NUMBER = re.compile(
    r"(?P<sign>[+-]?)"
    r"(?:(?P<int>0|[1-9][0-9]*)(?:\.(?P<frac>[0-9]*))?|\.(?P<frac_only>[0-9]+))"
    r"(?:[eE](?P<exp>[+-]?[0-9]{1,6}))?"
)

#: Longer text is never read as a number (no category code is a 200-digit number).
_MAX_NUMBER_TEXT = 100


class NumberKey(NamedTuple):
    """A number as ``digits × 10**exponent``, ``digits`` without leading or trailing zeros.

    Zero is ``NumberKey(False, "", 0)`` whatever its sign or spelling.
    """

    negative: bool
    digits: str
    exponent: int


def number_key(text: str) -> NumberKey | None:
    """The exact value ``text`` spells, or ``None`` when it is not a number spelling.

    Surrounding spaces are not trimmed here: pass the trimmed text.

    Examples
    --------
    >>> number_key("1.0") == number_key("1") == number_key("+1e0") == number_key("10E-1")
    True
    >>> number_key("0.1") == number_key("0.1000000000000000055")
    False
    >>> number_key("007") is None and number_key("1_000") is None
    True
    """
    if len(text) > _MAX_NUMBER_TEXT:
        return None
    m = _NUMBER.fullmatch(text)
    if m is None:
        return None
    whole = m["int"] or ""
    frac = m["frac"] if m["frac"] is not None else (m["frac_only"] or "")
    exponent = int(m["exp"] or 0) - len(frac)
    digits = (whole + frac).lstrip("0")
    if not digits:
        return NumberKey(False, "", 0)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return NumberKey(m["sign"] == "-", stripped, exponent)


def same_number_pair(values: Iterable[str]) -> tuple[str, str] | None:
    """The first two of ``values`` that differ as text but spell the same number.

    Declaring both would make a cell such as ``7.0`` match two groups, so the spec
    refuses it.

    Examples
    --------
    >>> same_number_pair(["1", "2", "1.0"])
    ('1', '1.0')
    >>> same_number_pair(["007", "7"]) is None
    True
    """
    seen: dict[NumberKey, str] = {}
    for value in values:
        key = number_key(value.strip())
        if key is None:
            continue
        if key in seen and seen[key] != value:
            return seen[key], value
        seen.setdefault(key, value)
    return None


class DeclaredValues:
    """The declared values of one attribute (or one map's keys), matched as the spec says.

    Parameters
    ----------
    values
        The declared texts; no two may spell the same number (the spec refuses that).
    """

    def __init__(self, values: Iterable[str]) -> None:
        self._texts = tuple(dict.fromkeys(values))
        self._exact = frozenset(self._texts)
        self._numbers: dict[NumberKey, str] = {}
        for value in self._texts:
            key = number_key(value.strip())
            if key is not None:
                self._numbers.setdefault(key, value)
        self._folded: dict[str, list[str]] = {}
        for value in self._texts:
            self._folded.setdefault(value.strip().casefold(), []).append(value)

    def match(self, text: str) -> str | None:
        """The declared value the cell text ``text`` is, or ``None`` when it is none.

        Equal text first, then equal after trimming spaces, then the same number.

        Examples
        --------
        >>> DeclaredValues(["0", "1"]).match("1.0")
        '1'
        >>> DeclaredValues(["female", "male"]).match(" male ")
        'male'
        >>> DeclaredValues(["female", "male"]).match("Male") is None
        True
        """
        if text in self._exact:
            return text
        trimmed = text.strip()
        if trimmed in self._exact:
            return trimmed
        key = number_key(trimmed)
        if key is not None:
            return self._numbers.get(key)
        return None

    def case_twin(self, text: str) -> str | None:
        """The one declared value ``text`` differs from only by letter case (or ``None``).

        For a "did you mean" on a value that was not matched: ``Female`` for a declared
        ``female``. ``None`` when no declared value, or more than one, is that close.

        Examples
        --------
        >>> DeclaredValues(["female", "male"]).case_twin("FEMALE")
        'female'
        >>> DeclaredValues(["female", "male"]).case_twin("f") is None
        True
        """
        twins = self._folded.get(text.strip().casefold(), [])
        return twins[0] if len(twins) == 1 and twins[0] != text else None


_ONE_KEY = number_key("1")
_ZERO_KEY = number_key("0")


class BinaryValues:
    """How a label or prediction column is read as 0 and 1.

    Parameters
    ----------
    mapping
        A ``label_map`` or ``prediction_map``: each cell is matched to its keys by
        :meth:`DeclaredValues.match`. Empty or ``None``: any spelling of the number 1 or
        0 (``1``, ``1.0``, ``+1``, ``1e0``) and ``true`` / ``false`` in any letter case.
    """

    def __init__(self, mapping: Mapping[str, int] | None = None) -> None:
        self._mapping = dict(mapping or {})
        self._keys = DeclaredValues(self._mapping)

    def read(self, text: str) -> int | None:
        """The cell text ``text`` as 0 or 1, or ``None`` when it is neither.

        Examples
        --------
        >>> BinaryValues().read("1.00"), BinaryValues().read("False"), BinaryValues().read("2")
        (1, 0, None)
        >>> BinaryValues({"1": 0, "2": 1}).read("1.0")
        0
        """
        if self._mapping:
            found = self._keys.match(text)
            return None if found is None else self._mapping[found]
        trimmed = text.strip()
        lowered = trimmed.lower()
        if lowered in ("true", "false"):
            return 1 if lowered == "true" else 0
        key = number_key(trimmed)
        if key == _ONE_KEY:
            return 1
        if key == _ZERO_KEY:
            return 0
        return None
