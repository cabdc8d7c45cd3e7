"""The spec's domain types: frozen objects for each block of a validated spec file.

These are what the rest of respai reads: :mod:`respai.rules`, the loaders, the runs and the
record take a :class:`FairnessSpec` or a :class:`Spec`, never YAML. This module is pure:
it imports no YAML and no engine, and it validates nothing (the parsers in
:mod:`respai.spec` do, before any of these objects is built).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

from respai.errors import SpecError
from respai.exact import decimal
from respai.metrics import Rate
from respai.retention import RetentionRule

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_CALIBRATION_BINS",
    "DEFAULT_MAX_LEFT_OUT",
    "DEFAULT_MAX_MISSING",
    "DEFAULT_MIN_CELL",
    "FORMATS",
    "DataSpec",
    "EvaluationSpec",
    "FairnessSpec",
    "Policy",
    "Rate",
    "Rule",
    "ScopeSpec",
    "Spec",
    "SystemInfo",
    "orientation_sentence",
]

DEFAULT_ALPHA = 0.05
DEFAULT_MIN_CELL = 30
DEFAULT_MAX_LEFT_OUT = 0.10
#: The largest share of a group's cases (of a rate's population) that may lack a decision
#: before the group keeps a verdict from passing (``max_missing``).
DEFAULT_MAX_MISSING = 0.02
DEFAULT_CALIBRATION_BINS = 10
#: The file formats a ``format:`` key may name.
FORMATS = ("csv", "jsonl", "parquet")


def orientation_sentence(favorable: int, written: str | None = None) -> str:
    """The sentence a record and every output carry about the favourable outcome.

    Parameters
    ----------
    favorable
        ``1`` or ``0``: the label and prediction value (after any map) that is the good
        outcome for the person.
    written
        The mapped value the spec named (e.g. ``"approved"``), if it named one.

    Examples
    --------
    >>> orientation_sentence(0, "approved")[:68]
    "favorable: 0 ('approved'). The value 0 of the label and the predicti"
    """
    named = f" ({written!r})" if written is not None else ""
    if favorable == 1:
        return (
            f"favorable: 1{named}. The value 1 of the label and the prediction is the "
            "favourable outcome for the person: the selection rate is the share predicted "
            "1, the true positive rate the share predicted 1 among cases labelled 1, and "
            "every rate, ratio and difference is of that outcome."
        )
    return (
        f"favorable: 0{named}. The value 0 of the label and the prediction is the "
        "favourable outcome for the person, so both are recoded before counting (0 is "
        "counted as 1 and 1 as 0): every 'predicted 1' and 'labelled 1' in this output "
        "means the favourable outcome (0 in the data), the selection rate is the share "
        "given the favourable decision, the true positive rate the share given it among "
        "cases whose label is favourable, and every rate, ratio and difference is of that "
        "outcome. A score or probability column still reads as the probability of the "
        "value 1 in the data; the AUC and calibration read it reversed (1 - p), which "
        "leaves both numbers unchanged."
    )


@dataclass(frozen=True, slots=True)
class Rule:
    """One declared group rule.

    Exactly one of ``max_group_gap``, ``min_group_ratio``, ``worst_min`` and ``worst_max``
    is set. ``reference`` (a gap or ratio rule only) is the declared group every other group
    is compared with, one value per attribute of ``attributes``; ``None`` compares every
    pair (the largest gap, the smallest ratio to the highest rate). ``equalized_odds``
    (a gap rule only) decides the gap on ``false_positive`` and on ``false_negative``;
    ``rate`` is then ``false_positive`` and :attr:`rates` names both.
    ``threshold_source`` says where the threshold came from (``"spec"`` or the policy).
    """

    id: str
    rate: Rate
    attributes: tuple[str, ...]
    max_group_gap: float | None = None
    worst_min: float | None = None
    worst_max: float | None = None
    max_left_out: float | None = None
    threshold_source: str = "spec"
    max_left_out_source: str = "spec"
    min_group_ratio: float | None = None
    reference: tuple[str, ...] | None = None
    equalized_odds: bool = False
    #: the rule's own ``max_missing`` (``None``: the fairness block's)
    max_missing: float | None = None
    max_missing_source: str = "spec"
    #: how a gap or ratio rule decides PASS: ``"simultaneous"`` (the default: every gap
    #: bounded from the group intervals at ``alpha / G``) or ``"pairwise"`` (each pair's
    #: one-sided test at ``alpha``, an intersection-union test)
    method: str = "simultaneous"

    @property
    def kind(self) -> str:
        """``"max_group_gap"``, ``"min_group_ratio"`` or ``"worst_group"``."""
        if self.max_group_gap is not None:
            return "max_group_gap"
        return "min_group_ratio" if self.min_group_ratio is not None else "worst_group"

    @property
    def rates(self) -> tuple[Rate, ...]:
        """The rates the rule decides: both error rates for ``equalized_odds``, else one."""
        if self.equalized_odds:
            return (Rate.FALSE_POSITIVE, Rate.FALSE_NEGATIVE)
        return (self.rate,)

    @property
    def rate_name(self) -> str:
        """The spec's ``rate:`` value, e.g. ``selection`` or ``equalized_odds``."""
        return "equalized_odds" if self.equalized_odds else self.rate.value

    @property
    def reference_label(self) -> str | None:
        """The reference group as text, e.g. ``female × over_60``; ``None`` without one."""
        return None if self.reference is None else " × ".join(self.reference)

    @property
    def group_label(self) -> str:
        """The attribute or intersection name, e.g. ``sex`` or ``sex × age_band``."""
        return " × ".join(self.attributes)


