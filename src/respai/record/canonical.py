"""Canonical JSON bytes (RFC 8785, JCS), a strict JSON reader, and value conversion.

Everything respai signs or hashes goes through :func:`canonical_bytes`, which is the
RFC 8785 JSON Canonicalization Scheme. Plain values are written by ``orjson`` with every
float handed over already in ECMAScript form (:func:`es_float`), which gives the bytes
RFC 8785 prescribes at C speed; anything else (a text with characters beyond the Basic
Multilingual Plane, where JCS's UTF-16 key order can differ from orjson's, a type that is
not a plain one, a value JCS refuses) goes to the ``rfc8785`` package, after a walk that
names the JSON path of any value JCS cannot hold. :func:`loads_strict` is the
reader for every JSON file respai reads (records, ledger runs, ``keys.json``, a pack's
manifest and tables): it refuses duplicate object keys and the ``NaN`` / ``Infinity``
literals, reads integers beyond the exactly representable range the way a browser's
``JSON.parse`` does (as doubles), so a verifier in Python and one in JavaScript see the
same values, and holds every document to the limits below (nesting depth, integer
digits, string length, document size), so hostile text gives an error, not a crash.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import orjson
import rfc8785

from respai.record.errors import RecordError
from respai.record.times import format_timestamp

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_INTEGER_DIGITS",
    "MAX_JSON_STRING_CHARS",
    "MAX_KEY_FILE_BYTES",
    "MAX_SAFE_INTEGER",
    "canonical_bytes",
    "canonical_object",
    "es_float",
    "format_path",
    "jsonable",
    "loads_strict",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a JSON number (an IEEE-754 double) holds exactly."""

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects :func:`loads_strict` reads (a record needs 8)."""

MAX_JSON_INTEGER_DIGITS = 21
"""The most digits of an integer literal :func:`loads_strict` reads: 21, the longest an
RFC 8785 number is written without an exponent (a float below 1e21, such as 1e20)."""

MAX_JSON_STRING_CHARS = 32 * 1024 * 1024
"""The longest string :func:`loads_strict` reads (a record's base64 payload is the largest)."""

MAX_JSON_BYTES = 64 * 1024 * 1024
"""The largest JSON document :func:`loads_strict` reads, in UTF-8 bytes."""

MAX_KEY_FILE_BYTES = 16 * 1024 * 1024
"""The most bytes read of a key file or ``keys.json`` (they are a few kilobytes).

Kept here with the JSON limits, not in :mod:`respai.record.keys`, so that the table of
limits (:mod:`respai.limits`) does not import the signing library."""

# A string (with its escapes) or one bracket; strings are skipped whole, at C speed.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)

Path = tuple[str | int, ...]


def format_path(path: Path) -> str:
    """Return ``path`` as a JSON path such as ``$.records[2].value``.

    Examples
    --------
    >>> format_path(("records", 2, "value"))
    '$.records[2].value'
    >>> format_path(("per group", "a.b"))
    '$["per group"]["a.b"]'
    """
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}"
        else:
            out += "[" + json.dumps(part, ensure_ascii=False) + "]"
    return out


def es_float(x: float) -> str:
    """Return the finite float ``x`` as ECMAScript's ``Number.prototype.toString`` writes it.

    The digits are Python's shortest round-trip ``repr`` (the digits ECMAScript picks);
    only their layout differs: ``1.0`` is ``1``, ``-0.0`` is ``0``, ``1e-07`` is ``1e-7``,
    ``1e+16`` is ``10000000000000000``, and exponents start at 1e21 and below 1e-6.

    Examples
    --------
    >>> [es_float(v) for v in (1.0, -0.0, 1e-7, 1.5e-6, 1e16, 1e21, 0.1, 123.456)]
    ['1', '0', '1e-7', '0.0000015', '10000000000000000', '1e+21', '0.1', '123.456']
    """
    if x == 0:
        return "0"
    text = repr(x)
    if "e" not in text:  # repr's fixed layout (1e-4 <= |x| < 1e16) is ECMAScript's too
        return text[:-2] if text.endswith(".0") else text
    sign = "-" if text[0] == "-" else ""
    mantissa, _, exp = text.lstrip("-").partition("e")
    whole, _, frac = mantissa.partition(".")
    raw = whole + frac
    point = len(whole) + (int(exp) if exp else 0)  # the decimal point sits after `point` digits
    digits = raw.lstrip("0")
    point -= len(raw) - len(digits)
    digits = digits.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * -n + digits
    else:
        e = n - 1
        head = digits[0] + ("." + digits[1:] if k > 1 else "")
        out = f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + out


