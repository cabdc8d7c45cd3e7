"""``respai demo``: the group rules end to end on the bundled sample data.

With ``--lifecycle`` it also runs an audit's whole life on the sample, through the real
commands: the criteria sealed before the numbers (``respai plan``), the evaluation held
to them (``respai evaluate --plan``), the record and the ledger verified, and a run with a
changed criterion refused.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import cli

__all__ = ["demo"]


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("respai-demo"),
    show_default=True,
    help="Folder to write the demo's outputs to.",
)
@click.option(
    "--lifecycle",
    is_flag=True,
    help="Also run an audit's lifecycle on the sample: seal the criteria (respai plan), "
    "evaluate under the plan, verify the record and the ledger, and see a changed "
    "criterion refused. It uses a key and a ledger of its own, inside --out.",
)
def demo(out: Path, lifecycle: bool) -> None:
    """Run the group rules end to end on the bundled sample data and write the outputs."""
    from respai.demo import run_demo

    summary = run_demo(out)
    for line in summary:
        output.echo(line)
    if lifecycle:
        for line in _lifecycle(out.resolve()):
            output.echo(line)


def _run(*args: str) -> tuple[int, str, str]:
    """One respai command in this process: its exit code, standard output and error."""
    from respai.cli.app import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(list(args))
    return code, stdout.getvalue(), stderr.getvalue()


def _expect(step: str, got: tuple[int, str, str], code: int) -> tuple[int, str, str]:
    if got[0] != code:
        raise RuntimeError(f"demo step '{step}' exited {got[0]}, not {code}: {got[2].strip()}")
    return got


def _lifecycle(out: Path) -> list[str]:
    """Plan, evaluate under the plan, verify, and a refused change, in ``out/lifecycle``."""
    life = out / "lifecycle"
    if life.exists():
        shutil.rmtree(life)
    life.mkdir()
    spec, ledger, keys = out / "loan_screen.yaml", life / "ledger", life / "keys"
    _expect("keys new", _run("keys", "new", "--dir", str(keys)), 0)
    key = str(next(keys.glob("respai-*.key")))
    common = ("--key", key, "--ledger", str(ledger))
    _, planned, _ = _expect("plan", _run("plan", str(spec), *common, "--json"), 0)
    plan_id = json.loads(planned)["plan_id"]
    evaluated = _run(
        "evaluate", str(spec), "--plan", plan_id, *common,
        "--out", str(life / "evaluation"), "--quiet", "--json",
    )  # fmt: skip
    if evaluated[0] not in (0, 1, 3, 4):
        raise RuntimeError(f"demo step 'evaluate' exited {evaluated[0]}: {evaluated[2].strip()}")
    summary = json.loads(evaluated[1])
    record = life / "evaluation" / "record.json"
    listed = str(keys / "keys.json")
    _expect("verify", _run("verify", str(record), "--keys", listed), 0)
    _expect("verify --ledger", _run("verify", "--ledger", str(ledger), "--keys", listed), 0)
    changed = life / "changed.yaml"
    text = spec.read_text(encoding="utf-8")
    before, after = "max_group_gap: 0.05}", "max_group_gap: 0.08}"
    changed.write_text(text.replace(before, after, 1), encoding="utf-8")
    refused = _run("evaluate", str(changed), "--plan", plan_id, *common)  # read no data
    _expect("evaluate a changed spec", refused, 2)
    reason = refused[2].strip().splitlines()[0] if refused[2].strip() else ""
    changed.unlink()
    return [
        "",
        f"respai demo --lifecycle: an audit's life in {life}/ (its own key and ledger)",
        f"  1. respai plan loan_screen.yaml: the criteria sealed before the data, {plan_id}",
        f"  2. respai evaluate loan_screen.yaml --plan ...: verdict {summary['verdict']} "
        f"(exit {evaluated[0]}), criteria as planned, record in evaluation/record.json",
        "  3. respai verify evaluation/record.json: verified; respai verify --ledger: the "
        "plan precedes the run, every run verifies",
        "  4. the same spec with fnr-by-sex's max_group_gap 0.08 instead of 0.05, under the "
        "same plan: refused (exit 2), nothing written:",
        f"     {reason}",
    ]
