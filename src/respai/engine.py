"""The one module that talks to a dataframe engine.

Files (CSV, JSONL, Parquet) are opened lazily in DuckDB, out of core. DataFrames from the
Python API (pandas, polars, pyarrow, and lazy frames narwhals knows) are wrapped with
narwhals. Either way the same narwhals expressions run the count pass where the data
lives, and only a small table of integer counts comes back to Python.

Nothing above this module imports duckdb or narwhals: callers get plain Python values.
"""

from __future__ import annotations

import atexit
import csv
import functools
import json
import math
import operator
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

import duckdb
import narwhals as nw
import numpy as np

from respai.counts import MICRO
from respai.errors import InputError

__all__ = [
    "MICRO",
    "CubeRow",
    "RankParts",
    "Source",
    "all_null",
    "count_cube",
    "duplicate_unit",
    "first_non_number",
    "locate",
    "open_file",
    "open_frame",
    "rank_sums",
]


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
    non_null: tuple[int, ...] = ()


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


#: DuckDB's memory cap for one run (``RESPAI_MEMORY_LIMIT``, any DuckDB size such as
#: ``2GB``); past it, sorts and large groupings spill to a private temporary folder.
MEMORY_LIMIT = "512MB"
MEMORY_ENV = "RESPAI_MEMORY_LIMIT"


