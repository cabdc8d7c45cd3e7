"""``fairness.favorable``: every rate, ratio and difference is of the favourable outcome.

A lender's data where 1 means "flagged as likely to default": with ``favorable: 0`` the
impact ratio is the ratio of the approval rates, cross-checked against a direct pandas
computation and fairlearn's ``selection_rate`` with ``pos_label=0``, and it is that number
in the signed record, ``--json``, the terminal, the JUnit and CycloneDX exports and the
HTML report, each of which states the orientation. Flipping every 0/1 of the label and
the prediction (and the score to ``1 - p``) and declaring ``favorable: 0`` gives the same
counts and numbers as the original with ``favorable: 1``.
"""

from __future__ import annotations

import base64
import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import respai
from respai.cli import main
from respai.errors import SpecError
from respai.spec import parse_fairness

GROUPS = ("hs", "college")


def lender(n: int = 1200, seed: int = 3) -> pd.DataFrame:
    """Loans: ``defaulted`` and ``flagged`` are 1 for the adverse outcome; ``p`` = P(1)."""
    rng = np.random.default_rng(seed)
    edu = rng.choice(GROUPS, n)
    risk = np.where(edu == "hs", 0.45, 0.2)
    defaulted = (rng.random(n) < risk).astype(int)
    # scores on a grid of odd 64ths (never on a calibration bin's edge, exact as 1 - p):
    # higher for those who defaulted, and for the hs group
    step = rng.integers(0, 22, n) + 8 * defaulted + np.where(edu == "hs", 6, 0)
    p = (2 * np.minimum(step, 31) + 1) / 64
    flagged = (p > 0.5).astype(int)
    return pd.DataFrame(
        {"id": [f"c{i}" for i in range(n)], "defaulted": defaulted, "flagged": flagged,
         "p": p, "education": edu}
    )  # fmt: skip


SPEC = """\
system: {{name: lender}}
fairness:
  cases: cases.csv
  label: defaulted
  prediction: flagged
  probability: p
  unit: id
  favorable: {favorable}
  attributes: {{education: [hs, college]}}
  rules:
    - {{id: approvals, rate: selection, attribute: education, min_group_ratio: 0.8}}
evaluation: {{score: p}}
"""


def spec_dict(favorable: int | str | None = 0) -> dict[str, Any]:
    block: dict[str, Any] = {
        "label": "defaulted",
        "prediction": "flagged",
        "probability": "p",
        "attributes": {"education": list(GROUPS)},
        "rules": [
            {"id": "approvals", "rate": "selection", "attribute": "education",
             "min_group_ratio": 0.8},
            {"id": "tpr", "rate": "false_negative", "attribute": "education",
             "max_group_gap": 0.2},
        ],
    }  # fmt: skip
    if favorable is not None:
        block["favorable"] = favorable
    return {"fairness": block, "evaluation": {"score": "p"}}


def approval_ratio(df: pd.DataFrame) -> float:
    """min / max of the approval rates (share not flagged), computed directly."""
    rates = (df["flagged"] == 0).groupby(df["education"]).mean()
    return float(rates.min() / rates.max())


# --- the spec -------------------------------------------------------------------------


def test_favorable_defaults_to_1_and_reads_0_and_1() -> None:
    base = spec_dict(None)["fairness"]
    assert parse_fairness(base).favorable == 1
    for written, want in ((0, 0), (1, 1), ("0", 0), (1.0, 1)):
        parsed = parse_fairness({**base, "favorable": written})
        assert (parsed.favorable, parsed.favorable_value) == (want, None)


def test_favorable_may_name_a_mapped_value() -> None:
    base = {
        **spec_dict(None)["fairness"],
        "label_map": {"repaid": 0, "defaulted": 1},
        "prediction_map": {"repaid": 0, "defaulted": 1},
    }
    parsed = parse_fairness({**base, "favorable": "repaid"})
    assert (parsed.favorable, parsed.favorable_value) == (0, "repaid")
    assert "favorable: 0 ('repaid')" in parsed.orientation


