"""``respai fairness``: the declared group rules of a spec, on its cases file."""

from __future__ import annotations

from pathlib import Path

import click

from respai.cli import output
from respai.cli.app import ENGINE_OPTION, QUIET_OPTION, cli

__all__ = ["fairness"]


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file whose thresholds override the spec's.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@ENGINE_OPTION
@QUIET_OPTION
def fairness(spec: Path, policy: Path | None, as_json: bool, engine: str, quiet: bool) -> None:
    """Evaluate the declared group rules of SPEC (a YAML file) on its cases file."""
    from respai.fairness import evaluate_fairness
    from respai.progress import progress
    from respai.render.terminal import print_fairness

    with progress("counting", quiet=quiet):
        result = evaluate_fairness(spec, policy=policy, engine=engine)
    print_fairness(result)
    if as_json:
        output.emit_json(result.to_dict())
    raise SystemExit(result.exit_code)
