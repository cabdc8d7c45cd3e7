"""``respai site`` in Chromium: every page of the site reads Verified; an edited one does not.

The ledger holds an evaluate, a plan, an LL144 and a monitoring run and a second
evaluate run; every page is opened from its place in the site folder over file://.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tests.site_ledger import make_site_ledger

from respai.cli import main


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    book = make_site_ledger(folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        args = ["site", str(book), "-o", str(folder / "site"), "--posted", "2026-11-30"]
        assert main([*args, "--last-use", "2027-03-31"]) == 0
    return folder / "site"


def _open(browser: Any, path: Path) -> tuple[tuple[str, str], str, list[str], list[str]]:
    context = browser.new_context()
    try:
        page = context.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_function(
            "document.documentElement.dataset.verified !== 'pending'", timeout=20_000
        )
        state = page.evaluate(
            "[document.documentElement.dataset.verified, document.documentElement.dataset.failed]"
        )
        title = page.inner_text("#verify-title")
        return (state[0], state[1]), title, requests, errors
    finally:
        context.close()


def test_every_page_of_the_site_reads_verified(browser: Any, site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    names = {p.relative_to(site).as_posix() for p in pages}
    assert {"index.html", "streams.html", "compare.html"} <= names
    assert sum(n.startswith("ll144-") for n in names) == 1
    assert sum(n.startswith("runs/") for n in names) == 5
    for path in pages:
        state, title, requests, errors = _open(browser, path)
        assert state == ("true", ""), (path.name, title)
        assert title == "Verified"
        assert requests == [path.as_uri()]  # nothing else is loaded
        assert errors == []
        for href in re.findall(r' href="([^"#]+)"', path.read_text(encoding="utf-8")):
            assert (path.parent / href).is_file(), (path.name, href)  # links between pages


@pytest.mark.parametrize(
    ("page", "before", "after"),
    [
        ("index.html", 'data-fmt="count">5<', 'data-fmt="count">6<'),
        ("ll144-*.html", ">2026-11-30</strong>", ">2026-11-29</strong>"),
        ("ll144-*.html", ">2027-09-30</strong>", ">2028-09-30</strong>"),
        ("index.html", ">MANUAL_REVIEW<", ">PASS<"),
        ("compare.html", "<h3>", "<p>All clear.</p><h3>"),
        ("runs/*.html", ">0.8200<", ">0.9200<"),
    ],
)
def test_an_edited_page_does_not_read_verified(
    browser: Any, site: Path, tmp_path: Path, page: str, before: str, after: str
) -> None:
    path = sorted(site.glob(page))[0]
    if page == "runs/*.html":
        path = next(p for p in sorted(site.glob(page)) if before in p.read_text("utf-8"))
    text = path.read_text(encoding="utf-8")
    assert before in text
    edited = path.parent / f"edited-{path.name}"
    edited.write_text(text.replace(before, after, 1), encoding="utf-8")
    try:
        state, title, _, _ = _open(browser, edited)
    finally:
        edited.unlink()
    assert state[0] == "false", title
    assert title.startswith("Not verified")


def test_a_page_with_another_signed_manifest_does_not_read_verified(
    browser: Any, site: Path
) -> None:
    # the embedded manifest itself changed: the signature no longer holds
    path = site / "index.html"
    text = path.read_text(encoding="utf-8")
    start = text.index('"payload": "') + len('"payload": "')
    flipped = "A" if text[start + 40] != "A" else "B"
    edited = site / "edited-index.html"
    edited.write_text(text[: start + 40] + flipped + text[start + 41 :], encoding="utf-8")
    try:
        state, _, _, _ = _open(browser, edited)
    finally:
        edited.unlink()
    assert state[0] == "false"


def test_a_hostile_system_name_is_shown_escaped_and_the_pages_still_verify(
    browser: Any, tmp_path: Path
) -> None:
    # markup, a right-to-left override and a bell in the name: shown as text, escaped
    book = make_site_ledger(tmp_path, system='"<b>x</b> & \\u202eevil\\a"')
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(tmp_path / "keys"))
        assert main(["site", str(book), "-o", str(tmp_path / "site")]) == 0
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;x&lt;/b&gt; &amp; \\u202eevil\\x07 1" in index
    for path in sorted((tmp_path / "site").rglob("*.html")):
        state, title, _, errors = _open(browser, path)
        assert state == ("true", ""), (path.name, title)
        assert errors == []
