"""Opening the cases: a file in DuckDB, a DataFrame through narwhals, two files joined.

Files (CSV, JSONL, Parquet) are opened lazily in DuckDB, out of core, with a memory cap
and a private spill folder. Each file is opened once as a
:class:`~respai.engine.files.LocalFile` and DuckDB reads that open file, never the path as
a pattern, so ``cases[12].csv`` is that one file. DataFrames from the Python API (pandas,
polars, pyarrow, and lazy frames narwhals knows) are wrapped with narwhals; a file can
also be read by Spark (:func:`open_spark_file`).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import narwhals as nw

from respai.background import preload
from respai.engine.diagnosis import check_header, check_text_start, named, read_error, shorten
from respai.engine.files import LocalFile, LocalFolder, arrow_pays
from respai.engine.source import (
    IN_LEFT,
    IN_RIGHT,
    JOIN_KEY,
    JoinedSource,
    Source,
    file_format,
)
from respai.engine.values import quote
from respai.errors import InputError
from respai.limits import MEMORY_ENV, MEMORY_LIMIT

__all__ = [
    "MEMORY_ENV",
    "MEMORY_LIMIT",
    "open_file",
    "open_frame",
    "open_join",
    "open_spark_file",
]


#: DuckDB tells compression from the name it reads, which no longer has the suffix.
_COMPRESSION = {".gz": "gzip", ".zst": "zstd"}


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
    # jemalloc's background threads hand freed memory back to the system while the run
    # goes on, so the Python phases after a large count pass or sort do not stack on
    # memory DuckDB no longer uses (benchmarks/RESULTS.md, issue 30, sixth pass)
    con.execute("SET allocator_background_threads = true")
    return con


_SPILL: list[str] = []


def _spill_folder() -> str:
    if not _SPILL:
        folder = tempfile.mkdtemp(prefix="respai-duckdb-")
        atexit.register(shutil.rmtree, folder, True)
        _SPILL.append(folder)
    return _SPILL[0]


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _csv_reader(
    con: duckdb.DuckDBPyConnection, file: LocalFile, delimiter: str, text: Sequence[str]
) -> str:
    """``read_csv`` of ``file`` with DuckDB's sniffer's findings written out.

    A view over ``read_csv(..., auto_detect=true)`` runs the sniffer again each time a
    query binds it: on a small file that is most of the engine's time (about 60 ms per
    bind for the COMPAS export, against 3 ms). ``sniff_csv`` runs here with the options
    of :func:`_reader_sql`; the columns of ``text`` are then read as text whatever the
    sniffer guessed (it runs once more with them forced to text when it took one for a
    date or a time, whose format it may have taken from that column), and the column
    names and types, the date and timestamp formats and any comment character it finds
    become the explicit options of the reader, with ``auto_detect=false``.
    """

    def sniff(forced: Sequence[str]) -> tuple[Any, ...]:
        sql = _reader_sql(file, "csv", delimiter, forced).replace("read_csv(", "sniff_csv(", 1)
        found = con.execute(
            f"SELECT Columns, Comment, DateFormat, TimestampFormat FROM {sql}"
        ).fetchone()
        assert found is not None  # sniff_csv returns one row or raises
        return tuple(found)

    found = sniff(())
    sniffed = [(str(c["name"]), str(c["type"])) for c in found[0]]
    names = {name for name, _ in sniffed}
    forced = {c for c in text or () if c in names}  # None: no text columns
    if any(kind.startswith(_FORMATTED) for name, kind in sniffed if name in forced):
        # a column sniffed as a date or a time may be where the formats came from: sniff
        # again with it read as text, so they come from the columns that stay typed
        found = sniff([c for c in dict.fromkeys(text or ()) if c in forced])
    _, comment, date_format, timestamp_format = found
    types = ", ".join(
        f"{_literal(str(c['name']))}: "
        + ("'VARCHAR'" if str(c["name"]) in forced else _literal(str(c["type"])))
        for c in found[0]
    )
    # the line ending is left to DuckDB's default, which reads \n and \r\n alike (given
    # the sniffed '\r\n' as new_line, DuckDB 2.0 reads no row at all)
    options = [f"columns={{{types}}}"]
    if isinstance(comment, str) and len(comment) == 1:  # no comment reads "(empty)"
        options.append(f"comment={_literal(comment)}")
    if date_format:
        options.append(f"dateformat={_literal(str(date_format))}")
    if timestamp_format:
        options.append(f"timestampformat={_literal(str(timestamp_format))}")
    base = _reader_sql(file, "csv", delimiter).replace("auto_detect=true", "auto_detect=false", 1)
    return base[:-1] + ", " + ", ".join(options) + ")"


#: The sniffed types whose values DuckDB reads with a sniffed format (date or timestamp).
_FORMATTED = ("DATE", "TIME")


def _reader_sql(file: LocalFile, fmt: str, delimiter: str, text: Sequence[str] = ()) -> str:
    """The DuckDB table function that reads ``file``: its open descriptor, not its path.

    ``text`` lists CSV columns read as text whatever the sniffer guesses. ``skip=0``:
    DuckDB's sniffer would otherwise drop leading lines it finds odd (a title line, a
    line of binary), so the header would not be line 1 and every line number would be
    off; the file is read literally, its first line the header.
    """
    where = _literal(file.reader)
    compression = _COMPRESSION.get(file.path.suffix.lower())
    packed = f", compression='{compression}'" if compression else ""
    if fmt == "csv":
        types = ""
        if text:
            types = ", types={" + ", ".join(f"{_literal(c)}: 'VARCHAR'" for c in text) + "}"
        return (
            f"read_csv({where}, delim={_literal(delimiter)}, quote='\"', escape='\"', "
            "header=true, skip=0, auto_detect=true, strict_mode=true, max_line_size=2097152"
            f"{packed}{types})"
        )
    if fmt == "jsonl":
        return f"read_json({where}, format='newline_delimited'{packed})"
    return f"read_parquet({where})"


def open_file(
    path: Path,
    declared_format: str | None = None,
    delimiter: str = ",",
    text_columns: Sequence[str] = (),
    check_columns: Sequence[str] | None = None,
) -> Source:
    """Open a CSV, JSONL or Parquet file lazily in DuckDB.

    The file is opened once and DuckDB reads that open file, so a name such as
    ``cases[12].csv`` is never expanded to other files, and the source's
    :meth:`~respai.engine.source.Source.fingerprint` hashes the very file counted.

    Parameters
    ----------
    path
        The file.
    declared_format
        ``"csv"``, ``"jsonl"`` or ``"parquet"``; from the suffix when omitted.
    delimiter
        The CSV delimiter.
    text_columns
        Columns read from CSV as text, whatever DuckDB's type sniffer guesses, so a group
        called ``f`` or ``no`` is never turned into a boolean and ``007`` keeps its zeros.
    check_columns
        Columns whose name must not appear twice in a CSV header (``text_columns`` when
        omitted; every column when both are empty).

    Returns
    -------
    Source
        Lazy: nothing but DuckDB's sniffer has read the file yet.

    Raises
    ------
    InputError
        When the file is missing, not a regular file, empty, not UTF-8 text, or DuckDB
        cannot read it.
    """
    path = Path(path)
    file = LocalFile.open(path)
    fmt = file_format(path, declared_format)
    if file.size == 0:
        raise InputError(
            f"the cases file {path} is empty (0 bytes).",
            "Export the decided cases with a header row.",
        )
    if fmt != "parquet":
        check_text_start(file)
    if fmt == "csv":
        check_header(
            file, delimiter, check_columns if check_columns is not None else (text_columns or None)
        )
    if arrow_pays(file):  # its cells and scores come as Arrow tables
        preload(("pyarrow",))  # imported while DuckDB sniffs and counts
    con = _connect()
    file.keep_open_for(con)
    try:
        if fmt == "csv":  # sniffed once (twice if a text column looks like a date)
            reader = _csv_reader(con, file, delimiter, text_columns)
        else:
            reader = _reader_sql(file, fmt, delimiter)
        con.execute(f"CREATE VIEW cases AS SELECT * FROM {reader}")
        frame = nw.from_native(con.table("cases"))
        source = Source(str(path), path, frame, con, file)
    except duckdb.Error as exc:
        raise read_error(file, exc, delimiter) from None
    return source


def open_frame(native: Any) -> Source:
    """Wrap a DataFrame (pandas, polars, pyarrow, PySpark, or a lazy frame narwhals knows).

    A PySpark DataFrame stays in Spark: the count pass runs there and only the counts
    come back. A :class:`Source` (from :func:`open_file` or :func:`open_spark_file`) is
    returned as it is.

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
        Sources from :func:`open_file` (files, not DataFrames); the join reads the same
        open files.
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
    if left.file is None or right.file is None:
        raise InputError(
            "a self-identification join needs two files, not a DataFrame.",
            "Join the DataFrames yourself, or point data.cases and data.demographics at files.",
        )
    con = _connect()
    left.file.keep_open_for(con)
    right.file.keep_open_for(con)
    text = [*text_columns, on]
    key = f"CAST({quote(on)} AS VARCHAR)"
    picked = [f"l.{quote(c)} AS {quote(c)}" for c in take_left]
    picked += [f"r.{quote(c)} AS {quote(c)}" for c in take_right]

    def reader(side: Source, declared: str | None) -> str:
        assert side.file is not None
        fmt = file_format(side.file.path, declared)
        forced = list(dict.fromkeys(c for c in text if c in side.kinds)) if fmt == "csv" else []
        return _reader_sql(side.file, fmt, delimiter, forced)

    try:
        con.execute("CREATE VIEW left_file AS SELECT * FROM " + reader(left, left_format))
        con.execute("CREATE VIEW right_file AS SELECT * FROM " + reader(right, None))
        con.execute(
            "CREATE VIEW cases AS SELECT "
            f"l.{IN_LEFT} AS {IN_LEFT}, r.{IN_RIGHT} AS {IN_RIGHT}, "
            f"COALESCE(l.{JOIN_KEY}, r.{JOIN_KEY}) AS {JOIN_KEY}"
            + "".join(", " + p for p in picked)
            + f" FROM (SELECT *, TRUE AS {IN_LEFT}, {key} AS {JOIN_KEY} FROM left_file) AS l"
            f" FULL OUTER JOIN (SELECT *, TRUE AS {IN_RIGHT}, {key} AS {JOIN_KEY} "
            f"FROM right_file) AS r ON l.{JOIN_KEY} = r.{JOIN_KEY}"
        )
        frame = nw.from_native(con.table("cases"))
    except duckdb.Error as exc:
        message = named(str(exc), left.file, right.file)
        raise InputError(
            f"cannot join {left.path} to {right.path} on '{on}': {shorten(message)}.",
            "Check that both files hold the id column.",
        ) from None
    return JoinedSource(
        f"{left.path} joined to {right.path} on '{on}'", frame, con, left, right, on
    )