class _NotPlain(Exception):
    """A value the orjson path does not write; :func:`canonical_bytes` uses rfc8785."""


def _for_orjson(obj: Any) -> Any:
    """``obj`` with each float as an :class:`orjson.Fragment` of its ECMAScript text.

    Only exact ``str``, ``bool``, ``None``, ``int`` within +-(2^53-1), finite ``float``,
    ``dict`` with ``str`` keys, ``list`` and ``tuple`` pass; anything else raises
    :class:`_NotPlain`.
    """
    kind = type(obj)
    if kind is str or kind is bool or obj is None:
        return obj
    if kind is float:
        if math.isfinite(obj):
            return orjson.Fragment(es_float(obj))
        raise _NotPlain
    if kind is int:
        if -MAX_SAFE_INTEGER <= obj <= MAX_SAFE_INTEGER:
            return obj
        raise _NotPlain
    if kind is dict:
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = _for_orjson(value)
        return out
    if kind is list or kind is tuple:
        if _scalars_only(obj):  # orjson writes these as JCS does: no copy, no call per item
            return obj
        return [_for_orjson(v) for v in obj]
    raise _NotPlain


_SCALAR_TYPES = frozenset({str, bool, type(None)})
_INT_TYPES = frozenset({int})


def _scalars_only(items: list[Any] | tuple[Any, ...]) -> bool:
    """Whether every item is an exact ``str``, ``bool``, ``None`` or a safe ``int``.

    Such a list is written by orjson exactly as JCS writes it, so it needs no walk in
    Python: a compact record's columns are millions of integers in such lists. The types
    are collected at C speed (``set(map(type, ...))``), so a subclass (an ``IntEnum``,
    a ``str`` subclass) is never taken for its base.
    """
    kinds = set(map(type, items))
    if kinds <= _SCALAR_TYPES:
        return True
    if not kinds <= _SCALAR_TYPES | _INT_TYPES:
        return False
    ints = items if kinds == _INT_TYPES else [v for v in items if type(v) is int]
    return min(ints) >= -MAX_SAFE_INTEGER and max(ints) <= MAX_SAFE_INTEGER


# A byte that starts a four-byte UTF-8 sequence: a character beyond U+FFFF.
_ASTRAL = re.compile(rb"[\xf0-\xf4]")


def _orjson_bytes(obj: Any) -> bytes | None:
    """The JCS bytes of a plain ``obj`` written by orjson, or ``None`` to use rfc8785.

    orjson escapes strings as JCS does (the quote, the backslash, the five short escapes,
    lower-case ``u00xx`` for the other control characters, nothing else) and sorts keys by code
    point, which is JCS's UTF-16 order as long as no text has a character beyond U+FFFF;
    output with such a character is left to rfc8785.
    """
    try:
        out = orjson.dumps(_for_orjson(obj), option=orjson.OPT_SORT_KEYS)
    except (_NotPlain, orjson.JSONEncodeError, RecursionError):
        return None
    return None if _ASTRAL.search(out) else out


def _check(obj: Any, path: Path) -> Any:
    """Return ``obj`` as plain dicts and lists, raising a RecordError naming a bad value."""
    if obj is None or isinstance(obj, bool | str):
        if isinstance(obj, str):
            try:
                obj.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise RecordError(
                    f"The string at {format_path(path)} holds a lone surrogate "
                    f"(position {exc.start}), which JSON text cannot carry.",
                    "Decode text with errors='strict' or replace the character.",
                ) from None
        return obj
    if isinstance(obj, int):
        if not -MAX_SAFE_INTEGER <= obj <= MAX_SAFE_INTEGER:
            raise RecordError(
                f"The integer {obj} at {format_path(path)} is outside +-(2^53-1), the range "
                "a JSON number holds exactly; JavaScript readers would round it.",
                "Store it as a string, or as a float if rounding is acceptable.",
            )
        return obj
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise RecordError(
                f"The value at {format_path(path)} is {obj!r}, which JSON cannot hold.",
                "Write null and a reason (for example 'undefined_reason') instead.",
            )
        return obj
    if isinstance(obj, list | tuple):
        return [_check(v, (*path, i)) for i, v in enumerate(obj)]
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if not isinstance(key, str):
                raise RecordError(
                    f"The object at {format_path(path)} has the key {key!r} of type "
                    f"{type(key).__name__}; JSON object keys are strings.",
                    "Convert the key to a string before building the record.",
                )
            out[key] = _check(value, (*path, key))
        return out
    raise RecordError(
        f"The value at {format_path(path)} is of type {type(obj).__module__}."
        f"{type(obj).__qualname__}, which has no canonical JSON form.",
        "Pass the object through respai.record.jsonable() first.",
    )


