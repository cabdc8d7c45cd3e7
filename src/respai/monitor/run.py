"""``respai monitor``: count each new batch of live outcomes, continue the stream, decide.

Every batch file is read with the spec's ``fairness:`` block (the same opening, gate and
count pass as ``respai fairness``), so a batch with a bad value is refused (exit 2) before
anything is signed. The stream's earlier looks come from the ledger, verified
(:mod:`respai.monitor.stream`); the new batches become the next looks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from respai.errors import InputError, SpecError
from respai.monitor.change import CHANGE_METHOD, guarantee_text
from respai.monitor.looks import BatchCounts, Look, decide_looks
from respai.monitor.sequence import CS_METHOD
from respai.record import KeyRing
from respai.spec import FairnessSpec, Policy, Spec, apply_policy, load_policy, load_spec
from respai.types import Verdict

__all__ = ["MonitorResult", "count_batch", "run_monitor"]


@dataclass(frozen=True, slots=True)
class MonitorResult:
    """A stream after this call: every look from its start, and which are new."""

    spec: Spec
    fairness: FairnessSpec
    policy: Policy | None
    stream: str
    looks: tuple[Look, ...]
    new_batches: tuple[BatchCounts, ...]
    fingerprints: tuple[Mapping[str, Any], ...]
    criteria: Mapping[str, Any]
    criteria_id: str
    new_stream: Mapping[str, Any] | None = None
    window: int | None = None
    #: Per earlier look and rule, the copy of the test record that decided it, from the
    #: ledger's verified runs (:class:`respai.monitor.stream.EarlierLooks`).
    history: tuple[Mapping[str, Any], ...] = ()

    @property
    def latest(self) -> Look:
        """The stream's newest look."""
        return self.looks[-1]

    @property
    def verdict(self) -> Verdict:
        """The latest look's worst verdict: it decides the exit code."""
        return self.latest.verdict

    @property
    def exit_code(self) -> int:
        """The process exit code."""
        return self.verdict.exit_code

    def changes(self) -> list[tuple[int, str, Verdict, Verdict]]:
        """``(look, rule, before, after)`` for every change of a rule's verdict."""
        return [
            (look.look, r.id, r.changed_from, r.verdict)
            for look in self.looks
            for r in look.rules
            if r.changed_from is not None
        ]

    def to_dict(self) -> dict[str, Any]:
        """Everything the terminal shows, for ``--json``: every look from the start."""
        from respai.version import __version__

        return {
            "kind": "respai.monitor",
            "engine": f"respai-evidence-engine/{__version__}",
            "stream": self.stream,
            "criteria_id": self.criteria_id,
            "new_stream": None if self.new_stream is None else dict(self.new_stream),
            "interval_method": CS_METHOD,
            "alpha": self.fairness.alpha,
            "time_uniform": True,
            "change_method": CHANGE_METHOD,
            "change_guarantee": guarantee_text(self.fairness.alpha),
            "window": self.window,
            "looks": [look.to_json() for look in self.looks],
            "new_looks": [b.look for b in self.new_batches],
            "changes": [
                {"look": n, "rule": rid, "from": a.value, "to": b.value}
                for n, rid, a, b in self.changes()
            ],
            "verdict": self.verdict.value,
            "exit_code": self.exit_code,
        }


def count_batch(
    fairness: FairnessSpec, path: Path, look: int
) -> tuple[BatchCounts, Mapping[str, Any]]:
    """Count one batch file: per rule and group ``(cases, events, missing)``, and who is out.

    Returns the batch's counts and the file's fingerprint (hashed from the descriptor the
    engine read).
    """
    from respai.load import load_counts, open_inputs
    from respai.rules import rate_counts
    from respai.spec import SystemInfo

    batch_spec = replace(fairness, cases=path)
    inputs = open_inputs(Spec(path=None, sha256=None, system=SystemInfo(), fairness=batch_spec))
    counts = load_counts(batch_spec, inputs.decided).counts
    fingerprint = inputs.fingerprints()["dataset"]
    groups: dict[str, dict[str, tuple[int, int, int]]] = {}
    left: dict[str, int] = {}
    for rule in fairness.rules:
        grouping = counts.groupings[rule.attributes]
        groups[rule.id] = {
            " × ".join(key): rate_counts(rule.rate, cell) for key, cell in grouping.groups.items()
        }
        left[rule.id] = grouping.left_out_total
    batch = {"name": path.name, "sha256": fingerprint.get("sha256")}
    return BatchCounts(look, batch, groups, left, counts.total), fingerprint


