"""The one module that talks to a dataframe engine.

Files (CSV, JSONL, Parquet) are opened lazily in DuckDB, out of core. DataFrames from the
Python API (pandas, polars, pyarrow, and lazy frames narwhals knows) are wrapped with
narwhals. Either way the same narwhals expressions run the count pass where the data
lives, and only a small table of integer counts comes back to Python.

Nothing above this module imports duckdb or narwhals: callers get plain Python values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import narwhals as nw

from respai.errors import InputError

__all__ = [
    "MICRO",
    "CubeRow",
    "Source",
    "count_cube",
    "duplicate_unit",
    "locate",
    "open_file",
    "open_frame",
]

#: Probabilities are summed as integers in millionths (``floor(p * 10**6)``), so the sums
#: are exact and identical on every engine and every thread count.
MICRO = 1_000_000

_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_NUMERIC = "numeric"
_TEXT = "text"
_BOOL = "boolean"
_OTHER = "other"


@dataclass(frozen=True, slots=True)
class CubeRow:
    """One cell of the count cube: raw key values and what was counted there.

    ``keys`` holds the raw values of the grouped columns in the order asked for (Python
    ``int``, ``float``, ``str``, ``bool`` or ``None``). ``prob_bin`` is the probability bin
    (``None`` when there is no probability). ``prob_sum`` is the sum of
    ``floor(p * MICRO)`` over the cell.
    """

    keys: tuple[Any, ...]
    prob_bin: int | None
    n: int
    prob_n: int
    prob_sum: int
    prob_min: float | None
    prob_max: float | None


class Source:
    """An opened table of cases, ready for the count pass.

    Attributes
    ----------
    description
        How messages name the data: the file path, or ``"the pandas DataFrame"``.
    path
        The file, or ``None`` for a DataFrame.
    kinds
        Column name to ``"numeric"``, ``"text"``, ``"boolean"`` or ``"other"``.
    """

    def __init__(
        self,
        description: str,
        path: Path | None,
        frame: Any,
        con: duckdb.DuckDBPyConnection | None,
    ) -> None:
        self.description = description
        self.path = path
        self._frame = frame
        self._con = con
        schema = frame.collect_schema()
        self.kinds: dict[str, str] = {name: _kind(dtype) for name, dtype in schema.items()}

    @property
    def columns(self) -> list[str]:
        """Column names in file order."""
        return list(self.kinds)

    @property
    def row_word(self) -> str:
        """``"line"`` for text files (where line 1 is the header), ``"row"`` otherwise."""
        return "line" if self._con is not None and self._is_text else "row"

    @property
    def _is_text(self) -> bool:
        return self.path is not None and _SUFFIX_FORMATS.get(self.path.suffix.lower()) != (
            "parquet"
        )


def _kind(dtype: Any) -> str:
    if dtype.is_numeric():
        return _NUMERIC
    if dtype == nw.String or dtype == nw.Categorical or dtype == nw.Enum:
        return _TEXT
    if dtype == nw.Boolean:
        return _BOOL
    return _OTHER


def file_format(path: Path, declared: str | None) -> str:
    """The format of ``path``: the declared one, else from the suffix.

    Raises
    ------
    InputError
        When the suffix is unknown and no format is declared.
    """
    if declared:
        return declared
    fmt = _SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"cannot tell the format of {path} from its name.",
            "Name it .csv, .jsonl or .parquet, or set format: in the spec.",
        )
    return fmt


def open_file(path: Path, declared_format: str | None = None, delimiter: str = ",") -> Source:
    """Open a CSV, JSONL or Parquet file lazily in DuckDB.

    Raises
    ------
    InputError
        When the file is missing, empty, not UTF-8 text, or DuckDB cannot read it.
    """
    fmt = file_format(path, declared_format)
    if not path.exists():
        raise InputError(f"the cases file {path} does not exist.", "Check the path in the spec.")
    if path.is_dir():
        raise InputError(f"the cases file {path} is a directory.")
    if path.stat().st_size == 0:
        raise InputError(f"the cases file {path} is empty (0 bytes).",
                         "Export the decided cases with a header row.")
    if fmt != "parquet":
        _check_text_start(path)
    con = duckdb.connect(":memory:")
    quoted = str(path).replace("'", "''")
    if fmt == "csv":
        sep = delimiter.replace("'", "''")
        reader = (
            f"read_csv('{quoted}', delim='{sep}', header=true, auto_detect=true, "
            "strict_mode=true, max_line_size=2097152)"
        )
    elif fmt == "jsonl":
        reader = f"read_json('{quoted}', format='newline_delimited')"
    else:
        reader = f"read_parquet('{quoted}')"
    try:
        con.execute(f"CREATE VIEW cases AS SELECT * FROM {reader}")
        rel = con.table("cases")
        frame = nw.from_native(rel)
        source = Source(str(path), path, frame, con)
    except duckdb.Error as exc:
        raise _read_error(path, exc) from None
    return source


def _check_text_start(path: Path) -> None:
    with path.open("rb") as fh:
        head = fh.read(4)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(
            f"{path} is UTF-16 text (it starts with a UTF-16 byte-order mark).",
            "Save it as UTF-8 (a UTF-8 byte-order mark is fine).",
        )
    if b"\x00" in head:
        raise InputError(f"{path} starts with NUL bytes: it is not a text file.",
                         "Export the cases as UTF-8 CSV or JSONL, or as Parquet.")


_LINE = re.compile(r"[Ll]ine:?\s*(\d+)")


def _read_error(path: Path, exc: Exception) -> InputError:
    """Turn a DuckDB reading error into one paragraph that names the file and line."""
    text = str(exc)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    first = re.sub(r"^[A-Za-z ]*Error:\s*", "", first)
    line = _LINE.search(text)
    where = f" near line {line.group(1)}" if line else ""
    if "unicode" in text.lower() or "utf-8" in text.lower() or "utf8" in text.lower():
        return InputError(
            f"{path} is not valid UTF-8{where}: part of it uses another encoding.",
            "Re-export the whole file as UTF-8.",
        )
    if "maximum line size" in text.lower() or "max_line_size" in text.lower():
        return InputError(
            f"{path} has a line longer than 2 MB{where}; no field of a case should be that "
            "long.",
            "Check that line for a runaway quote or a pasted blob.",
        )
    if "expected" in text.lower() and "column" in text.lower():
        return InputError(
            f"{path}{where} has a different number of fields than the header.",
            "Check the delimiter and quoting on that line.",
        )
    if "could not convert" in text.lower() or "conversion error" in text.lower():
        return InputError(
            f"{path}{where}: a value does not fit its column's type ({_shorten(first)}).",
            "Fix the value, or make the whole column text.",
        )
    return InputError(f"cannot read {path}{where}: {_shorten(first)}.",
                      "Check that it is a well-formed file of the declared format.")


def _shorten(text: str, limit: int = 200) -> str:
    clean = "".join(c if c.isprintable() else "?" for c in text).rstrip(".")
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


def open_frame(native: Any) -> Source:
    """Wrap a DataFrame (pandas, polars, pyarrow, or a lazy frame narwhals knows).

    Raises
    ------
    InputError
        When narwhals does not recognise the object as a dataframe.
    """
    try:
        frame = nw.from_native(native)
    except TypeError:
        raise InputError(
            f"cannot read a {type(native).__name__} as a table of cases.",
            "Pass a pandas, polars or pyarrow table (or a lazy frame narwhals supports).",
        ) from None
    if isinstance(frame, nw.Series):
        raise InputError("got a Series, not a table of cases.", "Pass the whole DataFrame.")
    module = type(native).__module__.split(".")[0]
    return Source(f"the {module} DataFrame", None, frame, None)


def count_cube(
    source: Source,
    keys: Sequence[str],
    probability: str | None,
    bins: int,
) -> list[CubeRow]:
    """Run the one count pass: ``GROUP BY keys [, probability bin]`` with counts.

    Every aggregate is an integer except the probability minimum and maximum, which the
    gate uses to check the range.

    Raises
    ------
    InputError
        When the engine fails while scanning (a bad value deep in a file).
    """
    frame = source._frame
    group_exprs: list[Any] = [nw.col(k) for k in keys]
    aggs: list[Any] = [nw.len().alias("__n")]
    if probability is not None:
        p = nw.col(probability)
        scaled = (p * bins).floor().clip(upper_bound=bins - 1).cast(nw.Int64)
        frame = frame.with_columns(scaled.alias("__bin"))
        group_exprs.append(nw.col("__bin"))
        aggs += [
            p.count().alias("__pn"),
            (p * MICRO).floor().cast(nw.Int64).sum().alias("__ps"),
            p.min().alias("__pmin"),
            p.max().alias("__pmax"),
        ]
    try:
        grouped = frame.group_by(*group_exprs, drop_null_keys=False).agg(*aggs)
        rows = _fetch(grouped)
    except duckdb.Error as exc:
        if source.path is None:
            raise
        raise _read_error(source.path, exc) from None
    width = len(keys)
    out: list[CubeRow] = []
    for row in rows:
        if probability is None:
            out.append(CubeRow(tuple(row[:width]), None, int(row[width]), 0, 0, None, None))
            continue
        pbin, n, pn, ps, pmin, pmax = row[width:]
        out.append(CubeRow(
            keys=tuple(row[:width]),
            prob_bin=None if _is_null(pbin) else int(pbin),
            n=int(n),
            prob_n=int(pn),
            prob_sum=0 if _is_null(ps) else int(ps),
            prob_min=None if _is_null(pmin) else float(pmin),
            prob_max=None if _is_null(pmax) else float(pmax),
        ))
    return out


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _fetch(frame: Any) -> list[tuple[Any, ...]]:
    """Bring a small result back as Python tuples, engine-natively."""
    native = frame.to_native()
    if isinstance(native, duckdb.DuckDBPyRelation):
        return [tuple(r) for r in native.fetchall()]
    if isinstance(frame, nw.LazyFrame):
        frame = frame.collect()
    return [tuple(_py(v) for v in r) for r in frame.rows()]


def _py(value: Any) -> Any:
    """Plain Python scalars from numpy / pandas scalars."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    if type(value).__name__ in {"NAType", "NaTType"}:
        return None
    return value


