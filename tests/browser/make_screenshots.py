"""Write the documentation screenshots of the report and the sample page into docs/img/.

Run from the repository root, with Debian's Chromium installed:

    .venv/bin/python tests/browser/make_screenshots.py

It evaluates the bundled loan-screen sample into a temporary folder (with a throwaway
key), renders the report and the sample page, and screenshots them from file://.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
IMG = ROOT / "docs" / "img"
SPEC = ROOT / "src" / "respai" / "samples" / "loan_screen.yaml"
LAUNCH_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _settle(page: Any) -> None:
    page.wait_for_function("document.documentElement.dataset.verified !== 'pending'")


def _record(folder: Path) -> tuple[dict[str, Any], bytes]:
    from respai.cli import main
    from respai.record import load_public_key
    from respai.record.keys import public_key_raw

    os.environ["RESPAI_HOME"] = str(folder / "keys")
    main(["evaluate", str(SPEC), "--out", str(folder / "out"), "--no-ledger"])
    envelope = json.loads((folder / "out" / "record.json").read_text(encoding="utf-8"))
    return envelope, public_key_raw(load_public_key(folder / "out" / "public_key.pem"))


def _clip(page: Any, first: str, last: str, path: Path) -> None:
    """Screenshot the page from the top of ``first`` to the bottom of ``last``."""
    box = page.evaluate(
        """([a, b]) => {
          const top = document.querySelector(a).getBoundingClientRect().top + scrollY;
          const end = document.querySelector(b).getBoundingClientRect().bottom + scrollY;
          return [top, end];
        }""",
        [first, last],
    )
    top, end = box[0] - 12, box[1] + 12
    width = page.viewport_size["width"]
    page.screenshot(
        path=str(path),
        full_page=True,
        clip={"x": 0, "y": top, "width": width, "height": end - top},
    )


def main() -> None:
    """Write report-top.png, report-chart.png, report-tampered.png, report-text-edited.png
    and sample-page.png."""
    from playwright.sync_api import sync_playwright

    from respai.render.report import render_report
    from respai.render.sample_page import sample_page_html

    IMG.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp)
        envelope, raw = _record(folder)
        report = folder / "report.html"
        report.write_text(render_report(envelope, raw), encoding="utf-8")
        sample = folder / "sample.html"
        sample.write_text(sample_page_html(), encoding="utf-8")
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 860})
        page.goto(report.as_uri())
        _settle(page)
        page.screenshot(path=str(IMG / "report-top.png"))

        section = page.locator("section.test-section", has_text="impact_ratio:sex×age_band").first
        section.locator("figure.chart").first.screenshot(path=str(IMG / "report-chart.png"))

        page.click("#tamper")
        _settle(page)
        _clip(page, "#verification", "table.tests tbody tr", IMG / "report-tampered.png")

        # a verdict cell edited from FAIL to PASS in the file: the page names the difference
        html = report.read_text(encoding="utf-8")
        badge = 'data-fmt="verdict">FAIL</span>'
        at = html.index(badge, html.index('<table class="tests">'))
        edited = folder / "edited.html"
        edited.write_text(
            html[:at] + badge.replace("FAIL", "PASS") + html[at + len(badge) :], encoding="utf-8"
        )
        page.goto(edited.as_uri())
        _settle(page)
        _clip(page, "#verification", "#verification", IMG / "report-text-edited.png")

        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.goto(sample.as_uri())
        page.click("#example")
        _settle(page)
        _clip(page, "#output", "#verification", IMG / "sample-page.png")
        browser.close()
    for name in (
        "report-top",
        "report-chart",
        "report-tampered",
        "report-text-edited",
        "sample-page",
    ):
        size = (IMG / f"{name}.png").stat().st_size
        print(f"docs/img/{name}.png: {size // 1024} KB")


if __name__ == "__main__":
    main()
