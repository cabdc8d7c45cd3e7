"""Regenerate the ``respai init`` examples shown in docs/commands/init.md from a real run.

Writes ``docs/examples/init-help.txt``, ``init-cases.csv`` (the first lines of the
generated data file), ``init.txt`` (what ``respai init`` prints), ``init.yaml`` (the
drafted spec) and ``init-fairness.txt`` (the first lines ``respai fairness`` prints on
it). The data are generated with a fixed seed, so a re-run gives the same files.
``--check`` compares instead of writing (exit 1 on a difference).

    python scripts/gen_init_examples.py [--check]
"""

from __future__ import annotations

import csv
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import run_respai, write_or_check


def _cases(path: Path, n: int = 2000, seed: int = 2024) -> None:
    """A hiring screen's export: an id, the outcome, the screen's decision and score, groups."""
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(
            ["applicant_id", "outcome", "screen_pass", "screen_score", "gender", "veteran", "zip"]
        )
        for i in range(n):
            gender = rng.choices(["female", "male", "nonbinary"], [0.48, 0.48, 0.04])[0]
            veteran = rng.choices(["yes", "no"], [0.1, 0.9])[0]
            score = round(rng.betavariate(2, 2), 4)
            passed = int(score >= 0.5)
            good = int(rng.random() < (0.7 if passed else 0.15))
            zipcode = f"{rng.randrange(10001, 10300):05d}"
            w.writerow([f"a{i:05d}", good, passed, score, gender, veteran, zipcode])


def generate() -> dict[str, str]:
    """The example files' contents, from a run in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _cases(work / "screen.csv")
        made = run_respai(work, "init", "screen.csv")
        if made.returncode != 0:
            raise SystemExit(f"expected exit 0, got {made.returncode}: {made.stderr}")
        again = run_respai(work, "init", "screen.csv")
        if again.returncode != 2:
            raise SystemExit(f"expected exit 2 for an existing spec, got {again.returncode}")
        ran = run_respai(work, "fairness", "spec.yaml")
        if ran.returncode != 3:
            raise SystemExit(f"expected exit 3 (no rule), got {ran.returncode}: {ran.stderr}")
        helped = run_respai(work, "init", "--help")
        head = "".join((work / "screen.csv").read_text().splitlines(keepends=True)[:6])
        shown = "".join(ran.stderr.splitlines(keepends=True)[:3]).replace(str(work), "<work>")
        transcript = (
            f"$ respai init screen.csv\n{made.stderr}$ echo $?\n{made.returncode}\n"
            f"$ respai init screen.csv\n{again.stderr}$ echo $?\n{again.returncode}\n"
        )
        return {
            "init-help.txt": f"$ respai init --help\n{helped.stdout}",
            "init-cases.csv": head,
            "init.txt": transcript,
            "init.yaml": (work / "spec.yaml").read_text(encoding="utf-8"),
            "init-fairness.txt": f"$ respai fairness spec.yaml\n{shown}...\n",
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
