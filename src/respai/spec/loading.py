"""A whole spec file: read it, check its top-level keys, and parse each block.

The order is fixed, so the first mistake in a file is always the one reported: the
top-level keys, the ``data:`` keys, then ``fairness:`` (with ``cases``, ``format`` and
``delimiter`` from ``data:`` when set there), ``system:``, the rest of ``data:``,
``ll144:`` (and its checks against ``data:`` and ``system:``), and ``evaluation:``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from respai.errors import SpecError
from respai.spec.checks import _check_keys, _Ctx, _mapping
from respai.spec.data import _check_data_block, _parse_data
from respai.spec.evaluation import parse_evaluation
from respai.spec.fairness import parse_fairness
from respai.spec.ll144 import _check_ll144_with_data, parse_ll144
from respai.spec.model import FairnessSpec, PairedSpec, Spec
from respai.spec.paired import parse_paired
from respai.spec.scope import parse_scope
from respai.spec.system import _parse_system
from respai.spec.yaml_io import _read_yaml

__all__ = ["load_spec", "parse_spec"]

_TOP_KEYS = ("fairness", "system", "data", "evaluation", "ll144", "paired", "scope")


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
    top = _mapping(ctx, "(top level)", doc)
    _check_keys(ctx, "", top, _TOP_KEYS, ())
    data = _mapping(ctx, "data", top.get("data") or {})
    _check_data_block(ctx, data)
    if not {"fairness", "ll144", "paired"} & set(top):
        raise ctx.fail(
            "fairness",
            "is required but missing.",
            "Declare the label, prediction and attributes under fairness: (or an ll144: "
            "block for an LL144 bias audit, or a paired: block for a paired test).",
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
        parsed_fairness = parse_fairness(fairness, base_dir=base_dir, origin=origin)
    system = _parse_system(ctx, top.get("system"))
    data_spec = _parse_data(ctx, data, base_dir, parsed_fairness)
    ll144 = None
    if "ll144" in top:
        ll144 = _check_ll144_with_data(
            ctx, parse_ll144(top["ll144"], origin=origin), data_spec, system
        )
    paired: PairedSpec | None = None
    if "paired" in top:
        paired = parse_paired(top["paired"], base_dir=base_dir, origin=origin)
    scope = None if "scope" not in top else parse_scope(ctx, top["scope"])
    return Spec(
        scope=scope,
        paired=paired,
        path=path,
        sha256=sha256,
        system=system,
        fairness=parsed_fairness,
        evaluation=None
        if "evaluation" not in top
        else parse_evaluation(top["evaluation"], origin=origin, base_dir=base_dir),
        data=data_spec,
        ll144=ll144,
    )
