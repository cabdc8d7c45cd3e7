"""Regenerate the paired-test examples shown in docs/commands/paired.md from a real run.

Writes ``docs/examples/paired-help.txt``, ``paired.yaml`` (the spec),
``paired-pairs.csv`` (the first lines of the generated pairs file), ``paired.txt`` (what
``respai paired`` prints) and ``paired.json`` (its ``--json``). The pairs are generated
with a fixed seed, so a re-run gives the same files. ``--check`` compares instead of
writing (exit 1 on a difference).

    python scripts/gen_paired_examples.py [--check]
"""

from __future__ import annotations

import csv
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import run_respai, write_or_check

SPEC = """\
# A paired test of a CV screener: each CV was submitted three times, identical but for
# the name at the top. The first variant is the reference.
system: {name: cv-screener, version: "4.2"}
paired:
  cases: pairs.csv
  pair: cv_id
  variant: name_variant
  variants: [control, black_name, hispanic_name]
  outcome: advanced
  max_difference: 0.05
"""

# Per variant, the chance that the screener's decision flips against the reference's.
FLIP = {"black_name": (0.25, 0.02), "hispanic_name": (0.02, 0.02)}


def _pairs(path: Path, n: int = 1500, seed: int = 144) -> None:
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["cv_id", "name_variant", "advanced"])
        for i in range(n):
            ref = int(rng.random() < 0.4)
            w.writerow([f"cv{i:05d}", "control", ref])
            for variant, (down, up) in FLIP.items():
                if rng.random() < 0.01:
                    continue  # a submission that failed: an incomplete pair
                flip = rng.random() < (down if ref else up)
                outcome = "" if rng.random() < 0.003 else 1 - ref if flip else ref
                w.writerow([f"cv{i:05d}", variant, outcome])
        w.writerow(["cv00007", "black_name", 1])  # submitted twice: a duplicate variant


def generate() -> dict[str, str]:
    """The example files' contents, from a run in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "spec.yaml").write_text(SPEC, encoding="utf-8")
        _pairs(work / "pairs.csv")
        text = run_respai(work, "paired", "spec.yaml")
        js = run_respai(work, "paired", "spec.yaml", "--json")
        if text.returncode != 1 or js.returncode != 1:
            raise SystemExit(f"expected exit 1, got {text.returncode}: {text.stderr}")
        helped = run_respai(work, "paired", "--help")
        head = "".join((work / "pairs.csv").read_text().splitlines(keepends=True)[:7])
        transcript = f"$ respai paired spec.yaml\n{text.stderr}$ echo $?\n{text.returncode}\n"
        return {
            "paired-help.txt": f"$ respai paired --help\n{helped.stdout}",
            "paired.yaml": SPEC,
            "paired-pairs.csv": head,
            "paired.txt": transcript,
            "paired.json": js.stdout.replace(str(work), "<work>"),
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
