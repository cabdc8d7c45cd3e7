"""A compact record's report re-derives its summaries in Chromium, as ``respai verify`` does.

A grouping of more than ``COMPACT_MIN_GROUPS`` groups is written as columns of counts and
its tests' per-group rows are left out (record format 1.1). The page's ``derived`` check
is the browser's copy of :func:`respai.recompute.check_compact`: the same detail on a
sound record, and a failure naming the summary when a record signed with a correct
signature states a summary its counts do not give.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.run.test_compact import _predicate, _run

from respai.recompute import check_compact
from respai.record import key_id, seal
from respai.record.keys import public_key_raw
from respai.render.report import render_report


def _checks(opened: Any) -> str:
    return str(opened.page.text_content("#verify-checks"))


def _resealed(predicate: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """``predicate`` linked and signed again with a new key: every check but derived holds."""
    key = Ed25519PrivateKey.generate()
    kid = key_id(key.public_key())
    edited = copy.deepcopy(predicate)
    edited["key_id"] = kid
    return seal(edited, None, key, kid), public_key_raw(key.public_key())


@pytest.fixture(scope="module")
def compact_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compact")
    with pytest.MonkeyPatch.context() as mp:
        return _run(folder, mp, "compact", 40)  # the golden case's 48 stores, compact


def test_a_compact_record_verifies_and_derives_as_respai_verify(
    compact_out: Path, open_html: Any
) -> None:
    opened = open_html((compact_out / "report.html").read_text(encoding="utf-8"))
    assert opened.settled() == ("true", ""), _checks(opened)
    python = check_compact(_predicate(compact_out))
    assert python is not None and python.ok
    assert python.detail in _checks(opened)
    assert "48 groups" in python.detail and opened.errors == []


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        ("gap", "gap_bounds.hi"),
        ("small", "small_cells"),
        ("count", "add up"),
        ("short", "columns.tp"),
        ("selected", "gap_bounds.hi"),
    ],
)
def test_a_signed_summary_the_counts_do_not_give_fails_derived(
    compact_out: Path, open_html: Any, edit: str, named: str
) -> None:
    predicate = _predicate(compact_out)
    records = predicate["records"]
    rule = next(r for r in records if r.get("test_key") == "rule:sel-store")
    cols = predicate["counts"]["groupings"]["store"]["columns"]
    if edit == "gap":
        rule["details"]["gap_bounds"]["hi"] -= 0.01
    elif edit == "small":
        rule["details"]["small_cells"] = rule["details"]["small_cells"][1:]
    elif edit == "count":
        cols["tp"][3] += 5
    elif edit == "short":
        cols["tp"].pop()
    else:  # the same cases, all selected: the highest rate and the gap move
        cols["fp"][0] += cols["tn"][0]
        cols["tn"][0] = 0
    python = check_compact(predicate)
    assert python is not None and not python.ok and named in python.detail
    envelope, raw = _resealed(predicate)
    opened = open_html(render_report(envelope, raw))
    verified, failed = opened.settled()
    assert verified == "false" and "derived" in (failed or "").split(","), _checks(opened)
    assert "signature" not in (failed or "")
    assert named in _checks(opened)
    assert opened.errors == []


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_the_page_derives_what_python_derives_on_varied_counts(
    compact_out: Path, open_html: Any, seed: int
) -> None:
    """Counts redrawn (empty, small and 50,000-case groups, cases without a decision) and
    every stated summary set to what Python derives: the page's own derivation (its
    Clopper-Pearson gap bound within the tolerance of SciPy's) agrees, so it verifies."""
    import numpy as np

    from respai.recompute import _labels, _rate_key, _upper_gap, derived_rates

    predicate = _predicate(compact_out)
    grouping = predicate["counts"]["groupings"]["store"]
    cols = grouping["columns"]
    rng = np.random.default_rng(seed)
    sizes = rng.choice([0, 1, 3, 10, 200, 50_000], size=len(cols["tp"])).tolist()
    names = ("tp", "fp", "tn", "fn", "missing_prediction_label_1", "missing_prediction_label_0")
    for i, n in enumerate(sizes):
        drawn = rng.multinomial(n, [0.2, 0.3, 0.3, 0.15, 0.03, 0.02]).tolist()
        for name, value in zip(names, drawn, strict=True):
            cols[name][i] = value
    in_groups = sum(sum(cols[c]) for c in names)
    predicate["counts"]["cases"] = in_groups + sum(grouping["left_out"].values())
    labels = _labels(cols["key"])
    stated = 0
    for r in predicate["records"]:
        d = r.get("details") or {}
        key = _rate_key(d.get("rate"))
        if "groups_derived" not in d or key is None:
            continue
        events, decided, missing = derived_rates(cols, key)
        floor = max(d["min_cell"], 1)
        small = [(lab, n) for lab, n in zip(labels, decided, strict=True) if n < floor]
        d["small_cells"] = (  # a rule lists objects, a spread test the groups' names
            [
                {"group": g, "with_prediction": n, "verdict": "insufficient_evidence"}
                for g, n in small
            ]
            if r.get("test_id") == "group_rule"
            else [g for g, _ in small]
        )
        if (
            r.get("test_id") == "group_rule"
            and isinstance(d.get("gap_bounds"), dict)
            and d.get("method", "simultaneous") == "simultaneous"
            and d.get("reference") is None
        ):
            d["gap_bounds"]["hi"] = _upper_gap(events, decided, missing, d["alpha_per_group"])
            stated += 1
    assert stated >= 1
    python = check_compact(predicate)
    assert python is not None and python.ok, python
    envelope, raw = _resealed(predicate)
    opened = open_html(render_report(envelope, raw))
    assert opened.settled() == ("true", ""), _checks(opened)
    assert python.detail in _checks(opened)


