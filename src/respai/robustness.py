"""Perturbation stability: the share of decisions that survive small Gaussian noise.

The model is re-run on copies of the cases with Gaussian noise added to the numeric
features, ``N(0, (noise · sd)²)`` per column, where ``sd`` is that column's standard
deviation over the whole evaluation set. A case is *stable* when its decision is the same
as on the unperturbed case in every one of the ``trials`` noisy copies. The value is the
stable share, with a 95% Wilson interval, overall and per value of each group column.
Categorical and identifier columns are never perturbed.

The data arrive as batches (``dict`` column -> numpy array) from the engine, and are
read twice: a first pass for the standard deviations, a second for the predictions.
Only one batch (plus at most one block of rows carried over) is in memory at a time.

Reproducibility. The rows are regrouped into fixed blocks of ``block_rows`` rows
(default :data:`BLOCK_ROWS`), counted from the first row whatever the engine's batch
size. Block ``b`` draws its noise from numpy's PCG64 seeded with
``SeedSequence(seed, spawn_key=(b,))`` (the ``b``-th child of ``SeedSequence(seed)``):
for each trial in turn, one ``standard_normal((rows_in_block, len(numeric)))`` matrix,
column ``j`` going to ``numeric[j]``. The standard deviations are exactly rounded sums
(:func:`math.fsum`) per block, combined in block order. So the value is a function of the
rows in their order, the feature and numeric column lists, ``noise``, ``trials``,
``seed``, ``block_rows`` and the numpy version; the batch size does not enter.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from respai import stats
from respai.battery import TestId, TestResult, Threshold, decide
from respai.errors import InputError
from respai.model_file import LoadedModel, wrap_model
from respai.types import Interval, Undefined, Verdict

__all__ = [
    "BLOCK_ROWS",
    "DEFAULT_NOISE",
    "DEFAULT_TRIALS",
    "RNG_ALGORITHM",
    "ColumnStats",
    "DataStats",
    "GroupShare",
    "StabilityResult",
    "block_rng",
    "column_stats",
    "iter_blocks",
    "noisy_copy",
    "perturbation_stability",
]

#: Rows per noise block; part of the reproducibility key (recorded with the result).
BLOCK_ROWS = 8192
#: Noise as a fraction of each numeric feature's standard deviation (default 5%).
DEFAULT_NOISE = 0.05
#: Noisy copies of each case (default five trials).
DEFAULT_TRIALS = 5
#: How the noise is drawn, as the record states it.
RNG_ALGORITHM = (
    "numpy.random.Generator(PCG64(SeedSequence(seed, spawn_key=(block,)))).standard_normal"
    "((rows_in_block, len(numeric))) once per trial, in trial order"
)

Array = npt.NDArray[Any]
Batch = Mapping[str, Array]
BatchSource = Callable[[], Iterable[Batch]] | Iterable[Batch]
ProgressHook = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class ColumnStats:
    """Mean and standard deviation (population, ``ddof=0``) of one numeric column.

    ``count`` counts the finite values; ``missing`` the empty, NaN and infinite ones,
    which get no noise. ``sd`` is 0 when fewer than two values are finite or all are equal.
    """

    column: str
    count: int
    missing: int
    mean: float | None
    sd: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the record."""
        return {
            "column": self.column,
            "count": self.count,
            "missing": self.missing,
            "mean": self.mean,
            "sd": self.sd,
        }


@dataclass(frozen=True, slots=True)
class DataStats:
    """The first pass: how many rows, and the statistics of each numeric column."""

    rows: int
    columns: Mapping[str, ColumnStats]
    block_rows: int = BLOCK_ROWS


