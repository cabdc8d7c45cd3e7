"""The report's bound values: the JSON Pointer kept as the page walks down the record."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from respai.render.report.bind import At, pointer

keys = st.one_of(st.text(alphabet="ab/~01 <&\"'", max_size=4), st.integers(-2, 3))


@given(st.lists(keys, max_size=6))
def test_the_pointer_kept_step_by_step_is_the_pointer_of_the_path(path: list[Any]) -> None:
    at = At({"a": [1, {"/": {"~": 2}}]})
    for key in path:
        at = at[key]
    assert at.path == tuple(path)
    assert at.json_pointer == pointer(tuple(path))


def test_a_pointer_escapes_tilde_before_slash() -> None:
    at = At({"~1": {"a/b": 3}})["~1"]["a/b"]
    assert at.value == 3
    assert at.json_pointer == "/~01/a~1b"
