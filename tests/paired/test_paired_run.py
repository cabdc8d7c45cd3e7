"""The paired block end to end: tallies against a brute-force count, the command, bad input."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from respai.cli import main
from respai.engine.opening import open_file
from respai.engine.pairs import PairCounts, pair_tallies
from respai.paired.audit import decide_paired, run_paired
from respai.types import Interval, Verdict

VARIANTS = ["control", "black_name", "hispanic_name"]

SPEC = """\
paired:
  cases: pairs.csv
  pair: pair_id
  variant: variant
  variants: [control, black_name, hispanic_name]
  outcome: advanced
  max_difference: {gap}
"""

row = st.tuples(
    st.one_of(st.none(), st.integers(min_value=1, max_value=12)),
    st.sampled_from([*VARIANTS, "asian_name"]),
    st.sampled_from([0, 1, None]),
)


def _brute(rows: list[tuple[int | None, str, int | None]]) -> dict[str, PairCounts]:
    """The tallies by their definition, one pair at a time (independent of the engine)."""
    cells: dict[int, dict[str, list[int | None]]] = defaultdict(lambda: defaultdict(list))
    for pair, variant, y in rows:
        if pair is not None and variant in VARIANTS:
            cells[pair][variant].append(y)

    def state(ys: list[int | None]) -> str | int | None:
        if not ys:
            return None
        if len(ys) > 1:
            return "dup"
        return "miss" if ys[0] is None else ys[0]

    out = {}
    for v in VARIANTS[1:]:
        t: Counter[str] = Counter()
        for by in cells.values():
            s0, sv = state(by.get("control", [])), state(by.get(v, []))
            ok0, okv = s0 in (0, 1), sv in (0, 1)
            if ok0 and okv:
                t[{(1, 1): "both", (1, 0): "b", (0, 1): "c", (0, 0): "neither"}[(s0, sv)]] += 1
            for s, ys, partner_ok in ((s0, by.get("control", []), okv), (sv, by.get(v, []), ok0)):
                if s == "dup":
                    t["dup"] += len(ys)
                elif s == "miss":
                    t["miss"] += 1
                elif s in (0, 1) and not partner_ok:
                    t["inc"] += 1
        out[v] = PairCounts(t["both"], t["b"], t["c"], t["neither"], t["dup"], t["miss"], t["inc"])
    return out


def _write(folder: Path, rows: list[tuple[int | None, str, int | None]]) -> Path:
    lines = ["pair_id,variant,advanced"]
    lines += [f"{'' if p is None else p},{v},{'' if y is None else y}" for p, v, y in rows]
    path = folder / "pairs.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@given(st.lists(row, min_size=1, max_size=60))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_tallies_match_a_brute_force_count(tmp_path: Path, rows: list) -> None:
    path = _write(tmp_path, rows)
    source = open_file(path, None, ",", ["pair_id", "variant"])
    got = pair_tallies(source, "pair_id", "variant", "advanced", VARIANTS)
    assert got.by_variant == _brute(rows)
    assert got.rows == len(rows)
    assert got.undeclared_rows == sum(v == "asian_name" for _, v, _ in rows)
    assert got.missing_pair_rows == sum(p is None and v in VARIANTS for p, v, _ in rows)


def _pairs(
    n: int, b: int, c: int, variant: str = "black_name", first_id: int = 0
) -> list[tuple[int, str, int]]:
    """n complete pairs with b reference-only and c variant-only outcomes (rest both 1)."""
    rows = []
    for i in range(n):
        ref, var = (1, 0) if i < b else (0, 1) if i < b + c else (1, 1)
        rows += [(first_id + i, "control", ref), (first_id + i, variant, var)]
    return rows


def _spec(folder: Path, gap: float = 0.05, variants: list[str] | None = None) -> Path:
    text = SPEC.format(gap=gap)
    if variants is not None:
        text = text.replace(str(VARIANTS).replace("'", ""), "[" + ", ".join(variants) + "]")
    path = folder / "spec.yaml"
    path.write_text(text)
    return path


def test_a_clear_gap_fails_and_json_carries_every_number(tmp_path: Path, capsys) -> None:
    rows = _pairs(400, 60, 5) + [(i, "hispanic_name", 1) for i in range(400)]
    _write(tmp_path, rows)
    code = main(["paired", str(_spec(tmp_path)), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verdict"] == "FAIL" and out["exit_code"] == 1
    black = out["comparisons"][0]
    assert (black["b"], black["c"], black["n_pairs"]) == (60, 5, 400)
    assert black["difference"] == pytest.approx((5 - 60) / 400)
    assert black["interval"]["hi"] < -0.05 and black["verdict"] == "FAIL"
    assert black["p_adjusted"] >= black["p_value"]
    assert {"p_value", "p_one_sided", "p_adjusted", "interval", "left_out"} <= set(black)


def test_no_difference_on_many_pairs_passes(tmp_path: Path) -> None:
    _write(tmp_path, _pairs(3000, 20, 20) + _pairs(3000, 20, 20, "hispanic_name", 10_000))
    res = run_paired(_spec(tmp_path))
    assert res.verdict == Verdict.PASS and res.exit_code == 0
    assert res.confidence == pytest.approx(1 - 0.05 / 2)  # Bonferroni over two variants


def test_few_pairs_cannot_decide(tmp_path: Path) -> None:
    _write(tmp_path, _pairs(10, 0, 0) + _pairs(10, 0, 0, "hispanic_name", 100))
    assert run_paired(_spec(tmp_path)).verdict == Verdict.INSUFFICIENT_EVIDENCE


def test_a_variant_with_no_complete_pair_is_undefined_not_zero(tmp_path: Path) -> None:
    _write(tmp_path, _pairs(50, 0, 0))  # no hispanic_name rows at all
    res = run_paired(_spec(tmp_path))
    hisp = res.comparisons[1]
    assert hisp.difference is None and hisp.interval is None
    assert hisp.verdict == Verdict.INSUFFICIENT_EVIDENCE and "no complete pair" in hisp.reason


def test_decision_table_at_the_limit() -> None:
    assert decide_paired(Interval(-0.05, 0.05, "m", 0.95), 0.05)[0] == Verdict.PASS
    assert decide_paired(Interval(0.0501, 0.2, "m", 0.95), 0.05)[0] == Verdict.FAIL
    assert decide_paired(Interval(-0.3, -0.0501, "m", 0.95), 0.05)[0] == Verdict.FAIL
    assert decide_paired(Interval(-0.06, 0.01, "m", 0.95), 0.05)[0] == (
        Verdict.INSUFFICIENT_EVIDENCE
    )


@pytest.mark.parametrize("make", [pd.DataFrame, pl.DataFrame])
def test_dataframes_give_the_file_numbers(tmp_path: Path, make) -> None:
    rows = _pairs(200, 30, 10) + _pairs(200, 5, 5, "hispanic_name", 1000) + [(5, "control", 1)]
    _write(tmp_path, rows)
    spec = _spec(tmp_path)
    from_file = run_paired(spec).to_dict()["comparisons"]
    frame = make(
        {
            "pair_id": [r[0] for r in rows],
            "variant": [r[1] for r in rows],
            "advanced": [r[2] for r in rows],
        }
    )
    from_frame = run_paired(spec, data=frame).to_dict()["comparisons"]
    assert from_frame == from_file


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("pair_id,variant,advanced\n1,control,1\n1,black_name,2\n", ["'advanced'", "line 3"]),
        ("pair_id,variant,advanced\n1,control,yes\n", ["holds 'yes'", "line 2"]),
        (
            "pair_id,variant,advance\n1,control,1\n",
            ["no column 'advanced'", "Did you mean 'advance'"],
        ),
        ("pair_id,variant,advanced\n", ["no rows"]),
    ],
)
def test_bad_input_is_exit_2_with_one_paragraph(
    tmp_path: Path, capsys, content: str, expected: list[str]
) -> None:
    (tmp_path / "pairs.csv").write_text(content)
    spec = _spec(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(["paired", str(spec), "--json"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith("respai: error:") and "Traceback" not in captured.err
    for text in expected:
        assert text in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("variants: [control]", "at least two variants"),
        ("variants: [control, control]", "listed twice"),
        ("max_difference: 0", "above 0"),
        ("max_difference: 1", "below 1"),
        ("outcome: variant", "already the variant column"),
        ("colour: red", "unknown key"),
    ],
)
def test_bad_paired_block_is_refused(tmp_path: Path, capsys, block: str, expected: str) -> None:
    key = block.split(":")[0]
    lines = [
        ln for ln in SPEC.format(gap=0.05).splitlines() if not ln.strip().startswith(key + ":")
    ]
    (tmp_path / "spec.yaml").write_text("\n".join(lines) + f"\n  {block}\n")
    code = main(["paired", str(tmp_path / "spec.yaml")])
    assert code == 2 and expected in capsys.readouterr().err


def test_terminal_names_escape_codes_escaped(tmp_path: Path, capsys) -> None:
    rows = [*_pairs(5, 0, 0), (99, "evil\x1b[2J", 1)]
    _write(tmp_path, rows)
    main(["paired", str(_spec(tmp_path))])
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b" in err
