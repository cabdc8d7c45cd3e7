"""Portable SQL over the cases, with exact fixed-point sums: one query on every engine.

The blocks beyond binary decisions (``regression:``, ``ranking:``) and the weights need
sums of real numbers per group. A float sum depends on the order it is added in, which
differs between DuckDB, a pandas frame and Spark, so a signed number would differ by
engine. Here every real value is first put on a fixed grid: :func:`fixed` turns it into a
whole number of ``10^-decimals`` units (``floor(x * 10^decimals + 0.5)``, one IEEE
multiplication and one addition, the same bits on every engine), and sums of those whole
numbers (and of their products) are exact in ``DECIMAL(38, 0)`` whatever order they are
added in.

:func:`query` runs one SQL text, written in the dialect DuckDB and Spark SQL share
(``CAST``, ``FLOOR``, ``CASE``, ``SUM``, ``COUNT``, ``ROW_NUMBER() OVER``, ``LOG2``), over
the cases where they live:

- a file opened in DuckDB (or two joined files): on its own connection, out of core under
  the memory cap;
- a Spark DataFrame: as a temporary view in its session; only the result comes back;
- any other DataFrame (pandas, polars, pyarrow): the named columns handed to a private
  DuckDB connection as Arrow, without a pandas copy of the whole frame.

Results come back as plain Python values, ``DECIMAL`` sums as exact ``int``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import duckdb
import narwhals as nw

from respai.engine.source import Source
from respai.engine.values import is_spark, plain
from respai.errors import InputError

__all__ = ["MAX_FIXED", "Dialect", "fixed", "query"]

#: The largest magnitude a fixed-point value may reach (``|x| * 10^decimals``): its square
#: is below ``10^30``, so a sum of squares over up to ``10^8`` rows fits ``DECIMAL(38, 0)``.
MAX_FIXED = 10**15

_VIEW = itertools.count()


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one engine spells what the shared SQL cannot: identifiers and the table's name.

    Attributes
    ----------
    table
        The name the query reads the cases from.
    spark
        Whether the query runs in Spark SQL (else DuckDB).
    """

    table: str
    spark: bool = False

    def ident(self, name: str) -> str:
        """A column name as a quoted identifier of this engine."""
        if self.spark:
            return "`" + name.replace("`", "``") + "`"
        return '"' + name.replace('"', '""') + '"'


def fixed(expr: str, decimals: int) -> str:
    """SQL turning a real-valued ``expr`` into whole ``10^-decimals`` units, exactly.

    ``floor(x * 10^decimals + 0.5)`` as ``DECIMAL(38, 0)``: round half up, the same on
    every engine (the product and the sum are single IEEE operations). ``NULL`` stays
    ``NULL``. The caller refuses values beyond :data:`MAX_FIXED` units (compare the
    result's ``MAX(ABS(...))``), which would lose exactness.
    """
    if not 0 <= decimals <= 12:
        raise ValueError(f"decimals must be 0 to 12, not {decimals}")
    scale = 10**decimals
    return (
        f"CAST(FLOOR(CAST({expr} AS DOUBLE) * CAST({scale} AS DOUBLE) + CAST(0.5 AS DOUBLE)) "
        "AS DECIMAL(38, 0))"
    )


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return plain(value)


def query(
    source: Source, build: Callable[[Dialect], str], columns: Sequence[str]
) -> list[tuple[Any, ...]]:
    """Run the SQL ``build(dialect)`` over the cases of ``source``; plain rows back.

    Parameters
    ----------
    source
        The opened cases (a file, two joined files, or a DataFrame).
    build
        Makes the SQL text for an engine's :class:`Dialect`: it reads the cases from
        ``dialect.table`` and quotes names with :meth:`Dialect.ident`.
    columns
        The columns the query reads (a DataFrame hands only these to DuckDB).

    Raises
    ------
    InputError
        When the engine fails while scanning (a bad value deep in a file).
    """
    from respai.engine.count_pass import scan_error

    native = nw.to_native(source._frame)
    try:
        if isinstance(native, duckdb.DuckDBPyRelation):
            dialect = Dialect("__respai_cases")
            result = native.query(dialect.table, build(dialect))
            rows = [] if result is None else result.fetchall()
        elif is_spark(native):
            dialect = Dialect(f"__respai_cases_{next(_VIEW)}", spark=True)
            native.select(*columns).createOrReplaceTempView(dialect.table)
            try:
                rows = native.sparkSession.sql(build(dialect)).collect()
            finally:
                native.sparkSession.catalog.dropTempView(dialect.table)
        else:
            frame = source._frame.select(*columns)
            if isinstance(frame, nw.LazyFrame):
                frame = frame.collect()
            table = frame.to_arrow()
            dialect = Dialect("__respai_cases")
            con = duckdb.connect(":memory:")
            try:
                con.register(dialect.table, table)
                rows = con.execute(build(dialect)).fetchall()
            finally:
                con.close()
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None
    except InputError:
        raise
    except Exception as exc:  # Spark's errors come from py4j and pyspark.errors
        if not is_spark(native):
            raise
        raise scan_error(source, exc) from None
    return [tuple(_plain(v) for v in row) for row in rows]
