"""Perturbation stability: matches a plain-numpy reference, finds fragile models and
groups, never touches categorical columns, and is reproducible whatever the batching."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import skops.io as sio
from skl2onnx import to_onnx
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from respai import engine
from respai.battery import DEFAULT_THRESHOLDS, Decision, Threshold
from respai.errors import InputError
from respai.model_file import load_model, wrap_model
from respai.robustness import (
    BLOCK_ROWS,
    DEFAULT_NOISE,
    DEFAULT_TRIALS,
    block_rng,
    column_stats,
    iter_blocks,
    noisy_copy,
    perturbation_stability,
)
from respai.types import Verdict

Columns = dict[str, np.ndarray]


# --- ENGINE-FACING PROTOTYPE ------------------------------------------------------------
# To move into respai.engine as ``iter_batches`` (only engine.py may import duckdb /
# narwhals / pyarrow). It reads the requested columns of an opened Source in batches of
# at most ``batch_rows`` rows, one batch in memory at a time, as numpy arrays.
def iter_batches(
    source: engine.Source, columns: Sequence[str], batch_rows: int = 65_536
) -> Iterator[dict[str, np.ndarray]]:
    import duckdb
    import narwhals as nw

    frame = source._frame.select([nw.col(c) for c in columns])
    native = frame.to_native()
    if isinstance(native, duckdb.DuckDBPyRelation):
        reader = getattr(native, "to_arrow_reader", None) or native.fetch_arrow_reader
        batches: Any = reader(batch_rows)
    else:
        if isinstance(frame, nw.LazyFrame):
            frame = frame.collect()
        batches = (
            frame[start : start + batch_rows].to_arrow()
            for start in range(0, len(frame), batch_rows)
        )
    for batch in batches:
        yield {c: batch.column(i).to_numpy(zero_copy_only=False) for i, c in enumerate(columns)}


# --- END OF ENGINE-FACING PROTOTYPE -----------------------------------------------------


def in_batches(cols: Mapping[str, np.ndarray], sizes: Sequence[int]) -> Callable[[], Iterator]:
    """A re-openable source of batches cut at the (cycled) ``sizes``."""
    n = len(next(iter(cols.values())))

    def open_() -> Iterator[Columns]:
        start, i = 0, 0
        while start < n:
            stop = min(n, start + sizes[i % len(sizes)])
            yield {c: v[start:stop] for c, v in cols.items()}
            start, i = stop, i + 1

    return open_


def reference_stable(
    numeric: np.ndarray,
    other: np.ndarray,
    decide: Callable[[np.ndarray, np.ndarray], np.ndarray],
    *,
    noise: float,
    trials: int,
    seed: int,
    block_rows: int,
) -> np.ndarray:
    """The documented algorithm in plain numpy, on the whole data at once.

    ``numeric`` has the numeric columns in draw order, ``other`` the unperturbed ones;
    ``decide(numeric, other)`` gives 0/1 decisions. Block ``b`` uses the ``b``-th child
    of ``SeedSequence(seed)``; per trial one standard-normal matrix (rows, k).
    """
    n, k = numeric.shape
    scale = noise * numeric.std(axis=0)  # population sd, ddof=0
    base = decide(numeric, other)
    stable = np.ones(n, dtype=bool)
    blocks = math.ceil(n / block_rows)
    for b, child in enumerate(np.random.SeedSequence(seed).spawn(blocks)):
        lo, hi = b * block_rows, min(n, (b + 1) * block_rows)
        rng = np.random.default_rng(child)
        for _ in range(trials):
            z = rng.standard_normal((hi - lo, k))
            got = decide(numeric[lo:hi] + z * scale, other[lo:hi])
            stable[lo:hi] &= got == base[lo:hi]
    return stable


def _loan_data(n: int = 700, seed: int = 1) -> Columns:
    rng = np.random.default_rng(seed)
    return {
        "income": rng.normal(50.0, 15.0, n),
        "region": rng.integers(0, 4, n).astype(np.int64),  # integer-coded category
        "tenure": rng.gamma(2.0, 3.0, n),
        "group": rng.choice(np.array(["A", "B"], dtype=object), n),
    }


FEATURES = ["income", "region", "tenure"]
NUMERIC = ["tenure", "income"]  # draw order differs from feature order on purpose


def _fitted_lr(cols: Columns) -> LogisticRegression:
    x = np.column_stack([cols[f] for f in FEATURES])
    rng = np.random.default_rng(5)
    y = (
        0.08 * cols["income"]
        - 0.3 * cols["tenure"]
        + 0.2 * cols["region"]
        + rng.normal(0, 1.0, len(x))
        > 2.5
    ).astype(int)
    return LogisticRegression(max_iter=1000).fit(x, y)


def _lr_reference(cols: Columns, clf: LogisticRegression, **kw: Any) -> np.ndarray:
    coef = clf.coef_[0]
    w = {f: coef[i] for i, f in enumerate(FEATURES)}

    def decide(num: np.ndarray, other: np.ndarray) -> np.ndarray:
        z = w["tenure"] * num[:, 0] + w["income"] * num[:, 1] + w["region"] * other[:, 0]
        return (z + clf.intercept_[0] > 0).astype(np.int8)

    numeric = np.column_stack([cols[c] for c in NUMERIC])
    return reference_stable(numeric, cols["region"][:, None].astype(float), decide, **kw)


# --- equality with the reference --------------------------------------------------------


@pytest.mark.parametrize("noise", [DEFAULT_NOISE, 0.3])
def test_onnx_and_skops_match_the_numpy_reference(tmp_path: Path, noise: float) -> None:
    cols = _loan_data()
    clf = _fitted_lr(cols)
    x = np.column_stack([cols[f] for f in FEATURES])
    onnx_path = tmp_path / "lr.onnx"
    onnx_path.write_bytes(to_onnx(clf, x[:1].astype(np.float32)).SerializeToString())
    skops_path = tmp_path / "lr.skops"
    sio.dump(clf, skops_path)
    kw = {"noise": noise, "trials": 5, "seed": 2026, "block_rows": 64}
    expected = _lr_reference(cols, clf, **kw)
    assert 0 < expected.sum() < len(expected)  # some cases flip, some do not
    for path in (onnx_path, skops_path):
        r = perturbation_stability(
            load_model(path),
            in_batches(cols, [37, 1, 200, 64]),
            features=FEATURES,
            numeric=NUMERIC,
            groups=["group"],
            **kw,
        )
        assert r.total == len(expected)
        assert r.stable == int(expected.sum()), path.suffix
        assert r.share == pytest.approx(expected.mean())
        for g in r.groups["group"]:
            mask = cols["group"] == g.group
            assert (g.stable, g.cases) == (int(expected[mask].sum()), int(mask.sum()))
        assert r.model is not None and r.model["kind"] == path.suffix[1:]
    if noise == 0.3:
        assert 0.5 < expected.mean() < 0.97  # the comparison is not trivial


def test_column_stats_match_numpy_and_ignore_missing_values() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, 1000)
    x[[5, 17, 400]] = np.nan
    x[9] = np.inf
    ints = rng.integers(0, 100, 1000)
    s = column_stats(in_batches({"x": x, "i": ints}, [333])(), ["x", "i"], block_rows=128)
    finite = x[np.isfinite(x)]
    assert s.rows == 1000
    assert s.columns["x"].count == 996 and s.columns["x"].missing == 4
    assert s.columns["x"].sd == pytest.approx(finite.std(), rel=1e-12)
    assert s.columns["x"].mean == pytest.approx(finite.mean(), rel=1e-12)
    assert s.columns["i"].sd == pytest.approx(ints.std(), rel=1e-12)
    # exactly the same bits whatever the batching
    for sizes in ([1], [7, 900], [1000]):
        again = column_stats(in_batches({"x": x, "i": ints}, sizes)(), ["x", "i"], 128)
        assert again == s


# --- what the value says ----------------------------------------------------------------


def test_a_model_fragile_by_construction_scores_low(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = 500
    near = rng.random(n) < 0.8
    x = np.where(near, 0.5 + rng.choice([-1e-4, 1e-4], n), rng.uniform(-5, 5, n))
    y = (x > 0.5).astype(int)
    tree = DecisionTreeClassifier(max_depth=1).fit(x[:, None], y)
    assert tree.tree_.threshold[0] == pytest.approx(0.5, abs=1e-6)
    path = tmp_path / "stump.skops"
    sio.dump(tree, path)
    r = perturbation_stability(load_model(path), [{"x": x}], features=["x"])
    assert r.share is not None and r.share < 0.6
    t = r.test_result(DEFAULT_THRESHOLDS["perturbation_stability"])
    assert t.verdict is Verdict.FAIL and t.value == r.share


def test_a_constant_model_scores_one(tmp_path: Path) -> None:
    cols = _loan_data(300)
    x = np.column_stack([cols[f] for f in FEATURES])
    dummy = DummyClassifier(strategy="constant", constant=1).fit(x, np.ones(len(x), int))
    path = tmp_path / "dummy.skops"
    sio.dump(dummy, path)
    r = perturbation_stability(
        load_model(path), [cols], features=FEATURES, numeric=NUMERIC, noise=1.0
    )
    assert r.share == 1.0 and r.stable == r.total == 300
    assert r.interval is not None and r.interval.hi == 1.0
    t = r.test_result(DEFAULT_THRESHOLDS["perturbation_stability"])
    assert t.verdict is Verdict.PASS


def test_fragility_of_one_group_shows_in_the_group_shares() -> None:
    rng = np.random.default_rng(4)
    n_a, n_b = 400, 200
    a = rng.uniform(2, 5, n_a) * rng.choice([-1, 1], n_a)
    b = 0.5 + rng.uniform(-1e-3, 1e-3, n_b)
    x = np.concatenate([a, b])
    group = np.array(["A"] * n_a + ["B"] * n_b, dtype=object)
    order = rng.permutation(len(x))

    class Threshold05:
        def predict(self, m: np.ndarray) -> np.ndarray:
            return (m[:, 0] > 0.5).astype(int)

    r = perturbation_stability(
        Threshold05(),
        in_batches({"x": x[order], "who": group[order]}, [100]),
        features=["x"],
        groups=["who"],
    )
    shares = {g.group: g for g in r.groups["who"]}
    assert shares["A"].share == 1.0 and shares["A"].cases == n_a
    assert shares["B"].share is not None and shares["B"].share < 0.2
    assert shares["B"].interval is not None and shares["B"].interval.hi < 0.9
    assert r.share == pytest.approx((shares["A"].stable + shares["B"].stable) / 600)


def test_group_values_missing_or_numeric_are_labelled() -> None:
    x = np.linspace(-1, 1, 6)
    groups = np.array(["a", None, "a", "", 2.0, float("nan")], dtype=object)
    r = perturbation_stability(
        wrap_model(type("M", (), {"predict": lambda self, m: m[:, 0] > 0})()),
        [{"x": x, "g": groups}],
        features=["x"],
        groups=["g"],
    )
    assert [(g.group, g.cases) for g in r.groups["g"]] == [("2", 1), ("a", 2), (None, 3)]


# --- what is perturbed ------------------------------------------------------------------


class Spy:
    """Records every matrix the model is given."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def predict(self, m: np.ndarray) -> np.ndarray:
        self.seen.append(m.copy())
        return np.zeros(len(m), dtype=int)


