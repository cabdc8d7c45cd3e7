"""Sealing a plan into the ledger, and reading a plan back only once it verifies.

:func:`plan_predicate` lays the criteria out as a record (``kind`` ``respai.plan``) through
the one record builder: a ``run_start`` holding the plan id, the criteria and the input
names (information, outside the criteria), no test record, and a ``run_end``. A plan
reads no data, so the Statement's subject (the record's ``dataset`` fingerprint, which
every record has) is the criteria document itself: its SHA-256 is the plan id's.

:func:`seal_plan` signs it and appends it to the ledger with
:func:`respai.sealing.seal_run` (all or nothing, like every signed run).
:func:`find_plan` and :func:`newest_plan` read plans back from the ledger, each verified
with :func:`respai.record.verify_envelope` first: a plan whose record does not verify is
refused, naming its file and the failed checks.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.errors import InputError
from respai.plan.criteria import changes, criteria, criteria_bytes, input_names, plan_id
from respai.record.predicate import Predicate
from respai.record.predicate import build_predicate as build_record
from respai.version import __version__

if TYPE_CHECKING:
    from respai.io import StagedFolder
    from respai.record import KeyRing
    from respai.sealing import Signing, SigningKey
    from respai.spec.parsed import Policy, Spec

__all__ = [
    "CRITERIA_FILE",
    "KIND",
    "PLAN_FILE",
    "Plan",
    "PlanCheck",
    "SealedPlan",
    "find_plan",
    "key_ring_for",
    "newest_plan",
    "plan_output",
    "plan_predicate",
    "registered",
    "seal_plan",
]

KIND = "respai.plan"
"""The ``kind`` of a plan record."""

PLAN_FILE = "plan.json"
"""The signed plan record in an ``--out`` folder."""

CRITERIA_FILE = "criteria.json"
"""The criteria's canonical JSON in an ``--out`` folder (the record's subject)."""

MEDIA_TYPE = "application/json"

PLAN_CLAIMS_STATES = [
    "These criteria (rules, thresholds and their sources, groups, settings, battery "
    "tests, policy and scope memo) were fixed at this time, before this plan's runs.",
    "The plan id is the SHA-256 of the criteria's RFC 8785 canonical JSON, and the whole "
    "record is signed.",
]
PLAN_CLAIMS_DOES_NOT_STATE = [
    "Anything about any data: a plan reads no data file and measures nothing.",
    "That the criteria are suitable for the system, or that any legal obligation is met.",
    "That nobody looked at the data before the plan was sealed; only that the criteria "
    "did not change after it.",
]
PLAN_CAVEATS = [
    "A plan has no test records and no verdict: it states criteria, not results.",
    "The file names under run_start.inputs are information only; they are not criteria, "
    "so the plan holds wherever the data ends up.",
]


def _fingerprint(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The criteria document as the record's subject (the ``dataset`` fingerprint)."""
    data = criteria_bytes(doc)
    return {
        "name": CRITERIA_FILE,
        "media_type": MEDIA_TYPE,
        "size_bytes": len(data),
        "sha256": plan_id(doc).removeprefix("sha256:"),
    }


def plan_predicate(
    spec: Spec,
    policy: Policy | None,
    *,
    key_id: str,
    timestamp: str,
    engine_code: Mapping[str, Any],
    run_id: str | None = None,
) -> Predicate:
    """The plan record of ``spec`` under ``policy``: the criteria, their id, no tests.

    Raises
    ------
    respai.errors.SpecError
        When the policy does not fit the spec (see :func:`~respai.plan.criteria.criteria`).
    """
    from respai.controls import load_controls

    doc = criteria(spec, policy)
    run_start = {
        "plan_id": plan_id(doc),
        "criteria": doc,
        "inputs": input_names(spec, policy),
    }
    return build_record(
        run_id=run_id or str(uuid.uuid4()),
        timestamp=timestamp,
        engine_version=__version__,
        python=platform.python_version(),
        key_id=key_id,
        system=spec.system.to_dict(),
        fingerprints={"dataset": _fingerprint(doc), "model": None, "engine_code": engine_code},
        run_start=run_start,
        tests=[],
        verdict=None,
        exit_code=0,
        counts={},
        control_mapping=load_controls().to_record(),
        claims={"states": PLAN_CLAIMS_STATES, "does_not_state": PLAN_CLAIMS_DOES_NOT_STATE},
        caveats=PLAN_CAVEATS,
        kind=KIND,
    )


