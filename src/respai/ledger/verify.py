"""Verifying a whole ledger: every run in its place, the links between runs, every checkpoint.

Each run is checked by :func:`~respai.record.verify_envelope` with the previous id and
``seq`` its place in the chain requires; each checkpoint's signature is checked against
the trusted keys and its root against the Merkle tree over the first ``size`` runs (one
leaf per run, the SHA-256 of the run file: see :mod:`respai.ledger.merkle`). Every
problem names the file and what is wrong; a crash's traces are notes, not problems.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.io import read_bounded
from respai.ledger.checkpoint import verify_checkpoint
from respai.ledger.errors import CheckpointError, LedgerError, LedgerFormatError
from respai.ledger.layout import (
    CHECKPOINTS,
    DEFAULT_DIRECTORY,
    LEDGER_JSON,
    MAX_LISTED,
    RUNS,
    TMP_PREFIX,
    RunInfo,
    checkpoint_files,
    read_ledger_json,
    rel,
    run_files,
    run_info,
    safe_run_id,
)
from respai.ledger.merkle import MerkleTree, run_leaf
from respai.ledger.order import OrderFinding, check_order
from respai.ledger.tombstone import read_tombstones
from respai.limits import MAX_CHECKPOINT_BYTES
from respai.record import GENESIS, KeyRing, VerificationReport, verify_envelope
from respai.record.chain import is_digest_id

__all__ = ["CheckpointCheck", "LedgerReport", "RunCheck", "verify_ledger"]

PLAN_KIND = "respai.plan"
"""The ``kind`` of a plan run (``respai plan``), which later runs may name as their plan."""


@dataclasses.dataclass(frozen=True)
class RunCheck:
    """The verification of one run file.

    Attributes
    ----------
    file
        The run file (``<ledger>/runs/000000000000-<run_id>.json``).
    run_id
        The run id its record holds, or ``None`` when unreadable.
    first_seq, last_seq
        The ``seq`` range its records hold, or ``None``.
    report
        :func:`~respai.record.verify_envelope`'s report, with the expected previous id
        and ``seq`` of the run's place in the chain.
    problems
        What is wrong with this run, each naming the file; empty when it is fine.
    """

    file: Path
    run_id: str | None
    first_seq: int | None
    last_seq: int | None
    report: VerificationReport
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the run verifies in its place in the ledger."""
        return self.report.ok and not self.problems

    def to_json(self) -> dict[str, Any]:
        """Return the check as JSON-ready data."""
        return {
            "file": f"{RUNS}/{self.file.name}",
            "run_id": self.run_id,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "ok": self.ok,
            "problems": list(self.problems),
            "verification": self.report.to_json(),
        }


@dataclasses.dataclass(frozen=True)
class CheckpointCheck:
    """The verification of one checkpoint file.

    Attributes
    ----------
    file
        The checkpoint file (``<ledger>/checkpoints/<size>.txt``).
    size
        The size its name says.
    ok
        Whether it is signed by a trusted key and matches the ledger's first ``size``
        records.
    detail
        What was checked, or what is wrong.
    """

    file: Path
    size: int
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        """Return the check as JSON-ready data."""
        return {
            "file": f"{CHECKPOINTS}/{self.file.name}",
            "size": self.size,
            "ok": self.ok,
            "detail": self.detail,
        }


