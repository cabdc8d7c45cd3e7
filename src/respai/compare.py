"""Compare two records of the same system: verdicts, values, thresholds and fingerprints.

:func:`compare_records` takes two sealed envelopes (or their Statements or predicates)
and returns a :class:`Comparison`: which tests changed verdict, value or threshold,
which tests appear in only one record, and which fingerprints (dataset, model, engine
code, spec, policy) changed. Nothing is verified here: verify both records first
(:func:`respai.record.verify_envelope`, :func:`respai.ledger.verify_ledger`), then
compare what they say.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

from respai.errors import Error
from respai.record import RecordError, canonical_bytes, envelope_payload, loads_strict
from respai.render.escape import terminal_text

__all__ = [
    "CompareError",
    "Comparison",
    "FieldChange",
    "RecordSide",
    "TestDiff",
    "compare_records",
]

# (label, path in the predicate) of what identifies the inputs and code of a run.
_FINGERPRINT_FIELDS: tuple[tuple[str, tuple[str | int, ...]], ...] = (
    ("system version", ("system", "version")),
    ("dataset name", ("fingerprints", "dataset", "name")),
    ("dataset sha256", ("fingerprints", "dataset", "sha256")),
    ("dataset size_bytes", ("fingerprints", "dataset", "size_bytes")),
    ("model name", ("fingerprints", "model", "name")),
    ("model sha256", ("fingerprints", "model", "sha256")),
    ("engine_code sha256", ("fingerprints", "engine_code", "sha256")),
    ("engine_code version", ("fingerprints", "engine_code", "version")),
    ("engine_code git_commit", ("fingerprints", "engine_code", "git_commit")),
    ("engine_code git_dirty", ("fingerprints", "engine_code", "git_dirty")),
    ("engine_code wheel_sha256", ("fingerprints", "engine_code", "wheel_sha256")),
    ("engine version", ("engine", "version")),
    ("spec sha256", ("records", 0, "spec", "sha256")),
    ("policy sha256", ("records", 0, "policy", "sha256")),
    ("control mapping version", ("control_mapping", "version")),
)

_THRESHOLD_VALUE_KEYS = (
    "value",
    "max_group_gap",
    "min_group_ratio",
    "worst_group_min",
    "worst_group_max",
)


class CompareError(Error):
    """A record to compare is not a respai record (envelope, Statement or predicate)."""


@dataclasses.dataclass(frozen=True)
class FieldChange:
    """One fingerprint or identity field that differs between the two records.

    Attributes
    ----------
    field
        What changed, e.g. ``"dataset sha256"``.
    a, b
        The value in record A and in record B (``None`` when absent).
    """

    field: str
    a: Any
    b: Any

    def line(self) -> str:
        """Return the change as one line for people."""
        return f"{self.field}: {_show(self.a)} → {_show(self.b)}"


@dataclasses.dataclass(frozen=True)
class TestDiff:
    """One test present in both records.

    Attributes
    ----------
    test_key
        The test's key (``test_key``, else ``test_id``).
    value_a, value_b
        The measured values (``None`` when undefined).
    verdict_a, verdict_b
        The verdicts.
    threshold_a, threshold_b
        The thresholds as recorded (``None`` when there is none).
    """

    __test__ = False  # not a pytest test class, whatever its name says

    test_key: str
    value_a: Any
    value_b: Any
    verdict_a: str | None
    verdict_b: str | None
    threshold_a: Any = None
    threshold_b: Any = None

    @property
    def delta(self) -> float | None:
        """``value_b - value_a`` when both are numbers, else ``None``."""
        if _is_number(self.value_a) and _is_number(self.value_b):
            return float(self.value_b) - float(self.value_a)
        return None

    @property
    def verdict_changed(self) -> bool:
        """Whether the verdict differs."""
        return self.verdict_a != self.verdict_b

    @property
    def value_changed(self) -> bool:
        """Whether the value differs (a value becoming undefined counts)."""
        return bool(_differs(self.value_a, self.value_b))

    @property
    def threshold_changed(self) -> bool:
        """Whether the recorded threshold differs (its source included)."""
        return bool(_differs(self.threshold_a, self.threshold_b))

    @property
    def changed(self) -> bool:
        """Whether anything about the test differs."""
        return self.verdict_changed or self.value_changed or self.threshold_changed

    def to_dict(self) -> dict[str, Any]:
        """Return the test's comparison as JSON-ready data."""
        return {
            "test_key": self.test_key,
            "value_a": self.value_a,
            "value_b": self.value_b,
            "delta": self.delta,
            "verdict_a": self.verdict_a,
            "verdict_b": self.verdict_b,
            "verdict_changed": self.verdict_changed,
            "value_changed": self.value_changed,
            "threshold_a": self.threshold_a,
            "threshold_b": self.threshold_b,
            "threshold_changed": self.threshold_changed,
        }


