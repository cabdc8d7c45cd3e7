"""A cell matches a declared value by text, trimmed text, or the same number exactly.

The number rule is checked against Python's ``decimal`` module (an independent exact
reader of decimal spellings) on generated spellings; what is not a number spelling is
listed; the spec refuses two declared values that are one number; the gate reports a
value that differs from a declared one only by case with a "did you mean".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from respai.errors import SpecError
from respai.spec import parse_fairness
from respai.spelling import BinaryValues, DeclaredValues, number_key, same_number_pair

#: Spellings the grammar reads as numbers, with the value each one is.
NUMBERS = {
    "1": "1",
    "1.0": "1",
    "1.00": "1",
    "+1": "1",
    "1.": "1",
    "1e0": "1",
    "10E-1": "1",
    "0.1e+1": "1",
    ".5": "0.5",
    "-0": "0",
    "0.0": "0",
    "-0.0e5": "0",
    "1e-07": "0.0000001",
    "12345678901234567890.5": "12345678901234567890.5",
}
#: Spellings that are text, not numbers (Decimal would read most of them).
NOT_NUMBERS = [
    "007",
    "00",
    "01.5",
    "1_000",
    "1,0",
    "0x1",
    "inf",
    "-Infinity",
    "nan",
    "\u0661",  # ARABIC-INDIC DIGIT ONE
    "1e",
    "e1",
    ".",
    "+",
    "",
    " 1",
    "1 ",
    "1.0.0",
    "1e1234567",
    "1" * 101,
]


@pytest.mark.parametrize(("text", "value"), sorted(NUMBERS.items()))
def test_number_spellings_are_read_exactly(text: str, value: str) -> None:
    assert number_key(text) is not None
    assert number_key(text) == number_key(value)
    assert Decimal(text) == Decimal(value)  # the reference agrees


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_other_spellings_are_not_numbers(text: str) -> None:
    assert number_key(text) is None


def test_decimals_are_compared_exactly_not_as_floats() -> None:
    # equal as binary floats, different as numbers
    assert float("0.1") == float("0.1000000000000000055511151231257827")
    assert number_key("0.1") != number_key("0.1000000000000000055511151231257827")
    assert number_key("0.1") == number_key("0.10")
    assert number_key("1") != number_key("-1")


_digits = st.text(alphabet="0123456789", max_size=8)


@st.composite
def spellings(draw: st.DrawFn) -> str:
    """Generated number spellings of the grammar, with signs, fractions and exponents."""
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.sampled_from(["0", "", "lead"]))
    if whole == "lead":
        whole = draw(st.sampled_from("123456789")) + draw(_digits)
    frac = draw(_digits)
    if whole == "":
        body = "." + (frac or "0")
    else:
        body = whole + ("." + frac if frac else draw(st.sampled_from(["", "."])))
    if draw(st.booleans()):
        exp = draw(st.integers(-30, 30))
        body += draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+"])) * (exp >= 0)
        body += str(exp)
    return sign + body


@given(spellings(), spellings())
def test_same_number_agrees_with_decimal(a: str, b: str) -> None:
    ka, kb = number_key(a), number_key(b)
    assert ka is not None and kb is not None
    assert (ka == kb) == (Decimal(a) == Decimal(b))


@given(st.integers(-(10**12), 10**12), st.integers(0, 6), st.integers(-5, 5))
def test_rescaled_spellings_are_one_number(n: int, zeros: int, shift: int) -> None:
    # n, n.000, and n shifted into an exponent all spell the same number
    plain = str(n)
    padded = f"{plain}.{'0' * zeros}" if zeros else plain
    scaled = f"{Decimal(n).scaleb(-shift):f}e{shift}"
    assert number_key(plain) == number_key(padded) == number_key(scaled)


def test_declared_values_match_text_then_trimmed_then_number() -> None:
    d = DeclaredValues(["0", "1", "female", " x "])
    assert d.match("1") == "1"
    assert d.match("1.0") == "1"
    assert d.match(" +1e0 ") == "1"
    assert d.match("-0.00") == "0"
    assert d.match("female") == "female"
    assert d.match(" female ") == "female"
    assert d.match(" x ") == " x "
    assert d.match("2") is None
    assert d.match("Female") is None  # case is not folded
    assert d.match("01") is None  # a code, not a number


def test_a_declared_code_keeps_its_zeros() -> None:
    d = DeclaredValues(["007", "7"])
    assert d.match("007") == "007"
    assert d.match("7.0") == "7"
    assert DeclaredValues(["007"]).match("7") is None


def test_case_twin_is_one_declared_value_differing_only_by_case() -> None:
    d = DeclaredValues(["female", "male"])
    assert d.case_twin("Female") == "female"
    assert d.case_twin(" MALE ") == "male"
    assert d.case_twin("f") is None
    assert DeclaredValues(["a", "A"]).case_twin("a") is None  # two twins: no guess


@pytest.mark.parametrize(
    ("text", "mapping", "expected"),
    [
        ("1", None, 1),
        ("1.0", None, 1),
        ("1.00", None, 1),
        ("+1", None, 1),
        ("1e0", None, 1),
        ("0.0", None, 0),
        ("-0", None, 0),
        ("TRUE", None, 1),
        ("false", None, 0),
        ("2", None, None),
        ("0.5", None, None),
        ("01", None, None),
        ("yes", None, None),
        ("2.0", {"1": 1, "2": 0}, 0),
        ("good", {"good": 1, "bad": 0}, 1),
        ("1", {"good": 1, "bad": 0}, None),
    ],
)
def test_binary_values(text: str, mapping: dict[str, int] | None, expected: int | None) -> None:
    assert BinaryValues(mapping).read(text) == expected


def test_same_number_pair() -> None:
    assert same_number_pair(["1", "2", "1.0"]) == ("1", "1.0")
    assert same_number_pair(["0", "-0"]) == ("0", "-0")
    assert same_number_pair(["a", "b", "007", "7"]) is None


def _fairness(**over: Any) -> dict[str, Any]:
    return {"label": "y", "prediction": "p", "attributes": {"g": [0, 1]}, **over}


def test_spec_refuses_two_declared_values_that_are_one_number() -> None:
    with pytest.raises(SpecError, match=r"'1' and '1.0', which are the same number"):
        parse_fairness(_fairness(attributes={"g": [1, "1.0"]}))
    with pytest.raises(SpecError, match=r"'2' and '\+2', which are the same number"):
        parse_fairness(_fairness(attributes={"g": ["2", "+2"]}))


def test_spec_refuses_a_map_with_one_number_twice() -> None:
    with pytest.raises(SpecError, match=r"label_map: maps '1' and '1.0'"):
        parse_fairness(_fairness(label_map={1: 1, "1.0": 0, 2: 0}))


def test_spec_keeps_codes_with_zeros_apart() -> None:
    spec = parse_fairness(_fairness(attributes={"g": ["007", "7"]}))
    assert spec.attributes["g"] == ("007", "7")


def test_gate_says_did_you_mean_for_a_case_only_difference() -> None:
    import pyarrow as pa

    from respai.load import load_counts

    table = pa.table(
        {
            "y": [1, 0, 1, 0],
            "p": [1, 1, 0, 0],
            "sex": ["Female", "female", "male", "x"],
        }
    )
    spec = parse_fairness(_fairness(attributes={"sex": ["female", "male"]}))
    left = dict(load_counts(spec, table).counts.groupings[("sex",)].left_out)
    assert left == {
        "sex: undeclared value 'Female' (did you mean 'female'?)": 1,
        "sex: undeclared value 'x'": 1,
    }
