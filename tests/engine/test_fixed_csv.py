"""The CSV view reads the file with the sniffer's findings written out, and reads the same.

:func:`respai.engine.opening.open_file` sniffs a CSV file once and then declares its
columns, types and formats, so later queries do not sniff again. Each file here is read
both ways, through the opened view and by DuckDB's own sniffing ``read_csv``, and the
rows must be equal: line endings, quoted newlines, dates and timestamps in other formats,
empty cells, booleans, a byte-order mark, text columns forced to text.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from respai.engine.opening import open_file

_FILES = {
    "lf": "a,b,c\n1,x,true\n2,y,false\n",
    "crlf": "a,b,c\r\n1,x,true\r\n2,y,false\r\n",
    "cr": "a,b,c\r1,x,true\r2,y,false\r",
    "no_final_newline": "a,b\n1,x\n2,y",
    "quoted_newline": 'a,b\n1,"two\nlines"\n2,"say ""hi"""\n',
    "us_dates": "a,when\n1,12/31/2025\n2,01/02/2026\n",
    "timestamps": "a,at\n1,2025-12-31 23:59:58\n2,2026-01-02 00:00:01\n",
    "day_first_timestamps": "a,at\n1,31-12-2025 23:59\n2,13-01-2026 00:01\n",
    "empty_cells": "a,b,c\n1,,3\n,x,\n",
    "bom": "\ufeffa,b\n1,x\n2,y\n",
    "numbers_and_text": "a,b\n007,1.5\n010,2e3\n",
    "wide_quoted_header": '"a","age (years)"\nAda,36\nAlan,41\n',
    # a text column that looks like a date, beside a date column in another format
    "two_date_formats": "a,when,then\n1,12/31/2025,2025-12-31\n2,01/02/2026,2026-01-02\n",
    "dates_as_groups": "a,when,at\n2025-12-31,31/12/2025,2025-12-31 10:00:00\n"
    "2026-01-02,02/01/2026,2026-01-02 11:30:00\n",
}


def _sniffed(path: Path, text: tuple[str, ...]) -> list[tuple[object, ...]]:
    header = path.read_text(encoding="utf-8-sig").splitlines()[0].replace('"', "").split(",")
    text = tuple(c for c in text if c in header)
    types = ""
    if text:
        types = ", types={" + ", ".join(f"'{c}': 'VARCHAR'" for c in text) + "}"
    sql = (
        f"SELECT * FROM read_csv('{path}', delim=',', quote='\"', escape='\"', header=true, "
        f"skip=0, auto_detect=true, strict_mode=true, max_line_size=2097152{types})"
    )
    return duckdb.connect().execute(sql).fetchall()


@pytest.mark.parametrize("name", sorted(_FILES))
@pytest.mark.parametrize("text", [(), ("a",), ("when",), ("then", "at"), ("a", "when", "at")])
def test_the_view_reads_what_the_sniffer_reads(
    tmp_path: Path, name: str, text: tuple[str, ...]
) -> None:
    path = tmp_path / f"{name}.csv"
    path.write_bytes(_FILES[name].encode("utf-8"))
    source = open_file(path, text_columns=text, check_columns=())
    assert source._con is not None
    got = source._con.execute("SELECT * FROM cases").fetchall()
    assert got == _sniffed(path, text)
    assert len(got) == 2  # every file holds two cases


def test_the_view_does_not_sniff_again(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_text("a,b\n1,x\n", encoding="utf-8")
    source = open_file(path)
    assert source._con is not None
    (sql,) = source._con.execute(
        "SELECT sql FROM duckdb_views() WHERE view_name = 'cases'"
    ).fetchone() or ("",)
    assert "auto_detect = false" in sql and "columns" in sql
