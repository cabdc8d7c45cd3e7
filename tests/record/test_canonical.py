"""RFC 8785 canonical bytes, the strict reader, and value conversion."""

from __future__ import annotations

import datetime as dt
import enum
import json
import math
import re
from typing import Any

import numpy as np
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.record import RecordError, canonical_bytes, jsonable, loads_strict
from respai.record.canonical import _orjson_bytes, canonical_object, es_float

SAFE = 2**53 - 1


def _scalars(text: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return (
        st.none()
        | st.booleans()
        | st.integers(-SAFE, SAFE)
        | st.floats(allow_nan=False, allow_infinity=False)
        | text
    )


def _json(text: st.SearchStrategy[str], leaves: int) -> st.SearchStrategy[Any]:
    return st.recursive(
        _scalars(text),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=5),
        max_leaves=leaves,
    )


scalars = _scalars(st.text())
json_values = _json(st.text(), 25)


@given(json_values)
@settings(max_examples=200)
def test_matches_rfc8785(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@given(json_values)
@settings(max_examples=200)
def test_canonical_bytes_round_trip_through_the_strict_reader(value: Any) -> None:
    data = canonical_bytes(value)
    assert canonical_bytes(loads_strict(data)) == data


@given(st.dictionaries(st.text(), scalars, min_size=1, max_size=8), st.randoms())
def test_key_insertion_order_does_not_matter(mapping: dict[str, Any], rnd: Any) -> None:
    items = list(mapping.items())
    rnd.shuffle(items)
    shuffled = dict(items)
    nested_a = {"outer": mapping, "list": [mapping]}
    nested_b = {"list": [shuffled], "outer": shuffled}
    assert canonical_bytes(shuffled) == canonical_bytes(mapping)
    assert canonical_bytes(nested_a) == canonical_bytes(nested_b)


bmp_text = st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)))
bmp_values = _json(bmp_text, 30)


@given(bmp_values)
@settings(max_examples=400)
def test_the_orjson_path_writes_what_rfc8785_writes(value: Any) -> None:
    # text within the Basic Multilingual Plane always takes the fast path, and it agrees
    assert _orjson_bytes(value) == rfc8785.dumps(value)


@given(json_values)
@settings(max_examples=300)
def test_the_orjson_path_agrees_or_steps_aside(value: Any) -> None:
    fast = _orjson_bytes(value)
    assert fast is None or fast == rfc8785.dumps(value)


@given(st.floats(allow_nan=False, allow_infinity=False))
@settings(max_examples=2000)
def test_es_float_is_ecmascript_number_text(x: float) -> None:
    assert es_float(x).encode() == rfc8785.dumps(x)


@pytest.mark.parametrize(
    "x",
    [
        5e-324, -5e-324, 1.7976931348623157e308, 1e-6, 1e-7, 1.5e-7, 0.000001234, 1e20,
        9.999999999999999e20, 1e21, 1.2345678901234567e21, 123456789012345680000.0, 0.1,
        2.0**53, 2.0**53 + 2, 1e16, -1e16, 100.0, 0.5, 1 / 3, -2.5e-5, 1e308, 4.35, 1e22,
    ],
)  # fmt: skip
def test_es_float_on_the_edges_of_its_layouts(x: float) -> None:
    assert es_float(x).encode() == rfc8785.dumps(x)


def test_keys_beyond_the_basic_plane_are_left_to_rfc8785() -> None:
    # UTF-16 puts U+1F600 (a surrogate pair, 0xD83D...) before U+E000; code points do not
    value = {"\U0001f600": 1, "\ue000": 2}
    assert _orjson_bytes(value) is None
    assert canonical_bytes(value) == rfc8785.dumps(value) == '{"😀":1,"\ue000":2}'.encode()
    assert _orjson_bytes({"a": 2**53}) is None  # refused by rfc8785, named by _check
    with pytest.raises(RecordError, match="outside"):
        canonical_bytes({"a": 2**53})


def test_known_vectors() -> None:
    assert canonical_bytes({"b": 1.0, "a": [1e-7, 1e21, -0.0]}) == b'{"a":[1e-7,1e+21,0],"b":1}'
    # UTF-16 code unit order: U+1F600 sorts before U+FB33.
    assert canonical_bytes({"\ufb33": 1, "\U0001f600": 2}).startswith(b'{"\xf0\x9f\x98\x80"')
    assert canonical_bytes(("a", 1)) == b'["a",1]'


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"records": [{"value": math.nan}]}, "$.records[0].value"),
        ({"a": {"b c": [0, math.inf]}}, '$.a["b c"][1]'),
        ({"x": -math.inf}, "$.x"),
        ({"n": 2**53}, "$.n"),
        ({"n": [-(2**53)]}, "$.n[0]"),
    ],
)
def test_non_json_numbers_refused_with_their_path(value: Any, path: str) -> None:
    with pytest.raises(RecordError) as info:
        canonical_bytes(value)
    assert path in info.value.message
    assert info.value.exit_code == 2


