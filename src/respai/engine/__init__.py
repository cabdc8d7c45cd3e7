"""The engine layer: the only code that talks to a dataframe engine.

Files (CSV, JSONL, Parquet) are opened lazily in DuckDB, out of core; DataFrames from the
Python API (pandas, polars, pyarrow, and lazy frames narwhals knows, PySpark among them)
are wrapped with narwhals; a file can also be read by Spark. Either way the same narwhals
expressions run the count pass where the data lives, and only a small table of integer
counts comes back to Python. A user's file is opened once and read literally (never as a
glob pattern), and the fingerprint the record carries is read from that same open file.

Nothing outside this package imports duckdb, narwhals, pyarrow or pyspark: callers get
plain Python values. The modules, one concept each:

- :mod:`~respai.engine.source`: :class:`Source`, :class:`JoinedSource`, :class:`Cube` of
  :class:`CubeRow` cells, the file formats;
- :mod:`~respai.engine.files`: :class:`LocalFile`, the file opened once (literal paths,
  its fingerprint, the check that it did not change);
- :mod:`~respai.engine.opening`: the DuckDB connection, :func:`open_file`,
  :func:`open_frame`, :func:`open_join`, :func:`open_spark_file`;
- :mod:`~respai.engine.diagnosis`: why a file could not be read, by file and line;
- :mod:`~respai.engine.count_pass`: the count passes, :func:`count_cube` and
  :func:`group_counts`;
- :mod:`~respai.engine.counted`: what the count pass counts (the column types and cell
  values), the rest refused first, :func:`refuse_uncounted`;
- :mod:`~respai.engine.lookups`: where a value is, for error messages;
- :mod:`~respai.engine.finite`: refusing NaN and infinite scores and probabilities;
- :mod:`~respai.engine.ranks`: the rank AUC's integer sums, :func:`rank_sums`;
- :mod:`~respai.engine.batches`: the cases in batches, :func:`iter_batches`;
- :mod:`~respai.engine.sql`: portable SQL over the cases on every engine, with exact
  fixed-point sums of real values (:func:`~respai.engine.sql.query`);
- :mod:`~respai.engine.weight_sums`: the weights' exact sums per count cell
  (``data.weight``), imported from the module (its name is the module's);
- :mod:`~respai.engine.values`: results back as plain Python values;
- :mod:`~respai.engine.column_summary`: a bounded summary of every column, for ``respai init``;
- :mod:`~respai.engine.frame_fingerprint`: a DataFrame's dataset fingerprint (the SHA-256
  of a canonical Arrow IPC stream of the columns read);
- :mod:`~respai.engine.frames`: results as a DataFrame of the caller's library
  (``by_group()``);
- :mod:`~respai.engine.spark`: the Spark session and reading a file with Spark;
- :mod:`~respai.engine.registry`: :data:`~respai.engine.registry.ENGINES`, the one table
  of engines (the name ``--engine`` takes, what opens a file on it, what it needs).

Each name below is imported from its module on first use, so importing the package (or
its engine table, for ``respai --help``) imports no engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from respai.lazy import lazy_names

if TYPE_CHECKING:
    from respai.engine.batches import iter_batches
    from respai.engine.count_pass import (
        count_cube,
        count_cube_and_groups,
        group_counts,
        release_memory,
    )
    from respai.engine.counted import refuse_uncounted
    from respai.engine.files import LocalFile
    from respai.engine.lookups import (
        all_null,
        duplicate_unit,
        first_non_number,
        first_outside,
        lines_of,
        locate,
        locate_where,
    )
    from respai.engine.opening import (
        MEMORY_ENV,
        MEMORY_LIMIT,
        decided_rows,
        open_file,
        open_frame,
        open_join,
        open_spark_file,
    )
    from respai.engine.ranks import RankParts, rank_sums
    from respai.engine.source import (
        JOINED_FLAGS,
        MICRO,
        Cube,
        CubeRow,
        JoinedSource,
        Source,
        file_format,
    )
    from respai.engine.spark import is_remote, read_spark_file, spark_session
    from respai.engine.weight_sums import WeightCell

#: The module each public name is imported from on first use.
_HOMES = {
    "Cube": "respai.engine.source",
    "CubeRow": "respai.engine.source",
    "JOINED_FLAGS": "respai.engine.source",
    "JoinedSource": "respai.engine.source",
    "LocalFile": "respai.engine.files",
    "MEMORY_ENV": "respai.engine.opening",
    "MEMORY_LIMIT": "respai.engine.opening",
    "MICRO": "respai.engine.source",
    "RankParts": "respai.engine.ranks",
    "Source": "respai.engine.source",
    "all_null": "respai.engine.lookups",
    "count_cube": "respai.engine.count_pass",
    "count_cube_and_groups": "respai.engine.count_pass",
    "decided_rows": "respai.engine.opening",
    "duplicate_unit": "respai.engine.lookups",
    "file_format": "respai.engine.source",
    "first_non_number": "respai.engine.lookups",
    "first_outside": "respai.engine.lookups",
    "group_counts": "respai.engine.count_pass",
    "release_memory": "respai.engine.count_pass",
    "is_remote": "respai.engine.spark",
    "iter_batches": "respai.engine.batches",
    "lines_of": "respai.engine.lookups",
    "locate": "respai.engine.lookups",
    "locate_where": "respai.engine.lookups",
    "open_file": "respai.engine.opening",
    "open_frame": "respai.engine.opening",
    "open_join": "respai.engine.opening",
    "open_spark_file": "respai.engine.opening",
    "rank_sums": "respai.engine.ranks",
    "WeightCell": "respai.engine.weight_sums",
    "read_spark_file": "respai.engine.spark",
    "refuse_uncounted": "respai.engine.counted",
    "spark_session": "respai.engine.spark",
}

__all__ = [
    "JOINED_FLAGS",
    "MEMORY_ENV",
    "MEMORY_LIMIT",
    "MICRO",
    "Cube",
    "CubeRow",
    "JoinedSource",
    "LocalFile",
    "RankParts",
    "Source",
    "WeightCell",
    "all_null",
    "count_cube",
    "count_cube_and_groups",
    "decided_rows",
    "duplicate_unit",
    "file_format",
    "first_non_number",
    "first_outside",
    "group_counts",
    "is_remote",
    "iter_batches",
    "lines_of",
    "locate",
    "locate_where",
    "open_file",
    "open_frame",
    "open_join",
    "open_spark_file",
    "rank_sums",
    "read_spark_file",
    "refuse_uncounted",
    "release_memory",
    "spark_session",
]

__getattr__ = lazy_names(__name__, _HOMES)
