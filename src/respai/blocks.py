"""The seam for a spec's optional blocks: one object per block, and their registry.

A block such as ``ll144:`` or ``paired:`` lives in its own package and registers one
:class:`Block` in :data:`BLOCKS`, by the dotted name of the object, imported only when a
spec uses the registry. Everything that handles a spec's blocks loops over the registry
instead of naming a block:

- the spec loader accepts each block's top-level key and calls :meth:`Block.parse`;
- the loader opens the columns :meth:`Block.case_columns` names in the run's cases file;
- the plan's criteria hold :meth:`Block.criteria` under the block's name;
- the signing checks refuse an output over the files :meth:`Block.inputs` reads;
- ``respai evaluate`` (:mod:`respai.run.evaluation`) lets one block share the count
  pass (:meth:`Block.one_scan`), runs each declared block (:meth:`Block.run`), and
  takes its verdicts and fingerprints into the run's;
- the record builder (:mod:`respai.run.evidence`) adds :meth:`Block.record`'s test
  records, ``run_start`` and ``counts`` parts, claims and caveats;
- the terminal summary prints :meth:`Block.terminal`'s lines, and ``--json`` holds
  :meth:`Block.to_json` under the block's name.

The HTML report shows a block's test records like every other, by their test ids
(:data:`respai.battery.TEST_NAMES`); the exports (:mod:`respai.export.outcomes`) give them
the block's kind by :attr:`Block.test_prefix`, its JUnit suite (:attr:`Block.suite`), its
readable names (:meth:`Block.outcome_name`) and, in the CycloneDX BOM, its measured
values (:meth:`Block.metrics`). Adding a block touches its own package,
one line of :data:`BLOCKS`, its tests and its docs page.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from respai.io import Named
    from respai.load import CountPass, Inputs
    from respai.record.predicate import TestRecord
    from respai.spec.parsed import DataSpec, Policy, Spec, SystemInfo
    from respai.types import Verdict

__all__ = [
    "BLOCKS",
    "Block",
    "CaseColumns",
    "Metric",
    "ParseContext",
    "RecordParts",
    "RunContext",
    "block_named",
    "block_of_test",
    "blocks",
]

#: Every optional block of a spec, by its top-level key, in the order the record and
#: the outputs list them: the dotted name of its :class:`Block`.
BLOCKS: Mapping[str, str] = {
    "ll144": "respai.ll144.block:BLOCK",
    "paired": "respai.paired.block:BLOCK",
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
        The spec's parsed ``data:`` and ``system:`` blocks.
    checks
        The loader's check kit (:class:`respai.spec.checks._Ctx`), for messages that
        name a key of the file.
    """

    origin: str
    base_dir: Path | None
    data: DataSpec
    system: SystemInfo
    checks: Any


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a block's run may read: the spec, the policy, the run's opened inputs.

    ``shared`` is what the block's :meth:`Block.one_scan` tallied during the count pass
    (``None`` when it shared none).
    """

    spec: Spec
    policy: Policy | None
    inputs: Inputs
    shared: Any = None


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
    undefined
        Why the value is undefined, when it is.
    """

    kind: str
    slice: str
    value: object
    interval: object = None
    n: object = None
    undefined: str = ""


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


class Block(ABC):
    """One optional block of a spec: how it is parsed, planned, run, recorded and shown.

    A block's package subclasses this and registers one instance in :data:`BLOCKS`. The
    abstract methods are required; the others are optional: their defaults read no file,
    share no count pass, add no fingerprint, print nothing and name records by their test.
    """

    #: The block's top-level key in a spec.
    name: str = ""
    #: How the ``test_id`` of each of its test records starts (its outcomes' kind).
    test_prefix: str = ""
    #: The JUnit suite its test records are cases of.
    suite: str = ""

    @abstractmethod
    def parse(self, raw: Any, ctx: ParseContext) -> Any:
        """The parsed block, from its mapping in the spec (raise ``SpecError`` if bad)."""
        raise NotImplementedError

    @abstractmethod
    def criteria(self, declared: Any) -> Any:
        """The block's part of a plan's criteria (plain JSON values)."""
        raise NotImplementedError

    def inputs(self, declared: Any) -> list[Named]:
        """The files of its own the block reads, each with how it is named in messages."""
        return []

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

    @abstractmethod
    def to_json(self, result: Any) -> Any:
        """The block's document in ``respai evaluate --json`` (its own command's)."""
        raise NotImplementedError

    def metrics(self, record: Mapping[str, Any]) -> list[Metric] | None:
        """The measured values of one of its test records in a metrics export (CycloneDX).

        ``None`` (the default) lists the record's value and per-group rows as a battery
        test's are listed.
        """
        return None

    def outcome_name(self, record: Mapping[str, Any]) -> str | None:
        """A readable name of one of its test records in exports (``None``: the test's)."""
        return None


@cache
def block_named(name: str) -> Block:
    """The registered block whose key is ``name``.

    Raises
    ------
    KeyError
        When no block of that name is registered.
    """
    module, _, attribute = BLOCKS[name].partition(":")
    found = getattr(import_module(module), attribute)
    if not isinstance(found, Block) or found.name != name:
        raise TypeError(f"{BLOCKS[name]} is not the Block named {name!r}")
    return found


def blocks() -> list[Block]:
    """Every registered block, in :data:`BLOCKS` order."""
    return [block_named(name) for name in BLOCKS]


def block_of_test(test_id: object) -> Block | None:
    """The registered block a test record with ``test_id`` comes from, or ``None``."""
    if not isinstance(test_id, str):
        return None
    return next((b for b in blocks() if b.test_prefix and test_id.startswith(b.test_prefix)), None)