def test_categorical_and_identifier_columns_are_never_perturbed() -> None:
    cols = _loan_data(300)
    cols["city"] = np.array(["Oslo", "Lima", "Pune"] * 100, dtype=object)
    feats = ["income", "region", "city", "tenure"]
    before = {c: v.copy() for c, v in cols.items()}
    spy = Spy()
    r = perturbation_stability(
        spy,
        in_batches(cols, [50]),
        features=feats,
        numeric=NUMERIC,
        trials=3,
        block_rows=128,
    )
    assert r.perturbed == ("tenure", "income")
    assert r.unperturbed == ("region", "city")
    assert len(spy.seen) == 3 * (1 + 3)  # 3 blocks × (baseline + 3 trials)
    for block in range(3):
        calls = spy.seen[4 * block : 4 * block + 4]
        base = calls[0]
        for noisy in calls[1:]:
            for j in (1, 2):  # region, city
                assert noisy[:, j].tobytes() == base[:, j].tobytes()
            for j in (0, 3):  # income, tenure
                assert not np.array_equal(noisy[:, j], base[:, j])
    for c, v in before.items():  # the caller's arrays are untouched
        assert cols[c].tobytes() == v.tobytes()


def test_noisy_copy_passes_other_columns_through_unchanged() -> None:
    block = {
        "x": np.array([1.0, np.nan, 3.0]),
        "k": np.array([1.0, 2.0, 3.0]),
        "code": np.array([7, 8, 9]),
        "name": np.array(["a", "b", "c"], dtype=object),
    }
    draws = block_rng(0, 0).standard_normal((3, 2))
    out = noisy_copy(block, {"x": 0.1, "k": 0.0}, draws)
    assert out["code"] is block["code"] and out["name"] is block["name"]
    assert out["k"] is block["k"]  # zero scale: no noise
    assert out["code"].tobytes() == np.array([7, 8, 9]).tobytes()
    np.testing.assert_array_equal(out["x"], block["x"] + draws[:, 0] * 0.1)
    assert math.isnan(out["x"][1])


