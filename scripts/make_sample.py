"""Regenerate the bundled sample data set (src/respai/samples/loan_screen.csv).

A seeded, synthetic loan screen: 6,000 decided cases with a label, a 0/1 prediction
(about 1% missing), a probability, sex and age band (with a few missing and undeclared
values), and a person id. Disparities are built in on purpose: women over 60 are missed
(false negatives) far more often, so the demo shows a FAIL, an INSUFFICIENT_EVIDENCE and
a PASS side by side. Run: python scripts/make_sample.py
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "src" / "respai" / "samples" / "loan_screen.csv"


def main() -> None:
    rng = np.random.default_rng(20261201)
    n = 6000
    sex = rng.choice(["female", "male"], size=n, p=[0.48, 0.52]).astype(object)
    age = rng.choice(["under_30", "30_to_60", "over_60"], size=n, p=[0.3, 0.62, 0.08])
    label = (rng.random(n) < 0.42).astype(int)
    # a well-behaved score, with a penalty for women over 60 among true positives
    base = np.where(label == 1, rng.beta(5, 2, n), rng.beta(2, 5, n))
    penalty = (sex == "female") & (age == "over_60") & (label == 1)
    base = np.where(penalty, base * 0.55, base)
    base = np.where((sex == "female") & (label == 1), base * 0.93, base)
    score = np.clip(base, 0.0, 1.0).round(4)
    pred = (score >= 0.5).astype(int).astype(object)
    pred[rng.random(n) < 0.01] = ""
    sex[rng.random(n) < 0.02] = ""
    sex[rng.random(n) < 0.004] = "x"
    ids = rng.permutation(np.arange(100000, 100000 + n))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["person_id", "label", "prediction", "score", "sex", "age_band"])
        for i in range(n):
            w.writerow([ids[i], label[i], pred[i], score[i], sex[i], age[i]])


if __name__ == "__main__":
    main()
