"""``respai monitor``: add batches of live outcomes to a monitoring stream, sign, decide.

A thin layer: find the key (a bad key is reported before any batch is read), call
:func:`respai.monitor.run.run_monitor`, sign the call's looks into the ledger, print every
look's verdicts and the changes, and exit with the latest look's worst verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from respai.cli import output
from respai.cli.app import (
    KEY_OPTION,
    LEDGER_OPTION,
    NO_LEDGER_OPTION,
    TIMESTAMP_OPTION,
    cli,
)

if TYPE_CHECKING:
    from respai.monitor.run import MonitorResult
    from respai.record import KeyRing
    from respai.sealing import SigningKey

__all__ = ["monitor_command"]


@cli.command("monitor")
@click.argument("spec", required=False, type=click.Path(path_type=Path))
@click.argument("batches", nargs=-1, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write every look as JSON to stdout.")
@click.option(
    "--window",
    type=int,
    metavar="N",
    help="Also decide every rule on its last N batches alone (one-off intervals, valid "
    "for one window; the exit code stays the stream's).",
)
@click.option(
    "--status",
    "status",
    metavar="LEDGER",
    type=click.Path(path_type=Path),
    help="List the monitoring streams of LEDGER with their looks and verdicts (read, not "
    "verified), instead of adding batches.",
)
@click.option("--policy", type=click.Path(path_type=Path), help="Policy file for the rules.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Folder for this call's signed record.json and the stream's report.html "
    "(created, or replaced when it holds an earlier monitor output).",
)
@click.option(
    "--new-stream",
    "new_stream",
    metavar="REASON",
    help="Start a new stream although the ledger holds one of the same criteria; the "
    "record keeps REASON and the stream it replaces.",
)
@KEY_OPTION
@LEDGER_OPTION
@NO_LEDGER_OPTION
@TIMESTAMP_OPTION
def monitor_command(
    spec: Path | None,
    batches: tuple[Path, ...],
    as_json: bool,
    window: int | None,
    status: Path | None,
    policy: Path | None,
    out: Path | None,
    new_stream: str | None,
    key: Path | None,
    ledger: Path,
    no_ledger: bool,
    timestamps: tuple[str, ...],
) -> None:
    """Add BATCHES (files of live outcomes, in order) as the next looks of SPEC's stream.

    Each group's rate gets an anytime-valid confidence sequence, so checking after every
    batch never inflates false alarms, and each rule a change detector that reads FAIL
    when the rate after some batch breaks the rule (a false alarm on average at most once
    in horizon/alpha looks). The stream (per system and criteria: a comment in
    the spec changes nothing) continues from the looks already in the ledger, which must
    verify with your key; a batch already in the stream is refused. Exit code: the latest
    look's worst verdict (0, 1, 3), or 2 for a bad spec or batch (nothing is written).
    """
    from respai.monitor.run import run_monitor
    from respai.monitor.seal import monitor_output, seal_monitor
    from respai.sealing import begin_signing

    if status is not None:
        _status(status, spec, as_json)
        return
    if spec is None or not batches:
        raise click.UsageError(
            "respai monitor needs a SPEC and at least one BATCH file (or --status LEDGER to "
            "list a ledger's streams)."
        )
    if window is not None and window < 1:
        raise click.UsageError(f"--window {window}: a window holds at least one batch.")
    _check_new_stream(new_stream, no_ledger)
    book = None if no_ledger else ledger
    signing = begin_signing(
        [("--out", out)],
        [("the spec", spec), ("--policy", policy), *(("the batch", b) for b in batches)],
        key=key,
        ledger=book,
        stage=monitor_output,
        out=out,
        timestamps=timestamps,
    )
    result = run_monitor(
        spec,
        list(batches),
        policy=policy,
        ledger=book,
        ring=_ring(signing.found),
        new_stream=new_stream,
        window=window,
    )
    _, appended, note = seal_monitor(result, signing)
    sk = signing.signing_key()
    if sk.created:
        output.key_created(sk.path, sk.key_id)
    _print(result)
    where = f"; run appended to the ledger {appended}" if appended else ""
    looks = ", ".join(str(b.look) for b in result.new_batches)
    output.echo(f"looks {looks} signed with key {sk.key_id}{where}")
    if out is not None:
        output.echo(f"wrote record.json, report.html to {out}")
    if note:
        output.echo(f"respai: warning: {note}")
    if as_json:
        output.emit_json(result.to_dict())
    raise SystemExit(result.exit_code)


def _status(ledger: Path, spec: Path | None, as_json: bool) -> None:
    """Print the ledger's streams (``--status``); SPEC and BATCH are not taken with it."""
    from respai.monitor.status import ledger_streams, status_lines

    if spec is not None:
        raise click.UsageError(
            f"--status lists a ledger's streams and adds no batch, but {spec} was given too. "
            "Leave out the spec and batches, or --status."
        )
    streams = ledger_streams(ledger)
    for line in status_lines(ledger, streams):
        output.echo(line)
    if as_json:
        output.emit_json({"ledger": str(ledger), "streams": [s.to_json() for s in streams]})


