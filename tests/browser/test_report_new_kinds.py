"""The HTML report of records holding the new kinds verifies in Chromium.

A record with paired_difference tests (``evaluate`` with a ``paired:`` block) and a
monitoring run's record (``monitor_rule`` tests) must render with every visible text bound
to the signature, so the page's own check reads Verified.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main

SPEC = """\
system: {name: screener}
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  attributes:
    sex: [f, m]
  min_cell: 10
  rules:
    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.3}
paired:
  cases: pairs.csv
  pair: pair_id
  variant: variant
  variants: [control, other_name]
  outcome: advanced
  max_difference: 0.05
"""


def _files(folder: Path) -> None:
    rng = random.Random(5)
    rows = ["label,prediction,sex"]
    rows += [f"{rng.randint(0, 1)},{rng.randint(0, 1)},{rng.choice('fm')}" for _ in range(300)]
    (folder / "cases.csv").write_text("\n".join(rows) + "\n")
    later = ["label,prediction,sex"]  # a second batch: a stream counts each batch once
    later += [f"{rng.randint(0, 1)},{rng.randint(0, 1)},{rng.choice('fm')}" for _ in range(300)]
    (folder / "later.csv").write_text("\n".join(later) + "\n")
    pairs = ["pair_id,variant,advanced"]
    for i in range(200):
        ref = int(rng.random() < 0.4)
        pairs += [f"{i},control,{ref}", f"{i},other_name,{ref if rng.random() < 0.9 else 1 - ref}"]
    (folder / "pairs.csv").write_text("\n".join(pairs) + "\n")
    (folder / "spec.yaml").write_text(SPEC)


@pytest.mark.parametrize("kind", ["paired", "monitor"])
def test_report_of_a_new_kind_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_html: Any, kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    if kind == "paired":
        assert main(["evaluate", "spec.yaml", "--out", "out", "--quiet"]) in (0, 1, 3)
    else:
        args = ["monitor", "spec.yaml", "cases.csv", "later.csv", "--no-ledger", "--out", "mon"]
        assert main(args) in (0, 1, 3)
    record = tmp_path / ("out/record.json" if kind == "paired" else "mon/record.json")
    if kind == "monitor":
        from respai.record.keys import public_key_raw
        from respai.render.report import render_report
        from respai.sealing import find_signing_key

        sk = find_signing_key(None)
        assert sk is not None
        html = render_report(json.loads(record.read_text()), public_key_raw(sk.key.public_key()))
    else:
        html = (tmp_path / "out" / "report.html").read_text()
    opened = open_html(html)
    verified, failed = opened.settled()
    assert (verified, failed) == ("true", ""), opened.page.inner_text("#verify-title")
    assert opened.errors == []
