"""Run `respai ll144` on the public COMPAS export and store the output for docs/ll144.md.

The file is ProPublica's `compas-scores-two-years.csv`, read from the project's shared data
folder (`../shared/data/compas/` beside the checkout, or the path given as the first
argument). It is not a hiring tool: it serves as test data that anyone can download, so
the tables can be checked by hand. Its header names `decile_score` and `priors_count`
twice; respai refuses to guess which of two same-named columns to read, so this script
writes a copy with the second of each renamed `<name>_2` (the values are identical).

    python scripts/gen_compas_example.py [path/to/compas-scores-two-years.csv]
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT.parent / "shared" / "data" / "compas" / "compas-scores-two-years.csv"
OUT = ROOT / "docs" / "examples"

SPEC = """\
system:
  name: compas-risk-screen
  version: "COMPAS as exported by ProPublica (Broward County, 2013-2014)"
  first_distributed: 2013-01-01
data:
  cases: compas.csv
  id: id
  source: test
  explanation: >-
    ProPublica's public COMPAS export, used as test data to show the tables: it is not an
    employment tool. Race "Other" is treated as unknown.
ll144:
  kind: scoring
  score: decile_score
  cutoffs: [0.10, 0.25]
  sex: sex
  race: race
  categories:
    race:
      African-American: Black or African American
      Caucasian: White
      Hispanic: Hispanic or Latino
      Native American: American Indian or Alaska Native
  unknown_values: [Other]
  exclusion_justification: >-
    Asian and American Indian or Alaska Native make up under 2% of the records with a
    known race; their ratios would rest on a few dozen people.
  audit_date: 2026-12-01
"""


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not source.is_file():
        sys.exit(f"no COMPAS file at {source}; pass its path as the first argument")
    work = Path(tempfile.mkdtemp(prefix="respai-compas-"))
    try:
        with (
            source.open(newline="", encoding="utf-8") as fh,
            (work / "compas.csv").open("w", newline="", encoding="utf-8") as out,
        ):
            reader = csv.reader(fh)
            header = next(reader)
            seen: set[str] = set()
            renamed = []
            for name in header:
                renamed.append(f"{name}_2" if name in seen else name)
                seen.add(name)
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(renamed)
            writer.writerows(reader)
        (work / "compas.yaml").write_text(SPEC, encoding="utf-8")
        run = subprocess.run(
            [sys.executable, "-m", "respai", "ll144", "compas.yaml", "--out", "audit"],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
            env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"},
        )
        if run.returncode != 0:
            sys.exit(f"respai ll144 exited {run.returncode}:\n{run.stderr}")
        text = run.stderr.replace(str(work), "<work>")
        (OUT / "ll144-compas.yaml").write_text(SPEC, encoding="utf-8")
        (OUT / "ll144-compas.txt").write_text(
            "$ respai ll144 compas.yaml --out audit\n" + text, encoding="utf-8"
        )
        md = (work / "audit" / "summary.md").read_text(encoding="utf-8")
        (OUT / "ll144-compas-summary.txt").write_text(
            md.replace(str(work), "<work>"), encoding="utf-8"
        )
        print(f"wrote {OUT / 'll144-compas.txt'} and the summary")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