@pytest.mark.parametrize(
    ("value", "extra", "says"),
    [
        (True, {}, "boolean"),
        (2, {}, "must be 1 or 0"),
        ("approved", {}, "no label_map"),
        ("aproved", {"label_map": {"approved": 0, "denied": 1}}, "did you mean"),
        (
            "approved",
            {"label_map": {"approved": 0, "denied": 1}, "prediction_map": {"approved": 1}},
            "to 0 by label_map but to 1 by prediction_map",
        ),
    ],
)
def test_a_bad_favorable_is_a_spec_error(value: Any, extra: dict[str, Any], says: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_fairness({**spec_dict(None)["fairness"], **extra, "favorable": value})
    assert "fairness.favorable" in str(err.value)
    assert says.lower() in str(err.value).lower()


def test_a_bad_favorable_exits_2_with_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lender(100).to_csv(tmp_path / "cases.csv", index=False)
    (tmp_path / "spec.yaml").write_text(SPEC.format(favorable="yes"), encoding="utf-8")
    assert main(["fairness", str(tmp_path / "spec.yaml")]) == 2
    err = capsys.readouterr().err
    assert "fairness.favorable" in err and "Traceback" not in err


# --- the numbers ----------------------------------------------------------------------


def test_the_impact_ratio_is_of_the_approval_rates() -> None:
    df = lender()
    e = respai.evaluate(spec_dict(0), data=df)
    tests = {t.key: t for t in e.battery}
    want = approval_ratio(df)
    assert tests["impact_ratio:education"].value == pytest.approx(want, rel=1e-12)
    flagged = (df["flagged"] == 1).groupby(df["education"]).mean()
    assert want != pytest.approx(float(flagged.min() / flagged.max()))  # the two differ

    from fairlearn.metrics import (
        MetricFrame,
        demographic_parity_ratio,
        selection_rate,
        true_positive_rate,
    )

    frame = MetricFrame(
        metrics={
            "sr": partial(selection_rate, pos_label=0),
            "tpr": partial(true_positive_rate, pos_label=0),
        },
        y_true=df["defaulted"],
        y_pred=df["flagged"],
        sensitive_features=df["education"],
    )
    ratio = frame.ratio()
    diff = frame.difference()
    assert tests["impact_ratio:education"].value == pytest.approx(ratio["sr"], rel=1e-12)
    assert tests["impact_ratio:education"].value == pytest.approx(
        demographic_parity_ratio(
            1 - df["defaulted"], 1 - df["flagged"], sensitive_features=df["education"]
        ),
        rel=1e-12,
    )
    assert tests["selection_rate_diff:education"].value == pytest.approx(diff["sr"], rel=1e-12)
    assert tests["equal_opportunity_diff:education"].value == pytest.approx(diff["tpr"], rel=1e-12)
    # the per-group table's selection rate is the approval rate
    table = e.fairness.by_group("education")
    got = dict(zip(table["group"], table["selection"], strict=True))
    for group in GROUPS:
        assert got[group] == pytest.approx(frame.by_group["sr"][group], rel=1e-12)


def test_auc_and_calibration_do_not_change_with_the_orientation() -> None:
    from sklearn.metrics import roc_auc_score

    df = lender()
    one = {t.key: t for t in respai.evaluate(spec_dict(1), data=df).battery}
    zero = {t.key: t for t in respai.evaluate(spec_dict(0), data=df).battery}
    assert one["auc"].value == zero["auc"].value
    assert one["auc"].interval == zero["auc"].interval
    # the AUC of 1 - p for the favourable label 0 is the AUC of p for the label 1
    assert zero["auc"].value == pytest.approx(
        roc_auc_score(df["defaulted"] == 0, 1 - df["p"]), rel=1e-12
    )
    assert zero["auc"].value == pytest.approx(roc_auc_score(df["defaulted"], df["p"]), rel=1e-12)
    cal1 = respai.evaluate(spec_dict(1), data=df).fairness.calibration
    cal0 = respai.evaluate(spec_dict(0), data=df).fairness.calibration
    ece0 = [r.ece for r in cal0["education"]]
    assert ece0 == pytest.approx([r.ece for r in cal1["education"]], rel=1e-9)
    # directly: 10 equal-width bins of the favourable probability 1 - p, against the
    # share of favourable labels (the grid of odd 64ths never falls on a bin edge)
    for group, got in zip(GROUPS, ece0, strict=True):
        g = df[df["education"] == group]
        q = 1 - g["p"]
        fav = (g["defaulted"] == 0).astype(float)
        bins = np.minimum(np.floor(q * 10), 9)
        gaps = [abs(q[bins == b].mean() - fav[bins == b].mean()) * (bins == b).sum()
                for b in range(10) if (bins == b).any()]  # fmt: skip
        assert got == pytest.approx(sum(gaps) / len(g), abs=1e-6)


def _flipped(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(defaulted=1 - df["defaulted"], flagged=1 - df["flagged"], p=1 - df["p"])


def _numbers(e: Any) -> dict[str, Any]:
    return {
        "battery": {t.key: (t.value, t.interval, t.verdict) for t in e.battery},
        "rules": {r.rule.id: (r.verdict, r.gap_bounds) for r in e.fairness.rules},
        "counts": e.counts,
    }


@st.composite
def cases(draw: Any) -> pd.DataFrame:
    n = draw(st.integers(20, 120))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < draw(st.floats(0.5, 0.95)), y, 1 - y).astype(float)
    pred[rng.random(n) < draw(st.sampled_from([0.0, 0.05]))] = np.nan  # some undecided
    return pd.DataFrame(
        {
            "defaulted": y,
            "flagged": pred,
            "p": (2 * rng.integers(0, 32, n) + 1) / 64,
            "education": rng.choice(GROUPS, n),
        }
    )


@settings(max_examples=8, deadline=None)
@given(cases())
def test_flipping_the_data_and_declaring_favorable_0_changes_nothing(df: pd.DataFrame) -> None:
    original = respai.evaluate(spec_dict(1), data=df)
    flipped = respai.evaluate(spec_dict(0), data=_flipped(df))
    assert _numbers(flipped) == _numbers(original)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(cases())
def test_flipping_changes_nothing_over_many_draws(df: pd.DataFrame) -> None:
    original = respai.evaluate(spec_dict(1), data=df)
    flipped = respai.evaluate(spec_dict(0), data=_flipped(df))
    assert _numbers(flipped) == _numbers(original)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 6)), min_size=1, max_size=40))