@dataclasses.dataclass(frozen=True)
class LedgerReport:
    """Everything :func:`verify_ledger` found.

    Attributes
    ----------
    directory
        The ledger directory.
    origin
        The ledger's id from ``ledger.json``, or ``None`` when it is missing.
    size
        The number of records the ledger's runs cover (the last ``seq`` plus one).
    tree_size
        The number of runs in the ledger's Merkle tree: the runs that follow each other
        from ``seq`` 0 without a gap. A checkpoint of this size covers the whole ledger.
    runs
        One check per run file, in ``seq`` order.
    checkpoints
        One check per checkpoint file, by size.
    problems
        Everything that makes the ledger fail, each naming the file and what is wrong.
    notes
        What is worth knowing but not a failure: a run without its checkpoint after a
        crash, a stray temporary file.
    findings
        The named findings about the runs' time order (:mod:`respai.ledger.order`),
        also listed among the problems (failures) or the notes (warnings).
    """

    directory: Path
    origin: str | None
    size: int
    tree_size: int
    runs: tuple[RunCheck, ...]
    checkpoints: tuple[CheckpointCheck, ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...]
    findings: tuple[OrderFinding, ...] = ()
    #: the runs removed after their retention ended, one line each (from their tombstones)
    removed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the ledger verifies: no problems (notes do not count)."""
        return not self.problems

    @property
    def newest_checkpoint(self) -> CheckpointCheck | None:
        """The verified checkpoint with the largest size, or ``None``."""
        good = [c for c in self.checkpoints if c.ok]
        return max(good, key=lambda c: c.size) if good else None

    def to_json(self) -> dict[str, Any]:
        """Return the report as JSON-ready data (for ``respai verify --ledger --json``)."""
        newest = self.newest_checkpoint
        return {
            "ok": self.ok,
            "directory": str(self.directory),
            "origin": self.origin,
            "size": self.size,
            "tree_size": self.tree_size,
            "newest_checkpoint": None
            if newest is None
            else {"file": f"{CHECKPOINTS}/{newest.file.name}", "size": newest.size},
            "problems": list(self.problems),
            "notes": list(self.notes),
            "findings": [f.to_json() for f in self.findings],
            "removed": list(self.removed),
            "runs": [r.to_json() for r in self.runs],
            "checkpoints": [c.to_json() for c in self.checkpoints],
        }

    def lines(self) -> list[str]:
        """Return the report as lines for people, the verdict last."""
        span = f"seq 0..{self.size - 1}" if self.size else "no records"
        out = [
            f"Ledger {self.directory} ({self.origin or 'no ledger.json'}): "
            f"{len(self.runs)} run(s), {span}."
        ]
        for run in self.runs:
            status = "ok  " if run.ok else "FAIL"
            span = (
                f"seq {run.first_seq}..{run.last_seq}"
                if run.first_seq is not None and run.last_seq is not None
                else "seq ?"
            )
            failed = f"  failed: {', '.join(run.report.failed)}" if run.report.failed else ""
            out.append(f"  {status} {RUNS}/{run.file.name}  {span}{failed}")
        out.extend(f"  gone {line}" for line in self.removed)
        newest = self.newest_checkpoint
        good = sum(c.ok for c in self.checkpoints)
        if newest is None:
            out.append(f"Checkpoints: {good} of {len(self.checkpoints)} verify.")
        else:
            out.append(
                f"Checkpoints: {good} of {len(self.checkpoints)} verify; the newest, "
                f"{CHECKPOINTS}/{newest.file.name}, covers {newest.size} of "
                f"{self.tree_size} run(s)."
            )
        if self.problems:
            out.append(f"Problems ({len(self.problems)}):")
            out.extend(f"  - {p}" for p in self.problems)
        if self.notes:
            out.append(f"Notes ({len(self.notes)}):")
            out.extend(f"  - {n}" for n in self.notes)
        out.append(
            "The ledger verifies."
            if self.ok
            else f"The ledger does NOT verify: {len(self.problems)} problem(s)."
        )
        return out


def _failed_details(report: VerificationReport, names: Sequence[str]) -> str:
    parts = []
    for name in names:
        check = report.check(name)
        parts.append(f"{name}: {check.detail}" if check is not None else name)
    return "; ".join(parts)


def verify_ledger(directory: Path | str, keys: KeyRing) -> LedgerReport:
    """Verify a whole ledger: every run, the links between runs, and every checkpoint.

    Each run is checked by :func:`~respai.record.verify_envelope` with the id and
    ``seq`` its place in the chain requires. Reported separately, each naming the file:
    a ``seq`` gap (a dropped run), a broken link to the previous run, run files out of
    order (names disagree with content order), an edited run (its own checks fail, the
    failed checks named), a file name whose ``seq`` or run id disagree with its content,
    two runs claiming the same ``seq``, a checkpoint that is not signed by a trusted key
    or whose root does not match the ledger's first ``size`` runs (a run changed,
    replaced or re-signed since), a checkpoint larger than the ledger (its tail was
    removed), a missing ``ledger.json``, a run held to a plan (``run_start.plan``)
    whose plan is not an earlier plan run of the ledger that verifies, and the named
    time-order findings of :func:`respai.ledger.order.check_order` (``time_order`` and
    ``key_after_successor`` problems, ``plan_after_data`` a note).

    A run without its checkpoint (a crash between the two writes) and stray ``.tmp-*``
    files are notes, not problems.

    Parameters
    ----------
    directory
        The ledger directory.
    keys
        The public keys to trust, with validity windows.

    Returns
    -------
    LedgerReport
        ``ok`` is true when there is no problem.

    Raises
    ------
    LedgerFormatError
        If the ledger is of an older format (``respai-ledger/1``).
    LedgerError
        If ``directory`` does not exist or holds no ledger at all (no ``ledger.json``
        and no ``runs/``).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise LedgerError(
            f"The ledger directory {directory} does not exist or is not a directory.",
            "Pass the directory that holds ledger.json, runs/ and checkpoints/ "
            f"(by default {DEFAULT_DIRECTORY}/ in the directory where respai ran).",
        )
    has_json = (directory / LEDGER_JSON).exists()
    if not has_json and not (directory / RUNS).is_dir():
        raise LedgerError(
            f"{directory} is not a respai ledger: it has neither {LEDGER_JSON} nor {RUNS}/.",
            "Pass the directory that holds ledger.json, runs/ and checkpoints/.",
        )
    problems: list[str] = []
    notes: list[str] = []
    origin: str | None = None
    if not has_json:
        problems.append(
            f"{LEDGER_JSON} is missing, so the ledger's id is unknown; the checkpoints "
            "are checked against the origin they name."
        )
    else:
        try:
            origin, _ = read_ledger_json(directory)
        except LedgerFormatError:
            raise
        except LedgerError as exc:
            problems.append(exc.message)

    found_runs, run_strays, run_others = run_files(directory)
    cp_files, cp_strays, cp_others = checkpoint_files(directory)
    root_strays = sorted(directory.glob(f"{TMP_PREFIX}*"))
    notes.extend(
        f"{rel(directory, stray)} is an unfinished write left by an interrupted run; "
        "it is ignored and may be deleted."
        for stray in [*root_strays, *run_strays, *cp_strays]
    )
    problems.extend(
        f"{rel(directory, other)} is not a run or checkpoint file name "
        "(runs/<12-digit seq>-<run_id>.json, checkpoints/<size>.txt); it was not checked."
        for other in [*run_others, *cp_others]
    )

    infos = [run_info(seq, path) for seq, path in found_runs]
    run_problems: dict[Path, list[str]] = {info.path: [] for info in infos}
    # runs removed after their retention ended: each tombstone takes the run's place
    stones, stone_problems = read_tombstones(directory, keys)
    problems.extend(stone_problems)
    ghosts = {stone.path: stone for stone in stones}
    run_problems.update({path: [] for path in ghosts})

    def problem(info: RunInfo, text: str) -> None:
        message = f"{rel(directory, info.path)}: {text}"
        run_problems[info.path].append(message)
        problems.append(message)

    for info in infos:
        if info.error is not None:
            problem(info, f"{info.error}; it is not a readable signed run.")
            continue
        if info.first_seq != info.name_seq:
            problem(
                info,
                f"the file name says seq {info.name_seq} but its first record is seq "
                f"{info.first_seq} (the file was renamed or swapped).",
            )
        if info.run_id is not None and safe_run_id(info.run_id) != info.name_run:
            problem(
                info,
                f"the file name says run {info.name_run!r} but it holds run "
                f"{info.run_id!r} (the file was renamed or swapped).",
            )

    chain = sorted(
        [
            *(i for i in infos if i.error is None and i.first_seq is not None),
            *(stone.info() for stone in stones),
        ],
        key=lambda i: (i.first_seq or 0, i.path.name),
    )
    by_name = [i for i in infos if i.error is None and i.first_seq is not None]
    if [i.path for i in by_name] != [i.path for i in chain if i.path not in ghosts]:
        problems.append(
            "The run files are out of order: by file name they are "
            + ", ".join(rel(directory, i.path) for i in by_name[:MAX_LISTED])
            + "; by the seq their records hold they are "
            + ", ".join(rel(directory, i.path) for i in chain[:MAX_LISTED])
            + " (runs were reordered or their files swapped)."
        )

    checks: dict[Path, RunCheck] = {}
    expected_seq, expected_prev = 0, GENESIS
    before: RunInfo | None = None
    plans: dict[str, str] = {}  # plan id -> the run_start record id of its first sealing
    for info in chain:
        assert info.first_seq is not None
        after = f"after {rel(directory, before.path)}" if before else "at the start"
        if info.first_seq > expected_seq:
            problem(
                info,
                f"seq {expected_seq}..{info.first_seq - 1} are missing {after}: a run was "
                f"dropped (this run's first record links to {info.first_prev}, which is "
                "not in the ledger).",
            )
        elif info.first_seq < expected_seq:
            problem(
                info,
                f"it starts at seq {info.first_seq}, but seq {info.first_seq}.."
                f"{expected_seq - 1} are already held by the runs before it (two runs "
                "claim the same seq: a forked or duplicated run).",
            )
        elif info.first_prev != expected_prev:
            wanted = (
                f"the last record of {rel(directory, before.path)} has id {expected_prev} "
                "(a run before it was replaced or edited)"
                if before
                else f"the ledger's first record must link to the genesis id {GENESIS}"
            )
            problem(
                info,
                f"broken link: its first record (seq {info.first_seq}) links to "
                f"{info.first_prev}, but {wanted}.",
            )
        if info.path in ghosts:  # a tombstone: its place in the chain is all there is
            if info.last_seq is not None and info.last_seq + 1 > expected_seq:
                expected_seq = info.last_seq + 1
            expected_prev, before = info.last_id or "", info
            continue
        report = verify_envelope(
            info.data,
            keys,
            expected_prev=expected_prev if is_digest_id(expected_prev) else None,
            expected_seq=expected_seq,
        )
        own = [c.name for c in report.checks if not c.ok and c.name != "chain"]
        if "chain" in report.failed:
            alone = verify_envelope(info.data, keys)
            if "chain" in alone.failed:
                own.append("chain")
        if own:
            own.sort(key=[c.name for c in report.checks].index)
            problem(
                info,
                "the run does not verify (edited, damaged or signed by an untrusted key); "
                f"failed: {', '.join(own)}: {_failed_details(report, own)}.",
            )
        planned = _plan_problem(info, plans)
        if planned is not None:
            problem(info, planned)
        if report.ok:
            for pid, rid in _plan_of(info).items():
                plans.setdefault(pid, rid)  # an id names its first sealing, as in find_plan
        checks[info.path] = RunCheck(
            info.path,
            info.run_id,
            info.first_seq,
            info.last_seq,
            report,
            tuple(run_problems[info.path]),
        )
        if info.last_seq is not None and info.last_seq + 1 > expected_seq:
            expected_seq = info.last_seq + 1
        expected_prev = info.last_id or ""
        before = info

    for info in infos:
        if info.path not in checks:
            report = verify_envelope(info.data, keys)
            checks[info.path] = RunCheck(
                info.path,
                info.run_id,
                info.first_seq,
                info.last_seq,
                report,
                tuple(run_problems[info.path]),
            )
    from respai.monitor.ledger_check import stream_problems  # the streams count each batch once

    problems.extend(
        stream_problems(
            (rel(directory, i.path), i.predicate)
            for i in chain
            if i.path in checks and checks[i.path].report.ok
        )
    )
    in_chain = {i.path for i in chain}
    ordered = [checks[i.path] for i in chain if i.path in checks] + [
        checks[i.path] for i in infos if i.path not in in_chain
    ]

    order = check_order(
        directory, [i for i in chain if i.path in checks and checks[i.path].report.ok], keys
    )
    problems.extend(f.text() for f in order if f.failure)
    notes.extend(f.text() for f in order if not f.failure)

    tree, stop = _run_tree(directory, chain, infos, {p: s.leaf for p, s in ghosts.items()})
    size = max((i.last_seq + 1 for i in chain if i.last_seq is not None), default=0)

    cp_checks: list[CheckpointCheck] = []
    for name_size, path in cp_files:
        check = _check_checkpoint(path, name_size, keys, origin, tree, stop)
        cp_checks.append(check)
        if not check.ok:
            problems.append(f"{rel(directory, path)}: {check.detail}")
    newest = max((c.size for c in cp_checks if c.ok), default=0)
    if tree.size and newest < tree.size and all(c.ok for c in cp_checks):
        covered = (
            f"The newest checkpoint, checkpoints/{newest}.txt, covers {newest}"
            if newest
            else "No checkpoint covers any"
        )
        notes.append(
            f"{covered} of the ledger's {tree.size} runs: the last run(s) have no checkpoint "
            "(a run interrupted before writing it, or checkpoint files were deleted); the "
            "next run's checkpoint will cover them."
        )
    return LedgerReport(
        directory,
        origin,
        size,
        tree.size,
        tuple(ordered),
        tuple(cp_checks),
        tuple(problems),
        tuple(notes),
        tuple(order),
        tuple(stone.text() for stone in stones),
    )


