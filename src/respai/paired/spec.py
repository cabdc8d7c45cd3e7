"""The ``paired:`` block: a paired (counterfactual) test of matched cases.

One row per submitted variant of a case: the pair's id, the variant's name and its 0/1
outcome. The first declared variant is the reference every other is compared with.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai.spec.checks import (
    _check_keys,
    _Ctx,
    _distinct_roles,
    _format_and_delimiter,
    _fraction,
    _mapping,
    _name,
    _text,
    _value_text,
)
from respai.spec.parsed import Spec

__all__ = ["PairedSpec", "declared_paired", "parse_paired"]


@dataclass(frozen=True, slots=True)
class PairedSpec:
    """A validated ``paired:`` block: matched cases that differ in one group-linked detail.

    ``variants`` lists the declared variants, the reference first. ``outcome`` is a 0/1
    column; ``max_difference`` is the largest difference in outcome rates (variant minus
    reference, either sign) that still passes.
    """

    cases: Path
    pair: str
    variant: str
    variants: tuple[str, ...]
    outcome: str
    max_difference: float
    format: str | None = None
    delimiter: str = ","

    @property
    def reference(self) -> str:
        """The reference variant: the first one declared."""
        return self.variants[0]

    def columns(self) -> tuple[str, str, str]:
        """The three columns the block reads."""
        return (self.pair, self.variant, self.outcome)


_KEYS = (
    "cases",
    "pair",
    "variant",
    "variants",
    "outcome",
    "max_difference",
    "format",
    "delimiter",
)
_REQUIRED = ("cases", "pair", "variant", "variants", "outcome", "max_difference")
#: More variants than this is not a paired test of group-linked details but a table.
MAX_VARIANTS = 50


def parse_paired(block: Any, *, base_dir: Path | None = None, origin: str = "spec") -> PairedSpec:
    """Validate a ``paired:`` block into a :class:`~respai.spec.parsed.PairedSpec`.

    Raises
    ------
    respai.errors.SpecError
        For a missing or unknown key, a column named twice, fewer than two variants, a
        variant declared twice, or a ``max_difference`` outside (0, 1).
    """
    ctx = _Ctx(origin)
    b = _mapping(ctx, "paired", block)
    _check_keys(ctx, "paired", b, _KEYS, _REQUIRED)
    raw = Path(_text(ctx, "paired.cases", b["cases"])).expanduser()
    cases = raw if raw.is_absolute() or base_dir is None else base_dir / raw
    pair = _name(ctx, "paired.pair", b["pair"])
    variant = _name(ctx, "paired.variant", b["variant"])
    outcome = _name(ctx, "paired.outcome", b["outcome"])
    _distinct_roles(ctx, "paired", {"pair": pair, "variant": variant, "outcome": outcome})
    listed = b["variants"]
    if not isinstance(listed, list) or len(listed) < 2:
        raise ctx.fail(
            "paired.variants",
            "must list at least two variants, the reference first.",
            "For example: variants: [control, black_name, hispanic_name]",
        )
    if len(listed) > MAX_VARIANTS:
        raise ctx.fail(
            "paired.variants",
            f"lists {len(listed)} variants; at most {MAX_VARIANTS} are allowed.",
            "Compare the variants a paired test was designed for.",
        )
    variants: list[str] = []
    for i, v in enumerate(listed):
        text = _value_text(ctx, f"paired.variants[{i}]", v)
        if text in variants:
            raise ctx.fail(f"paired.variants[{i}]", f"'{text}' is listed twice.", "List it once.")
        variants.append(text)
    gap = _fraction(ctx, "paired.max_difference", b["max_difference"], open_low=True)
    if gap >= 1:
        raise ctx.fail(
            "paired.max_difference",
            f"must be below 1, got {gap}.",
            "Write the largest acceptable difference as a fraction: 5 points is 0.05.",
        )
    fmt, delimiter = _format_and_delimiter(ctx, "paired", b)
    return PairedSpec(
        cases=cases,
        pair=pair,
        variant=variant,
        variants=tuple(variants),
        outcome=outcome,
        max_difference=gap,
        format=fmt,
        delimiter=delimiter,
    )


def declared_paired(spec: Spec) -> PairedSpec | None:
    """The spec's ``paired:`` block, when it declares one."""
    found = spec.blocks.get("paired")
    return found if isinstance(found, PairedSpec) else None
