"""Every number of the three tables against an independent pandas computation."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from respai.ll144.audit import LL144Result

# The file's spellings, and what an independent reader takes each to mean.
SEX_SPELLINGS = {
    "Male": "Male",
    "female": "Female",
    " FEMALE ": "Female",
    "M": "Male",
    "": None,
    "Prefer not to say": None,
}
RACE_SPELLINGS = {
    "Hispanic or Latino": "Hispanic or Latino",
    "White (Not Hispanic or Latino)": "White",
    "white": "White",
    "Black or African American": "Black or African American",
    "Native Hawaiian or Pacific Islander": "Native Hawaiian or Other Pacific Islander",
    "Asian (Not Hispanic or Latino)": "Asian",
    "Native American or Alaska Native": "American Indian or Alaska Native",
    "Two or More Races": "Two or More Races",
    "Decline to answer": None,
    "": None,
}
RACE_WEIGHTS = [18, 30, 10, 20, 1, 15, 0.6, 4, 3, 2]
SEX_WEIGHTS = [40, 25, 20, 8, 4, 3]
SEX_ORDER = ["Male", "Female"]
RACE_ORDER = [
    "Hispanic or Latino",
    "White",
    "Black or African American",
    "Native Hawaiian or Other Pacific Islander",
    "Asian",
    "American Indian or Alaska Native",
    "Two or More Races",
]


def _generate(seed: int, n: int) -> list[tuple[str, str, str, int]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        sex = rng.choices(list(SEX_SPELLINGS), SEX_WEIGHTS)[0]
        race = rng.choices(list(RACE_SPELLINGS), RACE_WEIGHTS)[0]
        p = 0.35
        if SEX_SPELLINGS[sex] == "Female":
            p -= 0.05
        if RACE_SPELLINGS[race] == "Black or African American":
            p -= 0.1
        rows.append((f"A{i:05d}", sex, race, int(rng.random() < p)))
    return rows


def _pandas_tables(rows: list[tuple[str, str, str, int]], min_share: float) -> dict[str, Any]:
    df = pd.DataFrame(rows, columns=["id", "sex_raw", "race_raw", "selected"])
    df["sex"] = df["sex_raw"].map(SEX_SPELLINGS)
    df["race"] = df["race_raw"].map(RACE_SPELLINGS)
    out: dict[str, Any] = {}
    combos = {
        "sex": (["sex"], [(s,) for s in SEX_ORDER]),
        "race": (["race"], [(r,) for r in RACE_ORDER]),
        "sex_x_race": (["sex", "race"], [(s, r) for s in SEX_ORDER for r in RACE_ORDER]),
    }
    for name, (cols, cells) in combos.items():
        known = df.dropna(subset=cols)
        unknown = len(df) - len(known)
        grouped = known.groupby(cols)["selected"].agg(["count", "sum"])
        table = {}
        for cell in cells:
            key = cell if len(cell) > 1 else cell[0]
            n = int(grouped.loc[key, "count"]) if key in grouped.index else 0
            k = int(grouped.loc[key, "sum"]) if key in grouped.index else 0
            table[cell] = {
                "n": n,
                "k": k,
                "rate": k / n if n else None,
                "share": n / len(known),
                "excluded": 0 < n / len(known) < min_share,
            }
        kept = [c for c, v in table.items() if v["n"] and not v["excluded"]]
        best = max(table[c]["rate"] for c in kept)
        for c, v in table.items():
            v["ratio"] = v["rate"] / best if c in kept else None
        out[name] = {"unknown": unknown, "rows": table}
    return out


@pytest.mark.parametrize("seed", [1, 7])
def test_every_table_matches_pandas(
    tmp_path: Path, seed: int, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    rows = _generate(seed, 3000)
    ll.write_csv(tmp_path / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
            "categories": {"sex": {"M": "Male"}},
            "unknown_values": ["Prefer not to say", "Decline to answer"],
            "exclusion_justification": "Under 2% of applicants with a known category.",
        },
        data={"id": "applicant_id"},
    )
    res = audit(spec)
    expected = _pandas_tables(rows, 0.02)
    labels = {
        "sex": lambda c: c[0],
        "race": lambda c: c[0],
        "sex_x_race": lambda c: f"{c[1]} {c[0]}",
    }
    saw_excluded = False
    for name, exp in expected.items():
        table = res.tables[name]
        assert table.unknown == exp["unknown"], name
        assert [r.category for r in table.rows] == [labels[name](c) for c in exp["rows"]]
        for cell, want in exp["rows"].items():
            row = table.row(labels[name](cell))
            assert (row.count, row.selected) == (want["n"], want["k"]), (name, cell)
            assert row.excluded == want["excluded"], (name, cell)
            saw_excluded |= row.excluded
            if want["rate"] is None:
                assert row.rate is None and row.rate_undefined is not None
            else:
                assert row.rate == pytest.approx(want["rate"], rel=1e-12)
                assert row.share == pytest.approx(want["share"], rel=1e-12)
            if want["ratio"] is None:
                assert row.impact_ratio is None and row.ratio_undefined is not None
            else:
                assert row.impact_ratio == pytest.approx(want["ratio"], rel=1e-12)
    assert saw_excluded, "the data set should exercise the 2% exclusion"
    assert len(res.tables["sex_x_race"].rows) == 14
    rec = res.data.reconciliation
    assert rec.applicants == 3000 and rec.joined is None
    assert rec.sex_known == 3000 - expected["sex"]["unknown"]
    assert rec.race_known == 3000 - expected["race"]["unknown"]
    assert rec.both_known == 3000 - expected["sex_x_race"]["unknown"]
    # the JSON holds the counts the tables came from
    cells = res.to_dict()["counts"]["cells"]
    assert sum(c["applicants"] for c in cells) == 3000
    assert sum(c["selected"] for c in cells) == sum(r[3] for r in rows)


def test_wilson_intervals_match_statsmodels(
    tmp_path: Path, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    from statsmodels.stats.proportion import proportion_confint

    rows = _generate(3, 800)
    ll.write_csv(tmp_path / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
            "categories": {"sex": {"M": "Male"}},
            "unknown_values": ["Prefer not to say", "Decline to answer"],
            "exclusion_justification": "Small categories.",
        },
    )
    res = audit(spec)
    for table in res.tables.values():
        for row in table.rows:
            if row.count == 0:
                assert row.interval is None
                continue
            lo, hi = proportion_confint(row.selected, row.count, alpha=0.05, method="wilson")
            assert row.interval is not None
            assert row.interval.lo == pytest.approx(max(lo, 0.0), abs=1e-12)
            assert row.interval.hi == pytest.approx(min(hi, 1.0), abs=1e-12)


def test_a_dataframe_gives_the_same_tables(
    tmp_path: Path, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    rows = _generate(11, 600)
    ll.write_csv(tmp_path / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
            "categories": {"sex": {"M": "Male"}},
            "unknown_values": ["Prefer not to say", "Decline to answer"],
            "exclusion_justification": "Small categories.",
        },
    )
    from_file = audit(spec)
    frame = pd.DataFrame(rows, columns=["applicant_id", "sex", "race", "advanced"])
    frame = frame.replace({"sex": {"": None}, "race": {"": None}})
    from_frame = audit(spec, data=frame)
    for name in from_file.tables:
        assert from_file.tables[name].rows == from_frame.tables[name].rows


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_every_file_format_gives_the_same_tables(
    tmp_path: Path, fmt: str, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = _generate(13, 500)
    ll.write_csv(tmp_path / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], rows)
    block = {
        "kind": "selection",
        "selected": "advanced",
        "sex": "sex",
        "race": "race",
        "categories": {"sex": {"M": "Male"}},
        "unknown_values": ["Prefer not to say", "Decline to answer"],
        "exclusion_justification": "Small categories.",
    }
    from_csv = audit(ll.write_spec(tmp_path, block, data={"id": "applicant_id"}))
    records = [
        {"applicant_id": a, "sex": s or None, "race": r or None, "advanced": k}
        for a, s, r, k in rows
    ]
    path = tmp_path / f"decisions.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    else:
        pq.write_table(pa.Table.from_pylist(records), path)
    other = audit(
        ll.write_spec(
            tmp_path, block, data={"cases": path.name, "id": "applicant_id"}, name=f"{fmt}.yaml"
        )
    )
    for name in from_csv.tables:
        assert from_csv.tables[name].rows == other.tables[name].rows
    assert other.data.reconciliation.files[0].fingerprint["name"] == path.name