def run_monitor(
    spec: Spec | str | Path,
    batches: Sequence[Path],
    *,
    policy: Policy | str | Path | None = None,
    ledger: Path | None = None,
    ring: KeyRing | None = None,
    new_stream: str | None = None,
    window: int | None = None,
) -> MonitorResult:
    """Add ``batches`` as the next looks of the spec's monitoring stream and decide them all.

    Parameters
    ----------
    spec
        A spec with a ``fairness:`` block and at least one rule; its ``cases`` is not read.
    batches
        The new batch files, in the order the outcomes arrived.
    policy
        Overrides for the rules (as for ``respai fairness``).
    ledger
        The ledger holding the stream; ``None`` starts a stream of this call's batches only.
    ring
        The keys an earlier run of the stream must verify with.
    new_stream
        The reason to start a new stream although the ledger holds one of the same
        criteria (kept in the record); ``None`` continues the latest stream of the
        criteria, or starts the first.
    window
        Also decide every rule at every look on its last ``window`` batches alone
        (one-off Clopper-Pearson intervals); ``None`` for no window.

    Raises
    ------
    respai.errors.SpecError, respai.errors.InputError
        For a bad spec or batch, a batch already in the stream (at an earlier look, or
        given twice), or an earlier run of the stream that does not verify.
    """
    from respai.monitor.criteria import monitor_criteria
    from respai.monitor.stream import choose_stream, earlier_looks, stream_runs
    from respai.plan.criteria import plan_id

    parsed = spec if isinstance(spec, Spec) else load_spec(spec)
    pol = policy if isinstance(policy, Policy) or policy is None else load_policy(policy)
    fairness = apply_policy(parsed.fairness, pol)
    origin = str(parsed.path) if parsed.path else "spec"
    if not fairness.rules:
        raise SpecError(
            f"{origin}: fairness.rules: monitoring needs at least one rule to decide.",
            "Declare the rules whose rates the live outcomes are checked against.",
        )
    for rule in fairness.rules:  # the monitor's sequences decide gaps and worst groups only
        if rule.kind == "min_group_ratio" or rule.reference is not None or rule.equalized_odds:
            raise SpecError(
                f"{origin}: fairness.rules: rule {rule.id!r} uses min_group_ratio, reference "
                "or rate equalized_odds, which monitoring does not decide yet.",
                "Monitor it as a max_group_gap or worst_group rule on one rate, or check it "
                "with respai fairness.",
            )
    if parsed.data.demographics is not None:
        raise InputError(
            "the spec joins data.demographics, and monitoring reads each batch on its own.",
            "Join the self-identification to each batch before monitoring it.",
        )
    if not batches:
        raise InputError("no batch file was given.", "Name one or more batch files.")
    if window is not None and window < 1:
        raise InputError(
            f"--window {window}: a window holds at least one batch.",
            "Give the number of latest batches to decide on, e.g. --window 3.",
        )
    if new_stream is not None and not new_stream.strip():
        raise InputError(
            "--new-stream was given an empty reason.",
            'Say why a new stream starts, e.g. --new-stream "model retrained on 2026 data".',
        )
    doc = monitor_criteria(parsed.system, fairness)
    cid = plan_id(doc)
    runs = stream_runs(ledger)
    choice = choose_stream(runs, parsed.system.name, cid, new_stream)
    rule_ids = [r.id for r in fairness.rules]
    before = earlier_looks(runs, choice.stream, cid, ring or KeyRing(()), rule_ids)
    earlier = list(before.batches)
    new: list[BatchCounts] = []
    prints: list[Mapping[str, Any]] = []
    for i, path in enumerate(batches):
        batch, fingerprint = count_batch(fairness, Path(path), len(earlier) + i + 1)
        _refuse_repeat(batch, [*earlier, *new], choice.stream, len(earlier))
        new.append(batch)
        prints.append(fingerprint)
    looks = decide_looks(fairness, [*earlier, *new], len(earlier) + 1, window)
    return MonitorResult(
        parsed,
        fairness,
        pol,
        choice.stream,
        looks,
        tuple(new),
        tuple(prints),
        doc,
        cid,
        choice.new_stream,
        window,
        before.history,
    )


def _refuse_repeat(
    batch: BatchCounts, before: Sequence[BatchCounts], stream: str, earlier: int
) -> None:
    """Refuse ``batch`` when a batch with its SHA-256 is already a look of the stream.

    ``before`` are the stream's looks so far: the first ``earlier`` from the ledger, the
    rest given earlier in this call. A batch counted twice would count its cases twice
    and narrow the intervals as if they were new outcomes.
    """
    sha = batch.batch.get("sha256")
    if not isinstance(sha, str):
        return
    same = next((b for b in before if b.batch.get("sha256") == sha), None)
    if same is None:
        return
    name, other = batch.batch.get("name"), same.batch.get("name")
    where = (
        f"already look {same.look} of the monitoring stream {stream} ({other}, counted by "
        "an earlier call)"
        if same.look <= earlier
        else f"given twice in this call: it would be look {same.look} ({other}) and look "
        f"{batch.look} of the monitoring stream {stream}"
    )
    raise InputError(
        f"the batch {name} (SHA-256 {sha[:16]}…) is {where}; a batch is counted once, "
        "since counting its cases again would narrow the intervals as if they were new "
        "outcomes.",
        "Give only batches of outcomes the stream has not counted yet (a file of new "
        "outcomes has a SHA-256 of its own).",
    )
