"""Build the audit site of a verified ledger: read, verify, render, sign, write.

:func:`build_site` verifies the whole ledger first (every run and the chain, as ``respai
verify --ledger``), renders each run's own page, builds the site manifest with the
LL144 dates, streams and comparisons, signs it, renders the index, LL144, streams and
compare pages against it, and writes everything into a staged folder that is moved into
place in one rename. A ledger that does not verify raises :class:`SiteRefused` before
anything is written.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.io import StagedFolder
from respai.record import KeyRing, envelope_payload, loads_strict
from respai.record.keys import public_key_raw
from respai.record.times import now_utc
from respai.sealing import SigningKey, earlier_output
from respai.site.dates import ll144_dates
from respai.site.manifest import SiteRun, run_entry, sha256_hex, sign_manifest, site_statement
from respai.site.page import Page
from respai.site.views import compare_main, index_main, ll144_main, streams_main

__all__ = [
    "MARKER",
    "SiteDates",
    "SiteRefused",
    "SiteResult",
    "build_site",
    "run_page",
    "site_pages",
]

#: The file that marks a folder as a site respai wrote (and may replace).
MARKER = "site.json"


class SiteRefused(Exception):
    """The ledger does not verify: nothing was written. ``lines`` say why."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__("the ledger does not verify")
        self.lines = list(lines)


@dataclass(frozen=True)
class SiteDates:
    """The LL144 dates given on the command line, by run selector.

    Each mapping's keys are run ids (or unique prefixes of 8 or more characters); the key
    ``""`` stands for the newest LL144 run.
    """

    posted: Mapping[str, dt.date] = field(default_factory=dict)
    last_use: Mapping[str, dt.date] = field(default_factory=dict)
    distribution: Mapping[str, dt.date] = field(default_factory=dict)


@dataclass(frozen=True)
class SiteResult:
    """What :func:`build_site` wrote: the folder, its pages and the manifest's key."""

    out: Path
    pages: list[str]
    runs: int
    key_id: str
    ledger_lines: list[str]
    notes: list[str] = field(default_factory=list)


def run_page(envelope: Mapping[str, Any], raw_key: bytes, kind: str) -> str:
    """The page of one run: the evidence report; a monitoring run through its own page.

    Every kind is drawn by :func:`respai.render.report.render_report`, which checks the
    run's signed record in the browser. A monitoring run goes through
    :func:`monitor_run_page`, the one place to plug in the monitoring page.
    """
    if kind == "monitor":
        return monitor_run_page(envelope, raw_key)
    from respai.render.report import render_report

    return render_report(envelope, raw_key)


def monitor_run_page(envelope: Mapping[str, Any], raw_key: bytes) -> str:
    """The self-verifying page of a monitoring run (its looks and charts).

    The one place the site draws a monitoring run: the evidence report, which draws a
    monitoring record's looks with the report machinery (a change to how monitoring runs
    are drawn belongs in :func:`respai.render.report.render_report`, or here).
    """
    from respai.render.report import render_report

    return render_report(envelope, raw_key)


def _read_runs(ledger: Path) -> list[SiteRun]:
    from respai.ledger import list_runs
    from respai.ledger.layout import read_ledger_file
    from respai.ledger.log import run_kind

    runs = []
    for summary in list_runs(ledger):
        data = read_ledger_file(summary.file)
        envelope = loads_strict(data)
        predicate = loads_strict(envelope_payload(envelope))["predicate"]
        runs.append(
            SiteRun(
                file=summary.file.name,
                file_sha256=sha256_hex(data),
                envelope=envelope,
                predicate=predicate,
                kind=run_kind(predicate),
                seq=f"{summary.first_seq}..{summary.last_seq}",
            )
        )
    return runs


