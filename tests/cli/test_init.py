"""``respai init DATAFILE``: a drafted spec that loads, runs, and quotes what YAML would change.

The drafted values are checked against an independent count of the file with the csv
module (or json), never against respai's own summary.
"""

from __future__ import annotations

import base64
import csv
import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

import respai
from respai.cli import main
from respai.engine.column_summary import ColumnSummary, FileSummary, count_duplicates, summarize
from respai.engine.opening import open_file
from respai.engine.source import NUMERIC, TEXT
from respai.errors import InputError
from respai.init import MAX_VALUES, draft_from_summary, draft_spec
from respai.spec import load_spec

SAMPLE = Path(respai.__file__).resolve().parent / "samples" / "loan_screen.csv"
HOSTILE = 'we"ird: name # \x07 [x]'
#: Text values YAML would read as something else, unquoted.
TRICKY = ["yes", "no", "007", "1.0", "null", "~", "2026-01-01", "a: b", "'q'", "on"]


def _csv_column(path: Path, column: str) -> Counter[str]:
    with path.open(newline="", encoding="utf-8") as fh:
        return Counter(row[column] for row in csv.DictReader(fh) if row[column] != "")


def _uncomment_rules(text: str) -> str:
    """The draft with its example rules and intersections uncommented."""
    out, on = [], False
    for line in text.splitlines():
        if line in ("  # rules:", "  # intersections:"):
            on = True
        elif on and not line.startswith(("  # - ", "  #   ")):
            on = False
        out.append("  " + line[4:] if on else line)
    return "\n".join(out) + "\n"


def _hostile_file(path: Path, n: int = 400, seed: int = 17) -> None:
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["applicant_id", "y_true", "y_pred", "risk", "member", HOSTILE, "city"])
        for i in range(n):
            y = int(rng.random() < 0.5)
            pred = y if rng.random() < 0.8 else 1 - y
            w.writerow(
                [
                    f"A{i:04d}",
                    y,
                    pred,
                    round(rng.random(), 4),
                    rng.choice(["yes", "no"]),
                    TRICKY[i % len(TRICKY)],
                    f"city{rng.randrange(40)}",
                ]
            )


def test_the_sample_drafts_the_bundled_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "loan_screen.csv"
    shutil.copyfile(SAMPLE, data)
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 0
    assert "DRAFT" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# DRAFT spec")
    f = load_spec(out).fairness
    assert f is not None
    assert (f.label, f.prediction, f.probability, f.unit) == (
        "label",
        "prediction",
        "score",
        "person_id",
    )
    assert f.cases == data.resolve()
    assert f.rules == ()
    for attr in ("sex", "age_band"):
        counted = _csv_column(data, attr)
        assert list(f.attributes[attr]) == [v for v, _ in counted.most_common()]
    assert set(f.attributes) == {"sex", "age_band"}  # person_id is the unit, not a group
    # the draft runs: no rule is active, so nothing can PASS
    assert main(["fairness", str(out)]) == 3
    assert "No rule is declared" in capsys.readouterr().err
    # the example rules, uncommented, load and run too
    ruled = tmp_path / "ruled.yaml"
    ruled.write_text(_uncomment_rules(text), encoding="utf-8")
    spec = load_spec(ruled).fairness
    assert spec is not None
    assert [r.id for r in spec.rules] == [
        "selection-by-sex",
        "false-negative-by-sex",
        "error-by-age-band",
    ]
    assert main(["fairness", str(ruled)]) in (0, 1, 3)


def test_a_hostile_column_name_and_tricky_values_survive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "cases.csv"
    _hostile_file(data)
    out = tmp_path / "sub" / "spec.yaml"
    out.parent.mkdir()
    assert main(["init", str(data), "-o", str(out)]) == 0
    f = load_spec(out).fairness
    assert f is not None
    assert (f.label, f.prediction, f.probability, f.unit) == (
        "y_true",
        "y_pred",
        "risk",
        "applicant_id",
    )
    # every value is text exactly as in the file: yes stays yes, 007 keeps its zeros
    assert sorted(f.attributes[HOSTILE]) == sorted(_csv_column(data, HOSTILE))
    assert sorted(f.attributes["member"]) == ["no", "yes"]
    assert "city" not in f.attributes  # 40 distinct values: more than MAX_VALUES
    text = out.read_text(encoding="utf-8")
    assert "\x07" not in text  # written escaped, never raw
    assert "city: more than 20 distinct values" in text
    capsys.readouterr()
    assert main(["fairness", str(out)]) == 3
    ruled = tmp_path / "ruled.yaml"
    ruled.write_text(_uncomment_rules(text), encoding="utf-8")
    spec = load_spec(ruled).fairness
    assert spec is not None and len(spec.rules) == 3
    assert spec.rules[2].attributes == (HOSTILE,)
    assert main(["fairness", str(ruled)]) in (0, 1, 3)


