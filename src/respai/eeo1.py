"""The LL144 categories: EEO-1 Component 1 sex and race/ethnicity, and their spellings.

The DCWP rules (6 RCNY § 5-300) define a *category* as an EEO-1 Component 1 category: two
sex categories and seven race/ethnicity categories, and the intersections of the two
(14 cells). Files spell them in many ways. A value is matched here after folding case and
collapsing whitespace, with an EEO-1 suffix such as ``(Not Hispanic or Latino)`` dropped,
so ``"white (not hispanic or latino)"`` and ``"White"`` are the same category. The DCWP
rule's own worked examples use two labels of their own, which are accepted too:
"Native American or Alaska Native" and "Native Hawaiian or Pacific Islander".

This module is pure domain data: no file, no engine, no spec. Both the spec parser
(:mod:`respai.ll144.spec` checks a spec's own spellings against these labels) and the
:mod:`respai.ll144` audit import it, so the spec layer does not reach up into the LL144
feature package (which itself imports the spec).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "AXES",
    "AXIS_TITLES",
    "RACE_CATEGORIES",
    "SEX_CATEGORIES",
    "Normalizer",
    "canonical_label",
    "intersection_label",
    "known_spellings",
    "spelling_key",
]

SEX_CATEGORIES: tuple[str, ...] = ("Male", "Female")
"""The two EEO-1 Component 1 sex categories, in the order tables list them."""

RACE_CATEGORIES: tuple[str, ...] = (
    "Hispanic or Latino",
    "White",
    "Black or African American",
    "Native Hawaiian or Other Pacific Islander",
    "Asian",
    "American Indian or Alaska Native",
    "Two or More Races",
)
"""The seven EEO-1 race/ethnicity categories (EEO-1 order), without the NH/L suffix."""

AXES: Mapping[str, tuple[str, ...]] = {"sex": SEX_CATEGORIES, "race": RACE_CATEGORIES}
"""Each axis and its canonical labels."""

AXIS_TITLES: Mapping[str, str] = {
    "sex": "sex",
    "race": "race/ethnicity",
    "sex_x_race": "sex × race/ethnicity",
}
"""How tables and messages name each axis."""

_SUFFIX = re.compile(
    r"\s*[\(\[]\s*(?:not\s+hispanic\s+or\s+latino|non[-\s]?hispanic(?:\s+or\s+latino)?"
    r"|nh/?l)\s*[\)\]]\s*$"
)
_SPACE = re.compile(r"\s+")

#: Spellings accepted without any mapping in the spec, by axis (keys are spelling keys).
_BUILT_IN: Mapping[str, Mapping[str, str]] = {
    "sex": {"male": "Male", "female": "Female"},
    "race": {
        **{label.casefold(): label for label in RACE_CATEGORIES},
        # the DCWP rule's worked examples
        "native american or alaska native": "American Indian or Alaska Native",
        "native hawaiian or pacific islander": "Native Hawaiian or Other Pacific Islander",
    },
}


def spelling_key(text: str) -> str:
    """Fold a spelling for matching: case folded, whitespace collapsed, NH/L suffix dropped.

    Examples
    --------
    >>> spelling_key("  White (Not Hispanic   or Latino) ")
    'white'
    >>> spelling_key("FEMALE")
    'female'
    """
    folded = _SPACE.sub(" ", text.casefold()).strip()
    return _SUFFIX.sub("", folded).strip()


def canonical_label(axis: str, text: str) -> str | None:
    """The canonical label a built-in spelling stands for, or ``None`` when it is not one.

    Parameters
    ----------
    axis
        ``"sex"`` or ``"race"``.
    text
        A spelling, e.g. ``"Black or African American (Not Hispanic or Latino)"``.

    Examples
    --------
    >>> canonical_label("race", "Native American or Alaska Native")
    'American Indian or Alaska Native'
    >>> canonical_label("sex", "M") is None
    True
    """
    return _BUILT_IN[axis].get(spelling_key(text))


def known_spellings(axis: str) -> tuple[str, ...]:
    """Every built-in spelling of ``axis`` (canonical labels first), for hints."""
    labels = list(AXES[axis])
    extra = [k for k, v in _BUILT_IN[axis].items() if k != v.casefold()]
    return (*labels, *extra)


def intersection_label(sex: str, race: str) -> str:
    """How a sex × race/ethnicity cell is named, e.g. ``"Black or African American Female"``.

    Examples
    --------
    >>> intersection_label("Female", "Asian")
    'Asian Female'
    """
    return f"{race} {sex}"


@dataclass(frozen=True, slots=True)
class Normalizer:
    """Turns a file's spellings of one axis into canonical labels.

    Attributes
    ----------
    axis
        ``"sex"`` or ``"race"``.
    mapping
        The spec's own spellings (``ll144.categories.<axis>``) to canonical labels; keys
        are matched by :func:`spelling_key`, before the built-in spellings.
    unknown
        Spellings that mean "unknown" (``ll144.unknown_values``); an empty cell always does.
    """

    axis: str
    mapping: Mapping[str, str] = field(default_factory=dict)
    unknown: Iterable[str] = ()
    _map: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _unknown: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_map", {spelling_key(k): v for k, v in self.mapping.items()})
        object.__setattr__(self, "_unknown", frozenset(spelling_key(u) for u in self.unknown))

    def resolve(self, text: str | None) -> tuple[str | None, bool]:
        """Return ``(label, recognised)``: ``(None, True)`` means a known "unknown".

        Examples
        --------
        >>> n = Normalizer("sex", {"M": "Male"}, ["Decline to answer"])
        >>> n.resolve("m"), n.resolve("decline to ANSWER"), n.resolve(""), n.resolve("X")
        (('Male', True), (None, True), (None, True), (None, False))
        """
        if text is None:
            return None, True
        key = spelling_key(text)
        if key == "" or key in self._unknown:
            return None, True
        if key in self._map:
            return self._map[key], True
        label = _BUILT_IN[self.axis].get(key)
        return (label, True) if label is not None else (None, False)