def decided_rows(joined: JoinedSource) -> JoinedSource:
    """The rows of a join that come from the left (decisions) file, lazily.

    A self-identification row with no decision is not a case: the group rules and the
    battery count cases, so they read this view; the LL144 reconciliation reads the whole
    join and counts such rows on their own.
    """
    frame = joined._frame.filter(nw.col(IN_LEFT).fill_null(False))
    assert joined._con is not None
    return JoinedSource(
        joined.description, frame, joined._con, joined.left, joined.right, joined.on
    )


def open_spark_file(
    path: str | Path,
    declared_format: str | None = None,
    delimiter: str = ",",
    text_columns: Sequence[str] = (),
    session: Any = None,
    check_columns: Sequence[str] | None = None,
) -> Source:
    """Open a CSV, JSONL or Parquet file as a Spark DataFrame, for the count pass on Spark.

    The file is read as :func:`open_file` reads it in DuckDB (see
    :mod:`respai.engine.spark`), so the counts are the same. ``path`` may be a URI Spark
    reads itself (``s3a://``, ``hdfs://``) or a local folder of part files; a local file
    gets the same checks as in :func:`open_file` first, and is held open so that its
    fingerprint and the change check are about the file Spark read. Spark is given the
    path with its pattern characters escaped: it reads that one path, never a glob. A
    local folder is listed once (every file under it is fingerprinted) and Spark is
    handed the explicit list of its part files (:func:`respai.engine.spark.folder_parts`).
    ``check_columns`` are the columns a CSV header must not name twice, as for
    :func:`open_file` (``text_columns`` when omitted).

    Raises
    ------
    InputError
        When the file is missing, empty or not UTF-8 text, or Spark cannot read it.
    """
    from respai.engine import spark

    remote = spark.is_remote(path)
    local = None if remote else Path(path)
    file = None
    folder = None
    parts = None
    if local is not None:
        if not local.exists():
            raise InputError(
                f"the cases file {local} does not exist.", "Check the path in the spec."
            )
        if local.is_dir():
            folder = LocalFolder.open(local)
            parts = spark.folder_parts(folder)
        else:
            file = LocalFile.open(local)
            if file.size == 0:
                raise InputError(
                    f"the cases file {local} is empty (0 bytes).",
                    "Export the decided cases with a header row.",
                )
    fmt = file_format(Path(str(path).rstrip("/")), declared_format)
    if file is not None and fmt != "parquet":
        check_text_start(file)
        if fmt == "csv":
            check_header(
                file,
                delimiter,
                check_columns if check_columns is not None else (text_columns or None),
            )
    where = str(path) if remote else str(Path(path).resolve())
    try:
        native = spark.read_spark_file(where, fmt, delimiter, text_columns, session, parts)
        frame = nw.from_native(native)
        source = Source(str(path), local, frame, None, file, folder)
    except InputError:
        raise
    except Exception as exc:  # Spark's AnalysisException, Py4JJavaError, ...
        raise InputError(
            f"Spark cannot read {path}: {shorten(_spark_message(exc))}.",
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
