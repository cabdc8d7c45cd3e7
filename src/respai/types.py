"""Small frozen types shared by every layer: verdicts, intervals, undefined values."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "ACCEPTABLE",
    "Interval",
    "Undefined",
    "Verdict",
    "accepted_exit_code",
    "accepted_verdicts",
    "worst",
]


class Verdict(enum.StrEnum):
    """The four answers a rule or test can give, with their exit codes.

    From worst to best: FAIL, INSUFFICIENT_EVIDENCE, MANUAL_REVIEW, PASS. The worst
    verdict of a run decides its exit code.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"
    MANUAL_REVIEW = "MANUAL_REVIEW"

    @property
    def exit_code(self) -> int:
        """Process exit code for this verdict: 0, 1, 3 or 4."""
        return _EXIT_CODES[self]

    @property
    def severity(self) -> int:
        """Rank from best (0, PASS) to worst (3, FAIL)."""
        return _SEVERITY[self]


_EXIT_CODES = {
    Verdict.PASS: 0,
    Verdict.FAIL: 1,
    Verdict.INSUFFICIENT_EVIDENCE: 3,
    Verdict.MANUAL_REVIEW: 4,
}
_SEVERITY = {
    Verdict.PASS: 0,
    Verdict.MANUAL_REVIEW: 1,
    Verdict.INSUFFICIENT_EVIDENCE: 2,
    Verdict.FAIL: 3,
}


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """Return the worst of ``verdicts``; an empty collection is INSUFFICIENT_EVIDENCE.

    An audit with nothing evaluable is never a PASS.

    Examples
    --------
    >>> worst([Verdict.PASS, Verdict.INSUFFICIENT_EVIDENCE, Verdict.FAIL]).value
    'FAIL'
    >>> worst([]).value
    'INSUFFICIENT_EVIDENCE'
    """
    items = list(verdicts)
    if not items:
        return Verdict.INSUFFICIENT_EVIDENCE
    return max(items, key=lambda v: v.severity)


ACCEPTABLE = (Verdict.INSUFFICIENT_EVIDENCE, Verdict.MANUAL_REVIEW)
"""The verdicts a person running a gate may accept (``--accept``); FAIL never."""


def accepted_exit_code(verdicts: Iterable[Verdict], accepted: Iterable[Verdict]) -> int:
    """The exit code once the ``accepted`` verdicts no longer stop the gate.

    The exit code of the worst verdict among ``verdicts`` that is not accepted; 0 when
    every verdict worse than PASS is accepted. Only :data:`ACCEPTABLE` verdicts can be
    accepted: FAIL (or PASS) among ``accepted`` raises ``ValueError``. ``verdicts``
    should hold every verdict of the run (each test's and the run's own), so that a
    verdict hidden behind a worse accepted one still decides.

    Examples
    --------
    >>> v = Verdict
    >>> accepted_exit_code([v.PASS, v.MANUAL_REVIEW], [v.MANUAL_REVIEW])
    0
    >>> accepted_exit_code([v.INSUFFICIENT_EVIDENCE, v.MANUAL_REVIEW], [v.INSUFFICIENT_EVIDENCE])
    4
    >>> accepted_exit_code([v.FAIL, v.MANUAL_REVIEW], [v.MANUAL_REVIEW])
    1
    """
    allowed = set(accepted)
    if not allowed <= set(ACCEPTABLE):
        bad = ", ".join(sorted(v.value for v in allowed - set(ACCEPTABLE)))
        raise ValueError(f"only INSUFFICIENT_EVIDENCE and MANUAL_REVIEW can be accepted: {bad}")
    left = [v for v in verdicts if v not in allowed]
    return worst(left).exit_code if left else 0


def accepted_verdicts(values: Iterable[Verdict | str]) -> tuple[Verdict, ...]:
    """The verdicts a person accepts (``--accept``, ``accept=``), checked and in order.

    Each value is a :class:`Verdict` or its name (any case, ``-`` for ``_``); repeats are
    dropped and the result is ordered by severity. Only :data:`ACCEPTABLE` verdicts can be
    accepted.

    Raises
    ------
    ValueError
        For FAIL (a rule or test shown to be broken always stops the gate), PASS or a
        name that is not a verdict; the message says which can be accepted.

    Examples
    --------
    >>> [v.value for v in accepted_verdicts(["manual-review", Verdict.INSUFFICIENT_EVIDENCE])]
    ['MANUAL_REVIEW', 'INSUFFICIENT_EVIDENCE']
    """
    found: list[Verdict] = []
    for given in values:
        raw = given.value if isinstance(given, Verdict) else str(given)
        name = raw.strip().upper().replace("-", "_")
        if name == Verdict.FAIL.value:
            raise ValueError(
                "FAIL can never be accepted: a rule or test shown to be broken stops the gate. "
                "Only INSUFFICIENT_EVIDENCE and MANUAL_REVIEW can be accepted."
            )
        if name not in {v.value for v in ACCEPTABLE}:
            raise ValueError(
                f"{raw!r} is not a verdict that can be accepted: give "
                "INSUFFICIENT_EVIDENCE or MANUAL_REVIEW."
            )
        if Verdict(name) not in found:
            found.append(Verdict(name))
    return tuple(sorted(found, key=lambda v: v.severity))


@dataclass(frozen=True, slots=True)
class Interval:
    """A closed interval ``[lo, hi]`` for a proportion, with how it was computed.

    Attributes
    ----------
    lo, hi
        Bounds, ``0 <= lo <= hi <= 1`` for a proportion.
    method
        ``"wilson"`` or ``"clopper-pearson"`` (or a derived name).
    confidence
        Nominal coverage, e.g. ``0.95``; for a Bonferroni-adjusted interval, the
        per-interval level ``1 - alpha / m``.
    """

    lo: float
    hi: float
    method: str
    confidence: float

    def to_json(self) -> dict[str, float | str]:
        """The interval as it appears in every JSON output and record (one form)."""
        return {"lo": self.lo, "hi": self.hi, "method": self.method, "confidence": self.confidence}

    @staticmethod
    def json_or_none(iv: Interval | None) -> dict[str, float | str] | None:
        """:meth:`to_json` of ``iv``, or ``None`` for an undefined interval."""
        return None if iv is None else iv.to_json()


@dataclass(frozen=True, slots=True)
class Undefined:
    """A value that cannot be computed, with a machine code and a sentence for people.

    Undefined results are values, never NaN and never 0: in JSON they become ``null``
    next to a ``reason``.
    """

    code: str
    reason: str
