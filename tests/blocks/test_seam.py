"""The block seam: a block registered in one line reaches every place a block goes.

A toy block, registered for the test only, is parsed from the spec, planned, run, counted
into the run's verdict, recorded, printed and put in the ``--json`` document, with no
code outside its own class naming it.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from rich.console import Console

import respai
from respai import blocks
from respai.blocks import Block, ParseContext, RecordParts, RunContext
from respai.types import Verdict


class _Echo(Block):
    """Says back a note from the spec, and a verdict the spec names."""

    name = "echo"

    def parse(self, raw: Any, ctx: ParseContext) -> dict[str, Any]:
        return {"note": str(raw["note"]), "verdict": str(raw.get("verdict", "PASS"))}

    def criteria(self, declared: dict[str, Any], policy: Any) -> Any:
        return dict(declared)

    def inputs(self, declared: dict[str, Any]) -> list[tuple[str, Path | str | None]]:
        return []

    def run(self, ctx: RunContext) -> dict[str, Any]:
        return {"note": ctx.spec.blocks["echo"]["note"], "cases": ctx.inputs is not None}

    def verdicts(self, result: dict[str, Any]) -> list[Verdict]:
        return [Verdict(self.declared_verdict)]

    def record(self, result: dict[str, Any]) -> RecordParts:
        return RecordParts(run_start={"note": result["note"]}, caveats=["echo: a toy block"])

    def terminal(self, result: dict[str, Any], console: Console) -> None:
        console.print(f"echo says {result['note']}")

    def to_json(self, result: dict[str, Any]) -> Any:
        return {"note": result["note"]}

    declared_verdict = "PASS"


ECHO = _Echo()


@pytest.fixture
def with_echo(monkeypatch: pytest.MonkeyPatch) -> _Echo:
    monkeypatch.setattr(blocks, "BLOCKS", {**blocks.BLOCKS, "echo": f"{__name__}:ECHO"})
    blocks.block_named.cache_clear()
    yield ECHO
    blocks.block_named.cache_clear()


def _spec(note: str, verdict: str = "PASS") -> dict[str, Any]:
    return {
        "system": {"name": "seam"},
        "fairness": {
            "label": "y",
            "prediction": "p",
            "attributes": {"g": ["a", "b"]},
            "rules": [{"id": "sel", "rate": "selection", "attribute": "g", "max_group_gap": 1}],
        },
        "echo": {"note": note, "verdict": verdict},
    }


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"y": [1, 0] * 100, "p": [1, 0] * 100, "g": ["a"] * 100 + ["b"] * 100})


def test_a_registered_block_is_parsed_planned_run_and_recorded(
    with_echo: _Echo, tmp_path: Path
) -> None:
    from respai.plan.criteria import criteria
    from respai.render.evaluation_json import evaluation_json
    from respai.render.terminal import render_evaluation
    from respai.run.group_rules import spec_of

    spec = spec_of(_spec("hello"))
    assert spec.blocks["echo"] == {"note": "hello", "verdict": "PASS"}
    assert criteria(spec, None)["echo"] == {"note": "hello", "verdict": "PASS"}
    result = respai.evaluate(_spec("hello"), _frame(), out=tmp_path / "out", key=None)
    assert result.blocks["echo"] == {"note": "hello", "cases": True}
    assert result.sealed is not None
    start = result.sealed.predicate["records"][0]
    assert start["echo"] == {"note": "hello"}
    assert "echo: a toy block" in result.sealed.predicate["caveats"]
    buffer = io.StringIO()
    render_evaluation(result, Console(file=buffer, width=120))
    assert "echo says hello" in buffer.getvalue()
    assert evaluation_json(result, result.sealed)["echo"] == {"note": "hello"}


def test_a_block_s_verdict_counts_in_the_run_s(
    with_echo: _Echo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_Echo, "declared_verdict", "FAIL")
    result = respai.evaluate(_spec("no"), _frame())
    assert result.verdict is Verdict.FAIL


def test_an_unregistered_block_is_an_unknown_key() -> None:
    with pytest.raises(respai.SpecError, match="echo"):
        respai.evaluate(_spec("x"), _frame())


def test_every_registered_block_resolves_to_its_named_block() -> None:
    assert [b.name for b in blocks.blocks()] == list(blocks.BLOCKS)


def test_the_battery_and_the_rules_are_registered_blocks() -> None:
    from respai.export.outcomes import kinds

    assert list(blocks.BLOCKS)[:2] == ["evaluation", "fairness"]
    assert [b.frame for b in blocks.blocks()] == [True, True, False, False]
    assert kinds() == ("battery", "rule", "ll144", "paired")
    owner = {t: blocks.block_of_test(t) for t in ("auc", "group_rule", "ll144_x", "paired")}
    assert {t: b.name if b else None for t, b in owner.items()} == {
        "auc": "evaluation",
        "group_rule": "fairness",
        "ll144_x": "ll144",
        "paired": "paired",
    }


#: The modules that loop over the registry: none of them may name a block.
_LOOPS = (
    "run/evaluation.py",
    "run/evidence.py",
    "export/outcomes.py",
    "export/cyclonedx.py",
    "export/junit.py",
    "render/evaluation_json.py",
    "load.py",
    "plan/criteria.py",
)


@pytest.mark.parametrize("module", _LOOPS)
def test_the_loops_over_the_blocks_name_no_block(module: str) -> None:
    import ast
    from pathlib import Path

    import respai

    path = Path(respai.__file__).resolve().parent / module
    named = {
        node.value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    ids = {"ll144", "paired", "battery", "rule", "group_rule", "ll144_impact_ratio"}
    assert named & ids == set()
