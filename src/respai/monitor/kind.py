"""The monitoring run's kind of test record: how the exports and the report show it.

Monitoring is a command over the spec's ``fairness:`` block, not a block of its own, so
it registers only the record-facing part of one (:class:`respai.blocks.RecordKind`) in
:data:`respai.blocks.RECORD_KINDS`: its ``monitor_rule`` test records are outcomes of
kind ``monitor``, cases of the JUnit suite ``respai.monitor``, named by rule and look,
in a CycloneDX BOM each group's cumulative rate with its confidence sequence's
interval and the largest gap's bounds at that look, and in the evidence report the
monitoring section (:mod:`respai.render.report.monitoring`). Imports nothing heavy: the
exports and the report load it through the registry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from respai.blocks import Metric, RecordKind
from respai.record.reading import as_dict, text

__all__ = ["RECORD_KIND", "TEST_ID", "MonitorKind"]

#: The ``test_id`` of a monitoring run's test records (one rule at one look).
TEST_ID = "monitor_rule"


class MonitorKind(RecordKind):
    """A monitoring run's ``monitor_rule`` records: one rule of a stream at one look."""

    name = "monitor"
    suite = "respai.monitor"
    test_names = MappingProxyType({TEST_ID: "Monitored rule"})
    assesses_fairness = True

    def outcome_name(self, record: Mapping[str, Any]) -> str:
        """``Monitored rule <id> at look <n>``, from the record's details.

        Examples
        --------
        >>> RECORD_KIND.outcome_name({"details": {"rule": "fnr-gap", "look": 4}})
        'Monitored rule fnr-gap at look 4'
        """
        details = record.get("details")
        rule = details.get("rule") if isinstance(details, Mapping) else None
        look = details.get("look") if isinstance(details, Mapping) else None
        return f"Monitored rule {rule if isinstance(rule, str) else '?'} at look {look}"

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """Each group's cumulative rate (its confidence sequence) and the largest gap's bounds.

        The metric's type names the rule and the look, so every look of a stream is its
        own row: ``selection rate (monitored rule sel, look 3)``.
        """
        from respai.blocks import group_rule_metrics

        details = as_dict(record.get("details"))
        where = f"monitored rule {text(details.get('rule'))}, look {details.get('look')}"
        return group_rule_metrics(record, where, "no case of the group has a decision yet", None)

    def report_section(self, predicate: Any, tests: Sequence[Any]) -> str:
        """The report's monitoring section: per rule its charts and per-look table.

        Drawn by :func:`respai.render.report.monitoring.monitoring_section` from the
        record's ``monitor_rule`` records.
        """
        from respai.render.report.monitoring import monitoring_section

        return monitoring_section(predicate, tests)

    def script_values(self) -> Mapping[str, Any]:
        """The test id whose records the page's script checks the monitoring charts against."""
        return {"monitorTest": TEST_ID}


#: The registered kind (:data:`respai.blocks.RECORD_KINDS`).
RECORD_KIND = MonitorKind()
