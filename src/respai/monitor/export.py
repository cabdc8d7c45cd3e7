"""How the exports show a monitoring run's records: their kind, JUnit suite and names.

The monitor is a command of its own, not a block of a spec (:mod:`respai.blocks`), so
:mod:`respai.export.outcomes` asks here for its ``monitor_rule`` test records. Imports
nothing heavy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MONITOR_KIND", "MONITOR_SUITE", "MONITOR_TEST", "outcome_name"]

#: The kind of a monitoring run's outcomes in the exports.
MONITOR_KIND = "monitor"
#: The JUnit suite of a monitoring run's outcomes.
MONITOR_SUITE = "respai.monitor"
#: The ``test_id`` of a monitoring run's test records.
MONITOR_TEST = "monitor_rule"


def outcome_name(rec: Mapping[str, Any]) -> str:
    """``Monitored rule <id> at look <n>``, from a ``monitor_rule`` record's details.

    Examples
    --------
    >>> outcome_name({"details": {"rule": "fnr-gap", "look": 4}})
    'Monitored rule fnr-gap at look 4'
    """
    details = rec.get("details")
    rule = details.get("rule") if isinstance(details, Mapping) else None
    look = details.get("look") if isinstance(details, Mapping) else None
    return f"Monitored rule {rule if isinstance(rule, str) else '?'} at look {look}"