def test_numeric_columns_default_to_the_number_features() -> None:
    cols = _loan_data(100)
    cols["city"] = np.array(["Oslo", "Lima"] * 50, dtype=object)
    cols["flag"] = np.array([True, False] * 50)
    cols["constant"] = np.full(100, 4.0)
    feats = ["income", "city", "flag", "constant", "tenure"]
    r = perturbation_stability(Spy(), [cols], features=feats)
    assert r.perturbed == ("income", "tenure")
    assert r.zero_sd == ("constant",)
    assert r.unperturbed == ("city", "flag")


# --- reproducibility --------------------------------------------------------------------


def _run(cols: Columns, clf: Any, sizes: Sequence[int], **kw: Any) -> dict[str, Any]:
    r = perturbation_stability(
        wrap_model(clf),
        in_batches(cols, sizes),
        features=FEATURES,
        numeric=NUMERIC,
        groups=["group"],
        **{"noise": 0.3, "block_rows": 64, **kw},
    )
    return r.to_dict()


def test_same_inputs_and_seed_give_the_same_value_whatever_the_batching() -> None:
    cols = _loan_data()
    clf = _fitted_lr(cols)
    first = _run(cols, clf, [100], seed=11)
    assert first == _run(cols, clf, [100], seed=11)
    assert first == _run(cols, clf, [1, 63, 500], seed=11)
    assert first == _run(cols, clf, [700], seed=11)
    assert first["seed"] == 11 and first["block_rows"] == 64
    assert first["trials"] == DEFAULT_TRIALS and first["noise_fraction_of_sd"] == 0.3
    assert "PCG64" in first["rng"] and first["numpy_version"] == np.__version__
    other = _run(cols, clf, [100], seed=12)
    assert other["seed"] == 12  # another seed may give another value; it is recorded
    assert other["cases"] == first["cases"]


