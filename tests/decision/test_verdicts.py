"""The verdict table, small cells and the screening line (:mod:`respai.decision.verdicts`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from respai import decision
from respai.types import Verdict


def test_verdict_table_order() -> None:
    every = {"broken": True, "held": True, "small": True, "undefined": True}
    assert decision.verdict_table(left_out=True, **every)[1] == "too_many_left_out"
    assert decision.verdict_table(**every) == (Verdict.FAIL, "threshold_exceeded")
    assert decision.verdict_table(**{**every, "broken": False})[1] == "small_cell"
    assert decision.verdict_table(broken=False, held=True, undefined=True)[1] == "ratio_undefined"
    assert decision.verdict_table(broken=False, held=True) == (Verdict.PASS, "within_threshold")
    assert decision.verdict_table(broken=False, held=False) == (
        Verdict.INSUFFICIENT_EVIDENCE,
        "interval_straddles",
    )


@pytest.mark.parametrize(
    ("verdict", "stands", "expected"),
    [
        (Verdict.PASS, True, Verdict.INSUFFICIENT_EVIDENCE),
        (Verdict.FAIL, True, Verdict.FAIL),
        (Verdict.FAIL, False, Verdict.INSUFFICIENT_EVIDENCE),
        (Verdict.INSUFFICIENT_EVIDENCE, False, Verdict.INSUFFICIENT_EVIDENCE),
    ],
)
def test_a_small_cell_never_passes(verdict: Verdict, stands: bool, expected: Verdict) -> None:
    assert decision.with_small_cells(verdict, fail_stands=stands) is expected


def test_below_line_is_exact() -> None:
    assert decision.below_line(Fraction(100, 300) / Fraction(125, 300), 0.8) is False
    assert decision.below_line(Fraction(79, 100), 0.8) is True
    assert decision.below_line(None, 0.8) is None


@pytest.mark.parametrize("cumulative", list(Verdict))
@pytest.mark.parametrize("alarm", [None, "a change was detected"])
def test_a_monitored_rule_reads_the_worst_of_its_sequence_and_its_change_alarm(
    cumulative: Verdict, alarm: str | None
) -> None:
    from respai.types import worst

    verdict, reason = decision.with_change_alarm(cumulative, "cumulative", alarm_reason=alarm)
    expected = worst([cumulative, *([Verdict.FAIL] if alarm else [])])
    assert verdict is expected
    # the cumulative reason unless the alarm alone made it a FAIL
    assert reason == ("cumulative" if alarm is None or cumulative is Verdict.FAIL else alarm)
