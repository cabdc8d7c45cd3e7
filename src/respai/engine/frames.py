"""Results back as a DataFrame in the caller's own library (``by_group()``).

:func:`frame_backend` names the library of the frame a run counted; :func:`result_frame`
builds a frame of plain Python columns in that library with narwhals. PySpark and other
lazy frames get an eager frame: a polars lazy frame a polars DataFrame, anything else
(PySpark, DuckDB, or a file) pandas when it is installed, else pyarrow.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import narwhals as nw

__all__ = ["EAGER_BACKENDS", "default_backend", "frame_backend", "result_frame"]

EAGER_BACKENDS = ("pandas", "polars", "pyarrow")
"""The libraries ``by_group()`` returns a frame in."""

_DTYPES: Mapping[str, Any] = {"int": nw.Int64, "float": nw.Float64, "str": nw.String}


def default_backend() -> str:
    """The library of a result frame when the cases came from a file: pandas, else pyarrow."""
    return "pandas" if importlib.util.find_spec("pandas") is not None else "pyarrow"


def frame_backend(native: Any) -> str:
    """The eager library a result about ``native`` is returned in (see the module doc).

    Examples
    --------
    >>> import pyarrow as pa
    >>> frame_backend(pa.table({"a": [1]}))
    'pyarrow'
    >>> frame_backend(None) == default_backend()
    True
    """
    from respai.engine.source import Source

    if native is None:
        return default_backend()
    if isinstance(native, Source):  # a file (DuckDB) or a frame already opened
        native = native._frame
    try:
        frame = nw.from_native(native)
    except TypeError:
        return default_backend()
    name = str(nw.get_native_namespace(frame).__name__).split(".")[0]
    if name in EAGER_BACKENDS:
        return name
    return default_backend()


def result_frame(
    columns: Mapping[str, Sequence[Any]], kinds: Mapping[str, str], backend: str
) -> Any:
    """A native frame of ``columns`` in ``backend``; ``None`` values are nulls.

    Parameters
    ----------
    columns
        Column name -> values, every column the same length, in column order.
    kinds
        Column name -> ``"int"``, ``"float"`` or ``"str"``.
    backend
        One of :data:`EAGER_BACKENDS`.
    """
    schema = nw.Schema({name: _DTYPES[kinds[name]]() for name in columns})
    data = {name: list(values) for name, values in columns.items()}
    if backend not in EAGER_BACKENDS:
        raise ValueError(f"backend must be one of {EAGER_BACKENDS}, not {backend!r}")
    chosen: Literal["pandas", "polars", "pyarrow"] = backend  # type: ignore[assignment]
    return nw.from_dict(data, schema=schema, backend=chosen).to_native()
