"""The verdict table, what a small cell does to a spread verdict, the screening line.

Part of :mod:`respai.decision`; pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from respai import exact
from respai.decision.groups import GroupRate
from respai.types import Verdict

__all__ = [
    "below_line",
    "missing_reason",
    "verdict_table",
    "with_change_alarm",
    "with_small_cells",
]


# -- verdicts ---------------------------------------------------------------------------


def verdict_table(
    *,
    broken: bool,
    held: bool,
    left_out: bool = False,
    missing: bool = False,
    small: bool = False,
    undefined: bool = False,
) -> tuple[Verdict, str]:
    """The verdict of an interval against a threshold, and its reason code.

    In order: too many cases left out -> INSUFFICIENT_EVIDENCE
    (``too_many_left_out``); the interval proves the threshold broken -> FAIL
    (``threshold_exceeded``); a group over ``max_missing`` (too many cases without a
    decision) -> INSUFFICIENT_EVIDENCE (``too_many_missing``); a small cell ->
    INSUFFICIENT_EVIDENCE (``small_cell``); an
    undefined bound -> INSUFFICIENT_EVIDENCE (``ratio_undefined``); the interval proves the
    threshold holds -> PASS (``within_threshold``); otherwise the interval straddles it ->
    INSUFFICIENT_EVIDENCE (``interval_straddles``).

    Examples
    --------
    >>> verdict_table(broken=False, held=True)
    (<Verdict.PASS: 'PASS'>, 'within_threshold')
    >>> verdict_table(broken=False, held=True, small=True)[1]
    'small_cell'
    """
    if left_out:
        return Verdict.INSUFFICIENT_EVIDENCE, "too_many_left_out"
    if broken:
        return Verdict.FAIL, "threshold_exceeded"
    if missing:
        return Verdict.INSUFFICIENT_EVIDENCE, "too_many_missing"
    if small:
        return Verdict.INSUFFICIENT_EVIDENCE, "small_cell"
    if undefined:
        return Verdict.INSUFFICIENT_EVIDENCE, "ratio_undefined"
    if held:
        return Verdict.PASS, "within_threshold"
    return Verdict.INSUFFICIENT_EVIDENCE, "interval_straddles"


def with_small_cells(verdict: Verdict, *, fail_stands: bool) -> Verdict:
    """A spread verdict when some group is under ``min_cell``.

    A small cell cannot decide a PASS: it becomes INSUFFICIENT_EVIDENCE. A FAIL stands
    only when ``fail_stands`` (it does not rest on the small cells alone), else it is
    INSUFFICIENT_EVIDENCE. Any other verdict is kept.

    Examples
    --------
    >>> with_small_cells(Verdict.PASS, fail_stands=True)
    <Verdict.INSUFFICIENT_EVIDENCE: 'INSUFFICIENT_EVIDENCE'>
    """
    if verdict is Verdict.FAIL:
        return verdict if fail_stands else Verdict.INSUFFICIENT_EVIDENCE
    if verdict is Verdict.PASS:
        return Verdict.INSUFFICIENT_EVIDENCE
    return verdict


def with_change_alarm(
    cumulative: Verdict, reason: str, *, alarm_reason: str | None
) -> tuple[Verdict, str]:
    """A monitored rule's verdict at a look: the worst of its cumulative and change verdicts.

    The cumulative verdict is the verdict table's over the stream's confidence sequences;
    a change detector that has raised its alarm (at this look or an earlier one of the
    stream) is a FAIL: its guarantee bounds a false alarm, as the sequences' level bounds
    a wrong cumulative FAIL. So the verdict is FAIL once an alarm is raised, with the
    alarm's reason, unless the cumulative verdict is a FAIL already (its reason, from the
    cumulative bounds, is kept); with no alarm (``alarm_reason`` ``None``) the cumulative
    verdict and reason stand.

    Examples
    --------
    >>> with_change_alarm(Verdict.PASS, "within", alarm_reason=None)
    (<Verdict.PASS: 'PASS'>, 'within')
    >>> with_change_alarm(Verdict.INSUFFICIENT_EVIDENCE, "straddles", alarm_reason="change")
    (<Verdict.FAIL: 'FAIL'>, 'change')
    >>> with_change_alarm(Verdict.FAIL, "proven", alarm_reason="change")
    (<Verdict.FAIL: 'FAIL'>, 'proven')
    """
    if alarm_reason is None or cumulative.severity >= Verdict.FAIL.severity:
        return cumulative, reason
    return Verdict.FAIL, alarm_reason


def below_line(value: Fraction | None, line: float | Fraction) -> bool | None:
    """Whether an exact value is under a screening line (``None`` when undefined).

    A value exactly at the line is not under it (100/300 against 125/300 is 0.8, not
    0.7999999999999999); a float line is read as the decimal it spells.

    Examples
    --------
    >>> below_line(Fraction(4, 5), 0.8), below_line(Fraction(79, 100), 0.8)
    (False, True)
    """
    if value is None:
        return None
    return exact.meets(value, "<", exact.decimal(line))


def missing_reason(over: Sequence[GroupRate], max_missing: float, what: str) -> str:
    """Why groups over ``max_missing`` keep a verdict from passing (a sentence)."""
    named = ", ".join(f"{g.label} {g.missing} of {g.cases}" for g in over[:5]) + (
        ", ..." if len(over) > 5 else ""
    )
    return (
        f"{len(over)} group(s) have more than max_missing {max_missing:.0%} of their cases "
        f"without a {what} ({named}); the verdict cannot pass until they are decided, and "
        "it fails only if it fails with them counted against it"
    )
