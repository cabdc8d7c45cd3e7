"""The evidence report's former module: its names, from where they live now.

``from respai.render.html import render_report, render_report_file, embed_json,
csp_hash, asset_text`` keeps working. New code imports the report from
:mod:`respai.render.report` and the inlining helpers from :mod:`respai.render.inline`.
"""

from __future__ import annotations

from respai.render.inline import asset_text, csp_hash, embed_json
from respai.render.report import render_report, render_report_file

__all__ = [
    "asset_text",
    "csp_hash",
    "embed_json",
    "render_report",
    "render_report_file",
]
