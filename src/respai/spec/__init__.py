"""The spec file: parse and validate a YAML declaration into frozen objects.

Validation happens here, before any data is read: unknown keys, wrong types, rules naming
undeclared attributes and thresholds out of range are each a :class:`SpecError` naming the
key, with a "did you mean" hint where a close spelling exists. Whether the declared
columns exist in the data is checked by :mod:`respai.load`, which reads only the header.

The ``fairness:`` block's keys and their extensions are documented
in ``docs/spec.md``.

The package, one concept per module:

- :mod:`respai.spec.parsed`: the frozen domain types (no YAML, no validation), which
  :mod:`respai.rules` and :mod:`respai.tables` import;
- :mod:`respai.spec.yaml_io`: the strict YAML reader (duplicate keys refused);
- :mod:`respai.spec.checks`: the validator kit the block parsers share;
- :mod:`respai.spec.fairness`, :mod:`~respai.spec.data`, :mod:`~respai.spec.system`,
  :mod:`~respai.spec.evaluation`: one parser per block (an optional block's parser and
  types live in its own package: :mod:`respai.ll144.spec`, :mod:`respai.paired.spec`);
- :mod:`respai.spec.policy`: policy files, and applying one to a spec;
- :mod:`respai.spec.loading`: a whole spec file.

The domain types load with the package; the parsers (and YAML) load on first use, so
``import respai.spec.parsed`` stays free of YAML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from respai.lazy import lazy_names
from respai.spec.parsed import (
    DEFAULT_ALPHA,
    DEFAULT_CALIBRATION_BINS,
    DEFAULT_MAX_LEFT_OUT,
    DEFAULT_MAX_MISSING,
    DEFAULT_MIN_CELL,
    FORMATS,
    DataSpec,
    EvaluationSpec,
    FairnessSpec,
    Policy,
    Rate,
    Rule,
    Spec,
    SystemInfo,
)

if TYPE_CHECKING:
    from respai.spec.evaluation import parse_evaluation
    from respai.spec.fairness import parse_fairness
    from respai.spec.loading import load_spec, parse_spec
    from respai.spec.policy import apply_policy, load_policy, parse_policy

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
    "Spec",
    "SystemInfo",
    "apply_policy",
    "load_policy",
    "load_spec",
    "parse_evaluation",
    "parse_fairness",
    "parse_policy",
    "parse_spec",
]

#: Public parser name -> the module that defines it (imported on first use).
_PARSERS = {
    "apply_policy": "respai.spec.policy",
    "load_policy": "respai.spec.policy",
    "load_spec": "respai.spec.loading",
    "parse_evaluation": "respai.spec.evaluation",
    "parse_fairness": "respai.spec.fairness",
    "parse_policy": "respai.spec.policy",
    "parse_spec": "respai.spec.loading",
}


__getattr__ = lazy_names(__name__, _PARSERS)