def canonical_bytes(obj: Any) -> bytes:
    """Return the RFC 8785 (JCS) canonical UTF-8 bytes of ``obj``.

    Parameters
    ----------
    obj
        JSON-shaped data: ``None``, ``bool``, ``int``, ``float``, ``str``, lists, tuples
        and mappings with string keys.

    Returns
    -------
    bytes
        No whitespace, object members sorted by UTF-16 code units, numbers in
        ECMAScript form.

    Raises
    ------
    RecordError
        For NaN or an infinity, an integer beyond +-(2^53-1), a non-string key, a lone
        surrogate or a type JSON cannot hold, naming the JSON path of the value.

    Examples
    --------
    >>> canonical_bytes({"b": 1.0, "a": [True, None, 1e-7]})
    b'{"a":[true,null,1e-7],"b":1}'
    """
    fast = _orjson_bytes(obj)
    if fast is not None:
        return fast
    try:  # rfc8785 refuses all that _check does; _check runs only to name the bad value
        return rfc8785.dumps(obj)
    except (rfc8785.CanonicalizationError, AttributeError, TypeError):
        pass
    plain = _check(obj, ())  # raises naming the path, or converts a Mapping that is no dict
    try:
        return rfc8785.dumps(plain)
    except rfc8785.CanonicalizationError as exc:  # pragma: no cover - _check catches all
        raise RecordError(f"The value cannot be canonicalised: {exc}.") from exc


def canonical_object(members: Mapping[str, bytes]) -> bytes:
    """Return the RFC 8785 bytes of an object whose member values are already canonical.

    ``members`` maps each key to the :func:`canonical_bytes` of its value. JCS writes an
    object as its members sorted by the UTF-16 code units of their keys, each as the
    key's JCS string, a colon and the value's JCS bytes, so the result equals
    :func:`canonical_bytes` of the whole object; a value shared by two objects (a
    record in its chain and in the signed Statement) is then serialised once.

    Examples
    --------
    >>> canonical_object({"b": b"1", "a": b"[true]"}) == canonical_bytes({"b": 1, "a": [True]})
    True
    """
    ordered = sorted(members.items(), key=lambda kv: kv[0].encode("utf-16be"))
    pieces = [b"{"]
    for k, v in ordered:  # one join of every piece: a large member is copied once
        pieces += [canonical_bytes(k), b":", v, b","]
    if ordered:
        pieces[-1] = b"}"
    else:
        pieces.append(b"}")
    return b"".join(pieces)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RecordError(
                f"The JSON text repeats the object key {key!r}; a record's keys must be "
                "unique (RFC 7493), because readers disagree on which copy wins."
            )
        out[key] = value
    return out


def _reject_constant(name: str) -> Any:
    raise RecordError(f"The JSON text contains {name}, which is not JSON and not allowed.")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise RecordError(f"The JSON number {text} overflows a double.")
    return value


def _parse_int(text: str) -> int | float:
    digits = len(text) - text.startswith("-")
    if digits > MAX_JSON_INTEGER_DIGITS:
        raise RecordError(
            f"The JSON text holds an integer of {digits} digits ({text[:12]}...), more than "
            f"the limit of {MAX_JSON_INTEGER_DIGITS} digits (MAX_JSON_INTEGER_DIGITS); "
            "respai writes integers within +-(2^53-1)."
        )
    value = int(text)
    if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return value
    # What JSON.parse does: an integer literal beyond 2^53 becomes the nearest double.
    return _parse_float(text)