@dataclass(frozen=True, slots=True)
class Plan:
    """A verified plan from the ledger: its id, criteria, time and where it is."""

    plan_id: str
    criteria: Mapping[str, Any]
    timestamp: str
    #: the id of the plan run's ``run_start`` record (the record holding the criteria)
    record_id: str
    run_id: str
    file: Path
    envelope: Mapping[str, Any]
    system_name: str | None
    #: the plan run file's bytes, as verified (an evidence pack copies them)
    data: bytes = b""

    def reference(self) -> dict[str, str]:
        """What a run's ``run_start.plan`` holds: ``{plan_id, timestamp, record_id}``."""
        return {"plan_id": self.plan_id, "timestamp": self.timestamp, "record_id": self.record_id}


@dataclass(frozen=True, slots=True)
class SealedPlan:
    """A sealed plan: its envelope, id, criteria, and where it went."""

    envelope: Mapping[str, Any]
    predicate: Mapping[str, Any]
    plan_id: str
    ledger: Path | None
    key_id: str
    files: tuple[Path, ...] = ()
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        """What ``respai plan --json`` prints."""
        start = self.predicate["records"][0]
        return {
            "plan_id": self.plan_id,
            "kind": KIND,
            "run_id": self.predicate["run_id"],
            "timestamp": self.predicate["timestamp"],
            "record_id": start.get("record_id"),
            "key_id": self.key_id,
            "ledger": None if self.ledger is None else str(self.ledger),
            "files": [str(p) for p in self.files],
            "criteria": start["criteria"],
            "inputs": start["inputs"],
        }


def _earlier_plan(folder: Path) -> bool:
    from respai.record.timestamp import SIDECAR

    names = {p.name for p in folder.iterdir()}
    return not names or (PLAN_FILE in names and names <= {PLAN_FILE, CRITERIA_FILE, SIDECAR})


def plan_output(out: Path) -> StagedFolder:
    """The ``--out`` folder of ``respai plan``, checked now (empty or an earlier plan's)."""
    from respai.io import StagedFolder

    return StagedFolder(out, _earlier_plan, what="respai plan output")


def seal_plan(spec: Spec, policy: Policy | None, signing: Signing) -> SealedPlan:
    """Sign the plan of ``spec`` under ``policy`` and append it to the signing's ledger.

    The ``--out`` folder (``signing.staged``), when given, receives ``plan.json`` (the
    signed record) and ``criteria.json`` (the canonical criteria, its subject). Nothing is
    left behind when anything fails (see :func:`respai.sealing.seal_run`).
    """
    from respai.record import engine_code_fingerprint, format_timestamp, now_utc, seal
    from respai.sealing import envelope_bytes

    engine_code = engine_code_fingerprint()
    made: dict[str, Any] = {}
    criteria(spec, policy)  # a policy that does not fit is refused before the ledger is locked

    def build(sk: SigningKey, prev: str, start: int) -> Mapping[str, Any]:
        predicate = plan_predicate(
            spec,
            policy,
            key_id=sk.key_id,
            timestamp=format_timestamp(now_utc()),
            engine_code=engine_code,
        )
        envelope = seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)
        made["predicate"] = _statement(envelope)["predicate"]
        return envelope

    def files(sk: SigningKey, envelope: Mapping[str, Any]) -> dict[str, str | bytes]:
        doc = made["predicate"]["records"][0]["criteria"]
        return {PLAN_FILE: envelope_bytes(envelope), CRITERIA_FILE: criteria_bytes(doc)}

    envelope, book, note = signing.seal(build, files)
    staged = signing.staged
    written: tuple[Path, ...] = ()
    if staged is not None:
        from respai.record.timestamp import SIDECAR

        written = (staged.out / PLAN_FILE, staged.out / CRITERIA_FILE)
        written += (staged.out / SIDECAR,) if signing.timestamps else ()
    start = made["predicate"]["records"][0]
    key_id = signing.signing_key().key_id
    return SealedPlan(envelope, made["predicate"], start["plan_id"], book, key_id, written, note)


