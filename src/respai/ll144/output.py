"""Write an LL144 audit's files into a folder, atomically.

The files are written into a temporary folder next to the target and renamed into place
at the end, so a failed run leaves nothing half-written. An existing target is replaced
only when it is empty or an earlier ``respai ll144`` output (it holds ``ll144.json`` of
kind ``respai.ll144`` and nothing but the files this module writes); anything else is
refused, so a typo in ``--out`` cannot wipe an unrelated folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from respai.errors import InputError
from respai.ll144.audit import KIND, LL144Result
from respai.ll144.summary import summary_csv, summary_html, summary_markdown, tables_csv

__all__ = ["OUTPUT_FILES", "write_outputs"]

OUTPUT_FILES = ("summary.html", "summary.md", "summary.csv", "tables.csv", "ll144.json")
"""The files an LL144 output folder holds."""


def _earlier_output(folder: Path) -> bool:
    names = {p.name for p in folder.iterdir()}
    if not names:
        return True
    if "ll144.json" not in names or not names <= set(OUTPUT_FILES):
        return False
    try:
        doc = json.loads((folder / "ll144.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("kind") == KIND


def write_outputs(res: LL144Result, out: Path) -> list[Path]:
    """Write the summary (HTML, Markdown, CSV), the tables CSV and ``ll144.json``.

    Parameters
    ----------
    res
        The audit result.
    out
        The folder to create or replace.

    Returns
    -------
    list of Path
        The files written, in :data:`OUTPUT_FILES` order.

    Raises
    ------
    InputError
        When ``out`` exists and is not a folder, or is a folder that is neither empty
        nor an earlier LL144 output, or cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} exists and is not a folder.",
                         "Choose a folder name for the audit's files.")
    if out.is_dir() and not _earlier_output(out):
        held = sorted(p.name for p in out.iterdir())
        shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
        raise InputError(
            f"--out {out} already exists and is not an earlier respai ll144 output (it "
            f"holds {shown}); it is left untouched.",
            "Choose a new folder, or remove this one first.",
        )
    contents = {
        "summary.html": summary_html(res),
        "summary.md": summary_markdown(res),
        "summary.csv": summary_csv(res),
        "tables.csv": tables_csv(res),
        "ll144.json": json.dumps(res.to_dict(), indent=2, ensure_ascii=False,
                                 allow_nan=False) + "\n",
    }
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    except OSError as exc:
        raise InputError(f"cannot write into {parent}: {exc.strerror}.",
                         "Choose a folder you can write to.") from None
    backup: Path | None = None
    try:
        for name in OUTPUT_FILES:
            with (tmp / name).open("w", encoding="utf-8", newline="") as fh:
                fh.write(contents[name])
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the outputs are for publishing
        if out.exists():
            backup = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            backup.rmdir()
            out.rename(backup)
        tmp.rename(out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if backup is not None and backup.exists() and not out.exists():
            backup.rename(out)
        raise InputError(f"cannot write the audit's files into {out}: {exc.strerror}.",
                         "Check the folder's permissions and free space.") from None
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)
    return [out / name for name in OUTPUT_FILES]
