"""A frame's fingerprint covers what the count pass counts: same fingerprint, same counts.

Each case of the frame family (bytes and text, categorical and object, NaN, ``None``,
``pd.NA`` and ``null``, ``-0.0`` and ``0.0``, pandas, polars and pyarrow) is run through
``respai.evaluate``: either the run is refused with a message naming the column, or its
fingerprint and its counts are kept. The invariant: two runs with the same fingerprint
have the same counts (so two runs with different counts have different fingerprints).
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import respai
from respai.engine.frame_fingerprint import frame_fingerprint
from respai.errors import InputError

SPEC: dict[str, Any] = {
    "system": {"name": "frame-prints"},
    "fairness": {
        "label": "y",
        "prediction": "p",
        "probability": "s",
        "attributes": {"g": ["a", "b"]},
        "rules": [{"id": "sel", "rate": "selection", "attribute": "g", "max_group_gap": 0.2}],
    },
}


def base(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": rng.random(n).round(2),
            "g": rng.choice(["a", "b"], n),
        }
    )


Outcome = tuple[str, str]  # ("refused", message) or (fingerprint, counts)


def outcome(frame: Any, spec: dict[str, Any] = SPEC) -> Outcome:
    try:
        result = respai.evaluate(spec, frame)
    except InputError as exc:
        return "refused", str(exc)
    assert result.dataset_fingerprint is not None
    counted = repr((result.counts, result.rules, result.verdict))
    return str(result.dataset_fingerprint["sha256"]), counted


def _set(frame: pd.DataFrame, column: str, rows: list[int], value: Any, dtype: Any) -> Any:
    out = frame.copy()
    out[column] = out[column].astype(dtype)
    for row in rows:
        out.loc[row, column] = value
    return out


def _pl(frame: pd.DataFrame) -> pl.DataFrame:
    return pl.from_pandas(frame)


def _negative_zero(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    out = frame.copy()
    out[column] = out[column].astype(float)
    out.loc[out[column] == 0, column] = -0.0
    return out


def _float64_nan(frame: pd.DataFrame) -> pd.DataFrame:
    """A pandas ``Float64`` column holding a real NaN (not ``pd.NA``) in row 0."""
    values = frame["s"].to_numpy(dtype=float).copy()
    values[0] = math.nan
    mask = np.zeros(len(values), dtype=bool)
    return frame.assign(s=pd.Series(pd.arrays.FloatingArray(values, mask)))


B = base()
VARIANTS: dict[str, Callable[[], Any]] = {
    "plain": lambda: B,
    "polars": lambda: _pl(B),
    "pyarrow": lambda: pa.Table.from_pandas(B, preserve_index=False),
    # bytes and text in a group, label or prediction column
    "g-bytes-some": lambda: _set(B, "g", [0, 1, 2], b"a", "object"),
    "g-bytes-all": lambda: B.assign(g=B["g"].map(str.encode)),
    "g-bytes-categorical": lambda: B.assign(
        g=B["g"].map({"a": b"a", "b": "b"}).astype("category")
    ),
    "g-polars-binary": lambda: _pl(B).with_columns(pl.col("g").cast(pl.Binary)),
    "g-pyarrow-binary": lambda: pa.table(
        {**{c: B[c] for c in "yps"}, "g": B["g"].map(str.encode)}
    ),
    "y-bytes": lambda: _set(B, "y", [0], b"1", "object"),
    "p-bytes": lambda: _set(B, "p", [0], b"0", "object"),
    # categorical and object
    "g-categorical": lambda: B.assign(g=B["g"].astype("category")),
    "g-categorical-unused": lambda: B.assign(g=pd.Categorical(B["g"], ["b", "zz", "a"])),
    "g-string-dtype": lambda: B.assign(g=B["g"].astype("string")),
    "g-polars-categorical": lambda: _pl(B).with_columns(pl.col("g").cast(pl.Categorical)),
    "g-polars-enum": lambda: _pl(B).with_columns(pl.col("g").cast(pl.Enum(["a", "b"]))),
    "y-categorical": lambda: B.assign(y=B["y"].astype("category")),
    # missing: NaN, None, pd.NA, null, and the empty string
    "g-None": lambda: _set(B, "g", [0], None, "object"),
    "g-NaN": lambda: _set(B, "g", [0], math.nan, "object"),
    "g-NA": lambda: _set(B, "g", [0], pd.NA, "string"),
    "g-empty": lambda: _set(B, "g", [0], "", "object"),
    "g-polars-null": lambda: _pl(_set(B, "g", [0], None, "object")),
    "p-NaN": lambda: _set(B, "p", [0], math.nan, "float"),
    "p-None": lambda: _set(B, "p", [0], None, "object"),
    "p-NA": lambda: _set(B, "p", [0], pd.NA, "Int64"),
    "p-polars-null": lambda: _pl(_set(B, "p", [0], pd.NA, "Int64")),
    "p-polars-NaN": lambda: _pl(_set(B, "p", [0], math.nan, "float")).with_columns(
        pl.col("p").fill_null(math.nan)
    ),
    "y-NaN": lambda: _set(B, "y", [0], math.nan, "float"),
    "s-NaN": lambda: _set(B, "s", [0], math.nan, "float"),
    "s-NA": lambda: _set(B, "s", [0], pd.NA, "Float64"),
    "s-Float64-NaN": lambda: _float64_nan(B),
    "s-polars-null": lambda: _pl(_set(B, "s", [0], math.nan, "float")),
    "s-polars-NaN": lambda: _pl(_set(B, "s", [0], math.nan, "float")).with_columns(
        pl.col("s").fill_null(math.nan)
    ),
    # -0.0 and 0.0
    "y-float": lambda: B.assign(y=B["y"].astype(float)),
    "y-negative-zero": lambda: _negative_zero(B, "y"),
    "p-negative-zero": lambda: _negative_zero(B, "p"),
    "y-polars-negative-zero": lambda: _pl(_negative_zero(B, "y")),
    "s-zero": lambda: _set(B, "s", [0], 0.0, "float"),
    "s-negative-zero": lambda: _set(B, "s", [0], -0.0, "float"),
    # values of more than one type in one column
    "g-text-and-number": lambda: _set(B, "g", [0], 1, "object"),
    "g-text-and-date": lambda: _set(B, "g", [0], datetime.date(2024, 1, 1), "object"),
    "p-number-and-text": lambda: _set(B, "p", [0], "", "object"),
}

REFUSED = {
    "g-bytes-some": "'g' holds bytes (b'a', first at row 1)",
    "g-bytes-all": "'g' holds bytes (b'a'",
    "g-bytes-categorical": "'g' holds bytes (b'a', first at row",
    "g-polars-binary": "'g' holds bytes",
    "g-pyarrow-binary": "'g' holds bytes",
    "y-bytes": "'y' holds",
    "p-bytes": "'p' holds",
    "g-text-and-number": "column g",
    "g-text-and-date": "column g",
    "p-number-and-text": "column p",
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return {name: outcome(make()) for name, make in VARIANTS.items()}


def test_the_same_fingerprint_always_comes_with_the_same_counts(
    outcomes: dict[str, Outcome],
) -> None:
    counted = {k: v for k, v in outcomes.items() if v[0] != "refused"}
    for (a, (fa, ca)), (b, (fb, cb)) in combinations(counted.items(), 2):
        if fa == fb:
            assert ca == cb, f"{a} and {b}: one fingerprint, different counts"
        if ca != cb:
            assert fa != fb, f"{a} and {b}: different counts, one fingerprint"


def test_the_variants_do_collide_where_the_counts_agree(outcomes: dict[str, Outcome]) -> None:
    # the invariant is not met by luck: these spellings are one fingerprint and one count
    same = [
        ("plain", "polars", "pyarrow", "g-categorical", "g-categorical-unused"),
        ("plain", "g-string-dtype", "g-polars-categorical", "g-polars-enum", "y-float"),
        ("plain", "y-negative-zero", "p-negative-zero", "y-polars-negative-zero"),
        ("g-None", "g-NaN", "g-NA", "g-polars-null"),
        ("p-NaN", "p-None", "p-NA", "p-polars-null"),
        ("s-NaN", "s-NA", "s-polars-null"),
    ]
    for names in same:
        assert len({outcomes[n] for n in names}) == 1, names


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_value_type_the_count_pass_does_not_count_is_refused(
    name: str, outcomes: dict[str, Outcome]
) -> None:
    kind, message = outcomes[name]
    assert kind == "refused", f"{name} was counted"
    assert REFUSED[name] in message


def test_a_refused_frame_is_refused_by_the_fingerprint_itself() -> None:
    # recomputing the fingerprint of a frame the count pass cannot count fails too
    for name in ("g-bytes-some", "g-polars-binary", "g-text-and-number"):
        with pytest.raises(InputError, match="column"):
            frame_fingerprint(VARIANTS[name](), ["g", "p", "s", "y"])


_CELLS = st.sampled_from(["a", "b", "", None, math.nan, pd.NA, b"a", b"b"])


@settings(max_examples=25, deadline=None)
@given(
    left=st.lists(_CELLS, min_size=12, max_size=12),
    right=st.lists(_CELLS, min_size=12, max_size=12),
    categorical=st.booleans(),
)
def test_same_fingerprint_same_counts_for_any_group_column(
    left: list[Any], right: list[Any], categorical: bool
) -> None:
    frame = base(12)

    def with_groups(values: list[Any]) -> Any:
        column = pd.Series(values, dtype="object")
        return frame.assign(g=column.astype("category") if categorical else column)

    a = outcome(with_groups(left))
    b = outcome(with_groups(right))
    for side, values in ((a, left), (b, right)):
        if any(isinstance(v, bytes) for v in values):
            assert side[0] == "refused" and "'g' holds bytes" in side[1]
    if "refused" not in (a[0], b[0]) and a[0] == b[0]:
        assert a[1] == b[1]


def test_a_refused_frame_leaves_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    with pytest.raises(InputError, match="'g' holds bytes"):
        respai.evaluate(SPEC, VARIANTS["g-bytes-some"](), out=tmp_path / "o")
    assert list(tmp_path.iterdir()) == []
