"""The two schema validators agree: ``jsonschema_rs`` says valid exactly when ``jsonschema``
finds no violation, on a realistic record and on thousands of broken copies of it.

:func:`respai.record.validate_predicate` trusts the compiled validator's "valid" and asks
the pure-Python one for messages only when it says "invalid", so a record the Python
validator would refuse must never pass the compiled one.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.record.conftest import make_predicate

from respai.record import key_id, schema, seal

_REPLACEMENTS: list[Any] = [
    None,
    "",
    "x",
    "PASS\n",
    "sha256:" + "0" * 63,
    -1,
    0,
    1.5,
    2**60,
    True,
    [],
    {},
    {"unexpected": 1},
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*path, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*path, i)))
    return out


def _sealed() -> Any:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    envelope = seal(make_predicate(), None, key, key_id(key.public_key()))
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]


_BASE = _sealed()
_ALL_PATHS = _paths(_BASE)[1:]


def _agree(predicate: Any) -> None:
    fast = schema._fast_validator().is_valid(predicate)
    slow = not any(True for _ in schema._validator().iter_errors(predicate))
    assert fast == slow, (fast, slow)


def test_they_agree_on_the_realistic_record() -> None:
    _agree(_BASE)
    assert schema.validate_predicate(_BASE) == []


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_ALL_PATHS),
            st.sampled_from(["delete", "replace", "add"]),
            st.sampled_from(_REPLACEMENTS),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_they_agree_on_broken_records(edits: list[tuple[tuple[Any, ...], str, Any]]) -> None:
    broken = copy.deepcopy(_BASE)
    for path, how, new in edits:
        parent: Any = broken
        try:
            for part in path[:-1]:
                parent = parent[part]
            last = path[-1]
            if how == "delete" and isinstance(parent, dict):
                parent.pop(last, None)
            elif how == "add" and isinstance(parent, dict):
                parent["zz_extra"] = new
            elif isinstance(parent, dict | list):
                parent[last] = copy.deepcopy(new)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this path
    _agree(broken)