@dataclass(frozen=True, slots=True)
class GroupShare:
    """Stable cases of one group (``group`` is ``None`` for cases with no value)."""

    group: str | None
    stable: int
    cases: int
    share: float | None
    interval: Interval | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the record."""
        return {
            "group": self.group,
            "stable": self.stable,
            "cases": self.cases,
            "share": self.share,
            "interval_95": Interval.json_or_none(self.interval),
        }


@dataclass(frozen=True, slots=True)
class StabilityResult:
    """The outcome of the perturbation test, with everything needed to re-run it."""

    stable: int
    total: int
    share: float | None
    interval: Interval | None
    groups: Mapping[str, tuple[GroupShare, ...]]
    features: tuple[str, ...]
    perturbed: tuple[str, ...]
    zero_sd: tuple[str, ...]
    unperturbed: tuple[str, ...]
    noise: float
    trials: int
    seed: int
    block_rows: int
    column_stats: Mapping[str, ColumnStats]
    rng: str = RNG_ALGORITHM
    numpy_version: str = field(default_factory=lambda: np.__version__)
    model: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the record's ``details``."""
        return {
            "stable": self.stable,
            "cases": self.total,
            "share": self.share,
            "interval_95": Interval.json_or_none(self.interval),
            "per_group": {name: [g.to_dict() for g in rows] for name, rows in self.groups.items()},
            "features": list(self.features),
            "perturbed_columns": list(self.perturbed),
            "zero_sd_columns": list(self.zero_sd),
            "unperturbed_columns": list(self.unperturbed),
            "noise_fraction_of_sd": self.noise,
            "trials": self.trials,
            "seed": self.seed,
            "block_rows": self.block_rows,
            "rng": self.rng,
            "numpy_version": self.numpy_version,
            "column_stats": [s.to_dict() for s in self.column_stats.values()],
            "model": dict(self.model) if self.model is not None else None,
        }

    def method(self) -> str:
        """One sentence on how the value was computed."""
        return (
            f"share of cases whose decision is unchanged in all {self.trials} trials of "
            f"Gaussian noise N(0, ({self.noise:g} × sd)²) added to each numeric feature "
            f"(sd over the evaluation set); seed {self.seed}; 95% Wilson interval; "
            "per-group shares reported, the verdict reads the overall share"
        )

    def test_result(self, threshold: Threshold, confidence: float = 0.95) -> TestResult:
        """The battery's :class:`~respai.battery.TestResult` for this outcome.

        The overall share's interval is at ``confidence`` (95% unless a family-wise
        policy shares alpha over the run's tests); the per-group ones stay at 95%.
        """
        details = self.to_dict()
        interval = self.interval
        method = self.method()
        if confidence != 0.95 and self.total:
            interval = stats.wilson_interval(self.stable, self.total, confidence)
            method = method.replace(
                "95% Wilson interval", f"{confidence * 100:.4g}% Wilson interval (per group 95%)"
            )
        if self.share is None:
            reason = "there are no cases to perturb"
            return TestResult(
                TestId.PERTURBATION_STABILITY,
                None,
                None,
                None,
                Undefined("no_cases", reason),
                threshold,
                Verdict.INSUFFICIENT_EVIDENCE,
                False,
                reason,
                self.method(),
                details,
            )
        # decided on the exact share of counts (respai.exact), not its float
        verdict, uncertain, reason = decide(Fraction(self.stable, self.total), interval, threshold)
        return TestResult(
            TestId.PERTURBATION_STABILITY,
            None,
            self.share,
            interval,
            None,
            threshold,
            verdict,
            uncertain,
            reason,
            method,
            details,
        )


def block_rng(seed: int, block: int) -> np.random.Generator:
    """The generator of block ``block``: PCG64 seeded with ``SeedSequence(seed, (block,))``.

    Examples
    --------
    >>> a = block_rng(7, 3).standard_normal(2)
    >>> b = np.random.default_rng(np.random.SeedSequence(7).spawn(4)[3]).standard_normal(2)
    >>> bool((a == b).all())
    True
    """
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block,))))


def iter_blocks(
    batches: Iterable[Batch], columns: Sequence[str], block_rows: int = BLOCK_ROWS
) -> Iterator[dict[str, Array]]:
    """Regroup batches of any size into blocks of ``block_rows`` rows, keeping ``columns``.

    Every block but the last has exactly ``block_rows`` rows. At most one batch and one
    block's remainder are held at a time.

    Raises
    ------
    InputError
        When a batch lacks one of ``columns`` or its columns differ in length.

    Examples
    --------
    >>> parts = [{"x": np.arange(3)}, {"x": np.arange(3, 8)}]
    >>> [b["x"].tolist() for b in iter_blocks(parts, ["x"], 4)]
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """
    if block_rows < 1:
        raise ValueError("block_rows must be at least 1")
    pending: list[dict[str, Array]] = []
    held = 0
    for number, batch in enumerate(batches):
        part = _checked(batch, columns, number)
        size = _length(part, columns)
        if size == 0:
            continue
        pending.append(part)
        held += size
        if held < block_rows:
            continue
        merged = _concat(pending, columns)
        start = 0
        while held - start >= block_rows:
            yield {c: merged[c][start : start + block_rows] for c in columns}
            start += block_rows
        rest = {c: merged[c][start:] for c in columns}
        held -= start
        pending = [rest] if held else []
    if held:
        yield _concat(pending, columns)


