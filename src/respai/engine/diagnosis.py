"""Why a file could not be read: one paragraph naming the file, the line and a fix.

DuckDB's messages are long and sometimes point at the wrong line (a failure while it sniffs
the dialect is reported on line 1), so on these error paths the file is read again in
Python, through the same open file (:class:`~respai.engine.files.LocalFile`), to find the
line at fault. The checks before a file is opened (:func:`check_text_start`,
:func:`check_header`) read only its first bytes. Messages name the path as the user wrote
it, never the descriptor the engine was given.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator, Sequence
from typing import IO

from respai.engine.files import LocalFile
from respai.errors import InputError
from respai.limits import MAX_CSV_COLUMNS, MAX_CSV_NAME_CHARS, MEMORY_ENV, MEMORY_LIMIT

__all__ = ["check_header", "check_text_start", "named", "read_error", "safe", "shorten"]


#: The first bytes of binary formats a cases file is sometimes confused with.
_MAGIC = {
    b"PK\x03\x04": "a ZIP archive (an .xlsx workbook is one)",
    b"\x1f\x8b": "a gzip-compressed file",
    b"PAR1": "a Parquet file (name it .parquet)",
    b"\x89PNG": "a PNG image",
    b"%PDF": "a PDF document",
    b"\xd0\xcf\x11\xe0": "an old Excel or Word file",
}
_HEAD = 4096  # bytes looked at before the engine opens a text file
_BINARY_SHARE = 0.1  # more control bytes than this in the head: not text


def check_text_start(file: LocalFile) -> None:
    """Refuse a text file that is UTF-16, starts with NUL bytes, or is binary.

    Nothing of a binary file is shown: its bytes would mean nothing to the reader and
    could drive the terminal.

    Raises
    ------
    InputError
        When the first bytes show it is not UTF-8 text.
    """
    path = file.path
    head = file.head(_HEAD)
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            raise InputError(
                f"{path} is {what}, not a text file of cases.",
                "Export the cases as UTF-8 CSV or JSONL, or as Parquet.",
            )
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(
            f"{path} is UTF-16 text (it starts with a UTF-16 byte-order mark).",
            "Save it as UTF-8 (a UTF-8 byte-order mark is fine).",
        )
    if b"\x00" in head[:4]:
        raise InputError(
            f"{path} starts with NUL bytes: it is not a text file.",
            "Export the cases as UTF-8 CSV or JSONL, or as Parquet.",
        )
    control = sum(1 for b in head if (b < 32 and b not in b"\t\n\r") or b == 127)
    if head and control > _BINARY_SHARE * len(head):
        raise InputError(
            f"{path} is not a text file: {control} of its first {len(head)} bytes are "
            "control bytes, which text does not hold.",
            "Check that the spec names the cases file, and export it as UTF-8 CSV or JSONL, "
            "or as Parquet.",
        )


def check_header(file: LocalFile, delimiter: str, wanted: Sequence[str] | None = None) -> None:
    """Refuse a CSV header that names a column we read twice, or has too many columns.

    DuckDB would silently rename the second one, so which of the two is read would be a
    guess. Duplicates among columns the evaluation does not read are left alone
    (``wanted``; ``None`` checks every column). More than
    :data:`~respai.limits.MAX_CSV_COLUMNS` columns is refused before the engine opens
    the file (DuckDB would run out of memory, and say only that).

    Raises
    ------
    InputError
        When a column in ``wanted`` is named twice, there are too many columns, or a
        column name is longer than :data:`~respai.limits.MAX_CSV_NAME_CHARS`.
    """
    path = file.path
    with file.open_text() as fh:
        first = fh.readline(1 << 20)
    try:
        names = next(csv.reader([first], delimiter=delimiter), [])
    except csv.Error as exc:
        if "field limit" not in str(exc):
            raise InputError(
                f"{path}: the header (line 1) is not valid CSV ({shorten(str(exc))}).",
                "Check the quoting there: every opening double quote needs a closing one.",
            ) from None
        raise InputError(
            f"{path}: a column name in the header (line 1) is longer than "
            f"{MAX_CSV_NAME_CHARS:,} characters (MAX_CSV_NAME_CHARS), so the first line "
            "is no header of column names.",
            "Check that line 1 holds the column names (a title or a value above the "
            "header is read as the header), and give each column a short name.",
        ) from None
    if len(names) > MAX_CSV_COLUMNS:
        more = "" if first.endswith("\n") else " or more"  # a header longer than 1 MiB
        raise InputError(
            f"{path} has {len(names):,}{more} columns, more than the {MAX_CSV_COLUMNS:,} "
            "a CSV file of cases may have (MAX_CSV_COLUMNS).",
            "Export only the columns the spec reads (the unit, label, prediction, score "
            "and group columns, and a model's features).",
        )
    seen: set[str] = set()
    for name in (n.strip() for n in names):
        if name in seen and name and (wanted is None or name in wanted):
            raise InputError(
                f"{path}: the header names the column '{shorten(name, 60)}' twice.",
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


def read_error(file: LocalFile, exc: Exception, delimiter: str = ",") -> InputError:
    """Turn a DuckDB reading error into one paragraph that names the file and line.

    Parameters
    ----------
    file
        The file DuckDB was reading.
    exc
        DuckDB's error.
    delimiter
        The CSV delimiter, for re-reading a CSV whose dialect DuckDB could not work out.

    Returns
    -------
    InputError
        The message names ``file.path`` (never the descriptor DuckDB read through).
    """
    path = file.path
    text = named(str(exc), file)
    low = text.lower()
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    first = re.sub(r"^[A-Za-z ]*Error:\s*", "", first)
    found = _LINE.search(text)
    line = int(found.group(1)) if found else None
    where = f" near line {line}" if line else ""
    if re.search(r"maximum line size of \d+ bytes exceeded", low):
        long_line = _first_long_line(file)
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
    if "out of memory" in low or "failed to allocate" in low:
        return InputError(
            f"cannot read {path} within the engine's memory limit "
            f"({os.environ.get(MEMORY_ENV, MEMORY_LIMIT)}): the file is too wide or a "
            "grouping too large for it.",
            f"Export only the columns the spec reads, or raise {MEMORY_ENV} "
            f"(for example {MEMORY_ENV}=4GB).",
        )
    if "invalid unicode" in low or "not utf-8 encoded" in low or "invalid utf" in low:
        bad = _first_non_utf8_line(file)
        where = f" at line {bad}" if bad is not None else where
        return InputError(
            f"{path} is not valid UTF-8{where}: part of it uses another encoding.",
            "Re-export the whole file as UTF-8.",
        )
    if "error when sniffing" in low or "automatically detect the csv" in low:
        return _diagnose_csv(file, delimiter)
    fields = _FIELDS.search(text)
    if fields:
        expected, got = fields.groups()
        at = f" line {line}" if line else " a line"
        return InputError(
            f"{path}:{at} has {got} fields but the header has {expected}.",
            _fields_fix(int(expected), int(got)),
        )
    convert = _CONVERT.search(text)
    if convert:
        kind = _TYPE_WORDS.get(convert["type"].upper(), f"of type {convert['type']}")
        at = f"line {line}, " if line else ""
        return InputError(
            f"{path}: {at}column '{convert['col']}' holds {safe(convert['val'])}, which is "
            f"not {kind} like the values before it.",
            "Fix the value, or leave the cell empty when it is unknown.",
        )
    if "could not convert" in low or "conversion error" in low:
        return InputError(
            f"{path}{where}: a value does not fit its column's type ({shorten(first)}).",
            "Fix the value, or make the whole column text.",
        )
    if "malformed json" in low or "recursion depth" in low:
        bad_json = _first_bad_json_line(file, line)
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
        f"cannot read {path}{where}: {shorten(first)}.",
        "Check that it is a well-formed file of the declared format.",
    )


def _fields_fix(header: int, got: int) -> str:
    """The fix for a line whose fields do not match the header's."""
    if got >= 2 * header:  # far more fields than the header: line 1 is no header
        return (
            "Line 1 is read as the header: remove any title or note above the header, "
            "or check that this is the cases file the spec means."
        )
    return (
        "Check the delimiter and quoting on that line: a value holding the delimiter "
        "must be in double quotes."
    )


