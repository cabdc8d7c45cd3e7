"""The AUC's rank sums: every engine path against a pairwise count, ties and batches included.

DuckDB files stream sorted batches through numpy; DataFrames (and Spark, in
tests/engine/test_spark.py) run window functions. Both must give the integers a brute-force
comparison of every positive with every negative gives, and the AUC and DeLong error
that follow must equal scikit-learn's and the histogram formula's.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from respai import engine, stats
from respai.counts import RankSums
from respai.engine import files, fold, rank_parts, ranks
from respai.errors import InputError
from respai.load import load_counts
from respai.spec import parse_fairness

COLUMNS = ["sex", "grp", "label", "prediction", "score"]
SPEC: dict[str, Any] = {
    "label": "label",
    "prediction": "prediction",
    "attributes": {"sex": ["f", "m"], "grp": ["a", "b", "c"]},
    "intersections": [["sex", "grp"]],
}


def brute(pairs: list[tuple[int, float]]) -> RankSums:
    """Compare every positive with every negative: no sorting, no running sums."""
    pos = [s for y, s in pairs if y == 1]
    neg = [s for y, s in pairs if y == 0]
    x = [sum(2 * (a > b) + (a == b) for b in neg) for a in pos]
    v = [sum(2 * (a > b) + (a == b) for a in pos) for b in neg]
    return RankSums(len(pos), len(neg), sum(x), sum(i * i for i in x), sum(i * i for i in v))


def expected(rows: list[dict[str, Any]]) -> tuple[RankSums, dict[tuple[str, ...], RankSums]]:
    scored = [r for r in rows if r["score"] is not None]
    overall = brute([(r["label"], r["score"]) for r in scored])
    per: dict[tuple[str, ...], RankSums] = {}
    for sex in ("f", "m"):
        per[(sex,)] = brute([(r["label"], r["score"]) for r in scored if r["sex"] == sex])
        for grp in ("a", "b", "c"):
            per[(sex, grp)] = brute(
                [(r["label"], r["score"]) for r in scored if (r["sex"], r["grp"]) == (sex, grp)]
            )
    for grp in ("a", "b", "c"):
        per[(grp,)] = brute([(r["label"], r["score"]) for r in scored if r["grp"] == grp])
    return overall, per


def ranks_on(write: Any, kind: str, rows: list[dict[str, Any]], folder: Path) -> Any:
    source = write(kind, rows, COLUMNS, folder)
    if isinstance(source, Path):
        return load_counts(parse_fairness({**SPEC, "cases": str(source)}), score="score").counts
    return load_counts(parse_fairness(SPEC), source, score="score").counts


def flat(counts: Any) -> tuple[RankSums, dict[tuple[str, ...], RankSums]]:
    per = {k: r for groups in counts.ranks.values() for k, r in groups.items()}
    return counts.overall_ranks, per


def make_rows(seed: int, n: int, distinct: int | None, empty: float) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    raw = rng.random(n) + 0.3 * label
    score = np.round(raw * distinct) / distinct if distinct else raw
    sex = rng.choice(["f", "m", "x", ""], n, p=[0.45, 0.45, 0.05, 0.05])
    grp = rng.choice(["a", "b", "c", ""], n, p=[0.4, 0.3, 0.25, 0.05])
    return [
        {
            "sex": sex[i] or None,
            "grp": grp[i] or None,
            "label": int(label[i]),
            "prediction": int(raw[i] > 0.6),
            "score": None if rng.random() < empty else float(score[i]),
        }
        for i in range(n)
    ]


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 120),
    distinct=st.sampled_from([None, 1, 3, 10]),
    empty=st.sampled_from([0.0, 0.2]),
)
def test_every_engine_gives_the_pairwise_sums(
    cases_writer: Any,
    engine_names: list[str],
    seed: int,
    n: int,
    distinct: int | None,
    empty: float,
) -> None:
    rows = make_rows(seed, n, distinct, empty)
    want = expected(rows)
    with tempfile.TemporaryDirectory() as folder:
        for kind in engine_names:
            assert flat(ranks_on(cases_writer, kind, rows, Path(folder))) == want, kind


@pytest.mark.parametrize("batch", [1, 2, 3, 7, 50])
def test_ties_across_stream_batches(
    cases_writer: Any, batch: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a tie block longer than a batch must be held back whole, whatever the batch size
    rows = make_rows(11, 200, 4, 0.1)
    monkeypatch.setattr(ranks, "_STREAM_ROWS", batch)
    monkeypatch.setattr(files, "ARROW_FROM_BYTES", 0)  # stream Arrow batches
    assert flat(ranks_on(cases_writer, "duckdb-parquet", rows, tmp_path)) == expected(rows)


@pytest.mark.parametrize("kind", ["duckdb-csv", "duckdb-parquet"])
def test_a_small_file_is_fetched_as_numpy_with_the_same_sums(
    cases_writer: Any, kind: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # under ARROW_FROM_BYTES the sorted cases come in one numpy fetch, not Arrow batches
    rows = make_rows(23, 500, 7, 0.1)
    path = cases_writer(kind, rows, COLUMNS, tmp_path)
    codes = ({"f": 0, "m": 1}, {"a": 0, "b": 1, "c": 2})
    args: tuple[Any, ...] = ("score", "label", {0: 0, 1: 1}, ["sex", "grp"], codes)
    groupings = [(), (0,), (1,), (0, 1)]
    found = {}
    for threshold in (0, 1 << 62):
        monkeypatch.setattr(files, "ARROW_FROM_BYTES", threshold)
        source = engine.open_file(path, None, ",", None)
        assert files.arrow_pays(source.file) is (threshold == 0)
        found[threshold] = engine.rank_sums(source, *args, [2, 3], groupings)
    assert found[0] == found[1 << 62]
    assert flat(ranks_on(cases_writer, kind, rows, tmp_path)) == expected(rows)


def test_window_path_on_duckdb_equals_the_stream(cases_writer: Any, tmp_path: Path) -> None:
    rows = make_rows(5, 400, 20, 0.1)
    path = cases_writer("duckdb-parquet", rows, COLUMNS, tmp_path)
    source = engine.open_file(path, None, ",", None)
    codes = ({"f": 0, "m": 1}, {"a": 0, "b": 1, "c": 2})
    args: tuple[Any, ...] = ("score", "label", {0: 0, 1: 1}, ["sex", "grp"], codes)
    groupings = [(), (0,), (1,), (0, 1)]
    streamed = engine.rank_sums(source, *args, [2, 3], groupings)
    frame = ranks._coded(source, *args)
    assert ranks._rank_windows(frame, groupings) == streamed


def test_auc_and_delong_follow_from_the_sums() -> None:
    rows = make_rows(3, 500, 25, 0.0)
    y = np.array([r["label"] for r in rows])
    s = np.array([r["score"] for r in rows])
    r = brute(list(zip(y.tolist(), s.tolist(), strict=True)))
    found = stats.auc_from_rank_sums(
        r.positives, r.negatives, r.twice_u, r.positive_squares, r.negative_squares
    )
    assert found is not None
    assert found[0] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    hist = Counter(zip(s.tolist(), y.tolist(), strict=True))
    cells = [(v, hist[(v, 1)], hist[(v, 0)]) for v in sorted(set(s.tolist()))]
    old = stats.auc_delong(cells)
    assert old is not None
    assert found[0] == pytest.approx(old[0], abs=1e-12)
    assert found[2] == pytest.approx(old[2], rel=1e-9)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 2**40), min_size=1, max_size=50))
def test_split_squares_are_exact(xs: list[int]) -> None:
    hi = [x >> 16 for x in xs]
    lo = [x & 0xFFFF for x in xs]
    got = rank_parts.square(
        sum(h * h for h in hi),
        sum(h * v for h, v in zip(hi, lo, strict=True)),
        sum(v * v for v in lo),
    )
    assert got == sum(x * x for x in xs)


def test_inconsistent_parts_are_refused() -> None:
    with pytest.raises(ValueError, match="rank sums disagree"):
        RankSums.from_parts(2, 2, 5, 13, 4, 8)


def test_large_sums_are_strings_in_the_record() -> None:
    r = RankSums(3, 3, 17, 97, 97)
    assert r.to_dict() == {
        "scored_labelled_1": 3,
        "scored_labelled_0": 3,
        "twice_u": "17",
        "positive_placement_squares": "97",
        "negative_placement_squares": "97",
    }


NON_FINITE = [
    (kind, bad)
    for kind in ("duckdb-parquet", "duckdb-csv", "polars", "pandas")
    for bad in (float("inf"), float("-inf"), float("nan"))
    if not (kind == "pandas" and bad != bad)  # pandas holds a missing value as NaN
]


@pytest.mark.parametrize(("kind", "bad"), NON_FINITE)
def test_a_non_finite_score_is_named(
    cases_writer: Any, kind: str, bad: float, tmp_path: Path
) -> None:
    rows = make_rows(1, 30, None, 0.0)
    rows[17]["score"] = bad
    with pytest.raises(InputError) as err:
        ranks_on(cases_writer, kind, rows, tmp_path)
    text = str(err.value)
    assert "score column 'score'" in text and "finite" in text
    if kind.startswith("duckdb"):
        assert ("line 19" if kind == "duckdb-csv" else "row 18") in text


def test_memory_limit_is_read_from_the_environment(
    cases_writer: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = make_rows(2, 300, None, 0.0)
    monkeypatch.setenv(engine.MEMORY_ENV, "64MB")
    assert flat(ranks_on(cases_writer, "duckdb-parquet", rows, tmp_path)) == expected(rows)
    path = cases_writer("duckdb-csv", rows, COLUMNS, tmp_path)
    source = engine.open_file(path, None, ",", None)
    assert source._con is not None
    limit = source._con.execute("SELECT current_setting('memory_limit')").fetchone()
    assert limit == ("61.0 MiB",)  # DuckDB reads 64MB as 64 * 10**6 bytes


def test_a_bad_memory_limit_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_text("sex,grp,label,prediction,score\nf,a,1,1,0.5\n")
    monkeypatch.setenv(engine.MEMORY_ENV, "lots")
    with pytest.raises(InputError, match="RESPAI_MEMORY_LIMIT is 'lots'"):
        engine.open_file(path, None, ",", None)


@pytest.mark.parametrize("kind", ["polars", "pyarrow", "duckdb-parquet"])
def test_a_non_finite_probability_is_named(cases_writer: Any, kind: str, tmp_path: Path) -> None:
    # the probability goes through the count pass, not the AUC's sort: same message shape
    rows = make_rows(4, 30, None, 0.0)
    for r in rows:
        r["p"] = 0.5
    rows[9]["p"] = float("inf")
    spec = {**SPEC, "probability": "p"}
    source = cases_writer(kind, rows, [*COLUMNS, "p"], tmp_path)
    with pytest.raises(InputError) as err:
        if isinstance(source, Path):
            load_counts(parse_fairness({**spec, "cases": str(source)}))
        else:
            load_counts(parse_fairness(spec), source)
    assert "probability column 'p' holds inf" in str(err.value)
    assert "finite numbers in [0, 1]" in str(err.value)


def brute_parts(pairs: list[tuple[int, float]]) -> engine.RankParts:
    """:class:`RankParts` of one group by comparing every positive with every negative."""
    pos = [s for y, s in pairs if y == 1]
    neg = [s for y, s in pairs if y == 0]
    x = [sum(2 * (a > b) + (a == b) for b in neg) for a in pos]
    w = [sum(2 * (b > a) + (a == b) for a in pos) for b in neg]
    return engine.RankParts(
        len(pos), len(neg), sum(x), sum(i * i for i in x), sum(w), sum(i * i for i in w)
    )


def grouped_rows(seed: int, n: int, groups: int, distinct: int | None) -> list[dict[str, Any]]:
    """Cases in ``groups`` declared stores (plus undeclared and empty ones), two sexes."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    raw = rng.random(n) + 0.2 * label
    score = np.round(raw * distinct) / distinct if distinct else raw
    store = rng.integers(-2, groups, n)  # -1: an undeclared store, -2: empty
    sex = rng.choice(["f", "m"], n)
    return [
        {
            "store": None if store[i] == -2 else f"s{store[i]}",
            "sex": str(sex[i]),
            "label": int(label[i]),
            "score": float(score[i]),
        }
        for i in range(n)
    ]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 400),
    groups=st.integers(1, 150),
    distinct=st.sampled_from([None, 1, 4, 30]),
    batch=st.sampled_from([1, 7, 64, 1_000_000]),
    loop_max=st.sampled_from([0, 64]),
    chain_max=st.sampled_from([0, 32]),
    table_max=st.sampled_from([0, 1 << 16]),
    parallel_min=st.sampled_from([0, 100_000]),
)
def test_many_groups_give_the_pairwise_sums(
    cases_writer: Any,
    seed: int,
    n: int,
    groups: int,
    distinct: int | None,
    batch: int,
    loop_max: int,
    chain_max: int,
    table_max: int,
    parallel_min: int,
) -> None:
    # every way the stream codes and folds (a join or an equality chain per attribute;
    # group codes from a table of packed cells or unpacked; per-group numpy calls or all
    # groups at once; one grouping per thread or all on one; any batch size) gives the
    # integers a pairwise comparison gives, group by group, ties included
    rows = grouped_rows(seed, n, groups, distinct)
    codes = ({f"s{i}": i for i in range(groups)}, {"f": 0, "m": 1})
    groupings = [(), (0,), (1,), (0, 1)]
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        mp.setattr(ranks, "_STREAM_ROWS", batch)
        mp.setattr(fold, "_LOOP_MAX", loop_max)
        mp.setattr(fold, "_TABLE_MAX", table_max)
        mp.setattr(ranks, "_CHAIN_MAX", chain_max)
        mp.setattr(fold, "_PARALLEL_MIN", parallel_min)
        path = cases_writer(
            "duckdb-parquet", rows, ["store", "sex", "label", "score"], Path(folder)
        )
        source = engine.open_file(path, None, ",", None)
        found = engine.rank_sums(
            source, "score", "label", {0: 0, 1: 1}, ["store", "sex"], codes, [groups, 2], groupings
        )
    want: dict[tuple[int, ...], dict[tuple[int, ...], engine.RankParts]] = {}
    for grouping in groupings:
        cells: dict[tuple[int, ...], list[tuple[int, float]]] = {}
        for r in rows:
            key = (codes[0].get(r["store"], -1), codes[1][r["sex"]])
            if all(key[i] >= 0 for i in grouping):
                cells.setdefault(tuple(key[i] for i in grouping), []).append(
                    (r["label"], r["score"])
                )
        want[grouping] = {k: brute_parts(v) for k, v in sorted(cells.items())}
    assert found == want


def test_many_declared_values_are_coded_by_a_join(cases_writer: Any, tmp_path: Path) -> None:
    # 40,000 declared values: one join, not a 40,000-deep expression (which overflowed
    # Python's recursion limit), and codes past int16
    groups = 40_000
    rows = [
        {"store": f"s{i}", "sex": "f", "label": i % 2, "score": (i % 97) / 97}
        for i in range(0, groups, 7)
    ]
    path = cases_writer("duckdb-parquet", rows, ["store", "sex", "label", "score"], tmp_path)
    source = engine.open_file(path, None, ",", None)
    codes = {f"s{i}": i for i in range(groups)}
    found = engine.rank_sums(
        source, "score", "label", {0: 0, 1: 1}, ["store"], [codes], [groups], [(0,)]
    )
    assert set(found[(0,)]) == {(i,) for i in range(0, groups, 7)}
    for (i,), parts in found[(0,)].items():
        assert (parts.positives, parts.negatives) == ((1, 0) if i % 2 else (0, 1))