@dataclasses.dataclass(frozen=True)
class RecordSide:
    """What identifies one of the two records.

    Attributes
    ----------
    label
        How the caller named it (a file name, or ``"A"``/``"B"``).
    run_id, timestamp
        The run's id and time.
    system_name, system_version
        The evaluated system (``None`` when the record names none: the spec had no
        ``system:`` block).
    dataset
        The base name of the dataset the run read, which tells apart records that name
        no system.
    verdict
        The run's verdict.
    tests
        The number of test records.
    """

    label: str
    run_id: str | None
    timestamp: str | None
    system_name: str | None
    system_version: str | None
    verdict: str | None
    tests: int
    dataset: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the side as JSON-ready data."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Comparison:
    """What differs between record A and record B.

    Attributes
    ----------
    a, b
        The two records' identities.
    same_system
        ``True`` when both records name the same system, ``False`` when they name
        different ones, ``None`` when either names none (its spec had no ``system:``
        block): respai cannot tell, and compares the two records as given.
    fingerprint_changes
        The fingerprint and identity fields that differ.
    tests
        Every test in both records: verdict changes first, then other changes, then the
        unchanged, each group in record A's order.
    only_in_a, only_in_b
        The keys of tests that appear in one record only.
    favorable
        Each record's favourable outcome (``run_start.settings.favorable``: 1 or 0;
        ``None`` when a record does not state one).
    """

    a: RecordSide
    b: RecordSide
    same_system: bool | None
    fingerprint_changes: tuple[FieldChange, ...]
    tests: tuple[TestDiff, ...]
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]
    favorable: tuple[int | None, int | None] = (None, None)

    @property
    def orientation_differs(self) -> bool:
        """Whether both records state a favourable outcome and the two differ."""
        a, b = self.favorable
        return a is not None and b is not None and a != b

    @property
    def warnings(self) -> tuple[str, ...]:
        """What makes the comparison misleading, one sentence each (``--json`` too)."""
        if not self.orientation_differs:
            return ()
        a, b = self.favorable
        return (
            f"The two runs count opposite outcomes (A favorable: {a}, B favorable: {b}): "
            "every rate of one is a rate of the other's unfavourable outcome, so their "
            "values, deltas and verdicts do not compare.",
        )

    @property
    def verdict_changed(self) -> bool:
        """Whether the run's overall verdict differs."""
        return self.a.verdict != self.b.verdict

    @property
    def verdict_changes(self) -> tuple[TestDiff, ...]:
        """The tests whose verdict differs."""
        return tuple(t for t in self.tests if t.verdict_changed)

    @property
    def changed(self) -> bool:
        """Whether anything differs: verdicts, values, thresholds, tests or fingerprints."""
        return (
            self.verdict_changed
            or any(t.changed for t in self.tests)
            or bool(self.only_in_a or self.only_in_b or self.fingerprint_changes)
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the comparison as JSON-ready data (for ``respai compare --json``)."""
        return {
            "same_system": self.same_system,
            "changed": self.changed,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "verdict": {
                "a": self.a.verdict,
                "b": self.b.verdict,
                "changed": self.verdict_changed,
            },
            "verdict_changes": [t.test_key for t in self.verdict_changes],
            "tests": [t.to_dict() for t in self.tests],
            "only_in_a": list(self.only_in_a),
            "only_in_b": list(self.only_in_b),
            "fingerprint_changes": [dataclasses.asdict(c) for c in self.fingerprint_changes],
            "favorable": {
                "a": self.favorable[0],
                "b": self.favorable[1],
                "differs": self.orientation_differs,
            },
            "warnings": list(self.warnings),
        }

    def lines(self) -> list[str]:
        """Return the comparison as lines for people, differences in verdict first.

        Names, keys and values come from the records, so every line is shown with its
        control, escape and bidi characters escaped
        (:func:`respai.render.escape.terminal_text`).
        """
        out = [_side_line("A", self.a), _side_line("B", self.b)]
        if self.same_system is None:
            unnamed = [s for s in (self.a, self.b) if s.system_name is None]
            which = (
                "Neither record names its system"
                if len(unnamed) == 2
                else f"{unnamed[0].label} names no system"
            )
            out.append(
                f"{which} (no system: block in the spec), so respai cannot tell whether both "
                "are about the same system; they are compared as given. Name it with "
                "system: {name: ...} in the spec."
            )
        elif not self.same_system:
            out.append(
                f"These records are about different systems ({self.a.system_name!r} and "
                f"{self.b.system_name!r}): the comparison may not mean much."
            )
        out.extend(f"Warning: {w}" for w in self.warnings)
        if self.verdict_changed:
            out.append(f"Verdict: {self.a.verdict} → {self.b.verdict}")
        else:
            out.append(f"Verdict: {self.a.verdict} in both")
        verdicts = [t for t in self.tests if t.verdict_changed]
        values = [t for t in self.tests if t.value_changed and not t.verdict_changed]
        thresholds = [t for t in self.tests if t.threshold_changed]
        if verdicts:
            out.append(f"Verdict changes ({len(verdicts)}):")
            out.extend(
                f"  {t.test_key}: {t.verdict_a} → {t.verdict_b}{_value_note(t)}" for t in verdicts
            )
        if values:
            out.append(f"Value changes ({len(values)}):")
            out.extend(
                f"  {t.test_key}: {_value_change(t)}; verdict {t.verdict_b} in both"
                for t in values
            )
        if thresholds:
            out.append(f"Threshold changes ({len(thresholds)}):")
            out.extend(
                f"  {t.test_key}: {_threshold_change(t.threshold_a, t.threshold_b)}"
                for t in thresholds
            )
        if self.only_in_a:
            out.append(f"Only in A ({len(self.only_in_a)}): {', '.join(self.only_in_a)}")
        if self.only_in_b:
            out.append(f"Only in B ({len(self.only_in_b)}): {', '.join(self.only_in_b)}")
        if self.fingerprint_changes:
            out.append(f"Fingerprint changes ({len(self.fingerprint_changes)}):")
            out.extend(f"  {c.line()}" for c in self.fingerprint_changes)
        unchanged = sum(not t.changed for t in self.tests)
        if not self.changed:
            out.append(
                f"No change: the same verdicts, values, thresholds and fingerprints in all "
                f"{len(self.tests)} test(s)."
            )
        elif unchanged:
            out.append(f"{unchanged} test(s) unchanged.")
        return [terminal_text(line) for line in out]


# -- helpers -----------------------------------------------------------------------------


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _differs(a: Any, b: Any) -> bool:
    # JSON equality: 1 and 1.0 are the same number, True is not 1.
    if _is_number(a) and _is_number(b):
        return bool(a != b)
    if type(a) is not type(b):
        return True
    if isinstance(a, Mapping):
        return a.keys() != b.keys() or any(_differs(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) != len(b) or any(_differs(x, y) for x, y in zip(a, b, strict=True))
    return bool(a != b)


def _number(value: Any) -> str:
    if value is None:
        return "undefined"
    if isinstance(value, bool) or not _is_number(value):
        return _show(value)
    if isinstance(value, int):
        return str(value)
    return f"{value:.6g}" if math.isfinite(value) else str(value)


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        hexish = len(value) == 64 and all(c in "0123456789abcdef" for c in value)
        return f"{value[:12]}…" if hexish else value
    if _is_number(value):
        return _number(value)
    try:
        return canonical_bytes(value).decode("utf-8")
    except RecordError:
        return repr(value)


def _value_change(t: TestDiff) -> str:
    delta = t.delta
    shift = f" ({delta:+.6g})" if delta is not None else ""
    return f"{_number(t.value_a)} → {_number(t.value_b)}{shift}"


def _value_note(t: TestDiff) -> str:
    if t.value_changed:
        return f"; value {_value_change(t)}"
    return f"; value {_number(t.value_b)} in both"


def _threshold_text(threshold: Any) -> str:
    if not isinstance(threshold, Mapping):
        return _show(threshold)
    op = threshold.get("comparison", threshold.get("op"))
    value = next((threshold[k] for k in _THRESHOLD_VALUE_KEYS if k in threshold), None)
    if isinstance(op, str) and value is not None:
        return f"{op} {_number(value)}"
    return _show(dict(threshold))


def _threshold_change(a: Any, b: Any) -> str:
    text = f"{_threshold_text(a)} → {_threshold_text(b)}"
    source_a = a.get("source") if isinstance(a, Mapping) else None
    source_b = b.get("source") if isinstance(b, Mapping) else None
    if source_a != source_b:
        text += f" (source {_show(source_a)} → {_show(source_b)})"
    return text


def _side_line(name: str, side: RecordSide) -> str:
    system = " ".join(x for x in (side.system_name, side.system_version) if x) or (
        "no system named" + (f" (dataset {side.dataset})" if side.dataset else "")
    )
    label = f"{side.label}: " if side.label != name else ""
    return (
        f"{name}: {label}run {side.run_id or '?'} at {side.timestamp or '?'}, {system}, "
        f"{side.tests} test(s)"
    )


def _get(data: Any, path: Sequence[str | int]) -> Any:
    for part in path:
        if isinstance(part, int):
            data = (
                data[part] if isinstance(data, list) and -len(data) <= part < len(data) else None
            )
        else:
            data = data.get(part) if isinstance(data, Mapping) else None
    return data


def _predicate(given: Any, label: str) -> Mapping[str, Any]:
    record: Any = given
    if not isinstance(record, Mapping):
        raise CompareError(f"Record {label} is not a JSON object.")
    if isinstance(record.get("payload"), str):
        try:
            statement = loads_strict(envelope_payload(record))
        except RecordError as exc:
            raise CompareError(
                f"Record {label} is a DSSE envelope whose payload cannot be read: {exc.message}"
            ) from None
        record = statement if isinstance(statement, Mapping) else {}
    if isinstance(record.get("predicate"), Mapping):
        record = record["predicate"]
    if not isinstance(record.get("records"), list):
        raise CompareError(
            f"Record {label} is not a respai record: it has no 'records' list.",
            "Pass the envelope files written by 'respai evaluate' or stored in the ledger.",
        )
    predicate: Mapping[str, Any] = record
    return predicate


def _tests(predicate: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for record in predicate["records"]:
        if not isinstance(record, Mapping) or record.get("record_type") != "test":
            continue
        key = record.get("test_key") or record.get("test_id") or f"records[{record.get('seq')}]"
        base, n = str(key), 1
        while str(key) in out:
            n += 1
            key = f"{base}#{n}"
        out[str(key)] = record
    return out


def _verdict(predicate: Mapping[str, Any]) -> str | None:
    verdict = predicate.get("verdict")
    if not isinstance(verdict, str):
        end = _get(predicate, ("records", -1))
        if isinstance(end, Mapping):
            verdict = end.get("verdict", end.get("worst_verdict"))
    return verdict if isinstance(verdict, str) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _favorable(predicate: Mapping[str, Any]) -> int | None:
    """The run's favourable outcome (``run_start.settings.favorable``), or ``None``."""
    for record in predicate["records"]:
        if isinstance(record, Mapping) and record.get("record_type") == "run_start":
            value = _get(record, ("settings", "favorable"))
            return value if value in (0, 1) and not isinstance(value, bool) else None
    return None


def _side(label: str, predicate: Mapping[str, Any], tests: int) -> RecordSide:
    return RecordSide(
        label=label,
        run_id=_text(predicate.get("run_id")),
        timestamp=_text(predicate.get("timestamp")),
        system_name=_text(_get(predicate, ("system", "name"))),
        system_version=_text(_get(predicate, ("system", "version"))),
        verdict=_verdict(predicate),
        tests=tests,
        dataset=_text(_get(predicate, ("fingerprints", "dataset", "name"))),
    )


def compare_records(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    *,
    labels: tuple[str, str] = ("A", "B"),
) -> Comparison:
    """Compare two records: what changed from record A to record B.

    Nothing is verified: check the records' signatures first, then compare.

    Parameters
    ----------
    a, b
        Each a DSSE envelope (as sealed and stored in the ledger), its in-toto
        Statement, or the predicate itself.
    labels
        How to name the two records in :meth:`Comparison.lines` (e.g. file names).

    Returns
    -------
    Comparison
        Per test present in both: the values, the delta, the verdicts and the
        thresholds; the tests in one record only; the changed fingerprints (dataset,
        model, engine code, spec, policy); the run ids and timestamps.

    Raises
    ------
    CompareError
        If either is not a respai record.

    Examples
    --------
    >>> r = {"run_id": "r1", "records": [{"record_type": "test", "test_key": "auc",
    ...      "value": 0.8, "verdict": "PASS"}]}
    >>> compare_records(r, r).changed
    False
    """
    pred_a, pred_b = _predicate(a, labels[0]), _predicate(b, labels[1])
    tests_a, tests_b = _tests(pred_a), _tests(pred_b)
    diffs = [
        TestDiff(
            test_key=key,
            value_a=rec.get("value"),
            value_b=tests_b[key].get("value"),
            verdict_a=_text(rec.get("verdict")),
            verdict_b=_text(tests_b[key].get("verdict")),
            threshold_a=rec.get("threshold"),
            threshold_b=tests_b[key].get("threshold"),
        )
        for key, rec in tests_a.items()
        if key in tests_b
    ]
    diffs.sort(key=lambda t: (not t.verdict_changed, not t.changed))
    changes = tuple(
        FieldChange(label, _get(pred_a, path), _get(pred_b, path))
        for label, path in _FINGERPRINT_FIELDS
        if _differs(_get(pred_a, path), _get(pred_b, path))
    )
    side_a = _side(labels[0], pred_a, len(tests_a))
    side_b = _side(labels[1], pred_b, len(tests_b))
    return Comparison(
        a=side_a,
        b=side_b,
        same_system=(
            None
            if side_a.system_name is None or side_b.system_name is None
            else side_a.system_name == side_b.system_name
        ),
        fingerprint_changes=changes,
        tests=tuple(diffs),
        only_in_a=tuple(k for k in tests_a if k not in tests_b),
        only_in_b=tuple(k for k in tests_b if k not in tests_a),
        favorable=(_favorable(pred_a), _favorable(pred_b)),
    )
