"""The seam for a spec's blocks and the kinds of test record: one object each, one registry.

Every block of a spec registers one :class:`Block` in :data:`BLOCKS`, by the dotted name
of the object, imported only when a spec uses the registry: the battery of
``evaluation:`` (:mod:`respai.battery_block`), the group rules of ``fairness.rules``
(:mod:`respai.rules_block`), and the optional blocks, each in its own package (``ll144:``,
``paired:``). Everything that handles a spec's blocks loops over the registry instead of
naming a block:

- the spec loader accepts each optional block's top-level key and calls
  :meth:`Block.parse` (the two *frame* blocks, ``fairness:`` and ``evaluation:``, are
  parsed through their blocks too, at their fixed places: ``fairness:`` first, since the
  ``data:`` checks and every other block read it, ``evaluation:`` last);
- the loader opens the columns :meth:`Block.case_columns` names in the run's cases file;
- the plan's criteria hold :meth:`Block.criteria` under the block's name;
- the signing checks refuse an output over the files :meth:`Block.inputs` reads;
- ``respai evaluate`` (:mod:`respai.run.evaluation`) lets each declared block prepare
  before any data is read (:meth:`Block.prepare`: the battery loads its model), lets one
  block share the count pass (:meth:`Block.one_scan`), counts the cases once, runs each
  declared block (:meth:`Block.run`), and takes its verdicts and fingerprints into the
  run's;
- the record builder (:mod:`respai.run.evidence`) adds :meth:`Block.record`'s test
  records, ``run_start`` and ``counts`` parts, claims and caveats;
- the terminal summary prints :meth:`Block.terminal`'s lines, and ``--json`` holds
  :meth:`Block.to_json` under the block's name (an optional block's: the frame blocks'
  results are the document's ``tests`` and ``per_group``).

The record-facing part of a block is a :class:`RecordKind` (every :class:`Block` is
one): a command with no spec key of its own (``respai monitor``, over the ``fairness:``
block) registers only that part, in :data:`RECORD_KINDS`. Every test id has exactly one
owner among :func:`record_kinds` (:func:`owner_of_test`; :data:`UNOWNED` when none).
The HTML report names test records by their test ids (:attr:`RecordKind.test_names`,
merged by :func:`test_names`); the exports (:mod:`respai.export.outcomes`) give them
their owner's kind (:attr:`RecordKind.kind`, found by :meth:`RecordKind.owns`), its
JUnit suite (:attr:`RecordKind.suite`), its readable names and reasons
(:meth:`RecordKind.outcome_name`, :meth:`RecordKind.outcome_reason`) and, in the
CycloneDX BOM, its measured values (:meth:`RecordKind.metrics`) and fairness assessments
(:attr:`RecordKind.assesses_fairness`); the report adds each kind's own section
(:meth:`RecordKind.report_section`, :meth:`RecordKind.script_values`).
Adding a block touches its own package, one line of :data:`BLOCKS`, its tests and its
docs page; adding a record kind that is no block, its own package and one line of
:data:`RECORD_KINDS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from respai.io import Named
    from respai.load import CountPass, Inputs
    from respai.record.predicate import TestRecord
    from respai.results import FairnessResult
    from respai.spec.parsed import DataSpec, FairnessSpec, Policy, Spec, SystemInfo
    from respai.types import Verdict

__all__ = [
    "BLOCKS",
    "RECORD_KINDS",
    "UNOWNED",
    "Block",
    "CaseColumns",
    "Metric",
    "ParseContext",
    "RecordKind",
    "RecordParts",
    "RunContext",
    "RunOptions",
    "block_named",
    "blocks",
    "declared_blocks",
    "group_rule_metrics",
    "owner_of_test",
    "record_kind_named",
    "record_kinds",
    "test_names",
]

#: Every block of a spec, by its top-level key, in the order a run runs them and the
#: record and the outputs list them: the dotted name of its :class:`Block`.
BLOCKS: Mapping[str, str] = {
    "evaluation": "respai.battery_block:BLOCK",
    "fairness": "respai.rules_block:BLOCK",
    "ll144": "respai.ll144.block:BLOCK",
    "paired": "respai.paired.block:BLOCK",
    "regression": "respai.regression.block:BLOCK",
    "ranking": "respai.ranking.block:BLOCK",
}

#: The kinds of test record written by a command that is not a spec block (it has no spec
#: key of its own), by name: the dotted name of its :class:`RecordKind`. Listed after the
#: blocks' kinds wherever the exports list kinds.
RECORD_KINDS: Mapping[str, str] = {
    "monitor": "respai.monitor.kind:RECORD_KIND",
}


@dataclass(frozen=True, slots=True)
class ParseContext:
    """What a block's parser may read besides its own mapping.

    Attributes
    ----------
    origin
        The spec file's name, for messages.
    base_dir
        The folder relative file names are read from (``None``: the current folder).
    data, system
        The spec's parsed ``data:`` and ``system:`` blocks (``None`` while the
        ``fairness:`` block, which they are checked against, is parsed).
    checks
        The loader's check kit (:class:`respai.spec.checks._Ctx`), for messages that
        name a key of the file.
    fairness
        The spec's parsed ``fairness:`` block, when it has one (a block may default to
        its attributes).
    """

    origin: str
    base_dir: Path | None
    data: DataSpec | None
    system: SystemInfo | None
    checks: Any
    fairness: FairnessSpec | None = None


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How the person running the command asked for the run (never read from a file).

    Attributes
    ----------
    data
        A DataFrame counted instead of the spec's cases file, or ``None``.
    trust_model_code, trusted_types
        What the person trusts a model file to run (the CLI's ``--trust-model-code`` and
        ``--trust-type``).
    on_batch
        Progress callback ``(done_rows, total_rows)`` of long work.
    engine
        The engine of the count passes (:data:`respai.engine.registry.ENGINES`).
    """

    data: Any = None
    trust_model_code: bool = False
    trusted_types: Sequence[str] = ()
    on_batch: Callable[[int, int], None] | None = None
    engine: str = "duckdb"


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a block's run may read: the spec, the policy, the run's opened inputs.

    ``declared`` is the block's :meth:`Block.declared` value; ``prepared`` what its
    :meth:`Block.prepare` returned; ``shared`` what its :meth:`Block.one_scan` tallied
    during the count pass (``None`` when it shared none); ``fairness`` the count pass's
    result (:class:`respai.results.FairnessResult`: the counts, the per-group tables and
    the group rules decided on them); ``options`` how the run was asked for.
    """

    spec: Spec
    policy: Policy | None
    inputs: Inputs
    shared: Any = None
    declared: Any = None
    prepared: Any = None
    fairness: FairnessResult | None = None
    options: RunOptions = field(default_factory=RunOptions)


@dataclass(frozen=True, slots=True)
class CaseColumns:
    """The columns of the run's cases file a block reads, by role.

    ``demographic`` columns are read from the self-identification file when the spec
    joins one that has them; ``outputs`` (the tool's decisions and scores) from the cases
    file; ``text`` are the columns whose values are read as text (groups, labels, ids).
    """

    demographic: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Metric:
    """One measured value of a block's test record, as a metrics export lists it.

    Attributes
    ----------
    kind
        What is measured (CycloneDX's metric ``type``), e.g. ``ll144 impact ratio``.
    slice
        Which cases: ``overall``, or ``<attributes>: <group>``.
    value, interval, n
        The value, its interval (the record's ``{lo, hi, method, confidence}``) and its
        sample size, as the record holds them (``None`` when it has none).
    bounds
        Bounds shown instead of an interval's ends (a group rule's largest gap).
    undefined
        Why the value is undefined, when it is.
    """

    kind: str
    slice: str
    value: object
    interval: object = None
    n: object = None
    undefined: str = ""
    bounds: tuple[float, float] | None = None

    @staticmethod
    def slice_of(grouping: object, label: object) -> str:
        """The slice of one group: ``<attributes>: <group>``, or ``overall``."""
        attrs = " × ".join(str(a) for a in grouping) if isinstance(grouping, list) else ""
        return f"{attrs}: {label}" if attrs else "overall"


def group_rule_metrics(
    record: Mapping[str, Any], where: str, undefined: str, gap_value: Any
) -> list[Metric]:
    """A group rule's metrics: each group's rate with its interval, then the largest gap.

    Parameters
    ----------
    record
        The test record of a group rule (``rule:<id>``) or of a monitored rule's look.
    where
        What the metric's type names after the rate: ``rule sel`` or
        ``monitored rule sel, look 3``.
    undefined
        Why a group's rate is undefined (it has no case with a decision).
    gap_value
        The value the largest gap's metric carries (the rule's, or ``None``).
    """
    from respai.record.reading import as_dict, as_list, text
    from respai.render.gap import shown_gap_bounds

    details = as_dict(record.get("details"))
    rate = f"{text(details.get('rate')).replace('_', ' ')} rate"
    grouping = record.get("grouping")
    out = [
        Metric(
            f"{rate} ({where})",
            Metric.slice_of(grouping, row.get("group")),
            row.get("rate"),
            interval=row.get("interval"),
            n=row.get("cases"),
            undefined=undefined,
        )
        for row in map(as_dict, as_list(details.get("groups")))
    ]
    bounds = shown_gap_bounds(details.get("gap_bounds"))
    if bounds is not None:
        out.append(
            Metric(
                f"largest gap in {rate} ({where})",
                " × ".join(str(a) for a in as_list(grouping)),
                gap_value,
                bounds=bounds,
                undefined=text(record.get("undefined_reason")),
            )
        )
    return out


@dataclass(slots=True)
class RecordParts:
    """What a block adds to the record of a run.

    Attributes
    ----------
    tests
        Its test records, after the battery's and the rules'.
    run_start, counts
        Its part of ``run_start`` and of ``counts``, under the block's name (``None``:
        none).
    claims
        The claims of a run with this block, when they replace the evaluation's.
    caveats
        Sentences added to the record's caveats.
    """

    tests: list[TestRecord] = field(default_factory=list)
    run_start: Any = None
    counts: Any = None
    claims: Mapping[str, list[str]] | None = None
    caveats: list[str] = field(default_factory=list)


class RecordKind:
    """The record-facing part of a kind of test record: how the exports and the report show it.

    Every kind of test record a command writes has exactly one owner: a spec block (each
    :class:`Block` is one) or a kind registered in :data:`RECORD_KINDS` because it is
    written by a command with no spec key of its own (monitoring's ``monitor_rule``). The
    exports (:mod:`respai.export.outcomes`, JUnit, CycloneDX, in-toto) and the report's
    test names read only this part. A test id no registered kind owns (a record from
    another engine version) is :data:`UNOWNED`'s: exported under its own id, in its own
    ``respai.unknown`` suite, never filed under a block.
    """

    #: The kind's registry key (a spec block's top-level key).
    name: str = ""
    #: The kind of its outcomes in the exports (its name unless set).
    kind: str = ""
    #: How the ``test_id`` of each of its test records starts (see :meth:`owns`).
    test_prefix: str = ""
    #: The JUnit suite its test records are cases of.
    suite: str = ""
    #: The display name of each of its test ids (the report, the exports); it owns them.
    test_names: Mapping[str, str] = MappingProxyType({})
    #: Whether its grouped test records are fairness assessments in a CycloneDX BOM.
    assesses_fairness: bool = False

    @property
    def outcome_kind(self) -> str:
        """The kind of its outcomes: :attr:`kind`, or the kind's name."""
        return self.kind or self.name

    def owns(self, test_id: str) -> bool:
        """Whether a test record with ``test_id`` is one of this kind's.

        Its named test ids (:attr:`test_names`) and the ids starting with
        :attr:`test_prefix` (when set); no kind claims the ids nobody else owns.
        """
        return test_id in self.test_names or (
            bool(self.test_prefix) and test_id.startswith(self.test_prefix)
        )

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """The measured values of one of its test records in a metrics export (CycloneDX).

        By default the record's value and interval, over the record's grouping.
        """
        grouping = record.get("grouping")
        undefined = record.get("undefined_reason")
        attrs = " × ".join(str(a) for a in grouping) if isinstance(grouping, list) else ""
        return [
            Metric(
                str(record.get("test_id") or ""),
                attrs or "overall",
                record.get("value"),
                interval=record.get("interval"),
                undefined=undefined if isinstance(undefined, str) else "",
            )
        ]

    def outcome_name(self, record: Mapping[str, Any]) -> str | None:
        """A readable name of one of its test records in exports (``None``: the test's)."""
        return None

    def outcome_reason(self, record: Mapping[str, Any]) -> str | None:
        """Why one of its test records has its verdict (``None``: the record's reason)."""
        return None

    def report_section(self, predicate: Any, tests: Sequence[Any]) -> str:
        """Its section of the evidence report, before the tests table (none by default).

        ``predicate`` is the record's predicate and ``tests`` its own test records, both
        as :class:`respai.render.report.bind.At` values (every text bound to the record);
        called only when the record holds some of its test records.
        """
        return ""

    def script_values(self) -> Mapping[str, Any]:
        """Values the report page's script reads for its section (merged into its tables)."""
        return {}


class _Unowned(RecordKind):
    """The test ids no registered kind owns: shown by their own id, with generic values."""

    name = "unknown"
    suite = "respai.unknown"


#: The kind of a test record whose id no registered kind owns (see :func:`owner_of_test`).
UNOWNED: RecordKind = _Unowned()


class Block(RecordKind, ABC):
    """One block of a spec: how it is parsed, planned, run, recorded and shown.

    A block's package subclasses this and registers one instance in :data:`BLOCKS`; its
    record-facing part (kind, suite, names, metrics) is the :class:`RecordKind` it is. The
    abstract methods are required; the others are optional: their defaults read no file,
    share no count pass, add no fingerprint, print nothing and name records by their test.
    """

    #: Whether it is one of the spec's frame blocks (``fairness:``, ``evaluation:``): parsed
    #: at its fixed place and kept in the spec's own fields rather than ``Spec.blocks``;
    #: its results are ``--json``'s ``tests`` and ``per_group``, not a document of its own.
    frame: bool = False

    def declared(self, spec: Spec) -> Any:
        """What the spec declares for this block, or ``None`` when the block does not run.

        An optional block's parsed mapping (``spec.blocks[name]``) by default.
        """
        return spec.blocks.get(self.name)

    @abstractmethod
    def parse(self, raw: Any, ctx: ParseContext) -> Any:
        """The parsed block, from its mapping in the spec (raise ``SpecError`` if bad)."""
        raise NotImplementedError

    @abstractmethod
    def criteria(self, declared: Any, policy: Policy | None) -> Any:
        """The block's part of a plan's criteria (plain JSON values), under ``policy``."""
        raise NotImplementedError

    def inputs(self, declared: Any) -> list[Named]:
        """The files of its own the block reads, each with how it is named in messages."""
        return []

    def prepare(self, spec: Spec, policy: Policy | None, options: RunOptions) -> Any:
        """Work done before any data is read (nothing by default).

        The battery loads (and refuses) its model here, so a refused model file stops the
        run before the cases file is opened.
        """
        return None

    def case_columns(self, declared: Any) -> CaseColumns:
        """The columns of the run's shared cases file the block reads (none by default)."""
        return CaseColumns()

    def one_scan(self, spec: Spec, inputs: Inputs) -> tuple[CountPass, Callable[[], Any]] | None:
        """A count pass that also tallies the block's counts in the same scan, or ``None``."""
        return None

    @abstractmethod
    def run(self, ctx: RunContext) -> Any:
        """Run the block; its result is what the methods below read."""
        raise NotImplementedError

    @abstractmethod
    def verdicts(self, result: Any) -> list[Verdict]:
        """The verdicts the block adds to the run's (the run's is the worst of all)."""
        raise NotImplementedError

    def fingerprints(self, result: Any) -> dict[str, Any]:
        """Fingerprints of the files the block read, by role, for the record."""
        return {}

    @abstractmethod
    def record(self, result: Any) -> RecordParts:
        """What the block adds to the record."""
        raise NotImplementedError

    def terminal(self, result: Any, console: Console) -> None:
        """The block's lines in ``respai evaluate``'s terminal summary."""
        return None

    def to_json(self, result: Any) -> Any:
        """The block's document in ``respai evaluate --json`` (its own command's).

        ``None`` (the default): the block's results are its test records only.
        """
        return None


@cache
def block_named(name: str) -> Block:
    """The registered block whose key is ``name``.

    Raises
    ------
    KeyError
        When no block of that name is registered.
    """
    found = _resolve(BLOCKS[name])
    if not isinstance(found, Block) or found.name != name:
        raise TypeError(f"{BLOCKS[name]} is not the Block named {name!r}")
    return found


@cache
def record_kind_named(name: str) -> RecordKind:
    """The registered record kind whose key is ``name``: a block's, or a :data:`RECORD_KINDS`'.

    Raises
    ------
    KeyError
        When no kind of that name is registered.
    """
    if name in BLOCKS:
        return block_named(name)
    found = _resolve(RECORD_KINDS[name])
    if not isinstance(found, RecordKind) or isinstance(found, Block) or found.name != name:
        raise TypeError(f"{RECORD_KINDS[name]} is not the record kind named {name!r}")
    return found


def _resolve(dotted: str) -> object:
    module, _, attribute = dotted.partition(":")
    return getattr(import_module(module), attribute)


def blocks() -> list[Block]:
    """Every registered spec block, in :data:`BLOCKS` order."""
    return [block_named(name) for name in BLOCKS]


def record_kinds() -> list[RecordKind]:
    """Every registered kind of test record: each block's, then :data:`RECORD_KINDS`'."""
    return [*blocks(), *(record_kind_named(name) for name in RECORD_KINDS)]


def test_names() -> dict[str, str]:
    """The display name of every test id a record can carry, from every kind's names."""
    out: dict[str, str] = {}
    for k in record_kinds():
        out |= dict(k.test_names)
    return out


test_names.__test__ = False  # type: ignore[attr-defined]  # not a pytest test (doctest runs)


def declared_blocks(spec: Spec) -> list[tuple[Block, Any]]:
    """Every block ``spec`` runs, with what it declares for it, in :data:`BLOCKS` order."""
    return [(b, found) for b in blocks() if (found := b.declared(spec)) is not None]


def owner_of_test(test_id: object) -> RecordKind:
    """The registered kind a test record with ``test_id`` is one of, else :data:`UNOWNED`.

    Examples
    --------
    >>> owner_of_test("group_rule").name, owner_of_test("no_such_test").name
    ('fairness', 'unknown')
    """
    if not isinstance(test_id, str):
        return UNOWNED
    return next((k for k in record_kinds() if k.owns(test_id)), UNOWNED)
