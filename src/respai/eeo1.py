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
    "means_unknown",
    "spelling_key",
    "suggest_category",
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


# --- suggestions for a draft's mapping (``respai init --ll144``) -------------------------

_NOT_WORD = re.compile(r"[^0-9a-z]+")
#: Words that join the parts of a label and carry no meaning of their own.
_JOINERS = frozenset({"or", "and"})
#: A leading "not Hispanic" (``Non-Hispanic White``): under EEO-1 the rest is the category.
_NOT_HISPANIC = (("non", "hispanic"), ("not", "hispanic"), ("nonhispanic",))

#: Well-known spellings that stand for exactly one category, by axis and category. Only
#: whole spellings are looked up (up to case, spaces, punctuation and a joining "or" or
#: "and"): a value is never matched by a part of it, so ``Indian`` (Asian Indian or
#: American Indian?) and ``Native`` (Native American or Native Hawaiian?) have no
#: suggestion, nor does any value that names two categories. Single letters are sex
#: spellings only (``A`` could be Asian or American Indian).
_SYNONYM_TEXT: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "sex": {
        "Male": ("m", "male", "males", "man", "men"),
        "Female": ("f", "female", "females", "woman", "women"),
    },
    "race": {
        "Hispanic or Latino": (
            "hispanic",
            "latino",
            "latina",
            "latinx",
            "latine",
            "hispanic/latino",
            "hispanic/latina",
            "hispanic/latinx",
            "latino/hispanic",
        ),
        "White": ("white", "caucasian", "white/caucasian"),
        "Black or African American": ("black", "african american", "black/african american"),
        "Native Hawaiian or Other Pacific Islander": (
            "native hawaiian",
            "pacific islander",
            "native hawaiian/pacific islander",
            "hawaiian/pacific islander",
            "native hawaiian/other pacific islander",
        ),
        "Asian": ("asian", "asian american"),
        "American Indian or Alaska Native": (
            "american indian",
            "alaska native",
            "alaskan native",
            "native american",
            "american indian/alaska native",
            "american indian/alaskan native",
            "native american/alaska native",
        ),
        "Two or More Races": (
            "two or more races",
            "two or more",
            "2 or more races",
            "2 or more",
            "multiracial",
            "multi-racial",
            "biracial",
            "mixed race",
            "multiple races",
        ),
    },
}

#: Spellings of "not answered" (compared as word tuples): a draft lists them under
#: ``ll144.unknown_values``, never maps them to a category.
_UNKNOWN: frozenset[tuple[str, ...]] = frozenset(
    tuple(_NOT_WORD.sub(" ", s).split())
    for s in (
        "unknown",
        "not known",
        "decline",
        "declined",
        "decline to answer",
        "declined to answer",
        "decline to state",
        "declined to state",
        "decline to self identify",
        "declined to self identify",
        "decline to disclose",
        "prefer not to say",
        "prefer not to answer",
        "prefer not to disclose",
        "i prefer not to say",
        "i do not wish to answer",
        "i don't wish to answer",
        "choose not to disclose",
        "not disclosed",
        "undisclosed",
        "not specified",
        "unspecified",
        "not provided",
        "not reported",
        "no answer",
        "no response",
        "n/a",
        "na",
        "none given",
    )
)


def _words(text: str) -> tuple[str, ...]:
    """``text``'s words, for matching a suggestion.

    Case folded, the NH/L suffix dropped, split at anything not a letter or digit, and
    a joining ``or``/``and`` dropped: ``Black/African-American`` and ``black or african
    american`` are the same words.
    """
    return tuple(w for w in _NOT_WORD.sub(" ", spelling_key(text)).split() if w not in _JOINERS)


#: Every spelling a suggestion accepts, as words, by axis: the built-in ones, then
#: the synonyms; each stands for one category.
_SUGGESTIONS: Mapping[str, Mapping[tuple[str, ...], str]] = {
    axis: {
        **{_words(k): v for k, v in _BUILT_IN[axis].items()},
        **{_words(t): label for label, texts in _SYNONYM_TEXT[axis].items() for t in texts},
    }
    for axis in AXES
}


def suggest_category(axis: str, text: str) -> str | None:
    """The one category ``text`` unambiguously spells on ``axis``, or ``None``.

    A suggestion for a draft's ``ll144.categories``, never a guess: ``text`` must be a
    built-in spelling or a well-known synonym (``F``, ``Woman``, ``Hispanic``,
    ``African-American``, ``Multiracial``) up to case, spaces and punctuation, or such a
    race spelling after ``Non-Hispanic``. A value that names two categories, part of
    one, or anything else gets ``None``, so a spelling of one category is never
    suggested as another.

    Examples
    --------
    >>> suggest_category("sex", "F"), suggest_category("race", "Black")
    ('Female', 'Black or African American')
    >>> suggest_category("race", "Non-Hispanic White"), suggest_category("race", "Indian")
    ('White', None)
    """
    label = canonical_label(axis, text)
    if label is not None:
        return label
    words = _words(text)
    negated = False
    if axis == "race":
        for prefix in _NOT_HISPANIC:
            if words[: len(prefix)] == prefix and len(words) > len(prefix):
                words, negated = words[len(prefix) :], True
                break
    found = _SUGGESTIONS[axis].get(words)
    # "Non-Hispanic Latino" contradicts itself: no suggestion
    return None if negated and found == RACE_CATEGORIES[0] else found


def means_unknown(text: str) -> bool:
    """Whether ``text`` is a well-known spelling of "not answered" (``Decline to answer``).

    Examples
    --------
    >>> means_unknown("Prefer not to say"), means_unknown("N/A"), means_unknown("Other")
    (True, True, False)
    """
    return _words(text) in _UNKNOWN