def _run_start(info: RunInfo) -> dict[str, Any]:
    records = (info.predicate or {}).get("records")
    first = records[0] if isinstance(records, list) and records else None
    return first if isinstance(first, dict) else {}


def _plan_of(info: RunInfo) -> dict[str, str]:
    """``{plan id: run_start record id}`` when the run is a plan (``respai plan``)."""
    start = _run_start(info)
    if (info.predicate or {}).get("kind") != PLAN_KIND:
        return {}
    pid, rid = start.get("plan_id"), start.get("record_id")
    return {pid: rid} if isinstance(pid, str) and isinstance(rid, str) else {}


def _plan_problem(info: RunInfo, plans: dict[str, str]) -> str | None:
    """What is wrong with the plan a run says it was held to (``run_start.plan``), if any.

    The plan must be an earlier run of this ledger that verifies, and the record id the
    run names must be that plan's ``run_start``. Criteria sealed more than once share
    the plan id, which then names the first sealing that verifies: the one
    :func:`respai.plan.seal.find_plan` gives ``respai evaluate --plan``.
    """
    ref = _run_start(info).get("plan")
    if ref is None:
        return None
    pid = ref.get("plan_id") if isinstance(ref, dict) else None
    if not isinstance(pid, str) or pid not in plans:
        return (
            f"its criteria were registered under the plan {pid!r}, which is not a plan "
            "run earlier in the ledger (the plan was removed, edited or never sealed here)."
        )
    if ref.get("record_id") != plans[pid]:
        return (
            f"it names the plan {pid} with record id {ref.get('record_id')!r}, but that "
            f"plan's run_start record is {plans[pid]} (the plan's first sealing)."
        )
    return None


