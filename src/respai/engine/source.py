"""What the count pass reads: an opened table of cases, its columns' kinds, its format.

A :class:`Source` is a file opened in DuckDB (or read by Spark) or a DataFrame wrapped by
narwhals; a :class:`JoinedSource` is two files joined on an id. A file source keeps the
:class:`~respai.engine.files.LocalFile` it was opened from, so the fingerprint in the
record and the change check are about the very file the engine counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import duckdb
import narwhals as nw

from respai.counts import MICRO
from respai.engine.files import LocalFile, LocalFolder
from respai.errors import InputError

__all__ = [
    "JOINED_FLAGS",
    "MICRO",
    "Cube",
    "CubeRow",
    "JoinedSource",
    "Source",
    "file_format",
]

SUFFIX_FORMATS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
NUMERIC = "numeric"
TEXT = "text"
BOOL = "boolean"
OTHER = "other"

IN_LEFT = "__respai_in_left"
IN_RIGHT = "__respai_in_right"
JOIN_KEY = "__respai_key"

JOINED_FLAGS = (IN_LEFT, IN_RIGHT)
"""Names of the two membership columns of a :class:`JoinedSource`, left then right."""


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


def codes_of_values(values: Sequence[Any]) -> tuple[Any, list[Any]] | None:
    """:meth:`Cube.key_codes` of a list of raw values: each value's index into the distinct ones.

    Values are told apart by type and value; ``None`` when one is unhashable.
    """
    import numpy as np

    keys = list(zip(map(type, values), values, strict=True))
    try:
        seen = {k: j for j, k in enumerate(dict.fromkeys(keys))}
    except TypeError:
        return None
    index = np.fromiter(map(seen.__getitem__, keys), dtype=np.int64, count=len(keys))
    return index, [raw for _, raw in seen]


class Cube(Sequence[CubeRow]):
    """The count pass's cells: a sequence of :class:`CubeRow`, kept as columns.

    A pass of many cells (one attribute of 100,000 declared values gives some 800,000)
    would spend more on one Python object per cell than on counting. The cube keeps what
    the engine returned, column by column: :meth:`key_columns` gives each grouped
    column's raw values as a list and :meth:`numbers` an aggregate as a numpy array with
    its validity, which is all the array reading of :mod:`respai.load` needs. Iterating
    or indexing builds the :class:`CubeRow` objects (once, on first use), with the same
    values the row-by-row reading always had, for the paths that read cell by cell.
    """

    __slots__ = ("_codes", "_columns", "_keys", "_length", "_make_rows", "_rows")

    def __init__(
        self,
        length: int,
        keys: Callable[[], list[list[Any]]],
        columns: Callable[[str], tuple[Any, Any]],
        rows: Callable[[], list[CubeRow]],
        codes: Callable[[int], tuple[Any, list[Any]] | None] | None = None,
    ) -> None:
        self._length = length
        self._keys = keys
        self._columns = columns
        self._make_rows = rows
        self._codes = codes
        self._rows: list[CubeRow] | None = None

    @classmethod
    def of_rows(cls, rows: list[CubeRow]) -> Cube:
        """A cube of cells already built (an in-memory frame, Spark, a joined pass)."""

        def keys() -> list[list[Any]]:
            width = len(rows[0].keys) if rows else 0
            return [[r.keys[i] for r in rows] for i in range(width)]

        def column(name: str) -> tuple[Any, Any]:
            import numpy as np

            if name.startswith("non_null:"):
                j = int(name.partition(":")[2])
                values: list[Any] = [r.non_null[j] for r in rows]
            else:
                values = [getattr(r, name) for r in rows]
            valid = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
            kind = np.float64 if name in ("prob_min", "prob_max") else np.int64
            filled = [0 if v is None else v for v in values]
            return np.asarray(filled, dtype=kind), valid

        return cls(len(rows), keys, column, lambda: rows)

    def key_columns(self) -> list[list[Any]]:
        """Each grouped column's raw value per cell, in the order the keys were asked for."""
        return self._keys()

    def key_codes(self, i: int) -> tuple[Any, list[Any]] | None:
        """The ``i``-th grouped column as codes: each cell's index into its distinct values.

        Returns an ``int64`` array (one index per cell) and the distinct raw values in
        the order the cells first show them. Values are told apart by type too (``True``
        and ``1``, as the count gate's caches do). ``None`` when a value cannot be a key
        (unhashable). DuckDB's cube encodes the column where it is (Arrow's dictionary
        encoding), so no Python object is made per cell.
        """
        if self._codes is not None:
            got = self._codes(i)
            if got is not None:
                return got
        return codes_of_values(self.key_columns()[i])

    def numbers(self, name: str) -> tuple[Any, Any]:
        """An aggregate per cell as a numpy array, and whether each cell has one.

        ``name`` is a :class:`CubeRow` field (``n``, ``prob_bin``, ``prob_n``,
        ``prob_sum``, ``prob_min``, ``prob_max``) or ``non_null:J`` for the ``J``-th
        further column. Integers come as ``int64`` (a bin or sum beyond that range raises
        ``OverflowError``: the caller reads cell by cell), the probability bounds as
        ``float64``; where a cell has no value the array holds 0.
        """
        return self._columns(name)

    def _all(self) -> list[CubeRow]:
        if self._rows is None:
            self._rows = self._make_rows()
        return self._rows

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[CubeRow]:
        return iter(self._all())

    @overload
    def __getitem__(self, index: int) -> CubeRow: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[CubeRow]: ...
    def __getitem__(self, index: int | slice) -> CubeRow | Sequence[CubeRow]:
        return self._all()[index]


