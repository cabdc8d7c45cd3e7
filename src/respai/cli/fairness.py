"""``respai fairness``: the declared group rules of a spec, on its cases file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import click

from respai.cli import output
from respai.cli.app import (
    ACCEPT_OPTION,
    ENGINE_OPTION,
    JUNIT_OPTION,
    QUIET_OPTION,
    check_junit_path,
    cli,
)

if TYPE_CHECKING:
    from respai.types import Verdict

__all__ = ["fairness"]


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file whose thresholds override the spec's.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@JUNIT_OPTION
@ENGINE_OPTION
@QUIET_OPTION
@ACCEPT_OPTION
def fairness(
    spec: Path,
    policy: Path | None,
    as_json: bool,
    junit: Path | None,
    engine: str,
    quiet: bool,
    accepted: tuple[Verdict, ...],
) -> None:
    """Evaluate the declared group rules of SPEC (a YAML file) on its cases file."""
    from respai.cli.preload import FAIRNESS, preload

    check_junit_path(junit)
    preload(FAIRNESS)  # numpy, scipy and rich import while DuckDB reads the file
    from respai.progress import progress
    from respai.render.terminal import print_fairness
    from respai.run.group_rules import evaluate_fairness

    with progress("counting", quiet=quiet):
        result = evaluate_fairness(spec, policy=policy, engine=engine)
    result = dataclasses.replace(result, accepted=accepted)
    if junit is not None:  # the run is not signed: the suite says so
        from respai.export.junit import junit_xml
        from respai.export.outcomes import fairness_outcomes, orientation_facts
        from respai.io import write_file

        doc = result.to_dict()
        facts = {
            "verdict": result.verdict.value,
            "signed": "no (respai fairness)",
            **orientation_facts(doc.get("settings")),
        }
        name = f"respai: {doc['name']}" if doc.get("name") else "respai"
        write_file(junit, junit_xml(fairness_outcomes(doc), name=name, properties=facts))
    print_fairness(result)
    if as_json:
        output.emit_json(result.to_dict())
    raise SystemExit(result.exit_code)