def duplicate_unit(source: Source, unit: str) -> tuple[Any, int] | None:
    """Return one unit value that appears on more than one case, with its count."""
    grouped = (
        source._frame.group_by(unit, drop_null_keys=True)
        .agg(nw.len().alias("__n"))
        .filter(nw.col("__n") > 1)
        .head(1)
    )
    try:
        rows = _fetch(grouped)
    except duckdb.Error as exc:
        assert source.path is not None
        raise _read_error(source.path, exc) from None
    if not rows:
        return None
    value, n = rows[0]
    return value, int(n)


def locate(source: Source, column: str, value: Any) -> int | None:
    """The 1-based position of the first case whose ``column`` equals ``value``.

    For text files this is the file's line number (the header is line 1). Only used to
    word an error message, so it may return ``None`` when the engine cannot say.
    """
    try:
        if source._con is not None:
            sql = (
                'SELECT rn FROM (SELECT row_number() OVER () AS rn, "'
                + column.replace('"', '""')
                + '" AS v FROM cases) WHERE v IS NOT DISTINCT FROM ? ORDER BY rn LIMIT 1'
            )
            found = source._con.execute(sql, [value]).fetchone()
            if found is None:
                return None
            return int(found[0]) + (1 if source._is_text else 0)
        frame = source._frame
        if isinstance(frame, nw.LazyFrame):
            return None
        expr = nw.col(column).is_null() if _is_null(value) else nw.col(column) == value
        hits = frame.with_row_index("__rn").filter(expr).head(1)
        rows = hits.rows(named=True)
        return int(rows[0]["__rn"]) + 1 if rows else None
    except Exception:  # noqa: BLE001 - a row number is a courtesy; never mask the real error
        return None
