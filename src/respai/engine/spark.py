"""Spark: the session, and reading a cases file into a Spark DataFrame.

The count pass itself is the same narwhals pass as for every other engine
(:mod:`respai.engine.count_pass`); this module only starts Spark and reads files the way
DuckDB reads them, so the integer counts are the same:

- the path is read literally: its glob characters (``*``, ``?``, brackets, braces, the
  backslash) are escaped, so ``cases[12].csv`` is that one file, as in DuckDB, never
  ``cases1.csv`` and ``cases2.csv``.
- CSV: a header row, ``"`` quotes doubled inside a value (RFC 4180), an empty cell is
  missing, the columns the spec names (attributes, label, prediction, unit) are read as
  text and the other columns get Spark's inferred types; a value that does not fit its
  column's type stops the scan (``FAILFAST``) instead of becoming missing.
- JSONL: one JSON object per line, types from the JSON values.
- Parquet: as written.
- a local folder of part files: Spark is handed the explicit, sorted list of the files it
  reads (:func:`folder_parts`), never the folder, so it reads exactly the files listed
  and fingerprinted. Every file in the folder is fingerprinted; the files Spark itself
  skips in a folder (names starting with ``.``, or with ``_`` and no ``=``) are not read.
  The files read must be part files directly in the folder, or all in ``name=value``
  partition folders at one depth (the partition columns are read from the folder names,
  as Spark does); anything else (a part file in a subfolder such as ``__pycache__``, or
  beside partition folders, where Spark would not count it when reading the folder)
  is refused, naming the file.

``pyspark`` is an optional dependency (``pip install "respai[spark]"``); importing this
module does not import it, :func:`spark_session` and :func:`read_spark_file` do.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from respai.engine.files import LocalFolder, literal_pattern
from respai.errors import InputError
from respai.io import atomic_write

__all__ = ["folder_parts", "is_remote", "read_spark_file", "spark_session"]

_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.apache.name = org.apache
logger.apache.level = error
logger.sparkproject.name = org.sparkproject
logger.sparkproject.level = error
"""


def _log4j_file() -> Path:
    """A log4j2 configuration that lets only errors through (written once per machine)."""
    path = Path(tempfile.gettempdir()) / "respai-spark-log4j2.properties"
    try:
        if not path.is_file() or path.read_text(encoding="utf-8") != _LOG4J:
            atomic_write(path, _LOG4J.encode("utf-8"))
    except OSError:  # pragma: no cover - an unwritable temp folder: keep Spark's default
        pass
    return path


def spark_session(master: str | None = None, **conf: str) -> Any:
    """Get (or create) the Spark session the count pass runs on.

    Parameters
    ----------
    master
        Where Spark runs: ``local[2]`` (the default, two local threads), ``local[*]``,
        a cluster such as ``spark://host:7077`` or ``yarn``; when omitted, the
        ``RESPAI_SPARK_MASTER`` environment variable, else ``local[2]``. When a session
        already runs in this process it is returned as it is (Spark allows one per
        process) and ``master`` is ignored.
    conf
        Further Spark settings, e.g. ``{"spark.executor.memory": "4g"}``; keys keep
        their dots, so pass them as ``**{"spark.executor.memory": "4g"}``.

    Returns
    -------
    pyspark.sql.SparkSession
        With ``spark.sql.session.timeZone=UTC``, the web UI and console progress bars off
        and Spark's own logging at ERROR.

    Raises
    ------
    respai.errors.InputError
        When pyspark is not installed.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError(
            "Spark was asked for, but pyspark is not installed.",
            'Install it with: pip install "respai[spark]" (Spark needs Java 17 or later).',
        ) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    log4j = f"-Dlog4j.configurationFile=file:{_log4j_file()}"
    builder = (
        SparkSession.builder.appName("respai")
        .master(master or os.environ.get("RESPAI_SPARK_MASTER") or "local[2]")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", log4j)
        .config("spark.executor.extraJavaOptions", log4j)
    )
    for key, value in conf.items():
        builder = builder.config(key, value)
    with warnings.catch_warnings():
        # pyspark warns on import that it is not yet tested with pandas 3; the count
        # pass does not go through pandas
        warnings.filterwarnings(
            "ignore", "PySpark does not yet fully support pandas", FutureWarning
        )
        session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def is_remote(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a URI Spark reads itself (``s3a://``, ``hdfs://``, ``gs://`` ...)."""
    text = os.fspath(path)
    scheme, sep, _ = text.partition("://")
    return bool(sep) and scheme.isalnum() and scheme.lower() != "file"


def _is_partition(name: str) -> bool:
    """Whether a folder name is a Spark partition (``name=value``)."""
    return name.find("=") > 0


