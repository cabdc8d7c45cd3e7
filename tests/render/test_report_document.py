"""The page's own reading of a payload (:mod:`respai.render.report.document`).

The page parses the signed payload once to show it; a compact grouping's calibration
bins, which it never shows, are left out of that parse only when they are written as
canonical JSON writes them, so anything else still meets the strict reader.
"""

from __future__ import annotations

import pytest

from respai.record.canonical import loads_strict
from respai.render.report.document import _unshown_bins

HEAD = b'{"calibration_bins":{"bins":'


def test_canonical_bins_are_left_empty() -> None:
    raw = HEAD + b'[[1,0,25000,0,0,0],[3,2,1999999,0,0,0]],"without_probability":[0,1]}}'
    cut = _unshown_bins(raw)
    assert cut == HEAD + b'[],"without_probability":[0,1]}}'
    assert loads_strict(cut) == {"calibration_bins": {"bins": [], "without_probability": [0, 1]}}


@pytest.mark.parametrize(
    "bins",
    [
        b"[[1,,2]]",  # an empty member
        b"[[,1]]",
        b"[[1,]]",
        b"[[],[1]]",
        b"[[01,2]]",  # a leading zero
        b"[[1,007]]",
        b"[[1234567890123456]]",  # 16 digits: beyond what the record writes exactly
    ],
)
def test_bins_canonical_json_would_not_write_are_parsed_as_they_stand(bins: bytes) -> None:
    raw = HEAD + bins + b"}}"
    assert _unshown_bins(raw) == raw


def test_a_payload_without_compact_bins_is_untouched() -> None:
    raw = b'{"calibration_bins":[{"key":["a"],"bins":[[1,0,5]]}]}'
    assert _unshown_bins(raw) is raw