def test_reversed_score_is_the_rank_sums_of_the_negated_score(
    cases_: list[tuple[int, int]],
) -> None:
    """Exact enumeration: each placement counted pairwise, ties once, for ``s`` and ``-s``."""
    from respai.engine import RankParts
    from respai.load import reversed_score

    def parts(scored: list[tuple[int, int]]) -> RankParts:
        pos = [s for y, s in scored if y == 1]
        neg = [s for y, s in scored if y == 0]
        xs = [sum(2 * (t < s) + (t == s) for t in neg) for s in pos]
        ws = [sum(2 * (t < s) + (t == s) for t in pos) for s in neg]
        return RankParts(
            len(pos), len(neg), sum(xs), sum(x * x for x in xs), sum(ws), sum(w * w for w in ws)
        )

    assert reversed_score(parts(cases_)) == parts([(y, -s) for y, s in cases_])


# --- every output ---------------------------------------------------------------------


def _predicate(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    return dict(json.loads(base64.b64decode(envelope["payload"]))["predicate"])


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, pd.DataFrame]:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    df = lender()
    df.to_csv(tmp_path / "cases.csv", index=False)
    (tmp_path / "spec.yaml").write_text(SPEC.format(favorable=0), encoding="utf-8")
    return tmp_path, df


def test_every_output_gives_the_approval_ratio_and_states_the_orientation(
    sealed: tuple[Path, pd.DataFrame], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path, df = sealed
    want = approval_ratio(df)
    out = tmp_path / "out"
    code = main(["evaluate", str(tmp_path / "spec.yaml"), "--out", str(out), "--no-ledger",
                 "--json"])  # fmt: skip
    assert code == 1  # the approval ratio is far below 0.8
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    by_key = {t["test_key"]: t for t in shown["tests"]}
    assert by_key["impact_ratio:education"]["value"] == pytest.approx(want, rel=1e-12)
    assert shown["run_start"]["settings"]["favorable"] == 0
    assert "favorable: 0" in shown["run_start"]["settings"]["orientation"]
    # the terminal: the orientation line and the ratio
    assert "favorable: 0 (recoded" in captured.err
    assert f"impact_ratio:education            {want:.3f}" in captured.err

    # the signed record
    predicate = _predicate(out / "record.json")
    start = predicate["records"][0]
    assert start["settings"]["favorable"] == 0
    assert start["settings"]["orientation"].startswith("favorable: 0.")
    tests = {r["test_key"]: r for r in predicate["records"] if r["record_type"] == "test"}
    assert tests["impact_ratio:education"]["value"] == pytest.approx(want, rel=1e-12)

    # JUnit and CycloneDX
    junit = tmp_path / "junit.xml"
    bom = tmp_path / "bom.json"
    assert main(["export", str(out / "record.json"), "--format", "junit", "-o", str(junit)]) == 0
    text = junit.read_text(encoding="utf-8")
    assert '<property name="favorable" value="0" />' in text
    assert "[impact_ratio:education]" in text  # JUnit carries the verdict, not the value
    assert main(["export", str(out / "record.json"), "--format", "cyclonedx", "-o", str(bom)]) == 0
    doc = json.loads(bom.read_text(encoding="utf-8"))
    props = {p["name"]: p["value"] for p in doc["components"][0]["properties"]}
    assert props["respai:favorable"] == "0"
    assert props["respai:orientation"].startswith("favorable: 0.")
    metrics = doc["components"][0]["modelCard"]["quantitativeAnalysis"]["performanceMetrics"]
    ratios = [float(m["value"]) for m in metrics if m.get("type") == "impact_ratio"]
    assert ratios and ratios[0] == pytest.approx(want, abs=1e-4)

    # the report: the orientation bound to the record, the ratio shown
    html = tmp_path / "report.html"
    assert main(["report", str(out / "record.json"), "-o", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert 'data-bind="/predicate/records/0/settings/orientation"' in page
    assert "Favourable outcome" in page
    assert f">{want:.3f}<" in page or f">{want:.4f}<" in page


def test_fairness_json_and_its_junit_state_the_orientation(
    sealed: tuple[Path, pd.DataFrame], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path, df = sealed
    junit = tmp_path / "f.xml"
    assert main(["fairness", str(tmp_path / "spec.yaml"), "--json", "--junit", str(junit)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["favorable"] == 0
    rows = {r["group"]: r for r in doc["tables"]["education"]["rows"]}
    approvals = (df["flagged"] == 0).groupby(df["education"]).mean()
    for group in GROUPS:
        got = rows[group]["metrics"]["selection"]["value"]
        assert got == pytest.approx(approvals[group], rel=1e-12)
    assert '<property name="favorable" value="0" />' in junit.read_text(encoding="utf-8")


def test_a_favorable_0_is_a_plan_criterion_and_1_keeps_earlier_plan_ids() -> None:
    from respai.plan.criteria import fairness_criteria

    assert "favorable" not in fairness_criteria(parse_fairness(spec_dict(1)["fairness"]))
    assert fairness_criteria(parse_fairness(spec_dict(0)["fairness"]))["favorable"] == 0


def test_init_drafts_favorable_0_for_an_adverse_label(tmp_path: Path) -> None:
    from respai.init import draft_spec

    df = lender(200)
    df.to_csv(tmp_path / "loans.csv", index=False)
    draft = draft_spec(tmp_path / "loans.csv", tmp_path / "spec.yaml")
    assert draft.favorable == 0
    assert "  favorable: 0\n" in draft.text
    assert "favorable: 0  selection rate = share predicted 0" in draft.text
    assert any("favorable: 0 was drafted" in c for c in draft.checks)
    df.rename(columns={"defaulted": "y_true", "flagged": "y_pred"}).to_csv(
        tmp_path / "hire.csv", index=False
    )
    assert draft_spec(tmp_path / "hire.csv", tmp_path / "spec.yaml").favorable == 1