class Source:
    """An opened table of cases, ready for the count pass.

    Attributes
    ----------
    description
        How messages name the data: the file path, or ``"the pandas DataFrame"``.
    path
        The file as the user named it, or ``None`` for a DataFrame.
    file
        The local file the engine reads, opened once (``None`` for a DataFrame, a
        remote URI or a folder of part files).
    folder
        The local folder of part files Spark was handed the files of, listed once
        (``None`` otherwise).
    kinds
        Column name to ``"numeric"``, ``"text"``, ``"boolean"`` or ``"other"``.
    """

    def __init__(
        self,
        description: str,
        path: Path | None,
        frame: Any,
        con: duckdb.DuckDBPyConnection | None,
        file: LocalFile | None = None,
        folder: LocalFolder | None = None,
    ) -> None:
        self.description = description
        self.path = file.path if file is not None else path
        self.file = file
        self.folder = folder
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
    def _header_lines(self) -> int:
        """Lines before the first case: 1 in a CSV file (its header), 0 in JSONL or a frame."""
        if not self._is_text:
            return 0
        assert self.path is not None
        return 0 if SUFFIX_FORMATS.get(self.path.suffix.lower()) == "jsonl" else 1

    @property
    def _is_text(self) -> bool:
        return self.path is not None and SUFFIX_FORMATS.get(self.path.suffix.lower()) != (
            "parquet"
        )

    def fingerprint(self) -> dict[str, Any] | None:
        """The SHA-256 fingerprint of the data this source counts.

        A local file is hashed from the descriptor the engine reads it through, then
        checked unchanged (:meth:`check_unchanged`). A local folder of part files (Spark)
        is fingerprinted as the manifest of every file it held when it was listed and
        Spark was handed its files, then checked unchanged.

        Returns
        -------
        dict or None
            ``{name, media_type, size_bytes, sha256}`` as
            :func:`respai.record.file_fingerprint` gives it; ``None`` for a DataFrame or a
            remote URI, which respai cannot read byte for byte.

        Raises
        ------
        InputError
            When the file changed since it was opened.
        """
        if self.file is not None:
            return self.file.fingerprint()
        if self.folder is not None:
            return self.folder.fingerprint()
        if self.path is not None and self.path.is_dir():  # pragma: no cover - not opened
            from respai.record.fingerprint import file_fingerprint

            return file_fingerprint(self.path)
        return None

    def check_unchanged(self) -> None:
        """Refuse a file that changed (or was replaced) since it was opened.

        Nothing to check for a DataFrame or a remote URI.

        Raises
        ------
        InputError
            When the file's size, times or identity differ from when it was opened, or a
            file of the folder changed, was added or removed since it was listed.
        """
        if self.file is not None:
            self.file.check_unchanged()
        if self.folder is not None:
            self.folder.check_unchanged()

    def close(self) -> None:
        """Close the DuckDB connection this source reads through, once the run is done.

        DuckDB's memory allocator keeps what a large count pass and sort used until its
        database closes (about 150 MB after 1,000,000 cases of 100,000 groups), so a run
        that goes on to build its record closes it first. Reading the source after this
        fails; a Spark source has no connection to close. Closing twice does nothing.
        """
        if self._con is not None:
            self._con.close()


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

    def fingerprint(self) -> dict[str, Any] | None:
        """``None``: a join has no single fingerprint; fingerprint ``left`` and ``right``."""
        return None

    def check_unchanged(self) -> None:
        """Refuse the join when either file changed since it was opened.

        Raises
        ------
        InputError
            When the left or the right file changed.
        """
        self.left.check_unchanged()
        self.right.check_unchanged()

    def close(self) -> None:
        """Close the join's connection and each file's."""
        super().close()
        self.left.close()
        self.right.close()


def _kind(dtype: Any) -> str:
    if dtype.is_numeric():
        return NUMERIC
    if dtype == nw.String or dtype == nw.Categorical or dtype == nw.Enum:
        return TEXT
    if dtype == nw.Boolean:
        return BOOL
    return OTHER


def file_format(path: Path, declared: str | None) -> str:
    """The format of ``path``: the declared one, else from the suffix.

    Parameters
    ----------
    path
        The file as the user named it.
    declared
        The spec's ``format:``, if any.

    Returns
    -------
    str
        ``"csv"``, ``"jsonl"`` or ``"parquet"``.

    Raises
    ------
    InputError
        When the suffix is unknown and no format is declared.
    """
    if declared:
        return declared
    fmt = SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            f"cannot tell the format of {path} from its name.",
            "Name it .csv, .jsonl or .parquet, or set format: in the spec.",
        )
    return fmt
