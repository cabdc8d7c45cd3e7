"""The report's ranking section: every text bound to the record or a fixed label."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tests.ranking.test_ranking_evaluate import _frame, _write

from respai.cli import main
from respai.render.report import render_report
from respai.render.report.formats import FORMATS
from respai.render.report.labels import LABELS, TICK_LABELS
from respai.render.report.walk import page_text


def _resolve(root: object, ptr: str) -> object:
    node = root
    for token in ptr[1:].split("/"):
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(key)] if int(key) < len(node) else None
        else:
            node = node.get(key) if isinstance(node, dict) else None
    return node


def test_the_section_shows_each_rule_bound_to_the_record(tmp_path: Path, capsys) -> None:
    """Each rule's groups appear; no loose text; every bound text is its value formatted."""
    spec = _write(tmp_path, _frame())
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    capsys.readouterr()
    envelope = json.loads((out / "record.json").read_text())
    statement = json.loads(base64.b64decode(envelope["payload"]))
    html = render_report(envelope, None)
    assert 'class="ranking"' in html and html.count('class="ranking-rule"') == 2
    text = page_text(html)
    assert not set(text.loose) - LABELS - TICK_LABELS
    rules = {
        f"/predicate/records/{i}"
        for i, r in enumerate(statement["predicate"]["records"])
        if r.get("test_id") == "ranking_rule"
    }
    assert {b.record for b in text.bound if b.record in rules} == rules
    for b in text.bound:
        if b.of_key:
            continue
        assert b.text == FORMATS[b.fmt](_resolve(statement, b.pointer), b.arg), b.pointer
