"""What the count pass counts: the column types and cell values it reads; the rest refused.

The count pass groups the raw values of the columns a run reads (the declared attributes,
the label and prediction, the probability or score, the unit, the LL144 columns) and the
gate reads each distinct value as text or a number. A value it cannot group or read is
refused before the pass runs, with an :class:`~respai.errors.InputError` naming the
column, the value's type and the first row that holds it, so nothing is counted, signed or
written:

- a column of nested values (a list, array, struct or map type; a polars ``Object``
  column), in a DataFrame or a Parquet file alike;
- in a pandas ``object`` (or categorical) column, a cell that is not text, a number,
  ``True``/``False``, a date, time or duration, or missing (``None``, ``NaN``,
  ``pd.NA``, ``pd.NaT``): bytes (``bytes``, ``bytearray``, ``memoryview``, which the
  count pass would compare as their repr), and a ``list``, ``tuple``, ``dict``, ``set``
  or any other object (an unhashable one would stop the pass itself).

:func:`refuse_uncounted` runs at the start of every count pass
(:mod:`respai.engine.count_pass`); :func:`refuse_pandas_cells` also runs when a DataFrame's
fingerprint is computed on its own (:mod:`respai.engine.frame_fingerprint`).
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Sequence
from typing import Any

import narwhals as nw

from respai.engine.source import Source
from respai.errors import InputError

__all__ = ["DECODE", "bytes_error", "refuse_pandas_cells", "refuse_uncounted"]

DECODE = (
    "Decode it to text before the run (pandas: df[column].str.decode('utf-8'); "
    "polars: pl.col(column).cast(pl.String))."
)
"""The hint of a refused column of bytes."""

_BYTES = (bytes, bytearray, memoryview)

#: The Python types of a pandas object cell the count pass counts (numpy scalars too).
_COUNTED: tuple[type, ...] = (
    str,
    bool,
    int,
    float,
    decimal.Decimal,
    datetime.date,
    datetime.time,
    datetime.timedelta,
)

#: What ``pandas.api.types.infer_dtype`` calls a column of counted values only.
_CLEAN_KINDS = frozenset(
    {
        "string",
        "empty",
        "integer",
        "floating",
        "mixed-integer-float",
        "boolean",
        "decimal",
        "date",
        "datetime",
        "datetime64",
        "time",
        "timedelta",
        "timedelta64",
    }
)


def _shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, shortened and safe on a terminal (control characters escaped)."""
    try:
        text = repr(value)
    except Exception:  # an object whose repr fails is still named by its type
        text = f"<{type(value).__name__}>"
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def bytes_error(description: str, name: str, value: Any, where: str) -> InputError:
    """The refusal of a column holding bytes: the count pass reads values as text.

    Parameters
    ----------
    description
        How the message names the data (``"the DataFrame"``).
    name
        The column.
    value
        The first bytes value (``bytes``, ``bytearray`` or ``memoryview``).
    where
        Where it is, e.g. ``", first at row 4"`` (or empty).
    """
    head = bytes(value[:40])
    shown = repr(head) if isinstance(value, bytes) else f"{type(value).__name__}({head!r})"
    return InputError(
        f"{description}'s column '{name}' holds bytes ({shown}{where}); the count pass "
        "reads a value as text, so a byte string would be compared as its repr and left "
        "out of its group, while its fingerprint would be that of the decoded text.",
        DECODE,
    )


def _value_error(description: str, name: str, value: Any, where: str) -> InputError:
    kind = type(value).__name__
    return InputError(
        f"{description}'s column '{name}' holds a value of type {kind} ({_shown(value)}"
        f"{where}), which the count pass does not count: each cell of a column the run "
        "reads is one text, number, true/false, date or missing value.",
        "Give the column one plain value per cell before the run (a one-element list: "
        "df[column].str[0]; an object: the text or number it stands for).",
    )


def _counted_type(kind: type, missing: tuple[type, ...]) -> bool:
    """Whether the count pass counts a cell of type ``kind`` (one test per distinct type)."""
    import numpy as np

    if issubclass(kind, (*_BYTES, np.void, complex, np.complexfloating)):  # bytes_ too
        return False
    return issubclass(kind, (*missing, *_COUNTED, np.generic))