def _select(
    given: Mapping[str, dt.date], audits: Sequence[SiteRun], option: str
) -> dict[str, dt.date]:
    """Map each ``[RUN=]DATE`` of an option to the run id of an LL144 audit."""
    out: dict[str, dt.date] = {}
    for selector, day in given.items():
        if not audits:
            raise InputError(
                f"{option} was given, but the ledger holds no LL144 audit.",
                "Leave it out, or run respai ll144 --out first.",
            )
        if selector == "":
            out[audits[-1].run_id] = day
            continue
        found = [a for a in audits if a.run_id.startswith(selector)]
        if len(selector) < 8 or len(found) != 1:
            listed = ", ".join(a.run_id for a in audits)
            raise InputError(
                f"{option} {selector}=... names no single LL144 audit of the ledger "
                f"(give a run id, or 8 or more of its first characters; its audits: {listed}).",
                f"Write {option} RUN=YYYY-MM-DD, or {option} YYYY-MM-DD for the newest audit.",
            )
        out[found[0].run_id] = day
    return out


def _ring_key(ring: KeyRing, key_id: object) -> bytes:
    entry = next((e for e in ring if e.key_id == key_id), None)
    if entry is None:  # cannot happen after verify_ledger: every run's key is in the ring
        raise InputError(f"no key {key_id} in the keys given.")
    return public_key_raw(entry.public_key)


def build_site(
    ledger: Path,
    out: Path,
    ring: KeyRing,
    signer: SigningKey,
    dates: SiteDates | None = None,
    now: dt.datetime | None = None,
) -> SiteResult:
    """Verify ``ledger`` with ``ring``, then write its signed site to ``out``.

    Raises
    ------
    SiteRefused
        When the ledger does not verify (nothing is written).
    InputError
        When ``out`` is a folder that is not an earlier site, or a date option names no
        LL144 audit (nothing is written).
    """
    from respai.compare import CompareError, compare_records
    from respai.ledger import verify_ledger
    from respai.ledger.layout import read_ledger_json, safe_run_id
    from respai.monitor.status import ledger_streams

    dates = dates or SiteDates()
    staged = StagedFolder(out, earlier_output(MARKER), what="respai site", option="-o")
    report = verify_ledger(ledger, ring)
    lines = list(report.lines())
    if not report.ok:
        raise SiteRefused(lines)
    runs = _read_runs(ledger)
    audits = [r for r in runs if isinstance(r.run_start.get("dates"), Mapping)]
    posted = _select(dates.posted, audits, "--posted")
    last_use = _select(dates.last_use, audits, "--last-use")
    distribution = _select(dates.distribution, audits, "--distribution-date")
    files: dict[str, bytes] = {}
    entries = []
    page_of: dict[str, str] = {}
    for run in runs:
        name = f"runs/{safe_run_id(run.run_id)}.html"
        html = run_page(run.envelope, _ring_key(ring, run.predicate.get("key_id")), run.kind)
        files[name] = html.encode("utf-8")
        page_of[run.run_id] = name
        entries.append(run_entry(run, name, sha256_hex(files[name])))
    ll144 = [
        {
            "run_id": audit.run_id,
            "system": audit.system,
            "run_page": page_of[audit.run_id],
            "page": f"ll144-{safe_run_id(audit.run_id)}.html",
            **ll144_dates(
                audit.run_start,
                posted=posted.get(audit.run_id),
                last_use=last_use.get(audit.run_id),
                distribution=distribution.get(audit.run_id),
            ),
        }
        for audit in audits
    ]
    by_file = {r.file: r for r in runs}
    streams = []
    for s in ledger_streams(ledger):
        stream_runs = [  # the stream names its runs by file
            {"run_id": by_file[name].run_id, "page": page_of[by_file[name].run_id]}
            for name in s.runs
            if name in by_file
        ]
        streams.append(
            {
                "stream": s.stream,
                "system": s.system,
                "criteria_id": s.criteria_id,
                "looks": s.looks,
                "latest": s.latest,
                "alarm_look": s.alarm_look,
                # the latest run's page draws the whole stream from the earlier looks its
                # record copies (run_start.monitor.history)
                "chart": dict(stream_runs[-1]) if stream_runs else None,
                "runs": stream_runs,
            }
        )
    comparisons = []
    last: dict[tuple[str, str], SiteRun] = {}
    for run in runs:
        group = (run.system, run.kind)
        before = last.get(group)
        last[group] = run
        if before is None:
            continue
        try:
            compared = compare_records(before.envelope, run.envelope, labels=(before.seq, run.seq))
        except CompareError:
            continue
        comparisons.append(
            {
                "system": run.system,
                "kind": run.kind,
                "a": {"run_id": before.run_id, "page": page_of[before.run_id]},
                "b": {"run_id": run.run_id, "page": page_of[run.run_id]},
                "lines": compared.lines(),
            }
        )
    origin, _ = read_ledger_json(ledger)
    predicate = {
        "kind": "respai.site",
        "key_id": signer.key_id,
        "built": (now or now_utc()).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "ledger": {"origin": origin, "runs": len(runs)},
        "pages": {"index": "index.html", "streams": "streams.html", "compare": "compare.html"},
        "runs": entries,
        "ll144": ll144,
        "streams": streams,
        "comparisons": comparisons,
    }
    statement = site_statement(runs, predicate)
    envelope = sign_manifest(statement, signer.key, signer.key_id)
    raw = public_key_raw(signer.key.public_key())
    files.update(site_pages(statement, envelope, raw))
    from respai.sealing import envelope_bytes

    files[MARKER] = envelope_bytes(envelope)
    from cryptography.hazmat.primitives import serialization

    files["public_key.pem"] = signer.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with staged:
        staged.write_all(files)
        staged.commit()
    notes = [
        f"{len(runs)} run page(s); {len(streams)} monitoring stream(s); "
        f"{len(comparisons)} comparison(s)"
    ]
    for entry in ll144:
        until = entry["publication"]["until"]
        notes.append(
            f"LL144 audit {entry['run_id']} ({entry['page']}): audit "
            f"{entry['audit_date']['value'] or 'not stated'}, distribution "
            f"{entry['distribution_date']['value'] or 'not stated'}, posted "
            f"{entry['posted']['value'] or 'not given'}, posted until at least "
            f"{until or 'six months after the last use (not given)'}; "
            f"{len(entry['findings'])} finding(s)"
        )
        notes.extend(f"  finding: {f['text']}" for f in entry["findings"])
    return SiteResult(staged.out, sorted(files), len(runs), signer.key_id, lines, notes)


