"""The terminal's aligned tables: columns line up, a narrow console gets rich's folding."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text

from respai.render.aligned import AlignedTable, Justify
from respai.render.terminal import terminal_console

# printable single-line cells, wide characters (CJK, emoji) included
_cell = st.text(
    st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Mn", "Me")),
    max_size=8,
).map(str.strip)


def _printed(table: AlignedTable, width: int | None = None) -> list[str]:
    buf = io.StringIO()
    console = terminal_console(file=buf, width=width)
    console.print(table)
    return buf.getvalue().splitlines()


@given(
    st.integers(1, 5).flatmap(
        lambda k: st.tuples(
            st.lists(st.sampled_from(["left", "right"]), min_size=k, max_size=k),
            st.lists(st.lists(_cell, min_size=k, max_size=k), max_size=6),
        )
    )
)
@settings(max_examples=200)
def test_each_cell_sits_in_its_column(case: tuple[list[Justify], list[list[str]]]) -> None:
    justify, rows = case
    table = AlignedTable((f"c{i}", j) for i, j in enumerate(justify))
    for row in rows:
        table.add_row(*row)
    widths = [
        max([cell_len(f"c{i}")] + [cell_len(r[i]) for r in rows]) for i in range(len(justify))
    ]
    lines = [line.plain for line in table.lines()]
    assert len(lines) == 1 + len(rows)
    for line, cells in zip(lines, [[f"c{i}" for i in range(len(justify))], *rows], strict=True):
        assert line == line.rstrip()
        # walk the line by terminal cells: column i spans widths[i], then two spaces
        chars = list(line)
        for i, cell in enumerate(cells):
            taken = ""
            while chars and (cell_len(taken) < widths[i] or cell_len(chars[0]) == 0):
                taken += chars.pop(0)  # zero-width characters stay with the cell before
            assert taken.strip(" ") == cell
            if cell:
                aligned = taken.endswith if justify[i] == "right" else taken.startswith
                assert aligned(cell)
            if i < len(cells) - 1 and chars:
                assert chars[:2] == [" ", " "]
                del chars[:2]
        assert not chars


def test_the_header_is_bold_and_cell_styles_are_kept() -> None:
    table = AlignedTable((("test", "left"), ("verdict", "left")), "title")
    table.add_row("auc", Text("PASS", style="bold green"))
    title, header, row = table.lines()
    assert title.plain == "title"
    assert header.plain == "test  verdict" and any(s.style == "bold" for s in header.spans)
    assert row.plain == "auc   PASS"
    assert any(
        str(s.style) == "bold green" and row.plain[s.start : s.end] == "PASS" for s in row.spans
    )


def test_wide_characters_take_two_cells() -> None:
    table = AlignedTable((("group", "left"), ("n", "right")))
    table.add_row("東京", "5")
    table.add_row("Oslo", "12")
    assert [line.plain for line in table.lines()] == ["group   n", "東京    5", "Oslo   12"]


def test_a_table_wider_than_the_console_is_folded_by_rich() -> None:
    table = AlignedTable((("group", "left"), ("note", "left")))
    table.add_row("a group with a rather long name", "and a note that is long as well")
    lines = _printed(table, width=40)
    assert all(cell_len(line) <= 40 for line in lines)
    assert len(lines) > 2  # the cells were folded over more lines
    assert (
        _printed(table, width=200)[1]
        == "a group with a rather long name  and a note that is long as well"
    )


def test_control_characters_in_a_cell_are_shown_escaped() -> None:
    table = AlignedTable((("group", "left"),))
    table.add_row("evil\x1b[31m")
    out = "\n".join(_printed(table))
    assert "\x1b" not in out and "\\x1b" in out