def _run_tree(
    directory: Path,
    chain: Sequence[RunInfo],
    infos: Sequence[RunInfo],
    removed: Mapping[Path, bytes],
) -> tuple[MerkleTree, str | None]:
    """The Merkle tree over the runs, and why it stops before the last run (or ``None``).

    One leaf per run (:func:`~respai.ledger.merkle.run_leaf` of its file), in chain
    order, as long as each run starts where the one before it ended. A run that starts
    inside the runs before it (a fork or a duplicate, reported as a problem) is left
    out; the first gap ends the tree. A removed run's leaf is the one its tombstone
    states (``removed``).
    """
    leaves: list[bytes] = []
    next_seq = 0
    stop: str | None = None
    last: RunInfo | None = None
    for info in chain:
        if info.first_seq is not None and info.first_seq < next_seq:
            continue
        if info.first_seq != next_seq or info.last_seq is None:
            after = f"after {rel(directory, last.path)}" if last else "at the start"
            stop = f"seq {next_seq} is missing {after}"
            break
        leaves.append(removed[info.path] if info.path in removed else run_leaf(info.data))
        next_seq = info.last_seq + 1
        last = info
    unreadable = [rel(directory, i.path) for i in infos if i.error is not None]
    if stop is None and unreadable:
        stop = f"{', '.join(unreadable[:MAX_LISTED])} cannot be read as a run"
    return MerkleTree(leaves), stop


