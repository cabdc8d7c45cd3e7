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
@click.argument("datafiles", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--ll144",
    is_flag=True,
    help="Draft an LL144 bias-audit spec instead: DATAFILES are the decisions file and, "
    "optionally, the self-identification file joined to it on a shared id column.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    default=Path("spec.yaml"),
    show_default=True,
    help="Where to write the drafted spec.",
)
@click.option("--force", is_flag=True, help="Overwrite the --out file if it exists.")
def init_command(datafiles: tuple[Path, ...], ll144: bool, out: Path, force: bool) -> None:
    """Draft a spec from a data file (CSV, JSONL or Parquet), ready to edit.

    respai init DATAFILE guesses the label, prediction and score columns (0/1 columns
    and a column in [0, 1], by name), an id column with one row per person, and declares
    every text column with at most 20 distinct values as an attribute with its values.
    It drafts system: (named after the file), favorable: (saying which value it chose and
    why), and an evaluation: block listing only the battery tests the data supports,
    with their thresholds; the rules are written commented out, as examples.

    respai init --ll144 DECISIONS [SELF_ID] drafts an LL144 bias audit instead: the
    tool's 0/1 decision (or score), the sex and race/ethnicity columns, the id both files
    share, and a mapping of the file's spellings to the EEO-1 categories that maps only
    unambiguous spellings; any other value is left as a TODO for you to decide.

    The file is a draft: read its header and check every choice. Exit code 0 when
    written, 2 for a bad data file or when --out exists (nothing is written then;
    --force overwrites it).
    """
    from respai.errors import InputError
    from respai.io import write_file

    if len(datafiles) > (2 if ll144 else 1):
        raise InputError(
            f"respai init takes {'two files' if ll144 else 'one data file'}, got "
            f"{len(datafiles)}: {', '.join(str(d) for d in datafiles)}.",
            "Draft a fairness spec with respai init DATAFILE, or an LL144 audit with "
            "respai init --ll144 DECISIONS [SELF_ID].",
        )
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
        for data in datafiles:
            if data.exists() and out.resolve() == data.resolve():
                raise InputError(
                    f"{out} is the data file {data} itself; respai init will not write over it.",
                    "Choose another name with -o.",
                )
    if ll144:
        _init_ll144(datafiles, out)
        return
    from respai.init import draft_spec

    draft = draft_spec(datafiles[0], out)
    write_file(out, draft.text)
    chosen = f"label {draft.label!r}, prediction {draft.prediction!r}, favorable {draft.favorable}"
    if draft.probability:
        chosen += f", probability {draft.probability!r}"
    if draft.unit:
        chosen += f", unit {draft.unit!r}"
    names = ", ".join(repr(a) for a in draft.attributes)
    output.echo(f"respai init: wrote {out}, a DRAFT spec: {chosen}; attributes {names}.")
    output.echo(
        f"  system: {draft.name!r} (fill in its TODO keys); evaluation: {', '.join(draft.tests)}."
    )
    for check in draft.checks:
        output.echo(f"  check: {check}")
    output.echo(
        "  No rule is active: uncomment the example rules and choose their thresholds, "
        f"then run: respai fairness {out}"
    )


def _init_ll144(datafiles: tuple[Path, ...], out: Path) -> None:
    """``respai init --ll144``: draft the LL144 spec, write it, say what to decide."""
    from respai.init_ll144 import draft_ll144
    from respai.io import write_file

    decisions = datafiles[0]
    self_id = datafiles[1] if len(datafiles) > 1 else None
    draft = draft_ll144(decisions, self_id, out)
    write_file(out, draft.text)
    what = "selected" if draft.kind == "selection" else "score"
    chosen = f"kind {draft.kind}, {what} {draft.decision!r}"
    chosen += f", sex {draft.sex!r}, race {draft.race!r}"
    if draft.join_on:
        chosen += f", joined on {draft.join_on!r}"
    output.echo(f"respai init: wrote {out}, a DRAFT LL144 spec: {chosen}.")
    for axis, mapped in draft.mapped.items():
        shown = ", ".join(f"{k!r} -> {v!r}" for k, v in mapped.items())
        output.echo(f"  mapped {axis}: {shown}")
    if draft.unknown:
        output.echo(f"  unknown: {', '.join(repr(u) for u in draft.unknown)}")
    for check in draft.checks:
        output.echo(f"  check: {check}")
    todo = [f"{axis} {v!r}" for axis, values in draft.todo.items() for v in values]
    if todo:
        output.echo(
            f"  TODO: no safe category for {', '.join(todo)}: map each in {out} (or list it "
            f"under unknown_values); respai ll144 refuses the file until then."
        )
    else:
        output.echo(f"  Check the data: source and explanation, then run: respai ll144 {out}")