@dataclass(frozen=True, slots=True)
class FairnessSpec:
    """A validated ``fairness:`` declaration.

    ``attributes`` maps each protected attribute (a column name) to its declared values,
    as strings, in declared order. ``cases`` is an absolute path, or ``None`` when the data
    comes as a DataFrame through the Python API.
    """

    label: str
    prediction: str
    attributes: Mapping[str, tuple[str, ...]]
    name: str = "fairness"
    cases: Path | None = None
    probability: str | None = None
    unit: str | None = None
    intersections: tuple[tuple[str, ...], ...] = ()
    min_cell: int = DEFAULT_MIN_CELL
    max_left_out: float = DEFAULT_MAX_LEFT_OUT
    max_missing: float = DEFAULT_MAX_MISSING
    calibration_bins: int = DEFAULT_CALIBRATION_BINS
    alpha: float = DEFAULT_ALPHA
    rules: tuple[Rule, ...] = ()
    label_map: Mapping[str, int] = field(default_factory=dict)
    prediction_map: Mapping[str, int] = field(default_factory=dict)
    format: str | None = None
    delimiter: str = ","
    sources: Mapping[str, str] = field(default_factory=dict)
    #: The value (after ``label_map`` / ``prediction_map``) that is the good outcome for
    #: the person: ``1`` (the default) or ``0``. With ``0`` the label and the prediction
    #: are recoded before counting, so every count, rate, ratio and difference is of the
    #: favourable outcome (see :attr:`orientation`).
    favorable: int = 1
    #: ``favorable`` as the spec wrote it when that was a mapped value (e.g.
    #: ``"approved"``); ``None`` when it was written as 0 or 1, or not at all.
    favorable_value: str | None = None

    @property
    def orientation(self) -> str:
        """One sentence that says which outcome every rate counts, for records and outputs.

        Examples
        --------
        >>> FairnessSpec(label="y", prediction="p", attributes={}).orientation[:44]
        'favorable: 1. The value 1 of the label and t'
        """
        return orientation_sentence(self.favorable, self.favorable_value)

    @property
    def orientation_line(self) -> str:
        """The orientation in one short line, for the terminal and notebook summaries.

        Examples
        --------
        >>> FairnessSpec(label="y", prediction="p", attributes={}, favorable=0).orientation_line
        'favorable: 0 (recoded: every rate counts the value 0 in the data as the good outcome)'
        """
        named = f" ({self.favorable_value!r})" if self.favorable_value is not None else ""
        if self.favorable == 1:
            return (
                f"favorable: 1{named} (every rate counts the value 1 as the good outcome; "
                "selection = share predicted 1)"
            )
        return (
            f"favorable: 0{named} (recoded: every rate counts the value 0 in the data as the "
            "good outcome)"
        )

    #: run-level family-wise control: ``None`` (each test at ``alpha``) or ``"bonferroni"``
    #: (each of the ``m`` tests of the family at ``alpha / m``); set by a policy
    familywise: str | None = None
    #: how many verdict-deciding tests share ``alpha`` under ``familywise`` (set by the
    #: runner of ``respai evaluate``, :func:`respai.run.family.run_family`); ``None``: the
    #: family is the rules alone (``respai fairness`` decides nothing else)
    family_size: int | None = None

    @property
    def family(self) -> int:
        """How many tests share ``alpha`` (``m``): 1 without ``familywise: bonferroni``.

        Examples
        --------
        >>> FairnessSpec(label="y", prediction="p", attributes={}).family
        1
        >>> FairnessSpec(
        ...     label="y", prediction="p", attributes={}, familywise="bonferroni", family_size=7
        ... ).family
        7
        """
        if self.familywise != "bonferroni":
            return 1
        return max(1, len(self.rules) if self.family_size is None else self.family_size)

    @property
    def rule_alpha(self) -> Fraction:
        """Each test's share of alpha, exactly: ``alpha``, or ``alpha / m`` (Bonferroni).

        The share every member of the run's family is decided at: each group rule, and
        under ``respai evaluate`` each battery test and paired comparison in the family.

        Examples
        --------
        >>> FairnessSpec(label="y", prediction="p", attributes={}).rule_alpha
        Fraction(1, 20)
        """
        return decimal(self.alpha) / self.family

    @property
    def groupings(self) -> tuple[tuple[str, ...], ...]:
        """Every single attribute, then every declared intersection."""
        return tuple((a,) for a in self.attributes) + self.intersections

    def columns(self) -> tuple[str, ...]:
        """Every data column the declaration reads."""
        cols = [self.label, self.prediction]
        if self.probability:
            cols.append(self.probability)
        if self.unit:
            cols.append(self.unit)
        cols.extend(self.attributes)
        seen: dict[str, None] = dict.fromkeys(cols)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """The optional ``system:`` block: what is being evaluated."""

    name: str | None = None
    version: str | None = None
    owner: str | None = None
    use_case: str | None = None
    jurisdiction: str | None = None
    first_distributed: str | None = None

    def to_dict(self) -> dict[str, str]:
        """The fields that are set, by name (for records and summaries)."""
        return {
            k: v
            for k, v in (
                ("name", self.name),
                ("version", self.version),
                ("owner", self.owner),
                ("use_case", self.use_case),
                ("jurisdiction", self.jurisdiction),
                ("first_distributed", self.first_distributed),
            )
            if v is not None
        }