def _check_shape(text: str) -> None:
    """Refuse text nested deeper than MAX_JSON_DEPTH or with a string over the limit."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            if len(token) - 2 > MAX_JSON_STRING_CHARS:
                raise RecordError(
                    f"The JSON text holds a string of {len(token) - 2:,} characters at "
                    f"character {match.start()}, more than the limit of "
                    f"{MAX_JSON_STRING_CHARS:,} (MAX_JSON_STRING_CHARS)."
                )
        elif token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise RecordError(
                    f"The JSON text nests arrays and objects more than {MAX_JSON_DEPTH} "
                    f"levels deep (MAX_JSON_DEPTH), at character {match.start()}; no file "
                    "respai writes nests that deep."
                )
        else:
            depth -= 1


def loads_strict(data: bytes | str, *, source: str | None = None) -> Any:
    """Parse JSON text within respai's limits, refusing duplicate keys, NaN and Infinity.

    This is the one reader of JSON files: records, ledger runs, ``keys.json``, a pack's
    manifest and tables all go through it.

    Parameters
    ----------
    data
        UTF-8 bytes or a string.
    source
        The file the text came from, named at the start of an error message, or
        ``None`` when the caller names it.

    Returns
    -------
    Any
        The parsed value. Integers beyond +-(2^53-1) come back as floats, as in
        JavaScript.

    Raises
    ------
    RecordError
        If the text is not UTF-8, not JSON, repeats an object key, contains ``NaN``,
        ``Infinity`` or a number that overflows a double, or passes a limit: more than
        :data:`MAX_JSON_BYTES` bytes, nesting deeper than :data:`MAX_JSON_DEPTH`, an
        integer of more than :data:`MAX_JSON_INTEGER_DIGITS` digits or a string of more
        than :data:`MAX_JSON_STRING_CHARS` characters. The message names the limit.

    Examples
    --------
    >>> loads_strict(b'{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    """
    try:
        return _loads(data)
    except RecordError as exc:
        if source is None:
            raise
        raise RecordError(f"{source}: {exc.message}", exc.hint) from None


def _loads(data: bytes | str) -> Any:
    if len(data) > MAX_JSON_BYTES:
        unit = "characters" if isinstance(data, str) else "bytes"
        raise RecordError(
            f"The JSON text is {len(data):,} {unit} long, more than the limit of "
            f"{MAX_JSON_BYTES:,} bytes (MAX_JSON_BYTES) for one document."
        )
    if isinstance(data, bytes | bytearray | memoryview):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                f"The JSON text is not UTF-8 (byte {exc.start}: {exc.reason})."
            ) from None
    else:
        text = data
    try:
        raw = data if isinstance(data, bytes) else text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in a str: the checking reader reads it
        raw = b""
    fast = _loads_fast(raw, text) if raw else _SLOW
    if fast is not _SLOW:
        return fast
    _check_shape(text)
    try:
        return json.loads(
            text,
            object_pairs_hook=_reject_duplicates,
            parse_constant=_reject_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
        )
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"The text is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from None


_SLOW = object()
""":func:`_loads_fast`'s answer when the text must be read by the checking reader."""

# Each ASCII digit as "0": a run of zeros in the translation is a run of digits in the text
# (no byte of a multi-byte UTF-8 character is an ASCII digit).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * 16
_NOT_DIGIT = re.compile(rb"[^0]")
# The end of an object key is a quote, JSON white space (most often none) and a colon.
# Every key ends so, and inside a string only an escaped quote can, so the count of key
# ends is at least the number of keys. This is the form with white space:
_SPACED_KEY_END = re.compile(rb'"[ \t\n\r]+:')
_CONTAINER_TYPES = frozenset({dict, list})
_JSON_SPACE = b" \t\n\r"


def _long_integer_literal(raw: bytes) -> bool:
    """Whether ``raw`` may hold an integer literal of 16 digits or more.

    Every integer of 15 digits or fewer is within +-(2^53-1). A run of 16 digits or more
    is such a literal unless it is plainly inside a string or another number: after a
    quote, a letter, a point or an exponent, or after a colon that does not end a key
    (``"sha256:000..."``). Any doubt answers ``True``, which only costs time.
    """
    digits = raw.translate(_DIGITS_AS_ZERO)
    i = digits.find(_LONG_RUN)
    while i >= 0:
        j = i - 1  # find gives a run's first digit: the byte before it is no digit
        if j >= 0 and raw[j] == 0x2D:  # "-": a sign, or an exponent's sign
            j -= 1
        while j >= 0 and raw[j] in _JSON_SPACE:
            j -= 1
        if j < 0 or raw[j] in b"[,":
            return True
        if raw[j] == 0x3A:  # ":" that ends a key
            j -= 1
            while j >= 0 and raw[j] in _JSON_SPACE:
                j -= 1
            if j >= 0 and raw[j] == 0x22:
                return True
        after = _NOT_DIGIT.search(digits, i)  # the run's end, found at C speed
        i = -1 if after is None else digits.find(_LONG_RUN, after.start())
    return False


