"""The report of a run without a ``fairness:`` block verifies in Chromium.

A regression-only and a ranking-only spec each seal a record with no group counts; every
visible text of its page must still be bound to the signature, so the page's own check
reads Verified, and the block's section is shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.run.test_without_fairness import _write

from respai.cli import main


@pytest.mark.parametrize("kind", ["regression", "ranking"])
def test_report_of_a_run_without_fairness_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_html: Any, kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    spec = _write(tmp_path, kind)
    assert main(["evaluate", spec.name, "--out", "out", "--quiet", "--no-ledger"]) in (0, 1, 3)
    html = (tmp_path / "out" / "report.html").read_text()
    opened = open_html(html)
    verified, failed = opened.settled()
    assert (verified, failed) == ("true", ""), opened.page.inner_text("#verify-title")
    assert kind in opened.page.inner_text("body").lower()