def test_jsonl_booleans_are_declared_as_the_run_reads_them(tmp_path: Path) -> None:
    rng = random.Random(3)
    data = tmp_path / "cases.jsonl"
    rows = [
        {
            "label": int(rng.random() < 0.5),
            "prediction": int(rng.random() < 0.5),
            "veteran": rng.random() < 0.3,
            "region": rng.choice(["north", "south", "007"]),
        }
        for _ in range(300)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 0
    f = load_spec(out).fairness
    assert f is not None
    counted = Counter("true" if r["veteran"] else "false" for r in rows)
    assert list(f.attributes["veteran"]) == [v for v, _ in counted.most_common()]
    assert sorted(f.attributes["region"]) == ["007", "north", "south"]
    assert f.probability is None and f.unit is None
    assert main(["fairness", str(out)]) == 3


def test_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = random.Random(5)
    n = 200
    table = pa.table(
        {
            "outcome": [int(rng.random() < 0.5) for _ in range(n)],
            "decision": [int(rng.random() < 0.5) for _ in range(n)],
            "probability": [rng.random() for _ in range(n)],
            "sex": [rng.choice(["f", "m"]) for _ in range(n)],
        }
    )
    data = tmp_path / "cases.parquet"
    pq.write_table(table, data)
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 0
    f = load_spec(out).fairness
    assert f is not None
    assert (f.label, f.prediction, f.probability) == ("outcome", "decision", "probability")
    assert sorted(f.attributes["sex"]) == ["f", "m"]
    assert main(["fairness", str(out)]) == 3


def test_an_existing_file_is_not_overwritten_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "loan_screen.csv"
    shutil.copyfile(SAMPLE, data)
    out = tmp_path / "spec.yaml"
    out.write_text("mine\n", encoding="utf-8")
    assert main(["init", str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loan_screen.csv", "spec.yaml"]
    assert main(["init", str(data), "-o", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith("# DRAFT spec")
    # never over the data file, even with --force
    assert main(["init", str(data), "-o", str(data), "--force"]) == 2
    assert data.read_bytes() == SAMPLE.read_bytes()


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("missing.csv", None, "does not exist"),
        ("empty.csv", "", "empty"),
        ("cases.xlsx", "a,b\n1,2\n", "cannot tell the format"),
        ("header.csv", "label,prediction,sex\n", "no rows"),
        ("nolabel.csv", "score,sex\n0.5,f\n0.2,m\n", "two columns holding only 0 and 1"),
        ("nogroup.csv", "label,prediction,age\n1,0,30\n0,1,40\n", "no text column"),
        ("binary.csv", b"label,prediction,sex\n1,0,\xff\n", "UTF-8"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str | bytes | None,
    said: str,
) -> None:
    data = tmp_path / name
    if isinstance(content, bytes):
        data.write_bytes(content)
    elif content is not None:
        data.write_text(content, encoding="utf-8")
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert said in err and name in err
    assert not out.exists()


def test_the_summary_matches_an_independent_count(tmp_path: Path) -> None:
    data = tmp_path / "cases.csv"
    _hostile_file(data, n=300)
    source = open_file(data, text_columns=["member"])
    summary = summarize(source, MAX_VALUES)
    by = {c.name: c for c in summary.columns}
    assert summary.rows == 300
    for name in ("member", HOSTILE):
        counted = _csv_column(data, name)
        assert by[name].values is not None
        assert dict(by[name].values) == dict(counted)
        assert by[name].non_null == sum(counted.values())
    assert by["city"].values is None  # 40 values, more than 20: not listed
    risk = [float(v) for v in _csv_column(data, "risk").elements()]
    assert by["risk"].minimum == min(risk) and by["risk"].maximum == max(risk)
    assert by["risk"].not_binary == sum(1 for v in risk if v not in (0.0, 1.0))
    assert by["y_true"].not_binary == 0
    assert count_duplicates(source, "applicant_id") == 0
    assert count_duplicates(source, "member") == 300 - 2


def _col(name: str, kind: str = NUMERIC, **kw: object) -> ColumnSummary:
    base: dict[str, object] = {"non_null": 100, "distinct": 2, "values": None}
    if kind == NUMERIC:
        base |= {"minimum": 0.0, "maximum": 1.0, "not_binary": 0, "fractional": 0}
    base |= kw
    return ColumnSummary(name, kind, **base)  # type: ignore[arg-type]


def test_drafting_prefers_names_then_file_order() -> None:
    group = _col("sex", TEXT, values=(("f", 60), ("m", 40)))
    named = FileSummary(
        "f.csv",
        100,
        (_col("y_pred"), _col("flag"), _col("y_true"), group),
    )
    d = draft_from_summary(named, cases="f.csv", name="f", unit=None)
    assert (d.label, d.prediction, d.checks) == ("y_true", "y_pred", ())
    unnamed = FileSummary("f.csv", 100, (_col("a"), _col("b"), group))
    d = draft_from_summary(unnamed, cases="f.csv", name="f", unit=None)
    assert (d.label, d.prediction) == ("a", "b")
    assert len(d.checks) == 2  # both guesses are flagged for checking
    score = _col("s", minimum=0.01, maximum=0.99, not_binary=90, fractional=90, distinct=90)
    over = _col("amount", minimum=0.5, maximum=3.5, not_binary=90, fractional=90, distinct=90)
    d = draft_from_summary(
        FileSummary("f.csv", 100, (_col("label"), _col("prediction"), over, score, group)),
        cases="f.csv",
        name="f",
        unit=None,
    )
    assert d.probability == "s"  # amount is not in [0, 1]


def test_groups_that_would_not_load_are_not_declared() -> None:
    cols = (
        _col("label"),
        _col("prediction"),
        _col("code", TEXT, values=(("1", 50), ("1.0", 50))),  # the same number twice
        _col("spaced", TEXT, values=(("a", 50), ("a ", 50))),  # the same group, trimmed
        _col("one", TEXT, values=(("only", 100),)),
        _col("sex", TEXT, values=(("f", 50), ("m", 50))),
    )
    d = draft_from_summary(FileSummary("f.csv", 100, cols), cases="f.csv", name="f", unit=None)
    assert d.attributes == ("sex",)
    assert "code: two values spell the same number" in d.text
    assert "spaced: two values differ only by spaces" in d.text
    with pytest.raises(InputError, match="no text column"):
        draft_from_summary(FileSummary("f.csv", 100, cols[:5]), cases="f.csv", name="f", unit=None)


def test_a_repeated_id_is_not_the_unit(tmp_path: Path) -> None:
    data = tmp_path / "cases.csv"
    lines = ["person_id,label,prediction,sex"]
    lines += [f"p{i % 390},{i % 2},{(i // 2) % 2},{'fm'[i % 3 == 0]}" for i in range(400)]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    d = draft_spec(data, tmp_path / "spec.yaml")
    assert d.unit is None  # ten ids repeat: declaring it would refuse the file


#: Characters an editor does not show as themselves: a bidi override, a zero-width
#: space, a byte-order mark, a line separator, a no-break space.
HIDDEN = ("\u202e", "\u200b", "\ufeff", "\u2028", "\u00a0")


def test_bidi_and_zero_width_characters_are_written_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    group = "k\u202ez\u200b"
    values = ["a\u200bb", "c\u202ed", "pl\u00a0ain"]
    rng = random.Random(3)
    data = tmp_path / "cases.csv"
    with data.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["label", "prediction", group])
        for i in range(90):
            w.writerow([rng.randint(0, 1), rng.randint(0, 1), values[i % 3]])
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert not any(ch in text for ch in HIDDEN), [c for c in HIDDEN if c in text]
    assert '"k\\u202Ez\\u200B"' in text and '"a\\u200Bb"' in text
    # the escapes read back as the real column and values
    f = load_spec(out).fairness
    assert f is not None
    assert list(f.attributes) == [group]
    assert sorted(f.attributes[group]) == sorted(values)
    capsys.readouterr()
    assert main(["fairness", str(out)]) == 3  # it runs on the real column (no rule: 3)


# --- the whole gate: system:, favorable:, and an evaluation: block the data supports ----

#: What each battery test needs, written out independently of respai.init: a score
#: column, cases labelled with the favourable outcome, both label values, the model.
NEEDS = {
    "accuracy": set(),
    "auc": {"score", "favourable", "unfavourable"},
    "impact_ratio": set(),
    "selection_rate_diff": set(),
    "equal_opportunity_diff": {"favourable"},
    "perturbation_stability": {"model"},
    "missing_decisions": set(),
    "completeness": set(),
    "class_balance": set(),
}


def _shaped_file(
    path: Path,
    *,
    score: bool = False,
    groups: tuple[str, ...] = ("sex",),
    label: str = "label",
    label_values: tuple[int, ...] = (0, 1),
    n: int = 600,
    seed: int = 11,
) -> Counter[str]:
    """A generated cases file of one shape; returns the label's counts (csv module)."""
    rng = random.Random(seed)
    choices = {
        "sex": ["female", "male"],
        "age_band": ["young", "mid", "old"],
        "region": ["n", "s"],
    }
    header = [label, "prediction", *(["score"] if score else []), *groups]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        for _ in range(n):
            y = rng.choice(label_values)
            p = rng.random()
            pred = int(p < 0.5) if rng.random() < 0.8 else 1 - y
            row: list[object] = [y, pred]
            if score:
                row.append(round(p, 4))
            row += [rng.choice(choices[g]) for g in groups]
            w.writerow(row)
    return _csv_column(path, label)


def _expected_tests(has: set[str]) -> list[str]:
    from respai.battery import BATTERY

    return [t for t in BATTERY if NEEDS[t] <= has]


@pytest.mark.parametrize(
    ("shape", "kwargs", "has"),
    [
        ("label+prediction", {}, {"favourable", "unfavourable"}),
        ("+score", {"score": True}, {"score", "favourable", "unfavourable"}),
        (
            "several groups",
            {"score": True, "groups": ("sex", "age_band", "region")},
            {"score", "favourable", "unfavourable"},
        ),
        ("one label value", {"score": True, "label_values": (0,)}, {"score", "unfavourable"}),
        ("adverse label", {"label": "defaulted"}, {"favourable", "unfavourable"}),
    ],
)
def test_the_draft_declares_the_whole_gate_and_evaluate_runs_only_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shape: str,
    kwargs: dict[str, object],
    has: set[str],
) -> None:
    data = tmp_path / "screen.csv"
    counted = _shaped_file(data, **kwargs)  # type: ignore[arg-type]
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 0, shape
    text = out.read_text(encoding="utf-8")
    spec = load_spec(out)
    # system: named after the file, the rest left as TODO comments
    assert spec.system.name == "screen"
    assert "# version:" in text and "TODO" in text
    # favorable: chosen, with the label's values and the reason in a comment
    f = spec.fairness
    assert f is not None
    adverse = kwargs.get("label") == "defaulted"
    assert f.favorable == (0 if adverse else 1)
    held = ", ".join(f"{v} ({counted[str(v)]:,} cases)" for v in (0, 1) if counted[str(v)])
    assert f"holds {held};" in text
    assert ("'defaulted' reads as an outcome adverse" in text) == adverse
    assert ("1, the default" in text) == (not adverse)
    # evaluation: exactly the tests the data supports, each with its threshold written
    assert spec.evaluation is not None and spec.evaluation.explicit_tests
    expected = _expected_tests(has)
    assert list(spec.evaluation.tests) == expected
    from respai.battery import DEFAULT_THRESHOLDS

    for test in expected:
        t = DEFAULT_THRESHOLDS[test]
        assert re.search(rf"- {test} +# {re.escape(t.comparison)} {t.value} ", text), test
    assert "#   perturbation_stability: needs the model" in text
    # evaluate runs the declared tests and nothing else, with no usage error
    capsys.readouterr()
    code = main(["evaluate", str(out), "--out", str(tmp_path / "o"), "--no-ledger", "--json"])
    assert code in (0, 1, 3), capsys.readouterr().err
    result = json.loads(capsys.readouterr().out)
    assert result["system"]["name"] == "screen"
    ran = {t["test_id"] for t in result["tests"]}
    assert ran == set(expected)
    assert all(t["verdict"] != "MANUAL_REVIEW" for t in result["tests"])
    groups = kwargs.get("groups", ("sex",))
    per = {t["test_key"] for t in result["tests"] if t["test_id"] == "impact_ratio"}
    assert per == {f"impact_ratio:{g}" for g in groups}  # type: ignore[union-attr]


def test_a_decisions_only_file_points_to_the_ll144_draft(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # prediction only: no label, so no fairness spec; the LL144 draft audits it
    rng = random.Random(4)
    data = tmp_path / "decisions.csv"
    with data.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["applicant_id", "selected", "sex", "race"])
        for i in range(300):
            w.writerow(
                [
                    f"a{i}",
                    int(rng.random() < 0.4),
                    rng.choice("FM"),
                    rng.choice(["White", "Black", "Asian"]),
                ]
            )
    out = tmp_path / "spec.yaml"
    assert main(["init", str(data), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "two columns holding only 0 and 1" in err and "respai init --ll144" in err
    assert not out.exists()
    assert main(["init", "--ll144", str(data), "-o", str(out)]) == 0
    ll = load_spec(out).blocks["ll144"]
    assert (ll.selected, ll.sex, ll.race) == ("selected", "sex", "race")  # type: ignore[attr-defined]
    assert main(["ll144", str(out)]) == 0


def test_too_many_files_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "loan_screen.csv"
    shutil.copyfile(SAMPLE, data)
    assert main(["init", str(data), str(data), "-o", str(tmp_path / "s.yaml")]) == 2
    assert "takes one data file" in capsys.readouterr().err
    assert main(["init", "--ll144", str(data), str(data), str(data)]) == 2
    assert "takes two files" in capsys.readouterr().err
    assert not (tmp_path / "s.yaml").exists()


def _text_outcomes(path: Path, label: tuple[str, str], decision: tuple[str, str]) -> None:
    """400 cases: a text label and decision (each pair is (read as 0, read as 1)), sex F/M."""
    rng = random.Random(29)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["status", "decision", "sex"])
        for _ in range(400):
            y = int(rng.random() < 0.6)
            p = y if rng.random() < 0.85 else 1 - y
            w.writerow([label[y], decision[p], rng.choice("FM")])


@pytest.mark.parametrize(
    ("label", "decision"),
    [
        (("no", "yes"), ("No", "Yes")),
        (("Defaulted", "Repaid"), ("decline", "approve")),
        (("rejected", "hired"), ("FALSE", "TRUE")),
    ],
)
def test_text_outcomes_are_drafted_with_their_maps_and_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    label: tuple[str, str],
    decision: tuple[str, str],
) -> None:
    data = tmp_path / "cases.csv"
    _text_outcomes(data, label, decision)
    spec = tmp_path / "spec.yaml"
    draft = draft_spec(data, spec)
    assert (draft.label, draft.prediction, draft.attributes) == ("status", "decision", ("sex",))
    assert not any("_map" in c for c in draft.checks)  # the words decided both maps
    spec.write_text(draft.text, encoding="utf-8")
    loaded = load_spec(spec).fairness
    assert loaded is not None
    assert loaded.label_map == {label[0]: 0, label[1]: 1}
    assert loaded.prediction_map == {decision[0]: 0, decision[1]: 1}
    # the run's counts are the csv module's count of the spellings read as 1
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    out = tmp_path / "out"
    assert main(["evaluate", str(spec), "--no-ledger", "--out", str(out)]) in (0, 1, 3)
    envelope = json.loads((out / "record.json").read_text())
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    start = next(r for r in predicate["records"] if r["record_type"] == "run_start")
    overall = start["counts"]["overall"] if "counts" in start else predicate["counts"]["overall"]
    labelled = _csv_column(data, "status")[label[1]]
    predicted = _csv_column(data, "decision")[decision[1]]
    assert overall["tp"] + overall["fn"] == labelled
    assert overall["tp"] + overall["fp"] == predicted


def test_a_two_valued_group_column_is_no_outcome_and_an_unread_pair_is_flagged() -> None:
    two = (("F", 200), ("M", 200))
    cols = (
        _col("label"),
        _col("sex", TEXT, values=two),
        _col("region", TEXT, values=(("north", 150), ("south", 250))),
    )
    with pytest.raises(InputError, match="two text values"):
        draft_from_summary(FileSummary("x.csv", 400, cols), cases="x.csv", name="x", unit=None)
    pair = (("A", 100), ("B", 300))
    cols = (_col("label"), _col("prediction", TEXT, values=pair), _col("sex", TEXT, values=two))
    draft = draft_from_summary(FileSummary("x.csv", 400, cols), cases="x.csv", name="x", unit=None)
    assert draft.prediction == "prediction" and draft.attributes == ("sex",)
    assert any(c.startswith("prediction_map: neither 'A' nor 'B'") for c in draft.checks)
    assert "prediction_map:\n    A: 0\n    B: 1" in draft.text