def column_stats(
    batches: Iterable[Batch], numeric: Sequence[str], block_rows: int = BLOCK_ROWS
) -> DataStats:
    """First pass: row count and mean / standard deviation of each numeric column.

    Per block of ``block_rows`` rows the count, mean and sum of squared deviations come
    from exactly rounded sums (:func:`math.fsum`); blocks are combined in order with
    Chan's formula, so the result does not depend on how the engine batches the rows.
    Values that are empty, NaN or infinite are left out.
    """
    n_rows = 0
    acc: dict[str, tuple[int, float, float, int]] = dict.fromkeys(numeric, (0, 0.0, 0.0, 0))
    for block in iter_blocks(batches, numeric, block_rows):
        m = _length(block, numeric)
        n_rows += m
        for c in numeric:
            values = _as_float(block[c], c)
            finite = values[np.isfinite(values)]
            k = int(finite.shape[0])
            count, mean, m2, missing = acc[c]
            missing += m - k
            if k:
                b_mean = math.fsum(finite.tolist()) / k
                dev = finite - b_mean
                b_m2 = math.fsum((dev * dev).tolist())
                total = count + k
                delta = b_mean - mean
                mean = mean + delta * (k / total)
                m2 = m2 + b_m2 + delta * delta * (count * k / total)
                count = total
            acc[c] = (count, mean, m2, missing)
    out: dict[str, ColumnStats] = {}
    for c in numeric:
        count, mean, m2, missing = acc[c]
        sd = math.sqrt(max(m2, 0.0) / count) if count >= 2 else 0.0
        out[c] = ColumnStats(c, count, missing, mean if count else None, sd)
    return DataStats(n_rows, out, block_rows)


def noisy_copy(
    block: Batch,
    scales: Mapping[str, float],
    draws: npt.NDArray[np.float64],
) -> dict[str, Array]:
    """One noisy copy of ``block``, with ``draws[:, j] × scale`` added to numeric column ``j``.

    ``scales`` lists the numeric columns in draw order (its key order). Every other column
    is passed through as the *same* array object, so it is never changed; a column whose
    scale is 0 is passed through too. NaN stays NaN.

    Examples
    --------
    >>> block = {"x": np.array([1.0, 2.0]), "g": np.array(["a", "b"])}
    >>> out = noisy_copy(block, {"x": 0.5}, np.array([[2.0], [-2.0]]))
    >>> out["x"].tolist(), out["g"] is block["g"]
    ([2.0, 1.0], True)
    """
    out = dict(block)
    for j, (column, scale) in enumerate(scales.items()):
        if scale == 0.0:
            continue
        out[column] = _as_float(block[column], column) + draws[:, j] * scale
    return out