def _connect() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with a memory cap and a spill folder that is removed at exit."""
    con = duckdb.connect(":memory:")
    limit = os.environ.get(MEMORY_ENV, MEMORY_LIMIT)
    try:
        con.execute(f"SET memory_limit = '{limit.replace(chr(39), '')}'")
    except duckdb.Error:
        raise InputError(
            f"{MEMORY_ENV} is {limit!r}, which is not a memory size.",
            f"Set it to a size such as 512MB or 4GB, or unset it (default {MEMORY_LIMIT}).",
        ) from None
    con.execute(f"SET temp_directory = '{_spill_folder().replace(chr(39), chr(39) * 2)}'")
    return con


_SPILL: list[str] = []


def _spill_folder() -> str:
    if not _SPILL:
        folder = tempfile.mkdtemp(prefix="respai-duckdb-")
        atexit.register(shutil.rmtree, folder, True)
        _SPILL.append(folder)
    return _SPILL[0]


def open_file(
    path: Path,
    declared_format: str | None = None,
    delimiter: str = ",",
    text_columns: Sequence[str] = (),
    check_columns: Sequence[str] | None = None,
) -> Source:
    """Open a CSV, JSONL or Parquet file lazily in DuckDB.

    ``text_columns`` are read from CSV as text, whatever DuckDB's type sniffer guesses, so
    a group called ``f`` or ``no`` is never turned into a boolean and ``007`` keeps its
    zeros.

    Raises
    ------
    InputError
        When the file is missing, empty, not UTF-8 text, or DuckDB cannot read it.
    """
    if not path.exists():
        raise InputError(f"the cases file {path} does not exist.", "Check the path in the spec.")
    if path.is_dir():
        raise InputError(
            f"the cases file {path} is a directory.",
            "Point fairness.cases at one CSV, JSONL or Parquet file inside it.",
        )
    fmt = file_format(path, declared_format)
    if path.stat().st_size == 0:
        raise InputError(
            f"the cases file {path} is empty (0 bytes).",
            "Export the decided cases with a header row.",
        )
    if fmt != "parquet":
        _check_text_start(path)
    if fmt == "csv":
        _check_header(
            path, delimiter, check_columns if check_columns is not None else (text_columns or None)
        )
    con = _connect()
    quoted = str(path).replace("'", "''")
    if fmt == "csv":
        sep = delimiter.replace("'", "''")
        reader = (
            f"read_csv('{quoted}', delim='{sep}', quote='\"', escape='\"', header=true, "
            "auto_detect=true, strict_mode=true, max_line_size=2097152)"
        )
    elif fmt == "jsonl":
        reader = f"read_json('{quoted}', format='newline_delimited')"
    else:
        reader = f"read_parquet('{quoted}')"
    try:
        con.execute(f"CREATE VIEW cases AS SELECT * FROM {reader}")
        if fmt == "csv" and text_columns:
            present = set(con.table("cases").columns)
            forced = [c for c in text_columns if c in present]
            if forced:
                types = ", ".join("'" + c.replace("'", "''") + "': 'VARCHAR'" for c in forced)
                reader = reader[:-1] + f", types={{{types}}})"
                con.execute(f"CREATE OR REPLACE VIEW cases AS SELECT * FROM {reader}")
        rel = con.table("cases")
        frame = nw.from_native(rel)
        source = Source(str(path), path, frame, con)
    except duckdb.Error as exc:
        raise _read_error(path, exc, delimiter) from None
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
        raise InputError(
            f"{path} starts with NUL bytes: it is not a text file.",
            "Export the cases as UTF-8 CSV or JSONL, or as Parquet.",
        )


def _check_header(path: Path, delimiter: str, wanted: Sequence[str] | None = None) -> None:
    """Refuse a CSV header that names a column we read twice.

    DuckDB would silently rename the second one, so which of the two is read would be a
    guess. Duplicates among columns the evaluation does not read are left alone
    (``wanted``; ``None`` checks every column).
    """
    import csv

    with path.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
        first = fh.readline(1 << 20)
    names = next(csv.reader([first], delimiter=delimiter), [])
    seen: set[str] = set()
    for name in (n.strip() for n in names):
        if name in seen and name and (wanted is None or name in wanted):
            raise InputError(
                f"{path}: the header names the column '{_shorten(name, 60)}' twice.",
                "Give every column its own name.",
            )
        seen.add(name)


_LINE = re.compile(r"(?:CSV Error on Line:|\bin line|\bat line)\s*(\d+)", re.IGNORECASE)
_FIELDS = re.compile(r"Expected Number of Columns:\s*(\d+)\s+Found:\s*(\d+)")
_CONVERT = re.compile(
    r'converting column "(?P<col>[^"\n]*)"\.\s*Could not convert string "(?P<val>[^\n]*?)" '
    r"to '(?P<type>[^'\n]+)'"
)
_TYPE_WORDS = {
    "DOUBLE": "a number",
    "FLOAT": "a number",
    "BIGINT": "a whole number",
    "INTEGER": "a whole number",
    "BOOLEAN": "true or false",
    "DATE": "a date",
}
_MAX_LINE = 2_097_152
_SCAN_LIMIT = 200_000  # lines a diagnosis reads at most (error paths only)
_UTF8_BOM = b"\xef\xbb\xbf"


def _read_error(path: Path, exc: Exception, delimiter: str = ",") -> InputError:
    """Turn a DuckDB reading error into one paragraph that names the file and line.

    DuckDB's messages are long and sometimes point at the wrong line (a failure while it
    sniffs the dialect is reported on line 1), so on these error paths the file itself is
    read again in Python to find the line at fault.
    """
    text = str(exc)
    low = text.lower()
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    first = re.sub(r"^[A-Za-z ]*Error:\s*", "", first)
    found = _LINE.search(text)
    line = int(found.group(1)) if found else None
    where = f" near line {line}" if line else ""
    if re.search(r"maximum line size of \d+ bytes exceeded", low):
        long_line = _first_long_line(path)
        if long_line is not None:
            number, size = long_line
            return InputError(
                f"{path}: line {number} is {size / 2**20:.1f} MB long, more than the 2 MB "
                "a line may have; no field of a case should be that long.",
                "Check that line for a runaway quote or a pasted blob.",
            )
        return InputError(
            f"{path} has a line longer than 2 MB{where}; no field of a case should be that long.",
            "Check that line for a runaway quote or a pasted blob.",
        )
    if "invalid unicode" in low or "not utf-8 encoded" in low or "invalid utf" in low:
        bad = _first_non_utf8_line(path)
        where = f" at line {bad}" if bad is not None else where
        return InputError(
            f"{path} is not valid UTF-8{where}: part of it uses another encoding.",
            "Re-export the whole file as UTF-8.",
        )
    if "error when sniffing" in low or "automatically detect the csv" in low:
        return _diagnose_csv(path, delimiter)
    fields = _FIELDS.search(text)
    if fields:
        expected, got = fields.groups()
        at = f" line {line}" if line else " a line"
        return InputError(
            f"{path}:{at} has {got} fields but the header has {expected}.",
            "Check the delimiter and quoting on that line: a value holding the delimiter "
            "must be in double quotes.",
        )
    convert = _CONVERT.search(text)
    if convert:
        kind = _TYPE_WORDS.get(convert["type"].upper(), f"of type {convert['type']}")
        at = f"line {line}, " if line else ""
        return InputError(
            f"{path}: {at}column '{convert['col']}' holds {_safe(convert['val'])}, which is "
            f"not {kind} like the values before it.",
            "Fix the value, or leave the cell empty when it is unknown.",
        )
    if "could not convert" in low or "conversion error" in low:
        return InputError(
            f"{path}{where}: a value does not fit its column's type ({_shorten(first)}).",
            "Fix the value, or make the whole column text.",
        )
    if "malformed json" in low:
        bad_json = _first_bad_json_line(path, line)
        if bad_json is not None:
            number, reason = bad_json
            return InputError(
                f"{path}: line {number} is not valid JSON ({reason}).",
                "Each line of a JSONL file must be one complete JSON object.",
            )
    if "magic bytes" in low or "not a parquet file" in low:
        return InputError(
            f"{path} is not a readable Parquet file (its Parquet footer is missing or "
            "damaged): it may be truncated or not Parquet at all.",
            "Export it again and check that the copy finished.",
        )
    return InputError(
        f"cannot read {path}{where}: {_shorten(first)}.",
        "Check that it is a well-formed file of the declared format.",
    )


def _first_long_line(path: Path, limit: int = _MAX_LINE) -> tuple[int, int] | None:
    """The first line longer than ``limit`` bytes and its length (error paths only)."""
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, 1):
                if len(raw) > limit:
                    return number, len(raw)
    except OSError:
        return None
    return None


def _first_non_utf8_line(path: Path) -> int | None:
    """The first line that is not UTF-8 (error paths only; ``None`` past the scan limit)."""
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, 1):
                if number > _SCAN_LIMIT * 10:
                    return None
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError:
                    return number
    except OSError:
        return None
    return None


def _first_bad_json_line(path: Path, upto: int | None) -> tuple[int, str] | None:
    """The first line of a JSONL file that is not one JSON value, and why."""
    last = upto if upto is not None else _SCAN_LIMIT
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, 1):
                if number > last:
                    break
                body = raw.strip()
                if number == 1:
                    body = body.removeprefix(_UTF8_BOM)
                if not body:
                    continue
                try:
                    json.loads(body)
                except UnicodeDecodeError:
                    return number, "it is not UTF-8"
                except json.JSONDecodeError as exc:
                    return number, f"{exc.msg.lower()} at character {exc.pos + 1}"
    except OSError:
        return None
    return (upto, "a value is cut off or malformed") if upto is not None else None


class _BadBytes(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def _decoded_lines(fh: IO[bytes]) -> Iterator[str]:
    for number, raw in enumerate(fh, 1):
        if number == 1:
            raw = raw.removeprefix(_UTF8_BOM)
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _BadBytes(number) from None


def _diagnose_csv(path: Path, delimiter: str) -> InputError:
    """Find why DuckDB could not work out a CSV's dialect: re-read it with Python's csv."""
    shown = "\\t" if delimiter == "\t" else delimiter
    fallback = InputError(
        f"cannot read {path} as CSV with delimiter '{shown}': its lines do not split "
        "into the same fields.",
        "Check the delimiter (set delimiter: in the spec) and the quoting.",
    )
    start = 1
    try:
        with path.open("rb") as fh:
            reader = csv.reader(_decoded_lines(fh), delimiter=delimiter, strict=True)
            header = next(reader, None)
            if header is None:
                return fallback
            width = len(header)
            start = reader.line_num + 1
            for row in reader:
                if row and len(row) != width:
                    return InputError(
                        f"{path}: line {start} has {len(row)} fields but the header has {width}.",
                        "Check the delimiter and quoting on that line: a value holding "
                        "the delimiter must be in double quotes.",
                    )
                if reader.line_num > _SCAN_LIMIT:
                    break
                start = reader.line_num + 1
    except _BadBytes as bad:
        return InputError(
            f"{path} is not valid UTF-8 at line {bad.line}: part of it uses another encoding.",
            "Re-export the whole file as UTF-8.",
        )
    except csv.Error as exc:
        if "field limit" in str(exc):
            return fallback
        return InputError(
            f"{path}: the record starting at line {start} is not valid CSV "
            f"({_shorten(str(exc))}).",
            "Check the quoting there: every opening double quote needs a closing one.",
        )
    except OSError:
        return fallback
    return fallback


def _safe(text: str, limit: int = 60) -> str:
    """A value quoted for a message: control characters escaped, long values cut."""
    shown = text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
    if len(shown) > limit:
        shown = shown[: limit - 3] + "..."
    return f"'{shown}'"


def _shorten(text: str, limit: int = 200) -> str:
    clean = "".join(c if c.isprintable() else "?" for c in text).strip().rstrip(".").strip()
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


def open_frame(native: Any) -> Source:
    """Wrap a DataFrame (pandas, polars, pyarrow, PySpark, or a lazy frame narwhals knows).

    A PySpark DataFrame stays in Spark: the count pass runs there and only the counts
    come back. A :class:`Source` (from :func:`open_spark_file`) is returned as it is.

    Raises
    ------
    InputError
        When narwhals does not recognise the object as a dataframe.
    """
    if isinstance(native, Source):  # already opened, e.g. by open_spark_file
        return native
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


def open_spark_file(
    path: str | Path,
    declared_format: str | None = None,
    delimiter: str = ",",
    text_columns: Sequence[str] = (),
    session: Any = None,
) -> Source:
    """Open a CSV, JSONL or Parquet file as a Spark DataFrame, for the count pass on Spark.

    The file is read as :func:`open_file` reads it in DuckDB (see :mod:`respai.spark`), so
    the counts are the same. ``path`` may be a URI Spark reads itself (``s3a://``,
    ``hdfs://``); local files get the same checks as in :func:`open_file` first.

    Raises
    ------
    InputError
        When the file is missing, empty or not UTF-8 text, or Spark cannot read it.
    """
    from respai import spark

    remote = spark.is_remote(path)
    local = None if remote else Path(path)
    if local is not None:
        if not local.exists():
            raise InputError(
                f"the cases file {local} does not exist.", "Check the path in the spec."
            )
        if local.is_file() and local.stat().st_size == 0:
            raise InputError(
                f"the cases file {local} is empty (0 bytes).",
                "Export the decided cases with a header row.",
            )
    fmt = file_format(Path(str(path).rstrip("/")), declared_format)
    if local is not None and local.is_file() and fmt != "parquet":
        _check_text_start(local)
        if fmt == "csv":
            _check_header(local, delimiter, text_columns or None)
    where = str(path) if remote else str(Path(path).resolve())
    try:
        native = spark.read_spark_file(where, fmt, delimiter, text_columns, session)
        frame = nw.from_native(native)
        source = Source(str(path), local, frame, None)
    except InputError:
        raise
    except Exception as exc:  # Spark's AnalysisException, Py4JJavaError, ...
        raise InputError(
            f"Spark cannot read {path}: {_shorten(_spark_message(exc))}.",
            "Check the path and that it is a well-formed file of the declared format.",
        ) from None
    return source


def _spark_message(exc: Exception) -> str:
    """The first line of a Spark error that says something (no JVM stack trace)."""
    text = str(exc).strip()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("at ", "JVM stacktrace", "py4j")):
            return re.sub(r"^\[[A-Z_.]+\]\s*", "", line)
    return type(exc).__name__


def count_cube(
    source: Source,
    keys: Sequence[str],
    probability: str | None,
    bins: int,
    count_non_null: Sequence[str] = (),
) -> list[CubeRow]:
    """Run the one count pass: ``GROUP BY keys [, probability bin]`` with counts.

    Every aggregate is an integer except the probability minimum and maximum, which the
    gate uses to check the range. ``count_non_null`` names further columns whose
    non-empty cells are counted per cell (for completeness).

    Raises
    ------
    InputError
        When the engine fails while scanning (a bad value deep in a file).
    """
    frame = source._frame
    group_exprs: list[Any] = [nw.col(k) for k in keys]
    aggs: list[Any] = [nw.len().alias("__n")]
    extra = [nw.col(c).count().alias(f"__nn{i}") for i, c in enumerate(count_non_null)]
    if probability is not None:
        p = nw.col(probability)
        if source.kinds[probability] != _NUMERIC:
            p = p.cast(nw.Float64)  # an all-empty column reads as text; load checks that
        # bin keys stay floats (whole numbers): an integer cast fails on pandas' NaN
        scaled = (p * bins).floor().clip(upper_bound=bins - 1)
        micro = (p * MICRO).floor().fill_null(0).cast(nw.Int64)
        # derived columns first, so every aggregation is a simple one on every engine
        try:
            frame = frame.with_columns(
                scaled.alias("__bin"), micro.alias("__micro"), p.alias("__p")
            )
        except Exception:
            if source._con is not None:
                raise
            _check_finite_frame(source, probability)  # eager frames fail here on NaN
            raise
        group_exprs.append(nw.col("__bin"))
        aggs += [
            nw.col("__p").count().alias("__pn"),
            nw.col("__micro").sum().alias("__ps"),
            nw.col("__p").min().alias("__pmin"),
            nw.col("__p").max().alias("__pmax"),
        ]
    aggs += extra
    try:
        grouped = frame.group_by(*group_exprs, drop_null_keys=False).agg(*aggs)
        rows = _fetch(grouped)
    except duckdb.Error as exc:
        if source.path is None:
            raise
        if probability is not None:
            _check_not_a_number(source, probability, exc)
        raise _read_error(source.path, exc) from None
    except Exception:
        # a DataFrame engine refused the integer sums: name a NaN or infinite probability
        if probability is not None:
            _check_finite_frame(source, probability)
        raise
    width = len(keys)
    n_extra = len(extra)
    out: list[CubeRow] = []
    for row in rows:
        non_null = tuple(int(v) for v in row[len(row) - n_extra :]) if n_extra else ()
        body = row[: len(row) - n_extra] if n_extra else row
        if probability is None:
            out.append(
                CubeRow(tuple(body[:width]), None, int(body[width]), 0, 0, None, None, non_null)
            )
            continue
        pbin, n, pn, ps, pmin, pmax = body[width:]
        out.append(
            CubeRow(
                keys=tuple(body[:width]),
                prob_bin=None if _is_null(pbin) else int(pbin),
                n=int(n),
                prob_n=int(pn),
                prob_sum=0 if _is_null(ps) else int(ps),
                prob_min=None if _is_null(pmin) else float(pmin),
                prob_max=None if _is_null(pmax) else float(pmax),
                non_null=non_null,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class RankParts:
    """Exact integer sums behind one group's rank AUC and its DeLong variance.

    For a case labelled 1 at score ``s``, ``x = negatives below s + negatives at or below
    s`` (twice its DeLong placement numerator, so an integer); for a case labelled 0,
    ``w = positives below s + positives at or below s``. Only cases with a score are
    counted; "below" and "at" are within the same group.
    """

    positives: int
    negatives: int
    sum_x: int
    sum_x2: int
    sum_w: int
    sum_w2: int


#: Where a sum of squares could pass 64 bits (window functions on another engine, a huge
#: tie block), placements are split as ``x = hi * 2**16 + lo`` and the three partial sums
#: are combined in Python integers: exact up to about 2 billion cases per group.
_SPLIT = 16
_LOW = (1 << _SPLIT) - 1
_STREAM_ROWS = 1_000_000


def rank_sums(
    source: Source,
    score: str,
    label: str,
    label_codes: Mapping[Any, int],
    attributes: Sequence[str],
    attribute_codes: Sequence[Mapping[Any, int]],
    sizes: Sequence[int],
    groupings: Sequence[tuple[int, ...]],
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """The rank-AUC sums per group of every grouping, in one sorted pass.

    ``label_codes`` maps each raw label value to 1 or 0 and ``attribute_codes[i]`` maps
    each raw value of ``attributes[i]`` to the index of its declared group, ``0`` to
    ``sizes[i] - 1``. A value not in its map leaves the case out of the groupings that
    use that column (a label not in its map leaves it out everywhere). ``groupings``
    lists attribute indices (``()`` is the whole file). The result maps grouping to
    group-index tuple to :class:`RankParts`; groups without a scored case are absent.

    A DuckDB source streams the scored cases sorted by score (DuckDB sorts out of core)
    through numpy, one batch at a time; an in-memory DataFrame is sorted where it is and
    folded the same way; a lazy engine (Spark) runs the same sums as window functions
    where the data lives. All give the same integers.

    Raises
    ------
    InputError
        When the score column holds NaN or infinity, or the engine fails while scanning.
    """
    frame = _coded(source, score, label, label_codes, attributes, attribute_codes)
    native = frame.to_native()
    try:
        # the stream sorts one packed code per case (label and groups) with its score
        packed = frame.select(_packed(sizes), nw.col("__s"))
        if isinstance(native, duckdb.DuckDBPyRelation):
            ordered = packed.to_native().order("__s")
            reader = getattr(ordered, "to_arrow_reader", None) or ordered.fetch_arrow_reader
            batches: Iterator[Any] = iter(reader(_STREAM_ROWS))
        elif isinstance(frame, nw.DataFrame):  # in memory already: sort it there
            table = packed.sort("__s").to_arrow()
            batches = iter(table.to_batches(max_chunksize=_STREAM_ROWS))
        else:  # Spark and other lazy engines: sums where the data lives
            _check_finite_score(source, frame, score)
            return _rank_windows(frame, groupings)
        try:
            return _rank_stream(batches, sizes, groupings)
        except _BadScore as bad:
            value = bad.value
        del batches  # close the stream: the connection answers one query at a time
        _not_finite(source, score, value)
    except duckdb.Error as exc:
        raise _scan_error(source, exc) from None


def _code_expr(column: str, codes: Mapping[Any, int]) -> Any:
    """``codes[value]`` for each raw value of ``column``, ``-1`` for any other (or empty)."""
    by_code: dict[int, list[Any]] = {}
    for raw, code in codes.items():
        if not _is_null(raw):
            by_code.setdefault(code, []).append(raw)
    expr: Any = None
    for code, raws in sorted(by_code.items()):
        # equality chains run about twice as fast as is_in() lists in DuckDB
        cond = functools.reduce(operator.or_, (nw.col(column) == raw for raw in raws))
        expr = (nw.when(cond) if expr is None else expr.when(cond)).then(nw.lit(code))
    if expr is None:
        return nw.lit(-1).cast(nw.Int16)
    return expr.otherwise(nw.lit(-1)).cast(nw.Int16)


def _coded(
    source: Source,
    score: str,
    label: str,
    label_codes: Mapping[Any, int],
    attributes: Sequence[str],
    attribute_codes: Sequence[Mapping[Any, int]],
) -> Any:
    """``__a0 .. __ak`` group codes, ``__y`` (1/0) and ``__s``, for cases with a score."""
    s = nw.col(score)
    if source.kinds[score] != _NUMERIC:
        s = s.cast(nw.Float64)  # an all-empty column reads as text
    exprs = [
        _code_expr(a, codes).alias(f"__a{i}")
        for i, (a, codes) in enumerate(zip(attributes, attribute_codes, strict=True))
    ]
    score_expr = s.cast(nw.Float64) + 0.0  # adding 0.0 turns -0.0 into 0.0
    exprs += [_code_expr(label, label_codes).alias("__y"), score_expr.alias("__s")]
    return source._frame.select(*exprs).filter(~nw.col("__s").is_null() & (nw.col("__y") >= 0))


def _packed(sizes: Sequence[int]) -> Any:
    """``__cell = y + 2 * (a0 + 1) + 2 * (k0 + 1) * (a1 + 1) + ...``, one integer per case."""
    expr: Any = nw.col("__y").cast(nw.Int64)
    step = 2
    for i, size in enumerate(sizes):
        expr = expr + (nw.col(f"__a{i}").cast(nw.Int64) + 1) * step
        step *= size + 1
    return expr.cast(nw.Int32 if step < 2**31 else nw.Int64).alias("__cell")


def _unpacked(cell: Any, sizes: Sequence[int]) -> tuple[Any, Any]:
    """The group codes (rows x attributes, -1 when left out) and labels of ``__cell``."""
    cell = cell.astype(np.int64)
    y = cell & 1
    rest = cell >> 1
    cols = []
    for size in sizes:
        cols.append((rest % (size + 1) - 1).astype(np.int16))
        rest //= size + 1
    codes = np.column_stack(cols) if cols else np.zeros((len(cell), 0), np.int16)
    return codes, y


def _check_finite_score(source: Source, frame: Any, score: str) -> None:
    value = _first_not_finite(frame, "__s")
    if value is not None:
        _not_finite(source, score, value)


def _first_not_finite(frame: Any, column: str) -> float | None:
    """One NaN or infinite value of ``column`` (empty cells aside), or ``None``."""
    c = nw.col(column)
    rows = _fetch(frame.filter(~c.is_null() & ~c.is_finite()).select(c).head(1))
    return float(rows[0][0]) if rows else None


def _not_finite(source: Source, column: str, value: float, kind: str = "score") -> NoReturn:
    """Refuse a NaN or infinite ``kind`` (``"score"`` or ``"probability"``), where it is."""
    pos = locate(source, column, value)
    where = f" (first at {source.row_word} {pos})" if pos is not None else ""
    allowed = "finite numbers" + (" in [0, 1]" if kind == "probability" else "")
    raise InputError(
        f"{source.description}: {kind} column '{column}' holds {value}{where}; {kind} "
        f"values must be {allowed}.",
        f"Leave the cell empty when a case has no {kind}.",
    )


def _rank_windows(
    frame: Any, groupings: Sequence[tuple[int, ...]]
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """The sums as window functions (Spark, DataFrames): one query per grouping."""
    y = nw.col("__y").cast(nw.Int64)  # 64-bit sums on every engine
    base = frame.with_columns(y.alias("__y"), (1 - y).alias("__q"))
    out: dict[tuple[int, ...], dict[tuple[int, ...], RankParts]] = {}
    for grouping in groupings:
        keys = [f"__a{i}" for i in grouping]
        part = base
        for k in keys:
            part = part.filter(nw.col(k) >= 0)
        # one row per group and distinct score, so a running sum is exact under ties
        h = part.group_by(*keys, "__s").agg(
            nw.col("__y").sum().alias("p"), nw.col("__q").sum().alias("q")
        )
        h = h.with_columns(
            nw.col("q").cum_sum().over(*keys, order_by="__s").alias("cq"),
            nw.col("p").cum_sum().over(*keys, order_by="__s").alias("cp"),
        )
        h = h.with_columns(
            (2 * nw.col("cq") - nw.col("q")).alias("x"),
            (2 * nw.col("cp") - nw.col("p")).alias("w"),
        )
        terms: list[Any] = []
        for weight, v in (("p", "x"), ("q", "w")):
            hi, lo = nw.col(v) // (_LOW + 1), nw.col(v) % (_LOW + 1)
            c = nw.col(weight)
            terms += [
                c.alias(f"n_{v}"),
                (c * nw.col(v)).alias(f"s_{v}"),
                (c * hi * hi).alias(f"hh_{v}"),
                (c * hi * lo).alias(f"hl_{v}"),
                (c * lo * lo).alias(f"ll_{v}"),
            ]
        h = h.select(*keys, *terms)
        names = [f"{t}_{v}" for v in ("x", "w") for t in ("n", "s", "hh", "hl", "ll")]
        sums = [nw.col(n).sum().alias(n) for n in names]
        agg = h.group_by(*keys).agg(*sums) if keys else h.select(*sums)
        found: dict[tuple[int, ...], RankParts] = {}
        for row in _fetch(agg):
            key = tuple(int(v) for v in row[: len(keys)])
            vals = [0 if _is_null(v) else int(v) for v in row[len(keys) :]]
            n_x, s_x, hh_x, hl_x, ll_x, n_w, s_w, hh_w, hl_w, ll_w = vals
            if n_x + n_w == 0:
                continue
            found[key] = RankParts(
                n_x, n_w, s_x, _square(hh_x, hl_x, ll_x), s_w, _square(hh_w, hl_w, ll_w)
            )
        out[grouping] = found
    return out


def _square(hh: int, hl: int, ll: int) -> int:
    """``sum(x**2)`` from the sums of ``hi*hi``, ``hi*lo`` and ``lo*lo``."""
    return (hh << (2 * _SPLIT)) + (hl << (_SPLIT + 1)) + ll


class _RankStream:
    """Running sums over cases arriving sorted by score, for every grouping at once.

    Each batch is cut into groups (a stable sort on the small group code keeps the
    score order within a group). Inside a group a positive's placement is
    ``x = 2 * below + t``, where ``below`` counts the group's negatives in earlier
    batches and ``t`` counts them in this batch (negatives before it, plus those before
    the end of its tie block). ``t`` is bounded by the batch, so numpy sums it exactly in
    64 bits; ``below`` enters through Python integers:
    ``sum(x**2) = 4 below**2 m + 4 below sum(t) + sum(t**2)``. Negatives likewise.
    """

    def __init__(self, sizes: Sequence[int], groupings: Sequence[tuple[int, ...]]) -> None:
        self.groupings = list(groupings)
        self.radix = [[sizes[i] for i in g] for g in self.groupings]
        self.width = [math.prod(r) for r in self.radix]
        # per grouping and group code: [positives, sum x, sum x^2, negatives, sum w, sum w^2]
        self.sums = [[[0] * 6 for _ in range(w)] for w in self.width]

    def add(self, codes: Any, y: Any, s: Any) -> None:
        """Fold in one batch: ``codes`` (rows x attributes), ``y`` (1/0), ``s`` sorted."""
        # the batch is sorted, so no two equal neighbours means no ties in any group
        ties = s if bool(np.any(s[1:] == s[:-1])) else None
        for gi in range(len(self.groupings)):
            self._grouping(gi, codes, y, ties)

    def _grouping(self, gi: int, codes: Any, y: Any, s: Any | None) -> None:
        grouping = self.groupings[gi]
        if not grouping:
            self._group(self.sums[gi][0], y, s)
            return
        if len(grouping) == 1:
            c = codes[:, grouping[0]]
            ok = c >= 0
        else:
            code = np.zeros(len(y), np.int32)
            ok = np.ones(len(y), bool)
            for i, size in zip(grouping, self.radix[gi], strict=True):
                col = codes[:, i]
                ok &= col >= 0
                code = code * size + col
            c = code
        c = c[ok].astype(np.int16 if self.width[gi] < 2**15 else np.int64)
        order = np.argsort(c, kind="stable")  # stable: score order kept per group
        c, yy = c[order], y[ok][order]
        ss = None if s is None else s[ok][order]
        if not len(c):
            return
        # the groups present in this batch: where the sorted code changes
        starts: list[int] = np.flatnonzero(np.concatenate(([True], c[1:] != c[:-1]))).tolist()
        for lo, hi in zip(starts, [*starts[1:], len(c)], strict=True):
            g = int(c[lo])
            self._group(self.sums[gi][g], yy[lo:hi], None if ss is None else ss[lo:hi])

    @staticmethod
    def _group(acc: list[int], y: Any, s: Any | None) -> None:
        """Fold one group's cases of one batch (in score order) into ``acc``."""
        below_neg, below_pos = acc[3], acc[0]  # cases of the group in earlier batches
        if s is None:  # no ties: a case's "before" and "at or before" counts agree
            pos_at = np.flatnonzero(y)
            neg_at = np.flatnonzero(y == 0)
            # negatives before the k-th positive: its position minus k; twice that is t
            t_pos = 2 * (pos_at - np.arange(len(pos_at)))
            t_neg = 2 * (neg_at - np.arange(len(neg_at)))
            weight_pos = weight_neg = None
        else:
            new = np.empty(len(y), bool)
            new[0] = True
            np.not_equal(s[1:], s[:-1], out=new[1:])
            starts = np.flatnonzero(new)
            size = np.diff(np.append(starts, len(y)))
            weight_pos = np.add.reduceat(y.astype(np.int64), starts)  # positives per block
            weight_neg = size - weight_pos
            neg_before = np.cumsum(weight_neg) - weight_neg
            pos_before = np.cumsum(weight_pos) - weight_pos
            t_pos = 2 * neg_before + weight_neg  # per block, for each positive in it
            t_neg = 2 * pos_before + weight_pos
        sides = ((0, t_pos, weight_pos, below_neg), (3, t_neg, weight_neg, below_pos))
        for at, t, weight, below in sides:
            m = len(t) if weight is None else int(weight.sum())
            if m == 0:
                continue
            s1 = int(t.sum()) if weight is None else int(np.dot(weight, t))
            s2 = _sum_squares(t, weight)
            acc[at] += m
            acc[at + 1] += 2 * below * m + s1
            acc[at + 2] += 4 * below * below * m + 4 * below * s1 + s2

    def result(self) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
        out: dict[tuple[int, ...], dict[tuple[int, ...], RankParts]] = {}
        for gi, grouping in enumerate(self.groupings):
            found: dict[tuple[int, ...], RankParts] = {}
            for code, t in enumerate(self.sums[gi]):
                if t[0] + t[3] == 0:
                    continue
                key: list[int] = []
                rest = code
                for size in reversed(self.radix[gi]):
                    key.append(rest % size)
                    rest //= size
                found[tuple(reversed(key))] = RankParts(t[0], t[3], t[1], t[2], t[4], t[5])
            out[grouping] = found
        return out


def _sum_squares(t: Any, weight: Any | None) -> int:
    """``sum(weight * t**2)`` exactly: in int64 when it cannot overflow, else split."""
    top = int(t.max())
    total = len(t) if weight is None else int(weight.sum())
    if total * top * top < 2**62:
        return int(np.dot(t, t)) if weight is None else int(np.dot(weight, t * t))
    hi, lo = t >> _SPLIT, t & _LOW
    w = np.ones(len(t), np.int64) if weight is None else weight
    return _square(int(np.dot(w, hi * hi)), int(np.dot(w, hi * lo)), int(np.dot(w, lo * lo)))


class _BadScore(Exception):
    def __init__(self, value: float) -> None:
        self.value = value


def _rank_stream(
    batches: Iterator[Any],
    sizes: Sequence[int],
    groupings: Sequence[tuple[int, ...]],
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """Fold Arrow batches of the scored cases, sorted by score, into the running sums.

    A tie block is never split between two folds: the last one of each batch is held
    back and folded with the next.
    """
    stream = _RankStream(sizes, groupings)
    held: list[Any] | None = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        codes, y = _unpacked(batch.column(0).to_numpy(), sizes)
        s = batch.column(1).to_numpy()
        if not np.isfinite(s[-1]):  # NaN and +inf sort last, -inf first
            raise _BadScore(float(s[-1]))
        if not np.isfinite(s[0]):
            raise _BadScore(float(s[0]))
        if held is not None:
            codes = np.concatenate((held[0], codes))
            y = np.concatenate((held[1], y))
            s = np.concatenate((held[2], s))
        # hold back the last tie block: the next batch may continue it
        cut = int(np.searchsorted(s, s[-1], side="left"))
        held = [codes[cut:], y[cut:], s[cut:]]
        if cut:
            stream.add(codes[:cut], y[:cut], s[:cut])
    if held is not None and len(held[1]):
        stream.add(*held)
    return stream.result()


def _check_finite_frame(source: Source, column: str) -> None:
    value = _first_not_finite(source._frame, column)
    if value is not None:
        _not_finite(source, column, value, "probability")


_NOT_FINITE = re.compile(r"with value (-?inf|nan) can't be cast", re.IGNORECASE)


def _check_not_a_number(source: Source, column: str, exc: Exception) -> None:
    """Name the probability that is NaN or infinite when the integer sums refused it."""
    found = _NOT_FINITE.search(str(exc))
    if found is not None:
        _not_finite(source, column, float(found.group(1)), "probability")


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _fetch(frame: Any) -> list[tuple[Any, ...]]:
    """Bring a small result back as Python tuples, engine-natively."""
    native = frame.to_native()
    if isinstance(native, duckdb.DuckDBPyRelation):
        return [tuple(r) for r in native.fetchall()]
    if _is_spark(native):
        # Spark Rows hold plain Python values; collecting them natively skips the
        # pandas/pyarrow conversion narwhals' collect() would make
        return [tuple(r) for r in native.collect()]
    if isinstance(frame, nw.LazyFrame):
        frame = frame.collect()
    return [tuple(_py(v) for v in r) for r in frame.rows()]


def _is_spark(native: Any) -> bool:
    """Whether ``native`` is a PySpark DataFrame (classic or Spark Connect)."""
    return type(native).__module__.startswith("pyspark.")


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


def all_null(source: Source, column: str) -> bool:
    """Whether every value of ``column`` is missing (an extra scan; error paths only)."""
    rows = _fetch(source._frame.select(nw.col(column).count().alias("__c")))
    return int(rows[0][0]) == 0


def first_non_number(source: Source, column: str) -> tuple[str, int | None] | None:
    """The first value of ``column`` that is not a number, and its line (error paths only).

    Only files opened in DuckDB are searched; for a DataFrame, or when the engine cannot
    say, this returns ``None``.
    """
    if source._con is None:
        return None
    sql = (
        'SELECT rn, v FROM (SELECT row_number() OVER () AS rn, CAST("'
        + column.replace('"', '""')
        + "\" AS VARCHAR) AS v FROM cases) WHERE v IS NOT NULL AND trim(v) <> '' "
        "AND TRY_CAST(v AS DOUBLE) IS NULL ORDER BY rn LIMIT 1"
    )
    try:
        found = source._con.execute(sql).fetchone()
    except duckdb.Error:
        return None
    if found is None:
        return None
    return str(found[1]), int(found[0]) + (1 if source._is_text else 0)


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
    except Exception:
        return None


# --- LL144: grouped counts and the two-file join -----------------------------------------
#
# The LL144 audit counts people per (sex, race/ethnicity, decision or score, stages), and
# may first join the tool's decisions to a separately collected self-identification file.
# These functions keep that engine work here; respai.ll144 sees only Python values.

_IN_LEFT = "__respai_in_left"
_IN_RIGHT = "__respai_in_right"
_JOIN_KEY = "__respai_key"
_VALUE = "__respai_value"


class JoinedSource(Source):
    """Two files joined on an id column (FULL OUTER JOIN), ready for the count pass.

    The joined table has the boolean columns :data:`JOINED_FLAGS` (true when the row
    came from that file, empty when it did not), the join key as text, and the requested
    columns of each file. ``left`` and ``right`` are the two files, opened on their own
    so that error messages can name a file and its line.
    """

    def __init__(
        self,
        description: str,
        frame: Any,
        con: duckdb.DuckDBPyConnection,
        left: Source,
        right: Source,
        on: str,
    ) -> None:
        super().__init__(description, None, frame, con)
        self.left = left
        self.right = right
        self.on = on


JOINED_FLAGS = (_IN_LEFT, _IN_RIGHT)
"""Names of the two membership columns of a :class:`JoinedSource`, left then right."""


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _reader_sql(
    source: Source, declared_format: str | None, delimiter: str, text_columns: Sequence[str]
) -> str:
    """The DuckDB table function that reads ``source``'s file, as :func:`open_file` does."""
    assert source.path is not None
    fmt = file_format(source.path, declared_format)
    quoted = str(source.path).replace("'", "''")
    if fmt == "csv":
        sep = delimiter.replace("'", "''")
        forced = list(dict.fromkeys(c for c in text_columns if c in source.kinds))
        types = ""
        if forced:
            types = (
                ", types={"
                + ", ".join("'" + c.replace("'", "''") + "': 'VARCHAR'" for c in forced)
                + "}"
            )
        return (
            f"read_csv('{quoted}', delim='{sep}', quote='\"', escape='\"', header=true, "
            f"auto_detect=true, strict_mode=true, max_line_size=2097152{types})"
        )
    if fmt == "jsonl":
        return f"read_json('{quoted}', format='newline_delimited')"
    return f"read_parquet('{quoted}')"


def open_join(
    left: Source,
    right: Source,
    on: str,
    take_left: Sequence[str],
    take_right: Sequence[str],
    *,
    left_format: str | None = None,
    delimiter: str = ",",
    text_columns: Sequence[str] = (),
) -> JoinedSource:
    """Join two opened files on ``on`` with a FULL OUTER JOIN, lazily in DuckDB.

    Rows of either file without a partner in the other are kept, with the other file's
    columns empty, so the count pass can count them. The key is compared as text.

    Parameters
    ----------
    left, right
        Sources from :func:`open_file` (files, not DataFrames).
    on
        The id column both files hold.
    take_left, take_right
        Columns to take from each file (a column must not be taken from both).
    left_format
        The declared format of the left file (the right one's comes from its suffix).
    delimiter
        CSV delimiter of both files.
    text_columns
        Columns read from CSV as text, as in :func:`open_file`.

    Raises
    ------
    InputError
        When DuckDB cannot set up the join.
    """
    if left.path is None or right.path is None:
        raise InputError(
            "a self-identification join needs two files, not a DataFrame.",
            "Join the DataFrames yourself, or point data.cases and data.demographics at files.",
        )
    con = _connect()
    text = [*text_columns, on]
    key = f"CAST({_quote(on)} AS VARCHAR)"
    picked = [f"l.{_quote(c)} AS {_quote(c)}" for c in take_left]
    picked += [f"r.{_quote(c)} AS {_quote(c)}" for c in take_right]
    try:
        con.execute(
            "CREATE VIEW left_file AS SELECT * FROM "
            + _reader_sql(left, left_format, delimiter, text)
        )
        con.execute(
            "CREATE VIEW right_file AS SELECT * FROM " + _reader_sql(right, None, delimiter, text)
        )
        con.execute(
            "CREATE VIEW cases AS SELECT "
            f"l.{_IN_LEFT} AS {_IN_LEFT}, r.{_IN_RIGHT} AS {_IN_RIGHT}, "
            f"COALESCE(l.{_JOIN_KEY}, r.{_JOIN_KEY}) AS {_JOIN_KEY}"
            + "".join(", " + p for p in picked)
            + f" FROM (SELECT *, TRUE AS {_IN_LEFT}, {key} AS {_JOIN_KEY} FROM left_file) AS l"
            f" FULL OUTER JOIN (SELECT *, TRUE AS {_IN_RIGHT}, {key} AS {_JOIN_KEY} "
            f"FROM right_file) AS r ON l.{_JOIN_KEY} = r.{_JOIN_KEY}"
        )
        frame = nw.from_native(con.table("cases"))
    except duckdb.Error as exc:
        raise InputError(
            f"cannot join {left.path} to {right.path} on '{on}': {_shorten(str(exc))}.",
            "Check that both files hold the id column.",
        ) from None
    return JoinedSource(
        f"{left.path} joined to {right.path} on '{on}'", frame, con, left, right, on
    )


def group_counts(
    source: Source, keys: Sequence[str], *, value: str | None = None
) -> list[tuple[tuple[Any, ...], int]]:
    """Count cases per distinct combination of ``keys`` (and of ``value``, as a number).

    One ``GROUP BY`` pass where the data lives. With ``value`` (a score column), its
    value cast to a float is the last key, so each group is one cell of a histogram.
    Keys come back as raw Python values (``None`` for an empty cell).

    Raises
    ------
    InputError
        When the engine fails while scanning (a bad value deep in a file).
    """
    frame = source._frame
    group_exprs: list[Any] = [nw.col(k) for k in keys]
    try:
        if value is not None:
            v = nw.col(value)
            if source.kinds[value] != _NUMERIC:
                v = v.cast(nw.Float64)  # an all-empty column reads as text
            frame = frame.with_columns(v.alias(_VALUE))
            group_exprs.append(nw.col(_VALUE))
        grouped = frame.group_by(*group_exprs, drop_null_keys=False).agg(
            nw.len().alias("__respai_n")
        )
        rows = _fetch(grouped)
    except duckdb.Error as exc:
        raise _scan_error(source, exc) from None
    width = len(group_exprs)
    return [(tuple(_plain(v) for v in row[:width]), int(row[width])) for row in rows]


def _plain(value: Any) -> Any:
    return None if _is_null(value) else _py(value)


def _scan_error(source: Source, exc: Exception) -> InputError:
    """Name the file and line behind a failed scan (each side of a join on its own)."""
    if source.path is not None:
        return _read_error(source.path, exc)
    if isinstance(source, JoinedSource):
        for side in (source.left, source.right):
            try:
                count_cube(side, side.columns, None, 1)
            except InputError as named:
                return named
            except duckdb.Error as side_exc:  # pragma: no cover - count_cube names it
                if side.path is not None:
                    return _read_error(side.path, side_exc)
    return InputError(
        f"cannot scan {source.description}: {_shorten(str(exc))}.",
        "Check that the files are well formed.",
    )


def lines_of(source: Source, column: str, value: Any, limit: int = 2) -> list[int]:
    """The 1-based positions of the first ``limit`` cases whose ``column`` is ``value``.

    Like :func:`locate` (file lines for text files, the header being line 1), for
    messages that name several lines, such as a duplicated id. Empty when the engine
    cannot say.
    """
    if source._con is None:
        first = locate(source, column, value)
        return [] if first is None else [first]
    sql = (
        "SELECT rn FROM (SELECT row_number() OVER () AS rn, "
        + _quote(column)
        + " AS v FROM cases) WHERE v IS NOT DISTINCT FROM ? ORDER BY rn LIMIT "
        + str(int(limit))
    )
    try:
        found = source._con.execute(sql, [value]).fetchall()
    except duckdb.Error:
        return []
    offset = 1 if source._is_text else 0
    return [int(r[0]) + offset for r in found]


def locate_where(source: Source, values: dict[str, Any]) -> int | None:
    """The 1-based position of the first case whose columns hold all of ``values``.

    ``None`` when a column is not in ``source``, for a DataFrame, or when the engine
    cannot say; only used to word an error message.
    """
    if source._con is None or not values or any(c not in source.kinds for c in values):
        return None
    columns = list(values)
    select = ", ".join(f"{_quote(c)} AS v{i}" for i, c in enumerate(columns))
    where = " AND ".join(f"v{i} IS NOT DISTINCT FROM ?" for i in range(len(columns)))
    sql = (
        f"SELECT rn FROM (SELECT row_number() OVER () AS rn, {select} FROM cases) "
        f"WHERE {where} ORDER BY rn LIMIT 1"
    )
    try:
        found = source._con.execute(sql, [values[c] for c in columns]).fetchone()
    except duckdb.Error:
        return None
    if found is None:
        return None
    return int(found[0]) + (1 if source._is_text else 0)


__all__ += [
    "JOINED_FLAGS",
    "JoinedSource",
    "group_counts",
    "lines_of",
    "locate_where",
    "open_join",
]


def iter_batches(
    source: Source, columns: Sequence[str], batch_rows: int = 65_536
) -> Iterator[dict[str, Any]]:
    """Yield the ``columns`` in batches of numpy arrays, in file order, one batch at a time.

    Files stream through DuckDB's Arrow reader (out of core); DataFrames are sliced.
    Used by perturbation stability, which must re-run the model on every case.
    """
    frame = source._frame.select([nw.col(c) for c in columns])
    native = frame.to_native()
    if isinstance(native, duckdb.DuckDBPyRelation):
        reader = getattr(native, "to_arrow_reader", None) or native.fetch_arrow_reader
        batches: Iterator[Any] = iter(reader(batch_rows))
    else:
        if isinstance(frame, nw.LazyFrame):
            frame = frame.collect()
        batches = (frame[s : s + batch_rows].to_arrow() for s in range(0, len(frame), batch_rows))
    for batch in batches:
        yield {c: batch.column(i).to_numpy(zero_copy_only=False) for i, c in enumerate(columns)}