def _check_new_stream(reason: str | None, no_ledger: bool) -> None:
    """Refuse a ``--new-stream`` reason that is empty, a file name, or without a ledger."""
    if reason is None:
        return
    if not reason.strip():
        raise click.UsageError(
            "--new-stream needs a reason, and it was empty. Say why a new stream starts "
            'instead of continuing the one of the same criteria, e.g. --new-stream "model '
            'retrained on 2026 data"; the record keeps it.'
        )
    if no_ledger:
        raise click.UsageError(
            "--new-stream starts a new stream in the ledger, and --no-ledger was given (a "
            "call without a ledger is always a stream of its own batches). Leave out one "
            "of the two options."
        )
    if Path(reason).is_file():
        raise click.UsageError(
            f"--new-stream took the file {reason!r} as its reason. Give the reason "
            'in quotes after --new-stream, e.g. --new-stream "model retrained".'
        )


def _ring(found: SigningKey | None) -> KeyRing:
    """The keys an earlier look must verify with: the signing key's keys.json, and itself."""
    from respai.record import KeyRing
    from respai.record.keys import default_key_dir

    rings = []
    folder = default_key_dir() if found is None else found.path.parent
    listed = folder / "keys.json"
    if listed.exists() or listed.is_symlink():  # a FIFO or a device is refused by load
        rings.append(KeyRing.load(listed))
    if found is not None:
        rings.append(KeyRing.from_public_key(found.key.public_key()))
    if not rings:
        return KeyRing(())
    return rings[0].union(*rings[1:])


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _stat(log_stat: float | None) -> str:
    import math

    if log_stat is None:
        return "—"
    if log_stat == math.inf:
        return "inf"
    value = math.exp(min(log_stat, 700.0))
    return f"{value:.3g}" if value < 1e4 else f"{value:.2e}"


def _print(result: MonitorResult) -> None:
    from respai.monitor.change import CHANGE_METHOD, guarantee_text

    output.echo(f"monitoring stream {result.stream}: {len(result.looks)} look(s)")
    if result.new_stream is not None:
        replaces = result.new_stream.get("replaces")
        left = f", leaving the stream {replaces}" if replaces else ""
        output.echo(f"new stream started{left}: {result.new_stream.get('reason')}")
    output.echo(result.fairness.orientation_line)
    output.echo(f"change detection ({CHANGE_METHOD}): {guarantee_text(result.fairness.alpha)}")
    output.echo("")
    output.echo(f"{'look':>4}  {'rule':<20} {'verdict':<22} groups: cumulative rate [sequence]")
    for look in result.looks:
        mark = "" if look.new else " (earlier)"
        for r in look.rules:
            groups = "; ".join(
                f"{g.group} {_num(g.rate)} [{g.interval.lo:.3f}, {g.interval.hi:.3f}]"
                for g in r.groups
            )
            output.echo(f"{look.look:>4}  {r.id:<20} {r.verdict.value:<22} {groups}{mark}")
            if not look.new:
                continue
            for g in r.groups:
                iv = g.batch_interval
                counts = "" if g.batch is None else f"{g.batch[1]}/{g.batch[0] - g.batch[2]}"
                band = "" if iv is None else f" [{iv.lo:.3f}, {iv.hi:.3f}]"
                output.echo(f"{'':>28}batch {g.group}: {counts} = {_num(g.batch_rate)}{band}")
            if r.change is not None:
                stats = ", ".join(
                    f"{d.label} {_stat(d.log_statistic)}" for d in r.change.detectors
                )
                alarm = " ALARM" if r.change.alarm_look == look.look else ""
                output.echo(f"{'':>28}change: {stats} (alarm at {r.change.threshold:,.0f}){alarm}")
    changes = result.changes()
    if changes:
        output.echo("")
        for n, rid, before, after in changes:
            output.echo(f"rule {rid} changed at look {n}: {before.value} -> {after.value}")
    latest = result.latest
    windows = [r for r in latest.rules if r.window is not None]
    if windows:
        output.echo("")
        for r in windows:
            w = r.window
            assert w is not None
            groups = "; ".join(
                f"{g.group} {_num(g.rate)} [{g.interval.lo:.3f}, {g.interval.hi:.3f}]"
                for g in w.groups
            )
            output.echo(
                f"window of looks {w.first_look}-{latest.look}, rule {r.id}: {w.verdict.value} "
                f"({w.reason}); {groups}"
            )
        output.echo(
            "  (one-off Clopper-Pearson intervals: valid for this one window, not across "
            "windows; the exit code is the stream's verdict)"
        )
    output.echo("")
    output.echo(
        f"verdict (latest look {result.latest.look}): {result.verdict.value} "
        f"(exit {result.exit_code})"
    )
