"""What the count pass reads: an opened table of cases, its columns' kinds, its format.

A :class:`Source` is a file opened in DuckDB (or read by Spark) or a DataFrame wrapped by
narwhals; a :class:`JoinedSource` is two files joined on an id. A file source keeps the
:class:`~respai.engine.files.LocalFile` it was opened from, so the fingerprint in the
record and the change check are about the very file the engine counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import narwhals as nw

from respai.counts import MICRO
from respai.engine.files import LocalFile, LocalFolder
from respai.errors import InputError

__all__ = [
    "JOINED_FLAGS",
    "MICRO",
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
