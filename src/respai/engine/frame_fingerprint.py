"""The dataset fingerprint of a DataFrame: SHA-256 of a canonical Arrow IPC stream.

A file is fingerprinted by its bytes; a DataFrame has no bytes of its own, so respai
writes the columns a run reads in one canonical form and hashes that. Anyone holding the
same data (as pandas, polars, pyarrow or PySpark) can recompute it:

1. Take the columns the run reads (the spec's label, prediction, score, probability,
   unit, attributes, LL144 and id columns that the frame holds), **sorted by name** in
   Unicode code-point order (Python's ``sorted``). Nothing else: not the index, not other
   columns, not schema or field metadata.
2. Cast each column to its canonical type: every integer type to ``int64``; every float
   and decimal type to ``float64``, except that a float or decimal column whose non-null
   values are all whole numbers of magnitude at most 2**53 is ``int64`` (pandas keeps a
   column of integers with a missing value as floats with NaN; so ``[1, None]`` hashes
   alike in pandas, polars and pyarrow, and so do ``[1.0, 0.0]`` and ``[1, 0]``, which
   respai reads as the same numbers anyway); ``bool`` stays ``bool``; every text type (``string``,
   ``large_string``, ``string_view``, categorical / dictionary of text) to
   ``large_string``, and anything else (dates, times, an all-null column) to
   ``large_string`` through Arrow's cast. Every field is nullable; a missing value is a
   null (pandas ``None`` and ``NaN`` become nulls, as ``pyarrow.Table.from_pandas``
   reads them).
3. Combine each column's chunks into one array and write **one record batch** holding
   every row, in the frame's row order (under a null, a zero value: ``0``, ``0.0``,
   ``false`` or an empty string), as an Arrow IPC *stream* (``pyarrow.ipc.new_stream``
   with the default options: metadata version V5, no compression), end-of-stream marker
   included.
4. The fingerprint is the SHA-256 of those bytes, with ``media_type``
   ``application/vnd.apache.arrow.stream``, ``size_bytes`` their length, ``name``
   ``"dataframe"``, and the ``columns`` (in the order hashed) and ``rows`` it covers;
   ``canonical`` names this recipe (``respai.frame.v1``).

Row order matters (the same rows shuffled are a different stream); so does every value.

The fingerprint covers what the count pass counts: two frames with the same fingerprint
give the same counts. Where a canonical type would merge values the count pass treats
differently, the frame is refused (an :class:`~respai.errors.InputError` naming the
column) rather than hashed:

- bytes (a pandas object or categorical column holding ``bytes``, ``bytearray`` or
  ``memoryview``, a polars ``Binary`` or an Arrow binary column): Arrow would decode
  them to the text the count pass does not match them with;
- any other value the count pass does not count (a ``list``, ``tuple``, ``dict``,
  ``set`` or other object in a pandas object column; see
  :mod:`respai.engine.counted`, which refuses them before the count pass too);
- a column of values of more than one type (text and numbers, text and dates) that no
  one canonical type holds.

What does merge is counted alike: ``None``, ``NaN``, ``pd.NA`` and a null are all missing;
a categorical column and its values as text; ``-0.0`` and ``0.0`` in a column of whole
numbers (a label or prediction: both ``0``). In a score or probability column ``-0.0``
and ``0.0`` stay two values (and two fingerprints), as do a NaN and a null in a float
column of polars or pyarrow (the count pass refuses the NaN).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import narwhals as nw
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.compute as pc  # type: ignore[import-untyped]

from respai.engine.counted import DECODE, bytes_error, refuse_pandas_cells
from respai.errors import InputError

__all__ = ["FRAME_CANONICAL", "FRAME_MEDIA_TYPE", "canonical_stream", "frame_fingerprint"]

FRAME_MEDIA_TYPE = "application/vnd.apache.arrow.stream"
"""The media type of a DataFrame's fingerprint: the Arrow IPC stream hashed."""

FRAME_CANONICAL = "respai.frame.v1"
"""The name of the canonical form in this module's docstring."""


def _canonical_type(dtype: pa.DataType) -> pa.DataType:
    if pa.types.is_dictionary(dtype):
        return _canonical_type(dtype.value_type)
    if pa.types.is_boolean(dtype):
        return pa.bool_()
    if pa.types.is_integer(dtype):
        return pa.int64()
    if pa.types.is_floating(dtype) or pa.types.is_decimal(dtype):
        return pa.float64()
    return pa.large_string()


_EXACT = 2**53  # every whole float of at most this magnitude is exactly one int64


def _whole(array: pa.Array) -> bool:
    """Whether every non-null value of a numeric array is a whole number within 2**53."""
    values = array.cast(pa.float64()).drop_null()
    if len(values) == 0:
        return True
    finite = pc.all(pc.is_finite(values)).as_py()
    if not finite:
        return False
    whole = pc.all(pc.equal(pc.floor(values), values)).as_py()
    return bool(whole) and float(pc.max(pc.abs(values)).as_py()) <= _EXACT


_ZERO = {pa.int64(): 0, pa.float64(): 0.0, pa.bool_(): False, pa.large_string(): ""}


