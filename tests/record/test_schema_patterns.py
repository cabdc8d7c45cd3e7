"""A value that ends in a newline never matches a schema pattern (Python's ``$`` would)."""

from __future__ import annotations

import jsonschema
import pytest

from respai.record import record_schema

GOOD = {
    "timestamp": "2026-12-01T00:00:00Z",
    "digest_id": "sha256:" + "ab" * 32,
    "sha256_hex": "ab" * 32,
}


@pytest.mark.parametrize("name", sorted(GOOD))
@pytest.mark.parametrize("suffix", ["\n", "\r\n", " ", "\nx"])
def test_a_trailing_newline_or_extra_text_is_refused(name: str, suffix: str) -> None:
    schema = record_schema()
    validator = jsonschema.Draft202012Validator({**schema["$defs"][name], "$defs": {}})
    assert validator.is_valid(GOOD[name])
    assert not validator.is_valid(GOOD[name] + suffix)


def test_every_anchored_pattern_refuses_a_final_newline() -> None:
    patterns = [p for p in _patterns(record_schema()) if p.endswith("$")]
    assert len(patterns) >= 4
    for pattern in patterns:
        assert pattern.endswith("(?!\\n)$"), pattern


def _patterns(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        return found + [p for v in node.values() for p in _patterns(v)]
    if isinstance(node, list):
        return [p for v in node for p in _patterns(v)]
    return []