@dataclass(frozen=True, slots=True)
class ScopeSpec:
    """The optional ``scope:`` block: the scope memo, fixed before the data is seen."""

    decision_point: str | None = None
    output_type: str | None = None
    population: str | None = None
    window: str | None = None
    categories: str | None = None
    flag_rule: str | None = None
    auditor: str | None = None
    independence_statement: str | None = None


@dataclass(frozen=True, slots=True)
class EvaluationSpec:
    """The optional ``evaluation:`` block: which battery tests, and the score column."""

    tests: tuple[str, ...]
    score: str | None = None
    seed: int | None = None
    #: Whether ``tests`` was listed in the spec (else the default battery applies).
    explicit_tests: bool = False
    #: The model file for perturbation stability, and its feature columns in order.
    model: Path | None = None
    features: tuple[str, ...] = ()
    #: Columns to perturb (``None``: every feature column holding numbers).
    numeric: tuple[str, ...] | None = None
    noise: float = 0.05
    trials: int = 5
    positive_label: str | None = None


@dataclass(frozen=True, slots=True)
class DataSpec:
    """The optional ``data:`` block: where the cases and the self-ID come from.

    ``cases`` and ``demographics`` are absolute paths (or ``None``). ``join_on`` is the id
    column both files share; ``source`` is ``"historical"`` or ``"test"``; ``weight`` the
    column of survey or sampling weights (``None``: every case weighs one), summed on a grid
    of ``10^-weight_decimals``.
    """

    cases: Path | None = None
    id: str | None = None
    demographics: Path | None = None
    join_on: str | None = None
    source: str | None = None
    explanation: str | None = None
    format: str | None = None
    delimiter: str = ","
    weight: str | None = None
    #: The weights are summed exactly as whole ``10^-weight_decimals`` units.
    weight_decimals: int = 6