def refuse_pandas_cells(
    native: Any, columns: Sequence[str], description: str = "the DataFrame"
) -> None:
    """Refuse a pandas object (or categorical) column holding a value the pass does not count.

    Arrow reads a column of ``str`` and ``bytes`` as text (the bytes decoded), and pandas
    cannot group a list, so such values must be found on the pandas column itself.

    Parameters
    ----------
    native
        A pandas DataFrame.
    columns
        The columns the run reads (others may hold anything).
    description
        How the message names the frame.

    Raises
    ------
    InputError
        Naming the column, the value's type and the first row holding it (1-based).
    """
    import numpy as np
    import pandas as pd

    missing = (type(None), type(pd.NA), type(pd.NaT))
    wanted = set(columns)
    for position, name in enumerate(native.columns):
        if name not in wanted:
            continue
        series = native.iloc[:, position]
        categorical = isinstance(series.dtype, pd.CategoricalDtype)
        values = series.cat.categories if categorical else series
        if values.dtype != object:
            continue
        if pd.api.types.infer_dtype(values, skipna=True) in _CLEAN_KINDS:
            continue
        # the type of every cell at once, then one decision per distinct type
        types = np.frompyfunc(type, 1, 1)(values.to_numpy(dtype=object))
        bad = [t for t in pd.unique(types) if not _counted_type(t, missing)]
        if bad:
            index = int(np.flatnonzero(np.isin(types, np.array(bad, dtype=object)))[0])
            value = values.iloc[index] if hasattr(values, "iloc") else values[index]
            row = index
            if categorical:
                used = (series.cat.codes == index).to_numpy().nonzero()[0]
                row = int(used[0]) if len(used) else -1
            where = "" if row < 0 else f", first at row {row + 1}"
            if isinstance(value, _BYTES):
                raise bytes_error(description, str(name), value, where)
            raise _value_error(description, str(name), value, where)


def _nested(dtype: Any, pandas: bool) -> bool:
    """Whether ``dtype`` is a list, array, struct or map type, or an object type.

    A pandas object column is not refused for its type: its cells are read one by one
    (:func:`refuse_pandas_cells`).
    """
    kinds = [nw.List, nw.Array, nw.Struct, getattr(nw, "Map", None)]
    if not pandas:
        kinds.append(nw.Object)
    return any(k is not None and isinstance(dtype, k) for k in kinds)


def refuse_uncounted(source: Source, columns: Sequence[str]) -> None:
    """Refuse, before the count pass, a column of ``columns`` it could not count.

    Parameters
    ----------
    source
        The opened cases (a file, a join or a DataFrame).
    columns
        The columns the pass groups or reads (names the source lacks are skipped: the
        gate names a missing column).

    Raises
    ------
    InputError
        For a column of nested values (list, array, struct, map, object) and, in a
        pandas DataFrame, a cell of a type the pass does not count (see the module
        docstring); nothing has been counted.
    """
    frame = source._frame
    schema = frame.collect_schema()
    wanted = [c for c in dict.fromkeys(columns) if c in schema]
    native = frame.to_native()
    pandas = type(native).__module__.split(".")[0] == "pandas"
    for name in wanted:
        dtype = schema[name]
        if _nested(dtype, pandas):
            raise _nested_error(source, name, dtype)
    if pandas:
        refuse_pandas_cells(native, wanted, source.description)


def _nested_error(source: Source, name: str, dtype: Any) -> InputError:
    """A column of nested values: its type, and its first value and row in a DataFrame."""
    where = ""
    frame = source._frame
    if isinstance(frame, nw.DataFrame):
        nulls = frame.get_column(name).is_null().to_list()
        if False in nulls:
            row = nulls.index(False)
            value = frame.get_column(name).to_list()[row]
            where = f" ({_shown(value)}, first at row {row + 1})"
    return InputError(
        f"{source.description}: column '{name}' holds values of type {dtype}{where}, which "
        "the count pass does not count: each cell of a column the run reads is one text, "
        "number, true/false, date or missing value.",
        "Give the column one plain value per cell before the run (a one-element list: "
        "its first element; a struct: the field you mean).",
    )
