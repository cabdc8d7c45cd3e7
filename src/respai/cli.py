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


ENGINE_OPTION = click.option(
    "--engine",
    type=click.Choice(["duckdb", "spark"]),
    default="duckdb",
    show_default=True,
    help="Where the count pass over the cases file runs: embedded DuckDB, or Spark "
    "(local, or the cluster named by RESPAI_SPARK_MASTER).",
)
QUIET_OPTION = click.option("--quiet", "-q", is_flag=True, help="No progress display.")


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


@cli.command()
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file: thresholds and decision rules per test.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("respai-out"),
    show_default=True,
    help="Folder for record.json, summary.txt and the public key.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the result as JSON to stdout.")
@click.option(
    "--key",
    type=click.Path(path_type=Path),
    help="Ed25519 private key (PKCS#8 PEM); passphrase from RESPAI_KEY_PASSPHRASE or a prompt.",
)
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="Append-only ledger the run is chained into.",
)
@click.option(
    "--no-ledger",
    is_flag=True,
    help="Do not append to a ledger (the record then starts its own chain).",
)
@click.option(
    "--trust-model-code",
    is_flag=True,
    help="Allow a pickle/joblib model file to load. Loading it runs code from the file; "
    "the record states that it was allowed.",
)
@QUIET_OPTION
@ENGINE_OPTION
def evaluate(
    spec: Path,
    policy: Path | None,
    out: Path,
    as_json: bool,
    key: Path | None,
    ledger: Path,
    no_ledger: bool,
    trust_model_code: bool,
    quiet: bool,
    engine: str,
) -> None:
    """Run the RESPAI battery and the group rules of SPEC and write a signed record."""
    import io

    from respai.evaluate import evaluate as run_evaluation
    from respai.render.terminal import render_evaluation
    from respai.sealing import (
        create_signing_key,
        evaluate_output,
        find_signing_key,
        seal_evaluation,
    )

    found = find_signing_key(key)  # a bad key is reported before the data is read
    staged = evaluate_output(out)  # so is an --out that may not be replaced
    from respai.progress import progress

    with progress("evaluating", quiet=quiet) as bar:
        result = run_evaluation(
            spec,
            policy=policy,
            trust_model_code=trust_model_code,
            on_batch=lambda done, total: bar.update(done, total),
            engine=engine,
        )
    sk = found or create_signing_key()  # created only once the evaluation succeeded
    if sk.created:
        click.echo(
            f"respai: no signing key was configured, so a new one was created: "
            f"{sk.path} (key id {sk.key_id}). Its public key and keys.json are beside "
            "it; publish them so others can verify your records.",
            err=True,
        )
    from rich.console import Console

    buffer = io.StringIO()
    record_file = out.resolve() / "record.json"
    render_evaluation(
        result,
        Console(file=buffer, markup=False, emoji=False, highlight=False, width=120),
        record_path=str(record_file),
        key_id=sk.key_id,
    )
    sealed = seal_evaluation(
        result, sk, out=staged, summary=buffer.getvalue(), ledger=None if no_ledger else ledger
    )
    render_evaluation(result, _console(), record_path=str(sealed.record_path), key_id=sk.key_id)
    if as_json:
        _emit_json(sealed.summary_json())
    raise SystemExit(result.exit_code)


@cli.command()
@click.argument("record", required=False, type=click.Path(path_type=Path))
@click.option(
    "--key", "pub", type=click.Path(path_type=Path), help="Public key (SPKI PEM) to verify with."
)
@click.option(
    "--keys",
    "keys_json",
    type=click.Path(path_type=Path),
    multiple=True,
    help="keys.json listing published keys and their validity windows; repeat to trust "
    "the keys of several (the ring is their union).",
)
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    help="Verify a whole ledger folder instead of one record.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the checks as JSON to stdout.")
def verify(
    record: Path | None,
    pub: Path | None,
    keys_json: tuple[Path, ...],
    ledger: Path | None,
    as_json: bool,
) -> None:
    """Check a signed RECORD (or a --ledger): signature, ids, chain, brackets, schema."""
    from respai.verifying import key_ring, verify_ledger_cli, verify_record_cli

    if record is None and ledger is None:
        raise click.UsageError("give a RECORD file or --ledger DIR.")
    ring, ring_source = key_ring(pub, keys_json)
    if ledger is not None:
        lines, payload, ok = verify_ledger_cli(ledger, ring)
    else:
        assert record is not None
        lines, payload, ok = verify_record_cli(record, ring)
    click.echo(f"keys: {ring_source}", err=True)
    for line in lines:
        click.echo(line, err=True)
    if as_json:
        _emit_json(payload)
    raise SystemExit(0 if ok else 1)