def test_the_pages_clopper_pearson_ends_are_scipys_to_1e_11(browser: Any) -> None:
    """The page's beta quantile (its own code, cut from the script) against SciPy's, from
    1 to 10 million cases and alpha down to 1e-9: far inside the check's 1e-9."""
    import numpy as np
    from scipy.special import betainccinv, betaincinv

    from respai.render.report.document import page_script

    script = page_script()
    code = script[script.index("  var LANCZOS") : script.index("  // max over i != j")]
    rng = np.random.default_rng(1)
    pairs = [
        (int(rng.integers(0, n + 1)), n)
        for n in (1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**5, 10**6, 10**7)
        for _ in range(10)
    ]
    alphas = [0.05, 0.05 / 48, 0.05 / 1e5, 1e-9]
    page = browser.new_page()
    try:
        ends = page.evaluate(
            "([pairs, alphas]) => {" + code + "return pairs.flatMap(([k, n]) => alphas.map("
            "(a) => [k > 0 ? betaIncInv(k, n - k + 1, a / 2) : 0,"
            " k < n ? 1 - betaIncInv(n - k, k + 1, a / 2) : 1]));}",
            [pairs, alphas],
        )
    finally:
        page.close()
    want = [
        [
            float(betaincinv(k, n - k + 1, a / 2)) if k > 0 else 0.0,
            float(betainccinv(k + 1, n - k, a / 2)) if k < n else 1.0,
        ]
        for k, n in pairs
        for a in alphas
    ]
    worst = max(
        abs(g - w)
        for got, exp in zip(ends, want, strict=True)
        for g, w in zip(got, exp, strict=True)
    )
    assert worst < 1e-11, worst


@pytest.fixture(scope="module")
def every_grouping_compact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("every")
    with pytest.MonkeyPatch.context() as mp:
        return _run(folder, mp, "all", 1)  # every rule kind of the golden case, compact


def test_every_rule_kind_over_compact_groupings_derives_in_the_page(
    every_grouping_compact: Path, open_html: Any
) -> None:
    """Reference, ratio, worst-group and equalized-odds rules (each error rate a part):
    the page's detail is Python's; a part's wrong gap bound is named with its rate."""
    out = every_grouping_compact
    opened = open_html((out / "report.html").read_text(encoding="utf-8"))
    assert opened.settled() == ("true", ""), _checks(opened)
    predicate = _predicate(out)
    python = check_compact(predicate)
    assert python is not None and python.ok
    assert python.detail in _checks(opened)
    rule = next(r for r in predicate["records"] if r.get("test_key") == "rule:eo-age")
    rule["details"]["parts"][0]["gap_bounds"]["hi"] += 0.02
    envelope, raw = _resealed(predicate)
    opened = open_html(render_report(envelope, raw), "wrong.html")
    verified, failed = opened.settled()
    assert verified == "false" and failed == "derived", _checks(opened)
    assert "test rule:eo-age (false_positive): gap_bounds.hi" in _checks(opened)
