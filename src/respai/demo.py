"""``respai demo``: the group rules end to end on the bundled sample data.

The outputs are written to a temporary folder beside the target and moved into place only
when everything succeeded, so a failed run leaves no partial output behind.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import tempfile
from dataclasses import replace
from importlib import resources
from pathlib import Path

from respai.errors import InputError

__all__ = ["run_demo"]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "table"


def run_demo(out: Path) -> list[str]:
    """Run the sample evaluation and write its outputs to ``out``.

    Returns the lines to show the user. Raises :class:`~respai.errors.InputError` when
    ``out`` exists and is not an earlier demo folder.
    """
    from respai.fairness import evaluate_fairness
    from respai.render.csv import group_table_csv
    from respai.render.terminal import print_fairness

    out = out.resolve()
    if out.exists() and not (out / "fairness.json").exists():
        kind = "a folder" if out.is_dir() else "a file"
        raise InputError(
            f"--out {out} is {kind} that is not an earlier demo output folder.",
            "Pass --out with a new folder name.",
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".respai-demo-", dir=out.parent))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it 0700; outputs are for sharing
    except OSError as exc:
        raise InputError(
            f"cannot create the output folder {out}: {exc.strerror or exc}.",
            "Pass --out with a folder you can write to.",
        ) from None
    try:
        samples = resources.files("respai") / "samples"
        for name in ("loan_screen.yaml", "loan_screen.csv"):
            (tmp / name).write_bytes((samples / name).read_bytes())
        result = evaluate_fairness(tmp / "loan_screen.yaml")
        # name the files where they will be, not in the temporary folder
        result = replace(result, source=str(out / "loan_screen.csv"))
        (tmp / "fairness.json").write_text(
            json.dumps(result.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n",
            encoding="utf-8",
        )
        text = io.StringIO()
        print_fairness(result, file=text, width=160)
        (tmp / "fairness.txt").write_text(text.getvalue(), encoding="utf-8")
        tables = tmp / "tables"
        tables.mkdir()
        for name, rows in result.tables.items():
            (tables / f"{_slug(name)}.csv").write_text(group_table_csv(rows), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    lines = [text.getvalue().rstrip(), ""]
    lines.append(f"respai demo: wrote {out}/")
    lines.extend(f"  {p.relative_to(out)}" for p in sorted(out.rglob("*")) if p.is_file())
    lines.append(
        f"The sample's verdict is {result.verdict.value} (exit code "
        f"{result.exit_code} under 'respai fairness'); the demo itself exits 0."
    )
    lines.append(f"Re-run it yourself: respai fairness {out / 'loan_screen.yaml'}")
    return lines
