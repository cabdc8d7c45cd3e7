"""The engines a cases file can be counted on: one table, read by the loader, the CLI and the docs.

:data:`ENGINES` maps each name ``--engine`` accepts to an :class:`Engine`: the function
that opens a file on it (by dotted name, imported only when a file is opened), the words
``--help`` shows for it, the optional extra it needs installed, and whether the
self-identification join runs on it. :func:`respai.load.open_inputs` opens the cases
through :meth:`Engine.open_file`, ``--engine`` offers the table's names, and the engine
docs (``docs/scale.md``, the ``--engine`` rows of the command pages) name exactly its
entries (a test holds them together).

The table is plain data, so the command line can read it without importing an engine
(``respai --help`` stays fast). A DataFrame is counted where it lives, whatever the
engine named (:func:`respai.engine.opening.open_frame`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from respai.errors import InputError, did_you_mean

if TYPE_CHECKING:
    from respai.engine.source import Source

__all__ = ["DEFAULT_ENGINE", "ENGINES", "Engine", "Opener", "engine_named"]


class Opener(Protocol):
    """What opens a cases file on an engine (:func:`respai.engine.opening.open_file`)."""

    def __call__(
        self,
        path: Path,
        declared_format: str | None = None,
        delimiter: str = ",",
        text_columns: Sequence[str] = (),
        *,
        check_columns: Sequence[str] | None = None,
    ) -> Source:
        """Open the file lazily; nothing but the engine's own sniffing reads it yet."""
        ...


@dataclass(frozen=True, slots=True)
class Engine:
    """One engine the count pass over a cases file can run on.

    Attributes
    ----------
    name
        What ``--engine`` (and ``engine=`` in the Python API) calls it.
    opener
        ``"module:function"`` of its :class:`Opener`, imported when a file is opened.
    description
        Where the count pass runs, as ``--engine``'s help says it.
    extra
        The optional extra that installs it (``pip install "respai[<extra>]"``);
        ``None`` when respai's own dependencies run it.
    joins
        Whether the self-identification join (``data.demographics``) runs on it.
    """

    name: str
    opener: str
    description: str
    extra: str | None
    joins: bool

    def open_file(
        self,
        path: Path,
        declared_format: str | None,
        delimiter: str,
        text_columns: Sequence[str],
        check_columns: Sequence[str],
    ) -> Source:
        """Open a cases file on this engine (see :func:`respai.engine.opening.open_file`).

        Parameters
        ----------
        path
            The cases file (or, on Spark, a folder of part files or a URI).
        declared_format
            ``"csv"``, ``"jsonl"`` or ``"parquet"``; from the suffix when ``None``.
        delimiter
            The CSV delimiter.
        text_columns
            Columns read as text.
        check_columns
            Columns whose name must not appear twice in a CSV header.

        Returns
        -------
        Source
            The opened cases, lazy.
        """
        module, _, function = self.opener.partition(":")
        opener: Opener = getattr(importlib.import_module(module), function)
        return opener(path, declared_format, delimiter, text_columns, check_columns=check_columns)


ENGINES: Mapping[str, Engine] = {
    e.name: e
    for e in (
        Engine(
            name="duckdb",
            opener="respai.engine.opening:open_file",
            description="embedded DuckDB",
            extra=None,
            joins=True,
        ),
        Engine(
            name="spark",
            opener="respai.engine.opening:open_spark_file",
            description="Spark (local, or the cluster named by RESPAI_SPARK_MASTER)",
            extra="spark",
            joins=False,
        ),
    )
}
"""Every engine, by name, in the order ``--engine`` lists them."""

DEFAULT_ENGINE = "duckdb"
"""The engine a run uses when none is named."""


def engine_named(name: str) -> Engine:
    """The engine called ``name``.

    Raises
    ------
    InputError
        When no engine has that name (with a "did you mean").
    """
    found = ENGINES.get(name)
    if found is None:
        raise InputError(
            f"'{name}' is not an engine." + did_you_mean(name, ENGINES),
            f"Use one of {', '.join(ENGINES)}.",
        )
    return found
