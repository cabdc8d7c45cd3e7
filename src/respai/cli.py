"""The ``respai`` command line: parse, call the library, render, exit.

This is the only module that prints or exits. People-facing text goes to standard error,
machine output (``--json``) to standard output. Every :class:`respai.errors.Error` is
caught here, once, and becomes one paragraph on standard error and exit code 2.
Heavy modules are imported inside the commands so ``respai --help`` starts fast.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from respai import __version__
from respai.errors import Error

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_INTERNAL = 70


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="respai")
def cli() -> None:
    """Evidence about an AI system's decisions that an outsider can check.

    Exit codes: 0 PASS, 1 FAIL, 2 usage or input error, 3 INSUFFICIENT_EVIDENCE,
    4 MANUAL_REVIEW. The worst verdict of the run decides.
    """


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file whose thresholds override the spec's.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
def fairness(spec: Path, policy: Path | None, as_json: bool) -> None:
    """Evaluate the declared group rules of SPEC (a YAML file) on its cases file."""
    from respai.fairness import evaluate_fairness
    from respai.render.terminal import print_fairness

    result = evaluate_fairness(spec, policy=policy)
    print_fairness(result)
    if as_json:
        _emit_json(result.to_dict())
    raise SystemExit(result.exit_code)


@cli.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("respai-demo"),
    show_default=True,
    help="Folder to write the demo's outputs to.",
)
def demo(out: Path) -> None:
    """Run the group rules end to end on the bundled sample data and write the outputs."""
    from respai.demo import run_demo

    summary = run_demo(out)
    for line in summary:
        click.echo(line, err=True)


def _emit_json(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False))
    sys.stdout.write("\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit code (never raises)."""
    try:
        cli.main(args=argv, prog_name="respai", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except click.exceptions.Abort:
        click.echo("respai: aborted.", err=True)
        return EXIT_USAGE
    except click.exceptions.ClickException as exc:
        exc.show()
        return EXIT_USAGE
    except Error as exc:
        click.echo(f"respai: error: {exc.diagnostics()}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("respai: interrupted.", err=True)
        return 130
    except Exception as exc:
        if os.environ.get("RESPAI_DEBUG"):
            raise
        click.echo(
            f"respai: internal error ({type(exc).__name__}: {exc}). This is a bug in "
            "respai, not in your input; please report it. Set RESPAI_DEBUG=1 to see the "
            "traceback.",
            err=True,
        )
        return EXIT_INTERNAL
    return 0