def _first_long_line(file: LocalFile, limit: int = _MAX_LINE) -> tuple[int, int] | None:
    """The first line longer than ``limit`` bytes and its length (error paths only)."""
    try:
        with file.open_bytes() as fh:
            for number, raw in enumerate(fh, 1):
                if len(raw) > limit:
                    return number, len(raw)
    except OSError:
        return None
    return None


def _first_non_utf8_line(file: LocalFile) -> int | None:
    """The first line that is not UTF-8 (error paths only; ``None`` past the scan limit)."""
    try:
        with file.open_bytes() as fh:
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


def _first_bad_json_line(file: LocalFile, upto: int | None) -> tuple[int, str] | None:
    """The first line of a JSONL file that is not one JSON value, and why."""
    last = upto if upto is not None else _SCAN_LIMIT
    try:
        with file.open_bytes() as fh:
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
                except (RecursionError, ValueError):  # nested too deep, a huge integer
                    return number, "a value is nested too deeply or a number is too long"
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


def _diagnose_csv(file: LocalFile, delimiter: str) -> InputError:
    """Find why DuckDB could not work out a CSV's dialect: re-read it with Python's csv."""
    path = file.path
    shown = "\\t" if delimiter == "\t" else delimiter
    fallback = InputError(
        f"cannot read {path} as CSV with delimiter '{shown}': its lines do not split "
        "into the same fields.",
        "Check the delimiter (set delimiter: in the spec) and the quoting.",
    )
    start = 1
    try:
        with file.open_bytes() as fh:
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
                        _fields_fix(width, len(row)),
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
            f"{path}: the record starting at line {start} is not valid CSV ({shorten(str(exc))}).",
            "Check the quoting there: every opening double quote needs a closing one.",
        )
    except OSError:
        return fallback
    return fallback


def safe(text: str, limit: int = 60) -> str:
    """A value quoted for a message: control characters escaped, long values cut."""
    shown = text if text.isprintable() else text.encode("unicode_escape").decode("ascii")
    if len(shown) > limit:
        shown = shown[: limit - 3] + "..."
    return f"'{shown}'"


def shorten(text: str, limit: int = 200) -> str:
    """``text`` on one line, without control characters, cut to ``limit`` characters."""
    clean = "".join(c if c.isprintable() else "?" for c in text).strip().rstrip(".").strip()
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


def named(text: str, *files: LocalFile) -> str:
    """``text`` with each file's descriptor name replaced by the path the user gave."""
    for file in files:
        # not inside a longer number: /proc/self/fd/5 is not the start of .../fd/51
        pattern = re.escape(file.reader) + r"(?![0-9])"
        text = re.sub(pattern, str(file.path).replace("\\", "\\\\"), text)
    return text