def test_largest_safe_integers_accepted() -> None:
    assert canonical_bytes([SAFE, -SAFE]) == f"[{SAFE},-{SAFE}]".encode()


def test_other_types_refused_with_path() -> None:
    with pytest.raises(RecordError, match=r"\$\.a\[0\].*numpy"):
        canonical_bytes({"a": [np.int64(3)]})
    with pytest.raises(RecordError, match="key 1"):
        canonical_bytes({1: "x"})
    with pytest.raises(RecordError, match="surrogate"):
        canonical_bytes({"s": "\ud800"})


def test_loads_strict_refuses_duplicate_keys() -> None:
    with pytest.raises(RecordError, match="repeats the object key 'a'"):
        loads_strict(b'{"a": 1, "b": {"a": 2}, "a": 3}')
    with pytest.raises(RecordError, match="'k'"):
        loads_strict('[{"k": 1, "k": 1}]')


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"x": -Infinity}', "[1e400]"])
def test_loads_strict_refuses_non_finite_numbers(text: str) -> None:
    with pytest.raises(RecordError):
        loads_strict(text)


def test_loads_strict_reads_big_integers_like_javascript() -> None:
    # 2^53 + 1 is not a double: JSON.parse rounds it, so must we (and re-canonicalising
    # then shows the text was not canonical).
    value = loads_strict(b"[9007199254740993, 1152921504606846976]")
    assert value == [9007199254740992.0, 2.0**60]
    # ECMAScript digits: shortest round trip, then zeros.
    assert canonical_bytes(value) == b"[9007199254740992,1152921504606847000]"


def test_loads_strict_refuses_bad_text() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        loads_strict(b"{")
    with pytest.raises(RecordError, match="not UTF-8"):
        loads_strict(b'"\xff"')


class Color(enum.StrEnum):
    RED = "red"


def test_jsonable_converts() -> None:
    value = {
        "t": (1, (2.5, "x")),
        "np": [np.float32(0.5), np.int64(7), np.bool_(True), np.array([1, 2])],
        Color.RED: Color.RED,
        "when": dt.datetime(2026, 1, 15, 11, 20, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))),
    }
    out = jsonable(value)
    assert out == {
        "t": [1, [2.5, "x"]],
        "np": [0.5, 7, True, [1, 2]],
        "red": "red",
        "when": "2026-01-15T10:20:30Z",
    }
    assert type(out["np"][1]) is int
    assert type(out["np"][2]) is bool
    assert type(out["red"]) is str
    canonical_bytes(out)


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"groups": {"a": {"rate": np.float32("nan")}}}, "$.groups.a.rate"),
        ({"x": [1, (2, float("inf"))]}, "$.x[1][1]"),
        ({"k": {3: 1}}, "$.k"),
        ({"when": dt.datetime(2026, 1, 1)}, "$.when"),  # naive on purpose
        ({"o": [object()]}, "$.o[0]"),
    ],
)
def test_jsonable_refuses_with_path(value: Any, path: str) -> None:
    with pytest.raises(RecordError) as info:
        jsonable(value)
    assert path in info.value.message


def test_the_longest_integral_float_reads_back() -> None:
    """RFC 8785 writes 1e20 as 21 digits; the strict reader takes back what it writes."""
    data = canonical_bytes({"v": 1e20, "w": -9.99e20})
    assert data == b'{"v":100000000000000000000,"w":-999000000000000000000}'
    assert canonical_bytes(loads_strict(data)) == data


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _json_values, max_size=8))
def test_canonical_object_of_member_bytes_is_the_canonical_object(obj: dict[str, Any]) -> None:
    members = {k: canonical_bytes(v) for k, v in obj.items()}
    assert canonical_object(members) == canonical_bytes(obj) == rfc8785.dumps(obj)


def test_keys_sort_by_utf16_code_units_not_code_points() -> None:
    # U+10000 is the surrogate pair D800 DC00, before U+FF61 in UTF-16 but after it in
    # code points
    obj = {"\U00010000": 1, "\uff61": 2}
    assert canonical_object({k: canonical_bytes(v) for k, v in obj.items()}) == (
        canonical_bytes(obj)
    )
    assert canonical_bytes(obj).index("\U00010000".encode()) < canonical_bytes(obj).index(
        "\uff61".encode()
    )


def test_a_sealed_payload_is_the_canonical_bytes_of_its_statement() -> None:
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from tests.record.conftest import make_predicate

    from respai.record import key_id, loads_strict, seal

    key = Ed25519PrivateKey.generate()
    payload = base64.b64decode(
        seal(make_predicate(), None, key, key_id(key.public_key()))["payload"]
    )
    assert payload == canonical_bytes(loads_strict(payload))