def site_pages(
    statement: Mapping[str, Any], envelope: Mapping[str, Any], raw_key: bytes
) -> dict[str, bytes]:
    """The site's own pages (index, streams, compare, one per LL144 audit), by file name.

    Each is a function of the signed manifest (``statement`` is its payload, ``envelope``
    the DSSE envelope the pages embed) and the raw public key, so ``respai verify --site``
    renders them again and compares bytes.
    """
    page = Page(statement)
    predicate = statement.get("predicate")
    audits = predicate.get("ll144") if isinstance(predicate, Mapping) else None
    files: dict[str, bytes] = {
        "index.html": page.document(
            "Signed runs · respai audit site", "index", "/predicate", index_main(page),
            envelope, raw_key,
        ).encode("utf-8"),
        "streams.html": page.document(
            "Monitoring streams · respai audit site", "streams", "/predicate",
            streams_main(page), envelope, raw_key,
        ).encode("utf-8"),
        "compare.html": page.document(
            "Comparisons · respai audit site", "compare", "/predicate", compare_main(page),
            envelope, raw_key,
        ).encode("utf-8"),
    }  # fmt: skip
    for i, entry in enumerate(audits if isinstance(audits, list) else []):
        name = entry.get("page") if isinstance(entry, Mapping) else None
        if isinstance(name, str):
            files[name] = page.document(
                "LL144 summary dates · respai audit site", "ll144", f"/predicate/ll144/{i}",
                ll144_main(page, i), envelope, raw_key,
            ).encode("utf-8")  # fmt: skip
    return files