def _statement(envelope: Mapping[str, Any]) -> dict[str, Any]:
    from respai.record.canonical import loads_strict
    from respai.record.dsse import b64decode_any

    doc: dict[str, Any] = loads_strict(b64decode_any(envelope["payload"]))
    return doc


# -- reading plans back ---------------------------------------------------------------------


def key_ring_for(sk: SigningKey | None) -> KeyRing:
    """The keys a plan is verified with: the signing key's ``keys.json``, else its key.

    Raises
    ------
    InputError
        When there is no signing key at all (nothing to verify a plan with).
    """
    from respai.record import KeyRing

    if sk is None:
        raise InputError(
            "there is no signing key to verify the plan with (the plan was signed with a "
            "key this run cannot find).",
            "Pass the key the plan was signed with: --key KEY.",
        )
    ring_file = sk.path.parent / "keys.json"
    if ring_file.is_file():
        ring = KeyRing.load(ring_file)
        if sk.key_id in ring:
            return ring
    return KeyRing.from_public_key(sk.key.public_key())


def _plan_runs(ledger: Path) -> Iterator[tuple[Path, bytes, Mapping[str, Any]]]:
    """Every run file of the ledger that says it is a plan (unverified), in seq order."""
    from respai.ledger.layout import run_files, run_info

    if not ledger.is_dir():
        return
    found, _, _ = run_files(ledger)
    for seq, path in found:
        info = run_info(seq, path)
        pred = info.predicate
        if info.error is None and pred is not None and pred.get("kind") == KIND:
            yield path, info.data, pred


def _verified(path: Path, data: bytes, ring: KeyRing) -> Plan:
    """The plan in ``path`` once its record verifies and its id is its criteria's."""
    from respai.record import verify_envelope
    from respai.record.canonical import loads_strict

    report = verify_envelope(data, ring)
    pred = report.predicate
    if not report.ok or pred is None:
        raise InputError(
            f"the plan in {path} does not verify (failed: {', '.join(report.failed)}): it "
            "was edited, damaged or signed by another key, so its criteria cannot be "
            "trusted.",
            " ".join(f"{c.name}: {c.detail}." for c in report.checks if not c.ok)
            + " Seal the criteria again with respai plan, or pass the key that signed it.",
        )
    start = pred["records"][0]
    doc = start.get("criteria")
    if not isinstance(doc, Mapping) or plan_id(doc) != start.get("plan_id"):
        raise InputError(
            f"the plan in {path} names plan id {start.get('plan_id')!r}, which is not the "
            "SHA-256 of the criteria it holds.",
            "Seal the criteria again with respai plan.",
        )
    system = pred.get("system")
    name = system.get("name") if isinstance(system, Mapping) else None
    return Plan(
        plan_id=str(start["plan_id"]),
        criteria=doc,
        timestamp=str(pred["timestamp"]),
        record_id=str(start["record_id"]),
        run_id=str(pred["run_id"]),
        file=path,
        envelope=loads_strict(data),
        system_name=name if isinstance(name, str) else None,
        data=data,
    )


def find_plan(ledger: Path, wanted: str, ring: KeyRing) -> Plan:
    """The plan ``wanted`` (a plan id) from ``ledger``, verified: its first sealing.

    The same criteria sealed twice (``respai plan`` run again) give two plan runs with
    one id. The id always names the **first** of them, the earliest registration of
    those criteria; ``respai verify --ledger`` holds a run's ``run_start.plan`` to the
    same one, so ``plan; plan; evaluate --plan`` leaves a ledger that verifies.

    Raises
    ------
    InputError
        When no plan run of the ledger has that id, or the plan's first sealing does not
        verify.
    """
    if not wanted.startswith("sha256:"):
        wanted = "sha256:" + wanted
    hits = [(p, d) for p, d, pred in _plan_runs(ledger) if _plan_id_of(pred) == wanted]
    if not hits:
        raise InputError(
            f"the plan {wanted} is not in the ledger {ledger}.",
            "Give the plan_id respai plan printed, and the ledger it was sealed into "
            "(--ledger DIR); list the ledger's runs with respai log.",
        )
    path, data = hits[0]
    return _verified(path, data, ring)


