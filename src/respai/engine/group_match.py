"""Group values matched in SQL exactly as the ``fairness:`` block matches them, on every engine.

The ``fairness:`` block groups the cases by the raw, typed value of each attribute column
and maps each distinct raw value to a declared group in Python
(:func:`respai.load.match_attribute`: equal text, trimmed text, or the same number, see
docs/spec.md). The blocks whose sums are made in one SQL pass (``regression:``,
``ranking:``) must put every row in the same group, so they map values the same way:

1. a small first pass (:func:`group_codes`) gathers each attribute column's distinct raw
   values, each with the engine's own text of it (``CAST(col AS STRING)``);
2. each raw value is mapped in Python by :func:`respai.load.match_attribute`, the
   function the fairness block's gate uses: to a declared group (code ``0 ..``), to
   missing (:data:`EMPTY_CODE`: ``NULL``, NaN, blank text) or to undeclared
   (:data:`UNDECLARED_CODE`);
3. the main pass looks each row's text up in a small inline table of the texts that map
   to a group or to missing (:meth:`GroupCodes.join`, :meth:`GroupCodes.code`); any other
   text is undeclared.

The engine's text of a value is only ever compared with the same engine's text of it, so
DuckDB's and Spark's different spellings of a double (``1e+20`` / ``1.0E20``) do not
matter; the mapping itself is made from the typed value, as the fairness block's is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from respai.engine.source import Source
from respai.engine.sql import Dialect, query
from respai.errors import InputError

__all__ = ["EMPTY_CODE", "UNDECLARED_CODE", "GroupCodes", "group_codes", "text_literal"]

#: The code of a missing group value (``NULL``, NaN, blank text).
EMPTY_CODE = -1
#: The code of a value that is no declared group.
UNDECLARED_CODE = -2
#: Up to this many matching texts, a column is coded by a ``CASE`` chain; past it, by a
#: join on an inline table of the texts (one hash lookup per row, however many groups).
_CHAIN_MAX = 32


def text_literal(d: Dialect, text: str) -> str:
    r"""``text`` as a SQL string literal of the engine ``d``.

    DuckDB reads a quote doubled and nothing else specially; Spark SQL reads backslash
    escapes (and two adjacent literals as one), so there the quote, the backslash and
    control characters are written as ``\uXXXX``.
    """
    if not d.spark:
        return "'" + text.replace("'", "''") + "'"
    out = []
    for ch in text:
        o = ord(ch)
        out.append(f"\\u{o:04x}" if ch in "'\\" or o < 32 or 127 <= o < 160 else ch)
    return "'" + "".join(out) + "'"


@dataclass(frozen=True, slots=True)
class GroupCodes:
    """How one attribute column's values map to its declared groups, for the main pass.

    Attributes
    ----------
    column
        The attribute column.
    groups
        The declared groups; code ``i`` is ``groups[i]``.
    texts
        The engine's text of each raw value that is a declared group (its code) or
        missing (:data:`EMPTY_CODE`); every other non-``NULL`` value is undeclared.
    index
        Which lookup table this is in a query (names its columns apart).
    """

    column: str
    groups: tuple[str, ...]
    texts: tuple[tuple[str, int], ...]
    index: int = 0

    def join(self, d: Dialect) -> str:
        """The ``LEFT JOIN`` of the lookup table (empty text for a short ``CASE`` chain).

        Append it right after ``FROM <table>``: each row gains at most one match, as the
        table's texts are distinct.
        """
        if len(self.texts) <= _CHAIN_MAX:
            return ""
        rows = ", ".join(f"({text_literal(d, t)}, {c})" for t, c in self.texts)
        i = self.index
        return (
            f" LEFT JOIN (VALUES {rows}) AS __gm{i}(__gm{i}_t, __gm{i}_c) "
            f"ON CAST({d.ident(self.column)} AS STRING) = __gm{i}.__gm{i}_t"
        )

    def code(self, d: Dialect) -> str:
        """SQL for the row's code (used with :meth:`join`).

        A group's index, :data:`EMPTY_CODE` or :data:`UNDECLARED_CODE`.
        """
        col = d.ident(self.column)
        if len(self.texts) > _CHAIN_MAX:
            found = f"COALESCE(__gm{self.index}.__gm{self.index}_c, {UNDECLARED_CODE})"
            return f"CASE WHEN {col} IS NULL THEN {EMPTY_CODE} ELSE {found} END"
        by_code: dict[int, list[str]] = {}
        for text, code in self.texts:
            by_code.setdefault(code, []).append(text_literal(d, text))
        text = f"CAST({col} AS STRING)"
        chain = "".join(
            f" WHEN {text} IN ({', '.join(listed)}) THEN {code}"
            for code, listed in sorted(by_code.items())
        )
        return f"CASE WHEN {col} IS NULL THEN {EMPTY_CODE}{chain} ELSE {UNDECLARED_CODE} END"

    def name(self, code: int) -> str | None:
        """The declared group of ``code`` (``None`` for missing or undeclared)."""
        return self.groups[code] if code >= 0 else None


def group_codes(source: Source, attributes: Mapping[str, Sequence[str]]) -> dict[str, GroupCodes]:
    """Map each attribute column's distinct values to codes, as the fairness block does.

    One small pass per column (its distinct values and their texts).

    Raises
    ------
    InputError
        For a value holding control characters (as the fairness block refuses it), or
        should two raw values the engine writes as one text map differently.
    """
    from respai.load import match_attribute
    from respai.spelling import DeclaredValues

    out: dict[str, GroupCodes] = {}
    for i, (column, declared) in enumerate(attributes.items()):
        groups = tuple(declared)
        position = {g: k for k, g in enumerate(groups)}
        matcher = DeclaredValues(groups)

        def build(d: Dialect, column: str = column) -> str:
            c = d.ident(column)
            return f"SELECT DISTINCT {c}, CAST({c} AS STRING) FROM {d.table}"

        texts: dict[str, int] = {}
        seen: dict[str, int] = {}
        for raw, text in query(source, build, [column]):
            if text is None:  # NULL: coded in SQL
                continue
            value, reason = match_attribute(source, column, matcher, raw)
            if value is not None:
                code = position[value]
            else:
                code = EMPTY_CODE if reason == "missing" else UNDECLARED_CODE
            if seen.setdefault(text, code) != code:
                raise InputError(
                    f"{source.description}: column '{column}' holds values the engine "
                    f"writes as the same text {text!r} but that match different groups.",
                    "Convert the column to text before the run.",
                )
            if code != UNDECLARED_CODE:
                texts[text] = code
        out[column] = GroupCodes(column, groups, tuple(sorted(texts.items())), i)
    return out
