"""The spec reader's two loaders (libyaml's parser and PyYAML's pure-Python one) agree.

The fast loader puts libyaml's C scanner and parser under the same Python composer, so
the values, the limits and the duplicate-key check must be the pure-Python loader's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from respai.errors import SpecError
from respai.spec import yaml_io

DOCS = [
    'system: {name: a, version: "1"}\nfairness:\n  attributes:\n    sex: [f, m]\n',
    "a: &x [1, 2, 3]\nb: *x\nc: {d: 1.5, e: null, f: true, g: '007'}\n",
    "- 0x1F\n- 1_000\n- 2026-12-05\n- ~\n- 'quoted: text'\n- |\n  block\n  text\n",
    "stores: [" + ", ".join(f"s{i}" for i in range(3000)) + "]\n",
]


@pytest.mark.skipif(yaml_io.CParser is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize("text", DOCS)
def test_the_loaders_read_the_same_values(text: str) -> None:
    fast = yaml.load(text, Loader=yaml_io._LOADER)
    slow = yaml.load(text, Loader=yaml_io._StrictLoader)
    assert fast == slow
    assert fast == yaml.safe_load(text)


@pytest.mark.skipif(yaml_io.CParser is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a: 1\na: 2\n", "appears twice"),
        ("a: &x [1]\nb: &y [*x, *x]\n" + "c: [" + ", ".join(["*y"] * 10) + "]\n", None),
        ("n: " + "1" * 40 + "\n", "digits"),
    ],
)
def test_the_fast_loader_keeps_the_checks(text: str, words: str | None) -> None:
    if words is None:  # within the limits
        assert yaml.load(text, Loader=yaml_io._LOADER) == yaml.safe_load(text)
        return
    with pytest.raises(SpecError, match=words):
        yaml.load(text, Loader=yaml_io._LOADER)


def test_a_yaml_error_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("a: [1, 2\nb: 3\n", encoding="utf-8")
    with pytest.raises(SpecError) as fast:
        yaml_io._read_yaml(path, "spec")
    try:
        yaml.load(path.read_text(encoding="utf-8"), Loader=yaml_io._StrictLoader)
    except yaml.YAMLError as exc:
        mark = exc.problem_mark  # type: ignore[attr-defined]
        assert f"line {mark.line + 1}, column {mark.column + 1}" in fast.value.message
    else:  # pragma: no cover
        pytest.fail("the pure-Python loader read a broken file")
