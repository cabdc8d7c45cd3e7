"""``respai evaluate --json``: every number of the signed record and of the terminal.

The document is the run's summary (verdict, exit code, where the record and ledger are,
the fingerprints) followed by everything the record holds, laid out for a machine:

- ``tests``: each test record in full (value, interval, value range, threshold, verdict,
  reason, method, the per-group ``details`` such as each group's rate and intervals or
  AUC, the clauses it supports), without the chain's bookkeeping (``record_id``,
  ``prev_record_id``, ``seq``, ``run_seq``, ``run_id``, ``record_type``), which only the
  signed record needs;
- ``run_start``: the spec and policy fingerprints, the settings (alpha, min_cell,
  thresholds and their sources, score column, model) and the planned tests;
- ``per_group``: the per-group table of every attribute and intersection (count, cases
  with and without a prediction, positives, and every rate with numerator, denominator
  and 95% Wilson interval), the whole file's row and the per-group calibration, as
  ``respai fairness --json`` has them (``null`` for a run without a ``fairness:``
  block);
- ``counts`` (the integers every number is computed from; without a ``fairness:``
  block, ``cases`` is the rows of the cases file and each block's counts are under
  its name), ``system``, ``caveats``,
  ``claims`` and ``control_mapping``, as in the record;
- ``ll144`` and ``paired``: with an ``ll144:`` or ``paired:`` block, the document
  ``respai ll144 --json`` or ``respai paired --json`` prints for it (tables, findings,
  interpretation; comparisons), else ``null``.

Its shape is ``respai/schemas/evaluate.schema.json``. What it takes from the record is
read back from the signed payload (:attr:`respai.sealing.Sealed.predicate`), so it is
what the signature covers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from respai.results import Evaluation
    from respai.sealing import Sealed

__all__ = ["BOOKKEEPING", "evaluation_json"]

#: Fields of a chained record that only the signed record needs.
BOOKKEEPING = frozenset({"record_id", "prev_record_id", "seq", "run_seq", "run_id", "record_type"})


def _plain(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` without its chain fields, in the order its type declares them.

    The signed payload, read back, has its keys sorted; a test's fields come in the order
    of :class:`~respai.record.predicate.TestRecord`, then any others.
    """
    from respai.record.predicate import TestRecord

    order = {k: i for i, k in enumerate(TestRecord.__annotations__)}
    keys = sorted(
        (k for k in record if k not in BOOKKEEPING), key=lambda k: order.get(k, len(order))
    )
    return {k: record[k] for k in keys}


def evaluation_json(result: Evaluation, sealed: Sealed) -> dict[str, Any]:
    """The ``--json`` document of a sealed evaluation (see the module docstring)."""
    predicate = sealed.predicate
    records = predicate["records"]
    out = sealed.summary_json()
    out["tests"] = [_plain(r) for r in records if r["record_type"] == "test"]
    out["run_start"] = _plain(records[0])
    out["per_group"] = None  # a run without a fairness: block has no such table
    if result.has_fairness:
        fairness = result.fairness.to_dict()
        out["per_group"] = {
            "cases": fairness["cases"],
            "overall": fairness["overall"],
            "tables": fairness["tables"],
            "calibration": fairness["calibration"],
            "calibration_note": fairness["calibration_note"],
        }
    for key in ("system", "counts", "caveats", "claims", "control_mapping", "schema_version"):
        out[key] = predicate[key]
    from respai.blocks import blocks

    # the focused commands' documents of the other blocks, as respai ll144 / paired print
    # them: every registered block, null when the spec does not declare it
    for b in blocks():
        if b.frame:  # the battery's and the rules': the tests and per_group above
            continue
        found = result.blocks.get(b.name)
        out[b.name] = None if found is None else b.to_json(found)
    return out