def folder_parts(folder: LocalFolder) -> list[str]:
    """The files of a folder Spark reads, as absolute paths in their listed order.

    The files Spark skips (:func:`respai.record.fingerprint.spark_hidden`, on the file
    or any folder above it) are left out; the rest must be laid out as Spark reads a
    folder: all directly in the folder, or all in ``name=value`` partition folders at one
    depth.

    Raises
    ------
    InputError
        When the folder holds no file Spark would read, or a file outside that layout.
    """
    from respai.record.fingerprint import spark_hidden

    parts = [f for f in folder.files if not any(spark_hidden(n) for n in f.split("/"))]
    if not parts:
        raise InputError(
            f"the folder {folder.path} holds no file Spark would read (names that start "
            "with '.' or '_' are skipped).",
            "Point fairness.cases at the folder of part files (or at one file).",
        )
    partitioned = [
        p for p in parts if "/" in p and all(_is_partition(n) for n in p.split("/")[:-1])
    ]
    first = partitioned[0] if partitioned else None
    depth = 0 if first is None else first.count("/")
    for part in parts:
        folders = part.split("/")[:-1]
        outside = [n for n in folders if not _is_partition(n)]
        if outside:
            why = (
                f"it sits in the subfolder '{outside[0]}', which is not a partition "
                "folder (name=value)"
            )
        elif len(folders) != depth:
            why = (
                f"it sits beside the partition folders of {first}"
                if len(folders) < depth
                else f"it sits deeper than {first}"
            )
        else:
            continue
        raise InputError(
            f"the folder {folder.path} holds {part}, which Spark would not read as a "
            f"part of the table ({why}); respai refuses a folder whose files it would "
            "fingerprint but not count.",
            "Keep the part files directly in the folder (or all in name=value "
            "partition folders at one depth); move other files out, or give them a "
            "name that starts with '_' so that Spark (and respai's count) skips them.",
        )
    return [str(folder.path.resolve() / part) for part in parts]


def read_spark_file(
    path: str | os.PathLike[str],
    fmt: str,
    delimiter: str = ",",
    text_columns: Sequence[str] = (),
    session: Any = None,
    files: Sequence[str] | None = None,
) -> Any:
    """Read a CSV, JSONL or Parquet file (or folder of part files) as a Spark DataFrame.

    Parameters
    ----------
    path
        A local path or a URI Spark can read (``s3a://bucket/cases.parquet``,
        ``hdfs://...``); a folder of part files is read as one table. The path is read
        literally, never as a glob pattern.
    fmt
        ``"csv"``, ``"jsonl"`` or ``"parquet"``.
    delimiter
        The CSV delimiter.
    text_columns
        CSV columns read as text whatever they look like (so ``007`` keeps its zeros and
        a group called ``true`` stays text), as :func:`respai.engine.open_file` does.
    session
        The Spark session; :func:`spark_session` when omitted.
    files
        For a local folder: the files to read (:func:`folder_parts`), read literally,
        with ``path`` as the base of their partition folders. Spark then reads those
        files and nothing else in the folder.

    Returns
    -------
    pyspark.sql.DataFrame
        Lazy: nothing but the CSV schema inference has scanned the file yet.
    """
    spark = session if session is not None else spark_session()
    given = os.fspath(path)
    # Spark (Hadoop) would expand * ? [ ] { } as a glob
    where: str | list[str] = literal_pattern(given)
    read = spark.read
    if files is not None:
        where = [literal_pattern(f) for f in files]
        read = read.option("basePath", given)
    if fmt == "parquet":
        return read.parquet(*([where] if isinstance(where, str) else where))
    if fmt == "jsonl":
        frame = read.option("mode", "FAILFAST").json(where)
        first = _first_json_keys(given)
        if first:  # Spark sorts JSON fields by name; keep the file's order, as DuckDB does
            order = [c for c in first if c in frame.columns]
            order += [c for c in frame.columns if c not in order]
            frame = frame.select(*order)
        return frame
    if fmt != "csv":
        raise InputError(f"cannot read format '{fmt}' with Spark.", "Use csv, jsonl or parquet.")
    from pyspark.sql.types import StringType, StructField, StructType

    reader = (
        read.option("header", "true")
        .option("sep", delimiter)
        .option("quote", '"')
        .option("escape", '"')
        .option("nullValue", "")
        .option("mode", "FAILFAST")
        .option("encoding", "UTF-8")
    )
    forced = set(text_columns)
    inferred = reader.option("inferSchema", "true").csv(where).schema
    if not forced & set(inferred.fieldNames()):
        return reader.schema(inferred).csv(where)
    schema = StructType(
        [
            StructField(f.name, StringType(), True) if f.name in forced else f
            for f in inferred.fields
        ]
    )
    return reader.schema(schema).csv(where)


def _first_json_keys(path: str) -> list[str]:
    """The keys of the first object in a local JSONL file, in order (else empty)."""
    import json

    from respai.limits import MAX_JSON_BYTES

    if is_remote(path) or not Path(path).is_file():
        return []
    try:
        with open(path, encoding="utf-8-sig") as fh:
            # one line at a time, each within the JSON limit: a file with no line break
            # is not read whole
            while line := fh.readline(MAX_JSON_BYTES):
                if line.strip():
                    value = json.loads(line)
                    return list(value) if isinstance(value, dict) else []
    except (OSError, ValueError, RecursionError):
        return []
    return []
