"""The ``paired:`` block of a spec, as :mod:`respai.blocks` registers it.

Everything ``respai evaluate`` does with a paired (counterfactual) test goes through
:data:`BLOCK`: its parser, its part of a plan's criteria, the pairs file it reads, the
test, its record parts and its terminal lines.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from respai.blocks import Block, ParseContext, RecordParts, RunContext

if TYPE_CHECKING:
    from rich.console import Console

    from respai.io import Named
    from respai.paired.audit import PairedResult
    from respai.paired.spec import PairedSpec
    from respai.spec.parsed import Policy
    from respai.types import Verdict

__all__ = ["BLOCK", "PairedBlock"]


class PairedBlock(Block):
    """The paired test declared by a spec's ``paired:`` block."""

    name = "paired"
    test_prefix = "paired"
    suite = "respai.paired"
    test_names = MappingProxyType({"paired_difference": "Paired difference"})

    def parse(self, raw: Any, ctx: ParseContext) -> PairedSpec:
        """The block, its pairs file relative to the spec's folder."""
        from respai.paired.spec import parse_paired

        return parse_paired(raw, base_dir=ctx.base_dir, origin=ctx.origin)

    def criteria(self, declared: PairedSpec, policy: Policy | None) -> Any:
        """What decides the test: the columns, the variants, the outcome and the limit."""
        return {
            "pair": declared.pair,
            "variant": declared.variant,
            "variants": list(declared.variants),
            "reference": declared.reference,
            "outcome": declared.outcome,
            "max_difference": declared.max_difference,
        }

    def inputs(self, declared: PairedSpec) -> list[Named]:
        """The pairs file."""
        return [("the spec's paired cases", declared.cases)]

    def run(self, ctx: RunContext) -> PairedResult:
        """The exact McNemar tests of every variant against the reference."""
        from respai.paired.audit import run_paired

        fs = None if ctx.fairness is None else ctx.fairness.spec
        if fs is None or fs.familywise is None or fs.family_size is None:
            return run_paired(ctx.spec, policy=ctx.policy)
        # familywise: bonferroni: each of the V - 1 comparisons at alpha / m
        declared: PairedSpec = ctx.declared
        comparisons = max(1, len(declared.variants) - 1)
        share = float(fs.rule_alpha * comparisons)
        source = (
            f"familywise bonferroni: {comparisons} of the run's {fs.family} tests at alpha / m "
            f"({fs.alpha:g} / {fs.family})"
        )
        return run_paired(ctx.spec, policy=ctx.policy, alpha=(share, source))

    def verdicts(self, result: PairedResult) -> list[Verdict]:
        """One verdict per variant compared with the reference."""
        return [c.verdict for c in result.comparisons]

    def fingerprints(self, result: PairedResult) -> dict[str, Any]:
        """The pairs file's fingerprint, as ``paired``."""
        return {} if result.fingerprint is None else {"paired": result.fingerprint}

    def record(self, result: PairedResult) -> RecordParts:
        """Its test records and its ``run_start`` part."""
        from respai.paired.seal import paired_run_start, paired_tests

        return RecordParts(tests=list(paired_tests(result)), run_start=paired_run_start(result))

    def terminal(self, result: PairedResult, console: Console) -> None:
        """The lines ``respai paired`` prints."""
        from rich.text import Text

        from respai.paired.terminal import paired_lines
        from respai.render.escape import terminal_text

        console.print()
        for line in paired_lines(result):
            console.print(Text(terminal_text(line)))

    def to_json(self, result: PairedResult) -> Any:
        """The document ``respai paired --json`` prints."""
        return result.to_dict()


#: The registered block (:data:`respai.blocks.BLOCKS`).
BLOCK = PairedBlock()