def _clean(array: pa.Array) -> pa.Array:
    """``array`` with fresh buffers and zeroed slots under its nulls (an empty string).

    What lies under a null is left undefined by Arrow, and libraries leave different
    bytes there (pandas the bits of a NaN): the stream must hold only the values.
    """
    if array.offset:
        array = pa.concat_arrays([array])
    if array.null_count == 0:
        return array
    filled = pc.fill_null(array, pa.scalar(_ZERO[array.type], type=array.type))
    valid = pc.is_valid(array)
    return pa.Array.from_buffers(
        array.type,
        len(array),
        [valid.buffers()[1], *filled.buffers()[1:]],
        null_count=array.null_count,
    )


def _arrow_table(native: Any, columns: Sequence[str]) -> pa.Table:
    try:
        frame = nw.from_native(native)
    except TypeError:
        raise InputError(
            f"cannot read a {type(native).__name__} as a table of cases.",
            "Pass a pandas, polars, pyarrow or PySpark DataFrame.",
        ) from None
    if isinstance(frame, nw.Series):
        raise InputError("got a Series, not a table of cases.", "Pass the whole DataFrame.")
    if type(native).__module__.split(".")[0] == "pandas":
        # Arrow would decode bytes to text: find them (and lists, objects) on the column
        refuse_pandas_cells(native, columns)
    selected = frame.select(list(columns))
    try:
        if isinstance(selected, nw.LazyFrame):
            # a lazy frame (PySpark, DuckDB, polars lazy): its columns are collected to hash
            return selected.collect(backend="pyarrow").to_arrow()
        return selected.to_arrow()
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise InputError(
            f"the DataFrame cannot be fingerprinted: {_arrow_message(exc)}; a column the "
            "run reads holds values of more than one type (text and numbers, say), which "
            "no one canonical type can hold.",
            "Give every column one type (all text, or all numbers) before the run.",
        ) from None


def _arrow_message(exc: Exception) -> str:
    """Arrow's message, as one line (pandas conversion errors are a tuple's repr)."""
    args = [str(a) for a in exc.args] or [str(exc)]
    return "; ".join(a.strip() for a in args if a.strip()).replace("\n", " ")


def _is_binary(dtype: pa.DataType) -> bool:
    if pa.types.is_dictionary(dtype):
        return _is_binary(dtype.value_type)
    checks = ("is_binary", "is_large_binary", "is_fixed_size_binary", "is_binary_view")
    return any(getattr(pa.types, check, lambda _t: False)(dtype) for check in checks)


def canonical_stream(native: Any, columns: Sequence[str]) -> tuple[bytes, int]:
    """The canonical Arrow IPC stream of ``columns`` of a frame, and its row count.

    Parameters
    ----------
    native
        A pandas, polars or pyarrow DataFrame, or a lazy frame narwhals supports.
    columns
        The columns to write; they are sorted by name here.

    Raises
    ------
    InputError
        When the object is not a frame, a column cannot take its canonical type, or a
        column holds bytes or values of more than one type (see the module docstring).
    """
    names = sorted(dict.fromkeys(columns))
    table = _arrow_table(native, names)
    arrays: list[pa.Array] = []
    fields: list[pa.Field] = []
    for name in names:
        column = table.column(name)
        combined = column.combine_chunks()
        if _is_binary(column.type):
            first = combined.drop_null()
            if len(first) == 0:
                raise InputError(
                    f"the DataFrame's column '{name}' has the type {column.type}, which "
                    "the count pass does not read as text.",
                    DECODE,
                )
            value = first[0].as_py()
            raise bytes_error(
                "the DataFrame", name, value.encode() if isinstance(value, str) else value, ""
            )
        target = _canonical_type(column.type)
        if target == pa.float64() and _whole(combined):
            target = pa.int64()  # pandas keeps a missing integer as NaN in a float column
        try:
            array = combined.cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(
                f"the DataFrame's column '{name}' ({column.type}) cannot be read as "
                f"{target} to fingerprint it: {exc}",
                "Convert the column to numbers or text before the run.",
            ) from None
        arrays.append(_clean(array))
        fields.append(pa.field(name, target, nullable=True))
    schema = pa.schema(fields)
    batch = pa.RecordBatch.from_arrays(arrays, schema=schema)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes(), table.num_rows


def frame_fingerprint(native: Any, columns: Sequence[str]) -> dict[str, Any]:
    """The dataset fingerprint of a DataFrame, as the module docstring defines it.

    Parameters
    ----------
    native
        The frame the run counted.
    columns
        The columns the run read (sorted here).

    Returns
    -------
    dict
        ``{name, media_type, size_bytes, sha256, canonical, columns, rows}``.

    Examples
    --------
    >>> import pyarrow as pa
    >>> fp = frame_fingerprint(pa.table({"y": [1, 0], "g": ["a", "b"]}), ["y", "g"])
    >>> fp["media_type"], fp["columns"], fp["rows"]
    ('application/vnd.apache.arrow.stream', ['g', 'y'], 2)
    """
    data, rows = canonical_stream(native, columns)
    return {
        "name": "dataframe",
        "media_type": FRAME_MEDIA_TYPE,
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "canonical": FRAME_CANONICAL,
        "columns": sorted(dict.fromkeys(columns)),
        "rows": rows,
    }
