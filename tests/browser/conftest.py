"""Browser fixtures: Playwright driving Debian's Chromium, pages loaded from file://.

Without /usr/bin/chromium or the playwright package these tests skip locally, but in CI
(the CI variable set) a missing browser is a failure, never a silent skip.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
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
SAMPLE_SPEC = (
    Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"
)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield b
        finally:
            b.close()


@dataclass
class Opened:
    """A page opened from a file, with every request it made and every script error."""

    page: Any
    url: str
    requests: list[str]
    errors: list[str]

    def state(self) -> tuple[str | None, str | None]:
        """``(data-verified, data-failed)`` of the page's ``<html>``."""
        return tuple(  # type: ignore[return-value]
            self.page.evaluate(
                "[document.documentElement.dataset.verified,"
                " document.documentElement.dataset.failed]"
            )
        )

    def settled(self, timeout: float = 10_000) -> tuple[str | None, str | None]:
        """Wait until verification finished and return :meth:`state`."""
        self.page.wait_for_function(
            "document.documentElement.dataset.verified !== 'pending'", timeout=timeout
        )
        return self.state()


@pytest.fixture
def open_html(browser: Any, tmp_path: Path) -> Iterator[Any]:
    """``open_html(text, name)`` writes the page into tmp_path and opens it from file://."""
    contexts: list[Any] = []

    def opener(text: str, name: str = "page.html") -> Opened:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        contexts.append(context)
        page = context.new_page()
        opened = Opened(page, path.as_uri(), [], [])
        page.on("request", lambda r: opened.requests.append(r.url))
        page.on("pageerror", lambda e: opened.errors.append(str(e)))
        page.goto(opened.url)
        return opened

    yield opener
    for c in contexts:
        c.close()


@dataclass(frozen=True)
class MadeRecord:
    """A record made by ``respai evaluate`` on the bundled sample."""

    envelope: dict[str, Any]
    public_key_raw: bytes
    folder: Path

    def statement(self) -> dict[str, Any]:
        return json.loads(base64.b64decode(self.envelope["payload"]))


def make_record(spec: Path, folder: Path) -> MadeRecord:
    """Run ``respai evaluate SPEC --out folder/out --no-ledger`` with keys in folder/keys."""
    from respai.cli import main
    from respai.record import load_public_key
    from respai.record.keys import public_key_raw

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        mp.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
        code = main(["evaluate", str(spec), "--out", str(folder / "out"), "--no-ledger"])
    assert code in (0, 1, 3, 4), code
    out = folder / "out"
    envelope = json.loads((out / "record.json").read_text(encoding="utf-8"))
    raw = public_key_raw(load_public_key(out / "public_key.pem"))
    return MadeRecord(envelope, raw, out)


@pytest.fixture(scope="session")
def record_maker() -> Any:
    """:func:`make_record`, for test modules (importlib mode cannot import conftest)."""
    return make_record


@pytest.fixture(scope="session")
def loan_record(tmp_path_factory: pytest.TempPathFactory) -> MadeRecord:
    """The record of the bundled loan-screen sample (made once per session)."""
    return make_record(SAMPLE_SPEC, tmp_path_factory.mktemp("loan"))