def _loads_fast(raw: bytes, text: str) -> Any:
    """``text`` parsed without the checking reader's hooks, when that provably gives its value.

    ``raw`` is ``text`` in UTF-8. The checking reader is ``json`` with respai's hooks: it
    refuses repeated keys (a hook called per object), long integers (a hook called per
    integer), ``NaN`` / ``Infinity``, doubles that overflow, deep nesting and long
    strings. This reads with the same ``json`` scanner and only the two cheap hooks
    (constants and overflowing doubles), so it builds the value and nothing else: no
    list of pairs per object, and no copy of the text larger than the text. Its result is
    used only when the text holds no integer literal of 16 digits or more (every shorter
    one is within +-(2^53-1), where the integer hook returns the plain integer), no
    string can pass the length limit (the text is shorter than it), the nesting is within
    :data:`MAX_JSON_DEPTH`, and the parsed objects have as many members as the text has
    key ends (a repeated key leaves one member fewer; an escaped quote before a colon
    inside a string only adds to the text's count, which then sends the text to the
    checking reader). Otherwise, and for any text this refuses, the answer is
    :data:`_SLOW`, and the checking reader gives the value or the error message it always
    gave.

    orjson reads faster, but its parser reserves about twelve times the text's size while
    it works: 420 MB for the 24 MB payload of a record of 100,000 groups, against the
    value's own 140 MB here.
    """
    if len(raw) > MAX_JSON_STRING_CHARS or _long_integer_literal(raw):
        return _SLOW
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_float=_parse_float)
    except (json.JSONDecodeError, RecordError, RecursionError):
        return _SLOW
    members = 0
    level: list[Any] = [value] if type(value) is dict or type(value) is list else []
    for _ in range(MAX_JSON_DEPTH):  # one round per level of nesting
        below: list[Any] = []
        for node in level:
            if type(node) is dict:
                members += len(node)
                items: Any = node.values()
            else:
                items = node
            if not _CONTAINER_TYPES.isdisjoint(set(map(type, items))):
                below.extend(v for v in items if type(v) is dict or type(v) is list)
        if not below:
            break
        level = below
    else:
        return _SLOW  # deeper than the limit: the checking reader names where
    if members != _key_ends(raw):
        return _SLOW
    return value


def _key_ends(raw: bytes) -> int:
    """How many times ``raw`` has a key end: a quote, JSON white space and a colon.

    Counted without a copy of the text: the plain ``":`` by ``bytes.count`` and the rare
    spaced form by the expression. Each such end starts at its own quote and holds one
    colon, so no two overlap and the two counts add up.
    """
    return raw.count(b'":') + sum(1 for _ in _SPACED_KEY_END.finditer(raw))


def _is_numpy(obj: object) -> bool:
    return type(obj).__module__ == "numpy"


def jsonable(obj: Any) -> Any:
    """Return a plain JSON-shaped deep copy of ``obj``, ready for :func:`canonical_bytes`.

    Tuples become lists, mappings become dicts, enums become their values, numpy scalars
    and arrays become Python numbers and lists, and aware datetimes become RFC 3339 UTC
    strings ending in ``Z``.

    Parameters
    ----------
    obj
        The value to convert.

    Returns
    -------
    Any
        A fresh structure of dicts, lists, strings, numbers, booleans and ``None``.

    Raises
    ------
    RecordError
        For a NaN or infinite float, a non-string key, a naive datetime or a type with no
        JSON form, naming the JSON path of the value.

    Examples
    --------
    >>> jsonable({"gap": (0.25, 1), "ok": True})
    {'gap': [0.25, 1], 'ok': True}
    """
    try:
        return _plain(obj, share=False)
    except RecordError:
        return _jsonable(obj, ())  # again, tracking the path, so the error names it


