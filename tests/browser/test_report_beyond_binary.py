"""The report of a weighted run with regression and ranking rules verifies in Chromium.

Every visible text of the page, the weighted rates of the group rule and the sections of
the ``regression:`` and ``ranking:`` blocks included, must be bound to the signature, so
the page's own check reads Verified.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.run.test_beyond_binary import _cases, _write

from respai.cli import main


def test_report_of_a_weighted_run_with_the_new_blocks_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_html: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, _cases(43))
    assert main(["evaluate", "spec.yaml", "--out", "out", "--quiet", "--no-ledger"]) in (0, 1, 3)
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Weighted rates" in html and "Effective size" in html
    opened = open_html(html)
    verified, failed = opened.settled()
    assert (verified, failed) == ("true", ""), opened.page.inner_text("#verify-title")
    text = opened.page.inner_text("body")
    assert "Weighted rates" in text and "regression" in text.lower() and "ranking" in text.lower()