def test_progress_hook_reports_rows_done() -> None:
    cols = _loan_data(300)
    calls: list[tuple[int, int]] = []
    perturbation_stability(
        Spy(),
        in_batches(cols, [70]),
        features=FEATURES,
        numeric=NUMERIC,
        block_rows=128,
        on_batch=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(128, 300), (256, 300), (300, 300)]


def test_blocks_are_fixed_whatever_the_batches() -> None:
    x = np.arange(10)
    for sizes in ([1], [3, 4], [10], [2, 0, 9]):
        got = [b["x"].tolist() for b in iter_blocks(in_batches({"x": x}, sizes)(), ["x"], 4)]
        assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert BLOCK_ROWS == 8192


# --- refusals ---------------------------------------------------------------------------


def test_bad_inputs_are_refused() -> None:
    cols = _loan_data(50)
    src = [cols]
    with pytest.raises(TypeError, match="iterator"):
        perturbation_stability(Spy(), iter([cols]), features=FEATURES)
    with pytest.raises(InputError, match="no column"):
        perturbation_stability(Spy(), src, features=["income", "salary"])
    with pytest.raises(InputError, match="does not list"):
        perturbation_stability(Spy(), src, features=["income"], numeric=["tenure"])
    for kw in ({"noise": 0}, {"noise": float("nan")}, {"trials": 0}, {"seed": -1}):
        with pytest.raises(InputError):
            perturbation_stability(Spy(), src, features=FEATURES, **kw)
    text = {"income": np.array(["high", "low"], dtype=object)}
    with pytest.raises(InputError, match="not a number"):
        perturbation_stability(Spy(), [text], features=["income"], numeric=["income"])
    with pytest.raises(InputError, match="twice"):
        perturbation_stability(Spy(), src, features=["income", "income"])


