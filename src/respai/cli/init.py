"""``respai init``: draft a spec from a data file, ready to edit.

A thin layer: refuse to overwrite (unless ``--force``), call
:func:`respai.init.draft_spec`, write the draft atomically with
:func:`respai.io.write_file`, and say on standard error what was chosen and what to check.
"""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["init_command"]


@cli.command("init")
@click.argument("datafile", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    default=Path("spec.yaml"),
    show_default=True,
    help="Where to write the drafted spec.",
)
@click.option("--force", is_flag=True, help="Overwrite the --out file if it exists.")
def init_command(datafile: Path, out: Path, force: bool) -> None:
    """Draft a spec from DATAFILE (CSV, JSONL or Parquet), ready to edit.

    Guesses the label, prediction and score columns (0/1 columns and a column in [0, 1],
    by name), an id column with one row per person, and declares every text column with
    at most 20 distinct values as an attribute with its values. The rules are written
    commented out, as examples. The file is a draft: read its header, check every
    choice, then run respai fairness on it. Exit code 0 when written, 2 for a bad data
    file or when --out exists (nothing is written then; --force overwrites it).
    """
    from respai.errors import InputError
    from respai.init import draft_spec
    from respai.io import write_file

    if out.exists() or out.is_symlink():
        if out.is_dir():
            raise InputError(
                f"{out} is a folder; give the spec's file name, e.g. {out / 'spec.yaml'}."
            )
        if not force:
            raise InputError(
                f"{out} already exists; respai init does not overwrite it.",
                "Choose another name with -o, or pass --force to replace it.",
            )
        if datafile.exists() and out.resolve() == datafile.resolve():
            raise InputError(
                f"{out} is the data file itself; respai init will not write over it.",
                "Choose another name with -o.",
            )
    draft = draft_spec(datafile, out)
    write_file(out, draft.text)
    chosen = f"label {draft.label!r}, prediction {draft.prediction!r}, favorable {draft.favorable}"
    if draft.probability:
        chosen += f", probability {draft.probability!r}"
    if draft.unit:
        chosen += f", unit {draft.unit!r}"
    names = ", ".join(repr(a) for a in draft.attributes)
    output.echo(f"respai init: wrote {out}, a DRAFT spec: {chosen}; attributes {names}.")
    output.echo(
        f"  system: {draft.name!r} (fill in its TODO keys); evaluation: "
        f"{', '.join(draft.tests)}."
    )
    for check in draft.checks:
        output.echo(f"  check: {check}")
    output.echo(
        "  No rule is active: uncomment the example rules and choose their thresholds, "
        f"then run: respai fairness {out}"
    )
