"""The criteria a monitoring stream is named by: what decides its looks, and nothing else.

:func:`monitor_criteria` is the smaller document of a stream: the system's name and
version and the fairness block in force (:func:`respai.plan.criteria.fairness_criteria`),
without what does not change a look's counts or verdicts, and with the lists whose order
changes neither (declared values, intersections) sorted. Its id is
:func:`respai.plan.criteria.plan_id` of the document. Pure: it reads no file.
"""

from __future__ import annotations

from typing import Any

from respai.plan.criteria import CRITERIA_VERSION, fairness_criteria
from respai.spec.parsed import FairnessSpec, SystemInfo

__all__ = ["monitor_criteria"]


#: What a monitoring stream's criteria leave out of the fairness block: the block's display
#: name, the calibration bins (monitoring draws no calibration) and where each threshold
#: came from (the same threshold from the spec or a policy decides the same looks).
_NOT_MONITORED = ("name", "calibration_bins", "sources")
_RULE_NOT_MONITORED = ("threshold_source", "max_left_out_source", "max_missing_source")


def monitor_criteria(system: SystemInfo, fairness: FairnessSpec) -> dict[str, Any]:
    """The criteria a monitoring stream decides its looks on, as plain JSON.

    The system's name and version, and the ``fairness`` block in force (the policy
    applied): the columns and their value maps, the groups and intersections, ``alpha``,
    ``min_cell``, ``max_left_out`` and every rule with its threshold, laid out as in
    :func:`criteria`. Only what changes the looks' counts or verdicts is a criterion, so
    a comment, a reordered key, a moved threshold of the same value, the system's owner
    or the spec's battery settings leave a stream's criteria (and its id,
    :func:`plan_id` of this document) unchanged.

    Orders that change no count or verdict are made canonical here (and only here: a
    plan's criteria keep the spec's order):

    - each attribute's declared values are sorted: a group is counted under its own
      value, whatever its place in the list, and a look decides on the set of groups
      (the largest gap, the worst group, the small cells); the order only sets the
      order groups are shown in;
    - the intersections are sorted: each is counted on its own, named by its attributes;
    - the rules are keyed by id (JSON objects have no order), so reordering them changes
      nothing either: each rule is decided on its own and a look's verdict is the worst;
    - a rule's attribute list is already in its declared intersection's order (the
      spec parser gives a rule naming ``[age_band, sex]`` the intersection
      ``[sex, age_band]``), so it is the same however the rule lists them.

    The order of the attributes **within** an intersection stays as declared: it names
    the intersection's groups (``female × under_30``), and a stream's looks carry their
    counts under those names, so ``[age_band, sex]`` after ``[sex, age_band]`` would
    count the same cases under other names and split each group in two. Reordering them
    starts another stream. (The label and prediction maps are objects: their order never
    counted.)
    """
    block = {k: v for k, v in fairness_criteria(fairness).items() if k not in _NOT_MONITORED}
    block["rules"] = {
        rid: {k: v for k, v in rule.items() if k not in _RULE_NOT_MONITORED}
        for rid, rule in block["rules"].items()
    }
    block["attributes"] = {a: sorted(values) for a, values in block["attributes"].items()}
    block["intersections"] = sorted(block["intersections"])
    named = {"name": system.name, "version": system.version}
    return {
        "version": CRITERIA_VERSION,
        "kind": "monitor",
        "system": {k: v for k, v in named.items() if v is not None},
        "fairness": block,
    }