class _Colour(enum.Enum):
    RED = "red"


_mixed_values = st.recursive(
    _json_values
    | st.just(_Colour.RED)
    | st.just(np.int64(3))
    | st.just(np.float64(0.25))
    | st.just(dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)),
    lambda inner: (
        st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=3) | st.just(_Colour.RED), inner, max_size=3)
    ),
    max_leaves=15,
)


@given(_mixed_values)
def test_the_plain_fast_path_converts_as_the_full_walk_does(value: Any) -> None:
    from respai.record.canonical import _jsonable

    assert jsonable(value) == _jsonable(value, ())


def test_a_bad_value_deep_in_plain_data_is_named_by_its_path() -> None:
    with pytest.raises(RecordError, match=r"\$\.a\[1\]\.b"):
        jsonable({"a": [1, {"b": math.nan}]})


def test_deep_unbalanced_text_is_refused_by_depth_not_recursion() -> None:
    for text in ("[" * 100_000, "{" * 100_000, "[" * 65 + "]" * 64, '["' * 70):
        with pytest.raises(RecordError):
            loads_strict(text)
    with pytest.raises(RecordError, match="MAX_JSON_DEPTH"):
        loads_strict("[" * 100_000)
    with pytest.raises(RecordError, match="MAX_JSON_DEPTH"):
        loads_strict('{"a":' * 40 + "[" * 25 + "]" * 25 + "}" * 40)
    value, depth = loads_strict('{"a":' * 40 + "[" * 24 + "]" * 24 + "}" * 40), 0
    while isinstance(value, dict | list):
        value, depth = (
            (value["a"] if isinstance(value, dict) else value[0] if value else 0),
            depth + 1,
        )
    assert depth == 64  # the deepest nesting allowed is read


_mixed_containers = st.recursive(
    _json_values | st.just(_Colour.RED) | st.just(np.int64(3)) | st.just(np.float64(0.25)),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=3) | st.just(_Colour.RED), inner, max_size=3)
    ),
    max_leaves=15,
)