def plain_shared(obj: Any) -> Any:
    """:func:`jsonable` that keeps what is plain already instead of copying it.

    The result is ``obj`` itself when ``obj`` is plain JSON values (exact ``str``,
    ``int``, ``bool``, ``None``, finite ``float``, ``dict`` with string keys and
    ``list``); otherwise only the containers holding something that had to be converted
    are new, and the rest is shared with ``obj``. For a caller that reads the result and
    does not change it in place (:func:`respai.record.seal` signs it): a record of many
    groups is then not held twice while it is signed.

    Raises
    ------
    RecordError
        As :func:`jsonable` does.
    """
    try:
        return _plain(obj, share=True)
    except RecordError:
        return _jsonable(obj, ())  # again, tracking the path, so the error names it


_PLAIN_SCALAR_TYPES = frozenset({str, int, bool, type(None)})


def _plain(obj: Any, *, share: bool) -> Any:
    """:func:`_jsonable` without tracking the path: plain values and containers first.

    Exact ``str``, ``int``, ``bool``, ``None``, finite ``float``, ``dict`` with string
    keys, ``list`` and ``tuple`` are converted here; anything else (enums, numpy values,
    datetimes, other mappings) goes through :func:`_jsonable`. A record is almost all
    plain values, so it is converted without building a path tuple per value. With
    ``share``, a ``dict`` or ``list`` whose values all come back as they were is
    returned itself (:func:`plain_shared`); without it every container is new
    (:func:`jsonable`).
    """
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:
        return obj
    if kind is float:
        if math.isfinite(obj):
            return obj
        raise RecordError("not finite")  # the caller walks again to name the path
    if kind is dict:
        out: dict[str, Any] | None = None if share else {}
        for key, value in obj.items():
            if type(key) is not str:
                return _jsonable(obj, ())
            converted = _plain(value, share=share)
            if out is not None:
                out[key] = converted
            elif converted is not value:  # sharing until a value had to change
                out = dict(obj)
                out[key] = converted
        return obj if out is None else out
    if (kind is list or kind is tuple) and not set(map(type, obj)) - _PLAIN_SCALAR_TYPES:
        return obj if kind is list and share else list(obj)  # no walk per item
    if kind is list and share:
        items: list[Any] | None = None
        for i, value in enumerate(obj):
            converted = _plain(value, share=True)
            if items is not None:
                items[i] = converted
            elif converted is not value:
                items = list(obj)
                items[i] = converted
        return obj if items is None else items
    if kind is list or kind is tuple:
        return [_plain(v, share=share) for v in obj]
    return _jsonable(obj, ())


def _jsonable(obj: Any, _path: Path) -> Any:
    if isinstance(obj, enum.Enum):
        return _jsonable(obj.value, _path)
    if _is_numpy(obj) and hasattr(obj, "tolist"):
        # A numpy scalar's .item() and an array's .tolist() give Python values.
        converted = obj.item() if getattr(obj, "ndim", 1) == 0 else obj.tolist()
        return _jsonable(converted, _path)
    if isinstance(obj, dt.datetime):
        if obj.tzinfo is None or obj.utcoffset() is None:
            raise RecordError(
                f"The datetime at {format_path(_path)} has no time zone, so its instant "
                "is unknown.",
                "Use an aware datetime, e.g. datetime.now(timezone.utc).",
            )
        return format_timestamp(obj)
    if isinstance(obj, list | tuple):
        return [_jsonable(v, (*_path, i)) for i, v in enumerate(obj)]
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for key, value in obj.items():
            name = key.value if isinstance(key, enum.Enum) else key
            if not isinstance(name, str):
                raise RecordError(
                    f"The object at {format_path(_path)} has the key {key!r} of type "
                    f"{type(key).__name__}; JSON object keys are strings.",
                    "Convert the key to a string before building the record.",
                )
            out[str(name)] = _jsonable(value, (*_path, name))
        return out
    if isinstance(obj, bool) or obj is None:
        return obj
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise RecordError(
                f"The value at {format_path(_path)} is {float(obj)!r}, which JSON cannot hold.",
                "Write null and a reason (for example 'undefined_reason') instead.",
            )
        return float(obj)
    raise RecordError(
        f"The value at {format_path(_path)} is of type {type(obj).__module__}."
        f"{type(obj).__qualname__}, which has no JSON form.",
        "Convert it to a number, string, list or mapping before building the record.",
    )
