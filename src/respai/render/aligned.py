"""Tables of short text cells, drawn as aligned columns in a few milliseconds.

Rich's :class:`~rich.table.Table` measures, wraps and pads every cell through its layout
engine: about 0.1 s for the per-group tables of a file with a few dozen groups, a tenth
of a whole ``respai fairness`` run. The terminal summary's tables hold only short,
single-line cells, so :class:`AlignedTable` lays them out itself: each column as wide as
its widest cell (in terminal cells, so wide characters count double), columns two spaces
apart, the header in bold, trailing spaces dropped. Only when the table is wider than
the console (a narrow terminal) is it handed to rich's ``Table``, which folds the cells to
fit, so a narrow terminal shows what it showed before.

Cells are :class:`~rich.text.Text` or ``str``; whatever the caller put in them is shown
as given, and :class:`respai.render.terminal.TerminalConsole` escapes control characters
in everything it prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table
from rich.text import Text

__all__ = ["AlignedTable", "Justify"]

Justify = Literal["left", "right"]
"""How a column's cells are aligned."""

#: Spaces between two columns: what rich's ``Table`` leaves with ``box=None`` and its
#: default padding of one cell on each side.
_GAP = 2


class AlignedTable:
    """A table of single-line cells, rendered as aligned columns (see the module).

    Parameters
    ----------
    columns
        Each column's header and how its cells are aligned, in order.
    title
        A line above the table, or ``None``.
    """

    def __init__(self, columns: Iterable[tuple[str, Justify]], title: str | None = None) -> None:
        self.title = title
        self.headers, self.justify = [], []
        for header, justify in columns:
            self.headers.append(header)
            self.justify.append(justify)
        self.rows: list[list[Text]] = []

    def add_row(self, *cells: str | Text) -> None:
        """Add a row: one cell per column, in order."""
        if len(cells) != len(self.headers):
            raise ValueError(f"a row of {len(cells)} cells for {len(self.headers)} columns")
        self.rows.append([c if isinstance(c, Text) else Text(c) for c in cells])

    def widths(self) -> list[int]:
        """Each column's width in terminal cells: its widest cell or header."""
        out = [cell_len(h) for h in self.headers]
        for row in self.rows:
            for i, cell in enumerate(row):
                out[i] = max(out[i], cell.cell_len)
        return out

    def lines(self, widths: list[int] | None = None) -> list[Text]:
        """The table as aligned lines: the title (when given), the header, the rows."""
        widths = self.widths() if widths is None else widths
        out = [] if self.title is None else [Text(self.title, style="italic")]
        header = [Text(h, style="bold") for h in self.headers]
        for cells in (header, *self.rows):
            line = Text()
            for i, cell in enumerate(cells):
                pad = " " * (widths[i] - cell.cell_len)
                if i:
                    line.append(" " * _GAP)
                if self.justify[i] == "right":
                    line.append(pad)
                    line.append_text(cell)
                else:
                    line.append_text(cell)
                    line.append(pad)
            line.rstrip()
            out.append(line)
        return out

    def rich_table(self) -> Table:
        """The same table as a rich ``Table`` (which folds cells to fit a narrow console)."""
        table = Table(
            title=self.title,
            title_justify="left",
            show_edge=False,
            box=None,
            header_style="bold",
            pad_edge=False,
        )
        for header, justify in zip(self.headers, self.justify, strict=True):
            table.add_column(header, justify=justify)
        for row in self.rows:
            table.add_row(*row)
        return table

    def __rich_console__(
        self, console: Console, options: ConsoleOptions
    ) -> Iterator[RenderableType]:
        widths = self.widths()
        if sum(widths) + _GAP * max(len(widths) - 1, 0) > options.max_width:
            yield self.rich_table()
            return
        for line in self.lines(widths):
            line.no_wrap = True  # it fits: spare rich's line breaking of every row
            yield line