@cli.command()
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="The ledger folder.",
)
@click.option("--json", "as_json", is_flag=True, help="Write the runs as JSON to stdout.")
def log(ledger: Path, as_json: bool) -> None:
    """List the runs in a ledger, oldest first (no verification: use respai verify)."""
    from respai.ledger import list_runs, log_lines

    if not ledger.is_dir():
        raise click.UsageError(f"no ledger at {ledger}; respai evaluate creates one.")
    runs = list_runs(ledger)
    for line in log_lines(runs):
        click.echo(line, err=True)
    if as_json:
        _emit_json({"ledger": str(ledger), "runs": [r.to_json() for r in runs]})


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("a")
@click.argument("b")
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="Ledger to look runs up in (by run id, seq or -1).",
)
@click.option("--json", "as_json", is_flag=True, help="Write the comparison as JSON.")
def compare(a: str, b: str, ledger: Path, as_json: bool) -> None:
    """Show what changed between two records A and B of the same system.

    A and B are record files, or run ids, seq numbers or -1 / -2 (newest, the one
    before) in the ledger. Compare does not verify: run respai verify first.
    """
    from respai.compare import compare_records
    from respai.ledger import find_run, read_run

    comparison = compare_records(
        read_run(find_run(ledger, a)), read_run(find_run(ledger, b)), labels=(a, b)
    )
    for line in comparison.lines():
        click.echo(line, err=True)
    if as_json:
        _emit_json(comparison.to_dict())


@cli.group()
def keys() -> None:
    """Manage Ed25519 signing keys."""


@keys.command("new")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path),
    help="Folder for the key pair and keys.json (default: the user's key folder).",
)
def keys_new(directory: Path | None) -> None:
    """Create an Ed25519 key pair (PKCS#8 PEM, mode 0600) and list it in keys.json."""
    from respai.record import default_key_dir, new_key, passphrase_from_env_or_prompt

    folder = directory or default_key_dir()
    passphrase = passphrase_from_env_or_prompt(prompt=True, confirm=True)
    files = new_key(folder, passphrase=passphrase)
    click.echo(f"key id:      {files.key_id}", err=True)
    click.echo(
        f"private key: {files.private_key} (mode 0600, "
        f"{'passphrase-encrypted' if files.encrypted else 'not encrypted'})",
        err=True,
    )
    click.echo(f"public key:  {files.public_key}", err=True)
    click.echo(f"keys.json:   {files.keys_json} (publish it with the public key)", err=True)


def _console() -> Any:
    from rich.console import Console

    return Console(stderr=True, markup=False, emoji=False, highlight=False)


@cli.command()
@click.argument("record", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="Where to write the HTML report.",
)
@click.option(
    "--key",
    "pub",
    type=click.Path(path_type=Path),
    help="Public key to embed (default: public_key.pem beside the record).",
)
def report(record: Path, output: Path, pub: Path | None) -> None:
    """Render a signed RECORD as a self-contained HTML report that verifies itself."""
    from respai.render.html import render_report_file
    from respai.sealing import write_file

    write_file(output, render_report_file(record, pub))
    click.echo(f"respai report: wrote {output}", err=True)


@cli.command("sample-page")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=Path("sample.html"),
    show_default=True,
    help="Where to write the page.",
)
def sample_page(output: Path) -> None:
    """Write the in-browser sample page: paste a CSV, get signed rates, nothing leaves."""
    from respai.render.sample_page import sample_page_html
    from respai.sealing import write_file

    write_file(output, sample_page_html())
    click.echo(f"respai sample-page: wrote {output}", err=True)


def _register() -> None:
    from respai.ll144.command import ll144_command
    from respai.ll144.pack import pack_command, reproduce_command

    cli.add_command(ll144_command)
    cli.add_command(pack_command)
    cli.add_command(reproduce_command)


_register()


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