def perturbation_stability(
    model: LoadedModel | Any,
    batches: BatchSource,
    *,
    features: Sequence[str],
    numeric: Sequence[str] | None = None,
    groups: Sequence[str] = (),
    noise: float = DEFAULT_NOISE,
    trials: int = DEFAULT_TRIALS,
    seed: int = 0,
    block_rows: int = BLOCK_ROWS,
    data_stats: DataStats | None = None,
    on_batch: ProgressHook | None = None,
) -> StabilityResult:
    """Share of cases whose decision survives ``trials`` noisy copies of their features.

    Parameters
    ----------
    model
        A :class:`~respai.model_file.LoadedModel`, or any object with ``predict`` (wrapped
        with :func:`~respai.model_file.wrap_model`).
    batches
        The cases as batches of ``{column: 1-D numpy array}`` holding the ``features``
        and ``groups`` columns. A zero-argument callable returning a fresh iterable
        (e.g. ``lambda: engine.iter_batches(...)``), or a re-iterable such as a list;
        it is read twice, once for the standard deviations and once for the decisions
        (once when ``data_stats`` is given).
    features
        The model's input columns, in the order the model takes them.
    numeric
        The columns that get noise, a subset of ``features``. ``None``: every feature
        whose first batch holds numbers (not booleans). Every other feature is never
        perturbed: list integer-coded categories outside ``numeric``.
    groups
        Group columns; the stable share is reported per value of each.
    noise
        Noise standard deviation as a fraction of each column's standard deviation.
    trials
        Noisy copies per case; a case is stable when all of them keep its decision.
    seed
        Seed of the noise (non-negative integer), recorded.
    block_rows
        Rows per noise block (see the module docstring); recorded.
    data_stats
        The first pass's result, when already computed with :func:`column_stats`.
    on_batch
        Called as ``on_batch(done_rows, total_rows)`` after each block of the second pass.

    Raises
    ------
    InputError
        On bad parameters, missing or non-numeric columns, data that changed between
        the two passes, or a model that fails or returns non-decisions.
    """
    m = wrap_model(model)
    feats = _names_list(features, "evaluation.features")
    if not feats:
        raise InputError("evaluation.features is empty.", "List the model's input columns.")
    _check_params(noise, trials, seed, block_rows)
    open_batches = _opener(batches, twice=data_stats is None or numeric is None)
    group_cols = _names_list(groups, "groups")
    if numeric is None:
        num = _infer_numeric(open_batches(), feats)
    else:
        num = _names_list(numeric, "evaluation.numeric")
        outside = [c for c in num if c not in feats]
        if outside:
            raise InputError(
                f"evaluation.numeric names {', '.join(repr(c) for c in outside)}, which "
                "evaluation.features does not list.",
                "Numeric columns are the features that get noise: list them in both.",
            )
    m.check_features(feats, num)
    if data_stats is None:
        data_stats = column_stats(open_batches(), num, block_rows)
    missing_stats = [c for c in num if c not in data_stats.columns]
    if missing_stats:
        raise InputError(f"no standard deviation was computed for {missing_stats}.")
    scales = {c: noise * data_stats.columns[c].sd for c in num}
    needed = list(dict.fromkeys([*feats, *group_cols]))
    total = data_stats.rows
    stable_total = 0
    done = 0
    tallies: dict[str, dict[str | None, list[int]]] = {g: {} for g in group_cols}
    for number, block in enumerate(iter_blocks(open_batches(), needed, block_rows)):
        size = _length(block, needed)
        for c in num:
            block[c] = _as_float(block[c], c)
        base = m.predict_columns(block, feats)
        stable = np.ones(size, dtype=bool)
        rng = block_rng(seed, number)
        for _ in range(trials):
            draws = rng.standard_normal((size, len(num)))
            stable &= m.predict_columns(noisy_copy(block, scales, draws), feats) == base
        stable_total += int(stable.sum())
        for g in group_cols:
            _tally(tallies[g], block[g], stable)
        done += size
        if on_batch is not None:
            on_batch(done, total)
    if done != total:
        raise InputError(
            f"the cases changed while the model was re-run: the first pass read {total} "
            f"rows, the second {done}.",
            "Evaluate a file that is not being written to.",
        )
    return StabilityResult(
        stable=stable_total,
        total=total,
        share=stable_total / total if total else None,
        interval=stats.wilson_interval(stable_total, total),
        groups={g: _shares(t) for g, t in tallies.items()},
        features=tuple(feats),
        perturbed=tuple(c for c in num if scales[c] > 0),
        zero_sd=tuple(c for c in num if scales[c] == 0),
        unperturbed=tuple(c for c in feats if c not in num),
        noise=float(noise),
        trials=int(trials),
        seed=int(seed),
        block_rows=int(block_rows),
        column_stats=dict(data_stats.columns),
        model=m.to_record(),
    )


# --- helpers ----------------------------------------------------------------------------