@dataclass(frozen=True, slots=True, init=False)
class Spec:
    """A whole spec file: its path and digest, and its blocks.

    ``fairness`` may be absent when the spec has another block (``ll144:``, ``paired:``,
    ``regression:``, ``ranking:``), which ``respai evaluate`` runs on its own; reading
    :attr:`fairness` then raises a :class:`SpecError` that says so, so a command that
    needs group rules refuses the spec with exit code 2.
    """

    path: Path | None
    sha256: str | None
    system: SystemInfo
    fairness_block: FairnessSpec | None
    evaluation: EvaluationSpec | None
    data: DataSpec
    #: The optional blocks it declares (``ll144:``, ``paired:``), parsed by the blocks
    #: of :data:`respai.blocks.BLOCKS`, by name.
    blocks: Mapping[str, Any]
    scope: ScopeSpec | None

    def __init__(
        self,
        path: Path | None,
        sha256: str | None,
        system: SystemInfo,
        fairness: FairnessSpec | None = None,
        evaluation: EvaluationSpec | None = None,
        *,
        data: DataSpec | None = None,
        blocks: Mapping[str, Any] | None = None,
        fairness_block: FairnessSpec | None = None,
        scope: ScopeSpec | None = None,
    ) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "sha256", sha256)
        object.__setattr__(self, "system", system)
        # ``fairness_block`` is the field's own name, so dataclasses.replace() works too
        object.__setattr__(
            self, "fairness_block", fairness if fairness is not None else fairness_block
        )
        object.__setattr__(self, "evaluation", evaluation)
        object.__setattr__(self, "data", data if data is not None else DataSpec())
        object.__setattr__(self, "blocks", MappingProxyType(dict(blocks or {})))
        object.__setattr__(self, "scope", scope)

    @property
    def fairness(self) -> FairnessSpec:
        """The ``fairness:`` block.

        Raises
        ------
        SpecError
            When the spec has no ``fairness:`` block (an LL144-only spec).
        """
        if self.fairness_block is None:
            origin = str(self.path) if self.path is not None else "spec"
            blocks = " and ".join(f"{name}:" for name in self.blocks)
            raise SpecError(
                f"{origin}: fairness: is required by this command but missing (the spec "
                f"has only {blocks or 'other'} block(s)).",
                "Declare the label, prediction and attributes under fairness:, or run "
                f"respai evaluate {origin} (it runs regression:, ranking:, paired: and "
                f"ll144: blocks without fairness:), respai ll144 {origin} (an LL144 bias "
                f"audit) or respai paired {origin} (a paired test).",
            )
        return self.fairness_block


@dataclass(frozen=True, slots=True)
class Policy:
    """A policy file's overrides, with its path and SHA-256 for the record."""

    path: Path | None
    sha256: str | None
    alpha: float | None = None
    max_left_out: float | None = None
    min_cell: int | None = None
    max_missing: float | None = None
    #: run-level family-wise control over the run's tests (``"bonferroni"``) or ``None``
    familywise: str | None = None
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    tests: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the retention clocks (``retention:``) the record states, empty when none
    retention: tuple[RetentionRule, ...] = ()

    @property
    def source(self) -> str:
        """How the record names this policy: ``policy <path> sha256:<hex>``."""
        name = self.path.name if self.path else "<dict>"
        return f"policy {name} sha256:{self.sha256}" if self.sha256 else f"policy {name}"