def newest_plan(ledger: Path, system_name: str | None, ring: KeyRing) -> Plan | None:
    """The newest plan in ``ledger`` for the system named ``system_name``, verified.

    ``None`` when the system has no name (plans are matched by it) or no plan. When the
    newest plan's criteria were sealed before too, the first sealing is returned, as
    :func:`find_plan` does.

    Raises
    ------
    InputError
        When the newest such plan's record does not verify.
    """
    if system_name is None:
        return None
    hits = [(p, d) for p, d, pred in _plan_runs(ledger) if _system_of(pred) == system_name]
    if not hits:
        return None
    path, data = hits[-1]
    newest = _verified(path, data, ring)
    # criteria sealed again: the id names its first sealing (see find_plan)
    return find_plan(ledger, newest.plan_id, ring)


def _plan_id_of(pred: Mapping[str, Any]) -> Any:
    records = pred.get("records")
    first = records[0] if isinstance(records, list) and records else None
    return first.get("plan_id") if isinstance(first, Mapping) else None


def _system_of(pred: Mapping[str, Any]) -> Any:
    system = pred.get("system")
    return system.get("name") if isinstance(system, Mapping) else None


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """How a run's criteria compare with a plan: the plan, and what changed."""

    plan: Plan
    changed: tuple[str, ...]

    @property
    def matches(self) -> bool:
        """Whether the run's criteria are the plan's."""
        return not self.changed

    def to_record(self) -> dict[str, Any]:
        """What a run's ``run_start.plan_check`` holds (a run without ``--plan``)."""
        return {**self.plan.reference(), "matches": self.matches, "changed": list(self.changed)}


def registered(
    spec: Spec,
    policy: Policy | None,
    *,
    ledger: Path | None,
    sk: SigningKey | None,
    wanted: str | None,
) -> tuple[Plan | None, PlanCheck | None]:
    """The plan a run of ``spec`` is held to, checked before any data is read.

    With ``wanted`` (``--plan``), the plan is read from the ledger and verified, and any
    criterion that changed since is refused. Without it, the newest plan for the spec's
    system (by ``system.name``), if any, is compared and the comparison returned.

    Returns
    -------
    tuple
        ``(plan, None)`` for ``--plan``; ``(None, check)`` without it (``check`` is
        ``None`` when the system has no plan, no name, no ledger or no key yet).

    Raises
    ------
    InputError
        With ``--plan``: no ledger, no such plan, a plan that does not verify, or
        criteria that differ from the plan's (each changed criterion named). Without
        it: the newest plan does not verify.
    """
    now = criteria(spec, policy)
    if wanted is not None:
        if ledger is None:
            raise InputError(
                "--plan reads the plan from the ledger, and --no-ledger was given.",
                "Drop --no-ledger, or give --ledger DIR (the ledger the plan was sealed into).",
            )
        plan = find_plan(ledger, wanted, key_ring_for(sk))
        found = changes(plan.criteria, now)
        if found:
            origin = str(spec.path) if spec.path else "the spec"
            raise InputError(
                f"{origin}: the criteria differ from the plan {plan.plan_id} registered at "
                f"{plan.timestamp} ({len(found)} change(s)): "
                + "; ".join(c.sentence() for c in found)
                + ".",
                "Run with the criteria as planned, or seal the new criteria with respai "
                "plan (a new plan, registered now) and run with its id.",
            )
        return plan, None
    if ledger is None or sk is None:
        return None, None
    newest = newest_plan(ledger, spec.system.name, key_ring_for(sk))
    if newest is None:
        return None, None
    return None, PlanCheck(newest, tuple(c.sentence() for c in changes(newest.criteria, now)))