def _check_params(noise: object, trials: object, seed: object, block_rows: object) -> None:
    if (
        isinstance(noise, bool)
        or not isinstance(noise, int | float)
        or not (math.isfinite(noise) and noise > 0)
    ):
        raise InputError(
            f"evaluation.noise must be a positive number (a fraction of each feature's "
            f"standard deviation), got {noise!r}.",
            "The default is 0.05 (5%).",
        )
    for key, value, low in (
        ("trials", trials, 1),
        ("seed", seed, 0),
        ("block_rows", block_rows, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise InputError(
                f"evaluation.{key} must be a whole number of at least {low}, got {value!r}."
            )


def _names_list(names: Sequence[str], key: str) -> list[str]:
    if isinstance(names, str):
        names = [names]
    out = [str(n) for n in names]
    seen: set[str] = set()
    for n in out:
        if n in seen:
            raise InputError(f"{key} lists the column '{n}' twice.")
        seen.add(n)
    return out


def _opener(batches: BatchSource, *, twice: bool) -> Callable[[], Iterable[Batch]]:
    if callable(batches):
        return batches
    if twice and iter(batches) is batches:
        raise TypeError(
            "batches is an iterator, which can be read only once; pass a callable that "
            "returns a fresh iterable of batches (the data are read twice)"
        )
    source = batches
    return lambda: source


def _infer_numeric(batches: Iterable[Batch], features: Sequence[str]) -> list[str]:
    for number, batch in enumerate(batches):
        part = _checked(batch, features, number)
        if _length(part, features):  # an empty batch may not have its real types
            return [f for f in features if part[f].dtype.kind in "iuf"]
    return []


def _checked(batch: Batch, columns: Sequence[str], number: int) -> dict[str, Array]:
    absent = [c for c in columns if c not in batch]
    if absent:
        raise InputError(
            f"batch {number + 1} of the cases has no column(s) "
            f"{', '.join(repr(c) for c in absent)}.",
            "Check evaluation.features and the group columns against the cases file.",
        )
    out = {c: np.asarray(batch[c]) for c in columns}
    _length(out, columns)
    return out


def _length(block: Mapping[str, Array], columns: Sequence[str]) -> int:
    sizes = {int(np.asarray(block[c]).shape[0]) for c in columns}
    if len(sizes) > 1:
        raise InputError(f"the columns of a batch differ in length: {sorted(sizes)}.")
    return sizes.pop() if sizes else 0


def _concat(parts: list[dict[str, Array]], columns: Sequence[str]) -> dict[str, Array]:
    if len(parts) == 1:
        return parts[0]
    return {c: np.concatenate([p[c] for p in parts]) for c in columns}


def _as_float(values: Array, column: str) -> npt.NDArray[np.float64]:
    arr = np.asarray(values)
    if arr.dtype == np.float64:
        return arr
    if arr.dtype.kind in "iuf":
        return arr.astype(np.float64)
    if arr.dtype.kind == "O":
        try:
            return np.array(
                [math.nan if v is None else float(v) for v in arr.tolist()], dtype=np.float64
            )
        except (TypeError, ValueError):
            pass
    example = next((v for v in arr.tolist() if v is not None), None)
    raise InputError(
        f"the numeric column '{column}' holds {example!r}, which is not a number; noise "
        "can only be added to numbers.",
        "Leave the column out of evaluation.numeric, or fix its values.",
    )


def _group_text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    return text if text.strip() else None


_UNSEEN = "\x00unseen"


def _tally(
    tally: dict[str | None, list[int]], values: Array, stable: npt.NDArray[np.bool_]
) -> None:
    seen: dict[Any, str | None] = {}
    for raw, ok in zip(np.asarray(values).tolist(), stable.tolist(), strict=True):
        if isinstance(raw, str | int | float | bool) and raw == raw:  # NaN is never found
            key = seen.get(raw, _UNSEEN)
            if key is _UNSEEN:
                key = seen[raw] = _group_text(raw)
        else:
            key = _group_text(raw)
        cell = tally.setdefault(key, [0, 0])
        cell[0] += int(ok)
        cell[1] += 1


def _shares(tally: Mapping[str | None, list[int]]) -> tuple[GroupShare, ...]:
    keys = sorted(tally, key=lambda k: (k is None, k or ""))
    return tuple(
        GroupShare(
            k,
            tally[k][0],
            tally[k][1],
            tally[k][0] / tally[k][1],
            stats.wilson_interval(tally[k][0], tally[k][1]),
        )
        for k in keys
    )
