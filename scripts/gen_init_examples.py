"""Regenerate the ``respai init`` examples shown in docs/commands/init.md from a real run.

Writes ``docs/examples/init-help.txt``, ``init-cases.csv`` (the first lines of the
generated data file), ``init.txt`` (what ``respai init`` prints), ``init.yaml`` (the
drafted spec), ``init-fairness.txt`` (the first lines ``respai fairness`` prints on it)
and ``init-evaluate.txt`` (the test table ``respai evaluate`` prints on it); and for
``respai init --ll144``: ``init-ll144-decisions.csv`` and ``init-ll144-self-id.csv``
(the first lines of the two files), ``init-ll144.txt`` (what it prints),
``init-ll144.yaml`` (the draft) and ``init-ll144-run.txt`` (``respai ll144`` refusing
the TODO value). The data are generated with a fixed seed, so a re-run gives the same
files.
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


def _ll144_files(work: Path, n: int = 1200, seed: int = 2025) -> None:
    """A resume screen's decisions and the voluntary self-identification, two files."""
    rng = random.Random(seed)
    sexes = (["F", "M", "Decline to answer"], [0.47, 0.47, 0.06])
    races = (
        [
            "White (Not Hispanic or Latino)",
            "Black",
            "Hispanic/Latino",
            "Asian",
            "Two or more races",
            "Native Hawaiian",
            "Other",
            "Prefer not to say",
        ],
        [0.38, 0.18, 0.18, 0.12, 0.04, 0.02, 0.03, 0.05],
    )
    with (work / "decisions.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["applicant_id", "applied_on", "advanced"])
        for i in range(n):
            day = f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
            w.writerow([f"c{i:05d}", day, int(rng.random() < 0.35)])
    with (work / "self_id.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["applicant_id", "gender", "race_ethnicity"])
        for i in range(n):
            w.writerow([f"c{i:05d}", rng.choices(*sexes)[0], rng.choices(races[0], races[1])[0]])


def _head(path: Path, lines: int = 6) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:lines])


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
        evaluated = run_respai(work, "evaluate", "spec.yaml", "--no-ledger", "--out", "out")
        if evaluated.returncode not in (0, 1, 3):
            raise SystemExit(f"evaluate failed ({evaluated.returncode}): {evaluated.stderr}")
        # the test table and its notes, after the header, up to the signed record's path
        table = evaluated.stderr.split("\n\n", 1)[1].split("signed record:")[0]
        _ll144_files(work)
        drafted = run_respai(
            work, "init", "--ll144", "decisions.csv", "self_id.csv", "-o", "ll144.yaml"
        )
        if drafted.returncode != 0:
            raise SystemExit(f"init --ll144 failed: {drafted.stderr}")
        refused = run_respai(work, "ll144", "ll144.yaml")
        if refused.returncode != 2:
            raise SystemExit(f"expected exit 2 for the TODO value, got {refused.returncode}")
        helped = run_respai(work, "init", "--help")
        head = _head(work / "screen.csv")
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
            "init-evaluate.txt": f"$ respai evaluate spec.yaml\n...\n{table}...\n",
            "init-ll144-decisions.csv": _head(work / "decisions.csv", 4),
            "init-ll144-self-id.csv": _head(work / "self_id.csv", 4),
            "init-ll144.txt": (
                f"$ respai init --ll144 decisions.csv self_id.csv -o ll144.yaml\n{drafted.stderr}"
            ),
            "init-ll144.yaml": (work / "ll144.yaml").read_text(encoding="utf-8"),
            "init-ll144-run.txt": (
                "$ respai ll144 ll144.yaml\n"
                + refused.stderr.replace(str(work), "<work>")
                + f"$ echo $?\n{refused.returncode}\n"
            ),
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
