"""The tables the page's script formats and checks with, written into the script itself.

``RespaiTables`` holds what ``report_assets/bind.js`` needs from Python: the test, verdict
and framework names, the verdict sentences, the fixed labels, the axis ticks, the ids of
the elements the script writes (with the text the file holds in them), the page's shell
outside ``<main>`` with the style sheet's hash (:mod:`~respai.render.report.shell`), the
fixed parts of the AUC caption, and the per-group table's columns with the counts each
rate adds up (:func:`~respai.render.report.group_rates.script_table`), and the rates,
columns and tolerance of the ``derived`` check of a compact record
(:func:`~respai.render.report.group_rates.derived_table`). It is part of the
inline script (so the CSP hash covers it) and the same for every record of one respai
version, so the script's hash is too: it is never data from the record.
"""

from __future__ import annotations

from functools import cache

from respai.battery import TestId
from respai.blocks import record_kinds, test_names
from respai.render.inline import embed_json
from respai.render.report.chart import LEGEND_ICONS, icon_marks
from respai.render.report.formats import FORMATS, FRAMEWORK_NAMES
from respai.render.report.group_rates import derived_table
from respai.render.report.group_rates import script_table as group_rate_table
from respai.render.report.labels import ATTRIBUTES, LABELS, TAGS, TICK_LABELS
from respai.render.report.monitoring import COLOURS, MONITOR_ICONS
from respai.render.report.shell import shell_tables
from respai.render.report.verdict_words import VERDICT_SENTENCES, VERDICT_WORDS, VERDICTS
from respai.render.report.verification import NOSCRIPT, SCRIPT_OWNED

__all__ = ["script_tables"]

_SLOT = "@@"


@cache
def script_tables() -> str:
    """The ``var RespaiTables = {...};`` line that starts the page's script."""
    caption = FORMATS["auc_caption"](_SLOT, None)
    before, _, after = caption.partition(_SLOT)
    tables = {
        "testNames": test_names(),
        "testIds": {
            "groupRule": TestId.GROUP_RULE.value,
            "impactRatio": TestId.IMPACT_RATIO.value,
        },
        "verdictWords": VERDICT_WORDS,
        "verdicts": list(VERDICTS),
        "legendIcons": {
            **LEGEND_ICONS,
            **{k: icon_marks(v) for k, v in MONITOR_ICONS.items()},
        },
        **{k: v for kind in record_kinds() for k, v in kind.script_values().items()},
        "seriesColours": COLOURS,
        "verdictSentences": VERDICT_SENTENCES,
        "frameworkNames": FRAMEWORK_NAMES,
        "labels": sorted(LABELS),
        "ticks": sorted(TICK_LABELS),
        "tags": sorted(TAGS),
        "attributes": sorted(ATTRIBUTES),
        "scriptOwned": {k: list(v) for k, v in SCRIPT_OWNED.items()},
        "noscript": NOSCRIPT,
        "shell": shell_tables(),
        "aucCaption": [before, after],
        "groupTable": group_rate_table(),
        "derived": derived_table(),
    }
    return f"var RespaiTables = {embed_json(tables)};"
