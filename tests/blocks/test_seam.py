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
    assert [b.frame for b in blocks.blocks()] == [True, True] + [False] * (len(blocks.BLOCKS) - 2)
    assert kinds()[:4] == ("battery", "rule", "ll144", "paired")
    assert kinds()[-2:] == ("monitor", "unknown") and {"regression", "ranking"} <= set(kinds())
    ids = (
        "auc",
        "group_rule",
        "ll144_x",
        "paired",
        "regression_rule",
        "ranking_rule",
        "monitor_rule",
        "no_such_test",
    )
    assert {t: blocks.owner_of_test(t).name for t in ids} == {
        "auc": "evaluation",
        "group_rule": "fairness",
        "ll144_x": "ll144",
        "paired": "paired",
        "regression_rule": "regression",
        "ranking_rule": "ranking",
        "monitor_rule": "monitor",
        "no_such_test": "unknown",
    }


def _package() -> Path:
    import respai

    return Path(respai.__file__).resolve().parent


#: The modules that loop over the registry: none of them may name a block or a kind.
_LOOPS = tuple(
    sorted(
        {
            *(p.relative_to(_package()).as_posix() for p in (_package() / "export").glob("*.py")),
            "run/evaluation.py",
            "run/evidence.py",
            "render/evaluation_json.py",
            "render/report/page.py",
            "ledger/log.py",
            "load.py",
            "plan/criteria.py",
        }
    )
)


def _kind_names() -> set[str]:
    """What names a registered kind: its key, outcome kind, suite, prefix and test ids.

    The two frame blocks' spec keys (``evaluation``, ``fairness``) and ``calibration`` (a
    rule's test id that is also the name of the calibration bins' part of the record and
    the plan) are words the loops use for other things, so they are left out; the frame
    blocks' kinds, suites and other test ids are in.
    """
    out: set[str] = set()
    for k in blocks.record_kinds():
        out |= {k.outcome_kind, k.suite, k.test_prefix, *k.test_names}
        if not getattr(k, "frame", False):
            out.add(k.name)
    return out - {"", "calibration"}


@pytest.mark.parametrize("module", _LOOPS)
def test_the_loops_over_the_blocks_name_no_block(module: str) -> None:
    import ast

    named = {
        node.value
        for node in ast.walk(ast.parse((_package() / module).read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert {"ll144", "monitor", "monitor_rule", "respai.monitor"} <= _kind_names()
    assert named & _kind_names() == set()


def test_the_loops_cover_every_export_module() -> None:
    assert {"export/outcomes.py", "export/junit.py", "export/cyclonedx.py"} <= set(_LOOPS)
    assert "export/intoto.py" in _LOOPS and "export/formats.py" in _LOOPS


#: The names the monitor's kind constants had beside the registry (``export/`` asked
#: ``monitor/export.py`` for them, and the report kept its own copy of the test id).
_KIND_CONSTANTS = frozenset({"MONITOR_KIND", "MONITOR_SUITE", "MONITOR_TEST"})


def test_no_module_outside_a_kind_s_package_names_its_constants() -> None:
    """Only a kind's own package imports its registered module or names its constants.

    The registry names it by a dotted string; the exports, the report and ``respai log``
    reach it only through the registry, so no ``MONITOR_KIND`` beside it anywhere.
    """
    import ast

    modules = [
        v.partition(":")[0] for v in (*blocks.BLOCKS.values(), *blocks.RECORD_KINDS.values())
    ]
    # a kind in a package of its own (respai.<package>.<module>); the frame blocks are
    # top-level modules (respai.battery_block) that the record's frame itself reads
    homes = {m: m.split(".")[1] + "/" for m in modules if m.count(".") == 2}
    assert homes["respai.monitor.kind"] == "monitor/"
    found = []
    for path in sorted(_package().rglob("*.py")):
        rel = path.relative_to(_package()).as_posix()
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in homes:
                if not rel.startswith(homes[node.module]):
                    found.append(f"{rel} imports {node.module}")
            elif isinstance(node, ast.Import):
                found += [
                    f"{rel} imports {a.name}"
                    for a in node.names
                    if a.name in homes and not rel.startswith(homes[a.name])
                ]
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else node.name
                if isinstance(node, ast.alias)
                else None
            )
            if name in _KIND_CONSTANTS and not rel.startswith("monitor/"):
                found.append(f"{rel} names {name}")
    assert found == []