def _check_checkpoint(
    path: Path,
    name_size: int,
    keys: KeyRing,
    origin: str | None,
    tree: MerkleTree,
    stop: str | None,
) -> CheckpointCheck:
    try:
        text = read_bounded(path, MAX_CHECKPOINT_BYTES, "MAX_CHECKPOINT_BYTES").decode("utf-8")
    except OSError as exc:
        return CheckpointCheck(path, name_size, False, f"cannot be read: {exc.strerror or exc}.")
    except UnicodeDecodeError as exc:
        return CheckpointCheck(path, name_size, False, f"cannot be read as UTF-8 text: {exc}.")
    try:
        checkpoint = verify_checkpoint(text, keys, origin=origin, source="the checkpoint")
    except CheckpointError as exc:
        return CheckpointCheck(path, name_size, False, exc.message)
    if checkpoint.size != name_size:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the file name says size {name_size} but the signed checkpoint says "
            f"{checkpoint.size} (the file was renamed).",
        )
    if checkpoint.size > tree.size and stop is None:
        gone = checkpoint.size - tree.size
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the signed checkpoint covers {checkpoint.size} runs but the ledger holds "
            f"only {tree.size}: its tail was removed (the last {gone} run(s) it covers "
            "are gone).",
        )
    if checkpoint.size > tree.size:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the signed checkpoint covers {checkpoint.size} runs, but only the first "
            f"{tree.size} follow each other ({stop}), so runs it commits to are gone.",
        )
    if tree.root(checkpoint.size) != checkpoint.root:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the signed root does not match the ledger's first {checkpoint.size} runs: "
            "a run among them was changed, replaced or re-signed since it was signed "
            "(each run's leaf is the SHA-256 of its file).",
        )
    return CheckpointCheck(
        path,
        name_size,
        True,
        f"signed for {checkpoint.origin}; matches the first {checkpoint.size} runs",
    )
