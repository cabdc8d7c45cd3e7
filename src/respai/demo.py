"""``respai demo``: the group rules end to end on the bundled sample data.

The outputs are written to a temporary folder beside the target and moved into place only
when everything succeeded, so a failed run leaves no partial output behind.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from importlib import resources
from pathlib import Path

__all__ = ["run_demo"]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "table"


def run_demo(out: Path) -> list[str]:
    """Run the sample evaluation and write its outputs to ``out``.

    Returns the lines to show the user. Raises :class:`~respai.errors.InputError` when
    ``out`` exists and is not an earlier demo folder.
    """
    from respai.render.csv import group_table_csv
    from respai.render.terminal import print_fairness
    from respai.run.group_rules import evaluate_fairness
    from respai.sealing import write_outputs

    out = out.resolve()
    samples = resources.files("respai") / "samples"
    copies = {
        name: (samples / name).read_bytes() for name in ("loan_screen.yaml", "loan_screen.csv")
    }
    with resources.as_file(samples / "loan_screen.yaml") as spec:
        result = evaluate_fairness(spec)
    # name the files where they will be, not where the package keeps them
    result = replace(result, source=str(out / "loan_screen.csv"))
    text = io.StringIO()
    print_fairness(result, file=text, width=160)
    files: dict[str, str | bytes] = {
        **copies,
        "fairness.json": json.dumps(
            result.to_dict(), indent=2, ensure_ascii=False, allow_nan=False
        )
        + "\n",
        "fairness.txt": text.getvalue(),
        **{
            f"tables/{_slug(name)}.csv": group_table_csv(rows)
            for name, rows in result.tables.items()
        },
    }
    write_outputs(out, files, marker="fairness.json", what="demo output")
    lines = [text.getvalue().rstrip(), ""]
    lines.append(f"respai demo: wrote {out}/")
    lines.extend(f"  {p.relative_to(out)}" for p in sorted(out.rglob("*")) if p.is_file())
    lines.append(
        f"The sample's verdict is {result.verdict.value} (exit code "
        f"{result.exit_code} under 'respai fairness'); the demo itself exits 0."
    )
    lines.append(f"Re-run it yourself: respai fairness {out / 'loan_screen.yaml'}")
    return lines