def test_data_that_changes_between_the_passes_is_refused() -> None:
    cols = _loan_data(100)
    reads = iter([in_batches(cols, [50])(), in_batches(cols, [50])(), iter([cols, cols])])
    with pytest.raises(InputError, match="changed"):
        perturbation_stability(Spy(), lambda: next(reads), features=FEATURES)


def test_no_cases_is_insufficient_evidence() -> None:
    empty = {f: np.array([], dtype=float) for f in FEATURES}
    r = perturbation_stability(Spy(), [empty], features=FEATURES, numeric=NUMERIC)
    assert r.total == 0 and r.share is None and r.interval is None
    t = r.test_result(DEFAULT_THRESHOLDS["perturbation_stability"])
    assert t.verdict is Verdict.INSUFFICIENT_EVIDENCE and t.undefined is not None


def test_the_interval_decision_rule_applies() -> None:
    x = np.concatenate([np.full(19, 5.0), [0.5], np.full(80, -5.0)])  # one case on the edge

    class Stump:
        def predict(self, m: np.ndarray) -> np.ndarray:
            return m[:, 0] > 0.5

    r = perturbation_stability(Stump(), [{"x": x}], features=["x"])
    t = r.test_result(Threshold(">=", 0.9, "policy", Decision.INTERVAL))
    assert r.share == pytest.approx(0.99)
    assert t.verdict is Verdict.PASS and not t.uncertain
    assert t.details["perturbed_columns"] == ["x"]


# --- through the engine (prototype batch reader above) ----------------------------------


def test_engine_batches_from_csv_and_a_dataframe_give_the_same_value(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    cols = _loan_data(400)
    cols["group"][[3, 10]] = None
    clf = _fitted_lr(cols)
    onnx_path = tmp_path / "lr.onnx"
    x = np.column_stack([cols[f] for f in FEATURES])
    onnx_path.write_bytes(to_onnx(clf, x[:1].astype(np.float32)).SerializeToString())
    model = load_model(onnx_path)
    csv = tmp_path / "cases.csv"
    with csv.open("w", encoding="utf-8") as fh:
        fh.write("id,income,region,tenure,group\n")
        for i in range(400):
            g = cols["group"][i]
            fh.write(
                f"{i},{float(cols['income'][i])!r},{cols['region'][i]},{float(cols['tenure'][i])!r},"
                f"{'' if g is None else g}\n"
            )
    needed = [*FEATURES, "group"]
    results = []
    for source, size in (
        (engine.open_file(csv, text_columns=["group"]), 2048),
        (engine.open_frame(pd.DataFrame(cols)), 150),
    ):
        r = perturbation_stability(
            model,
            lambda s=source, n=size: iter_batches(s, needed, n),
            features=FEATURES,
            numeric=NUMERIC,
            groups=["group"],
            seed=7,
            block_rows=128,
            noise=0.3,
        )
        results.append(r.to_dict())
    direct = perturbation_stability(
        model,
        [cols],
        features=FEATURES,
        numeric=NUMERIC,
        groups=["group"],
        seed=7,
        block_rows=128,
        noise=0.3,
    ).to_dict()
    assert results[0] == results[1] == direct
    assert any(g["group"] is None for g in direct["per_group"]["group"])