def _exactly_plain(value: Any) -> bool:
    if isinstance(value, dict):
        return all(type(k) is str and _exactly_plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_exactly_plain(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


@given(_mixed_containers)
def test_plain_shared_converts_as_jsonable_and_leaves_its_input_alone(value: Any) -> None:
    import copy

    from respai.record.canonical import plain_shared

    before = copy.deepcopy(value)
    out = plain_shared(value)
    assert _exactly_plain(out)
    assert canonical_bytes(out) == canonical_bytes(jsonable(value))
    assert value == before and type(value) is type(before)


@given(json_values)
def test_plain_shared_returns_plain_values_as_they_are(value: Any) -> None:
    from respai.record.canonical import plain_shared

    assert plain_shared(value) is value


def test_plain_shared_copies_only_what_holds_a_conversion() -> None:
    from respai.record.canonical import plain_shared

    kept = {"groups": [{"rate": 0.5}] * 3}
    value: dict[str, Any] = {"kept": kept, "changed": {"t": (1, 2), "same": [1]}}
    out = plain_shared(value)
    assert out == {"kept": kept, "changed": {"t": [1, 2], "same": [1]}}
    assert out is not value and out["changed"] is not value["changed"]
    assert out["kept"] is kept and out["changed"]["same"] is value["changed"]["same"]
    assert value["changed"]["t"] == (1, 2)


def test_plain_shared_names_a_bad_value_by_its_path() -> None:
    from respai.record.canonical import plain_shared

    with pytest.raises(RecordError, match=r"\$\.a\[1\]\.b"):
        plain_shared({"a": [1, {"b": math.nan}]})


def test_sealing_leaves_the_callers_record_as_it_was() -> None:
    """seal() signs the caller's own plain values (no deep copy): it must not change them."""
    import base64
    import copy

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from tests.record.conftest import make_predicate

    from respai.record import key_id, seal

    key = Ed25519PrivateKey.generate()
    predicate = make_predicate()
    before = copy.deepcopy(predicate)
    first = seal(predicate, None, key, key_id(key.public_key()))
    assert predicate == before
    again = seal(predicate, None, key, key_id(key.public_key()))
    assert base64.b64decode(first["payload"]) == base64.b64decode(again["payload"])


# --- the fast reader (json without the per-value hooks, used only when it provably reads
# as the checking reader) ---


def _checking_reader(text: str) -> Any:
    """``loads_strict`` with the fast path turned off: the reader it must agree with."""
    from respai.record import canonical

    saved = canonical._loads_fast
    canonical._loads_fast = lambda *_texts: canonical._SLOW
    try:
        return loads_strict(text)
    finally:
        canonical._loads_fast = saved


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types all the way down (``1`` is not ``1.0``; ``-0.0`` kept)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", read(text)
    except RecordError as exc:
        return "error", exc.message


_number_texts = st.one_of(
    st.integers(-(10**25), 10**25).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(es_float),
    st.from_regex(r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
)


@st.composite
def _json_texts(draw: st.DrawFn) -> str:
    """JSON text of generated values, with repeated keys, odd spacing and number literals
    (long integers, many-digit decimals, exponents) spliced in."""
    import json

    value = draw(json_values)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    numbers = draw(st.lists(_number_texts, max_size=4))
    if numbers:
        text = "[" + ",".join([text, *numbers]) + "]"
    if draw(st.booleans()):
        key = draw(st.text(max_size=3))
        k = json.dumps(key)
        space = draw(st.sampled_from(["", " ", "\n\t"]))
        text = "{" + f"{k}{space}:{text},{k}:{draw(_number_texts)}" + "}"
    return text


@given(_json_texts())
@settings(max_examples=600)
def test_the_fast_reader_reads_as_the_checking_reader(text: str) -> None:
    fast, slow = _outcome(loads_strict, text), _outcome(_checking_reader, text)
    assert fast[0] == slow[0]
    if fast[0] == "value":
        assert _same(fast[1], slow[1])
    else:
        assert fast[1] == slow[1]


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1,"a":2}',
        '{"a" :1,"a":2}',
        '{"a"\n:1,"b":{"c":1,"c":1}}',
        '{"x\\":":1,"x\\":":2}',
        '[{"a":1},{"b":2,"b":3}]',
        "[9007199254740993]",
        "[18446744073709551616]",
        "[" + "1" * 22 + "]",
        "[1.7976931348623159e308]",
        '["\\ud800"]',
        "[" * 65 + "]" * 65,
        "[" * 64 + "]" * 64,
        '{"a":' * 40 + "[" * 24 + "]" * 24 + "}" * 40,
        "[1e-400, 5e-324, -0.0, -0, 0.1e1]",
        '{"x":"sha256:' + "0123456789" * 4 + '"}',
        '{"x": 1234567890123456}',
        "[1234567890123456.5, 0.30000000000000004, 1e-1234567890123456]",
        "100000000000000000000",
        "-1234567890123456789",
        '{"a":"\\\\", "b" : 12345678901234567}',
        "\ufeff[1]",
        "",
        '"\\":" ',
        "[NaN]",
        '{"a": -Infinity}',
        "[1e999]",
        "[" * 5000 + "]" * 5000,
        '{"a" :1,"b"\t\t: 2}',
    ],
)
def test_the_fast_reader_on_the_cases_it_must_step_aside_for(text: str) -> None:
    fast, slow = _outcome(loads_strict, text), _outcome(_checking_reader, text)
    assert fast[0] == slow[0]
    assert _same(fast[1], slow[1]) if fast[0] == "value" else fast[1] == slow[1]


@given(st.binary(max_size=60) | st.text(alphabet='" :\t\n\rab\\', max_size=60).map(str.encode))
def test_key_ends_are_counted_as_the_expression_finds_them(raw: bytes) -> None:
    from respai.record.canonical import _key_ends

    assert _key_ends(raw) == len(re.findall(rb'"[ \t\n\r]*:', raw))


def test_the_fast_reader_reads_a_record_and_steps_aside_for_a_repeated_key() -> None:
    from respai.record import canonical

    text = json.dumps({"a": [1, 2.5, {"b": None, "c": "x"}], "d": {"e": [[]]}})
    assert canonical._loads_fast(text.encode(), text) == json.loads(text)
    text = '{"a": 1, "b": {"a": 2, "a": 3}}'
    assert canonical._loads_fast(text.encode(), text) is canonical._SLOW


def test_a_compact_column_is_written_without_a_walk_and_as_jcs_writes_it() -> None:
    column = [*range(-5, 5), SAFE, -SAFE]
    record = {"columns": {"tp": column, "key": [["a"], ["b"]], "flag": [True, None, "x"]}}
    assert canonical_bytes(record) == rfc8785.dumps(record)
    assert canonical_bytes({"c": [1.5, 2, None]}) == b'{"c":[1.5,2,null]}'
    for bad, where in (([SAFE + 1], r"\$\.c\[0\]"), ([1, True, -(2**60)], r"\$\.c\[2\]")):
        with pytest.raises(RecordError, match=where):
            canonical_bytes({"c": bad})


class _Flag(enum.IntEnum):
    ON = 1


def test_a_list_of_int_subclasses_is_converted_not_passed_through() -> None:
    assert jsonable([_Flag.ON, 2]) == [1, 2]
    assert type(jsonable([_Flag.ON])[0]) is int
    assert canonical_bytes([_Flag.ON, 2]) == b"[1,2]"
