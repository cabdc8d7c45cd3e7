"""The four verdicts as the report shows them: words, sentences, badges and counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from respai.render.report.bind import At

__all__ = [
    "VERDICTS",
    "VERDICT_SENTENCES",
    "VERDICT_WORDS",
    "badge",
    "verdict_class",
    "verdict_counts",
]

VERDICTS = ("PASS", "FAIL", "INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW")


VERDICT_WORDS = {
    "PASS": "PASS",
    "FAIL": "FAIL",
    "INSUFFICIENT_EVIDENCE": "INSUFFICIENT EVIDENCE",
    "MANUAL_REVIEW": "MANUAL REVIEW",
}


VERDICT_SENTENCES = {
    "PASS": "Every test met its threshold.",
    "FAIL": "At least one test did not meet its threshold.",
    "INSUFFICIENT_EVIDENCE": (
        "No test failed, but at least one could not be decided from this data."
    ),
    "MANUAL_REVIEW": "No test failed or was undecided; at least one is left to a person.",
}


def verdict_class(verdict: object) -> str:
    """The CSS class of a verdict (``v-PASS``), ``v-unknown`` for anything else."""
    return f"v-{verdict}" if verdict in VERDICTS else "v-unknown"


def badge(verdict: At) -> str:
    """A verdict as a coloured badge (HTML), bound to its path; its colour is checked too."""
    return verdict.show("verdict", cls=f"badge {verdict_class(verdict.value)}")


def verdict_counts(tests: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many of ``tests`` have each of the four verdicts (others are not counted)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for t in tests:
        v = t.get("verdict")
        if isinstance(v, str) and v in counts:
            counts[v] += 1
    return counts
