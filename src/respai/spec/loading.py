"""A whole spec file: read it, check its top-level keys, and parse each block.

The order is fixed, so the first mistake in a file is always the one reported: the
top-level keys, the ``data:`` keys, then ``fairness:`` (with ``cases``, ``format`` and
``delimiter`` from ``data:`` when set there), ``system:``, the rest of ``data:``, each
optional block of :data:`respai.blocks.BLOCKS` in its order (``ll144:`` with its checks
against ``data:`` and ``system:``, ``paired:``), ``scope:`` and ``evaluation:``. The two
frame blocks (``fairness:``, ``evaluation:``) are parsed by their registered blocks too,
at these fixed places, and kept in the spec's own fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from respai.errors import SpecError
from respai.spec.checks import _check_keys, _Ctx, _mapping
from respai.spec.data import _check_data_block, _parse_data
from respai.spec.parsed import FairnessSpec, Spec
from respai.spec.scope import parse_scope
from respai.spec.system import _parse_system
from respai.spec.yaml_io import _read_yaml

__all__ = ["load_spec", "parse_spec"]

#: The top-level keys of a spec besides the blocks of :data:`respai.blocks.BLOCKS`.
_OWN_KEYS = ("system", "data", "scope")


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec file.

    Parameters
    ----------
    path
        A YAML file with a ``fairness:`` block (and optionally ``system:``, ``data:``).

    Raises
    ------
    SpecError
        When the file cannot be read or does not validate.
    """
    p = Path(path)
    doc, digest = _read_yaml(p, "spec")
    return parse_spec(doc, base_dir=p.resolve().parent, origin=str(p), path=p, sha256=digest)


def parse_spec(
    doc: Any,
    *,
    base_dir: Path | None = None,
    origin: str = "spec",
    path: Path | None = None,
    sha256: str | None = None,
) -> Spec:
    """Validate a whole spec document (a mapping) into a :class:`Spec`."""
    ctx = _Ctx(origin)
    if doc is None:
        raise SpecError(f"{origin}: the spec is empty.", "Start from a fairness: block.")
    from respai.blocks import BLOCKS, ParseContext, block_named, blocks

    top = _mapping(ctx, "(top level)", doc)
    known = ("fairness", *_OWN_KEYS[:2], "evaluation", *BLOCKS, _OWN_KEYS[2])
    _check_keys(ctx, "", top, tuple(dict.fromkeys(known)), ())
    optional = [b.name for b in blocks() if not b.frame]
    data = _mapping(ctx, "data", top.get("data") or {})
    _check_data_block(ctx, data)
    if not {"fairness", *optional} & set(top):
        raise ctx.fail(
            "fairness",
            "is required but missing.",
            "Declare the label, prediction and attributes under fairness: (or an ll144: "
            "block for an LL144 bias audit, a paired: block for a paired test, or a "
            "regression: block for a numeric target and prediction, or a ranking: block for "
            "ranked lists).",
        )
    parsed_fairness: FairnessSpec | None = None
    if "fairness" in top:
        fairness = dict(_mapping(ctx, "fairness", top["fairness"]))
        for key in ("cases", "format", "delimiter"):
            if key in data:
                if key in fairness:
                    raise ctx.fail(
                        f"data.{key}", f"is also set as fairness.{key}.", "Set it in one place."
                    )
                fairness[key] = data[key]
        first = ParseContext(origin, base_dir, None, None, ctx)  # data: is checked against it
        parsed_fairness = block_named("fairness").parse(fairness, first)
    system = _parse_system(ctx, top.get("system"))
    data_spec = _parse_data(ctx, data, base_dir, parsed_fairness)
    context = ParseContext(origin, base_dir, data_spec, system, ctx, parsed_fairness)
    declared = {
        name: block_named(name).parse(top[name], context) for name in optional if name in top
    }
    scope = None if "scope" not in top else parse_scope(ctx, top["scope"])
    return Spec(
        scope=scope,
        blocks=declared,
        path=path,
        sha256=sha256,
        system=system,
        fairness=parsed_fairness,
        evaluation=None
        if "evaluation" not in top
        else block_named("evaluation").parse(top["evaluation"], context),
        data=data_spec,
    )
