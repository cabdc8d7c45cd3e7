"""The HTML evidence report: it verifies itself in Chromium, fails when tampered with,
escapes every string from the record, and requests nothing but its own file."""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record import canonical_bytes, key_id, sign_envelope
from respai.record.keys import public_key_raw
from respai.render.inline import embed_json
from respai.render.report import render_report, render_report_file

MadeRecord = Any  # conftest.MadeRecord: envelope, public_key_raw, folder, statement()

PAYLOADS = [
    "<script>window.__pwned=1</script>",
    '<img src=x onerror="window.__pwned=1">',
    '"><svg onload=window.__pwned=1>',
]
HOSTILE_COLUMN = 'g<img src=x onerror="window.__pwned=1">'


def _with_payload(envelope: dict[str, Any], payload: bytes) -> dict[str, Any]:
    return {**envelope, "payload": base64.b64encode(payload).decode("ascii")}


def _settle_after_click(opened: Any, selector: str) -> tuple[str | None, str | None]:
    opened.page.click(selector)
    return opened.settled()


# -- in the browser ---------------------------------------------------------------------


def test_real_record_verifies_then_tamper_fails_and_reset_passes(
    loan_record: MadeRecord, open_html: Any
) -> None:
    opened = open_html(render_report(loan_record.envelope, loan_record.public_key_raw))
    assert opened.settled() == ("true", "")
    page = opened.page
    assert page.inner_text("#verify-title") == "Verified"
    first = page.locator("[data-tamper-target]").first
    shown = first.inner_text()

    verified, failed = _settle_after_click(opened, "#tamper")
    assert verified == "false"
    assert failed is not None
    assert set(failed.split(",")) == {"signature", "record_id"}
    title = page.inner_text("#verify-title")
    assert title.startswith("Not verified:")
    assert "signature" in title and "record_id" in title
    assert page.locator("#verify-chips li.bad").count() == 2
    assert first.inner_text() != shown  # the displayed value changed with the record

    assert _settle_after_click(opened, "#reset") == ("true", "")
    assert first.inner_text() == shown
    assert page.inner_text("#verify-title") == "Verified"
    # nothing but the page itself was ever requested
    assert opened.requests == [opened.url]
    assert opened.errors == []


def test_record_resigned_with_another_key_is_not_verified(
    loan_record: MadeRecord, open_html: Any
) -> None:
    other = Ed25519PrivateKey.generate()
    payload = base64.b64decode(loan_record.envelope["payload"])
    resigned = sign_envelope(payload, other, key_id(other.public_key()))
    # checked with the signer's published key: the signature does not verify
    opened = open_html(render_report(resigned, loan_record.public_key_raw), "a.html")
    verified, failed = opened.settled()
    assert (verified, failed) == ("false", "signature")
    # checked with the forger's own key: it verifies, but the record names another key
    opened = open_html(render_report(resigned, public_key_raw(other.public_key())), "b.html")
    assert opened.settled() == ("false", "signature")
    assert "record names key" in opened.page.inner_text("#verify-checks")


def test_payload_edited_after_signing_is_not_verified(
    loan_record: MadeRecord, open_html: Any
) -> None:
    statement = loan_record.statement()
    test = next(r for r in statement["predicate"]["records"] if r["record_type"] == "test")
    test["value"] = 0.99
    edited = _with_payload(loan_record.envelope, canonical_bytes(statement))
    opened = open_html(render_report(edited, loan_record.public_key_raw))
    verified, failed = opened.settled()
    assert verified == "false"
    assert set((failed or "").split(",")) == {"signature", "record_id"}
    # the page shows the edited number, and says it cannot be relied on
    assert "0.9900" in opened.page.inner_text("table.tests")
    assert "Do not rely" in opened.page.inner_text("#verify-summary")


def test_non_canonical_payload_fails_the_canonical_check(
    loan_record: MadeRecord, open_html: Any
) -> None:
    pretty = json.dumps(loan_record.statement(), indent=1).encode()
    opened = open_html(render_report(_with_payload(loan_record.envelope, pretty), None))
    verified, failed = opened.settled()
    assert verified == "false"
    assert set((failed or "").split(",")) == {"signature", "canonical_payload"}


def test_without_a_public_key_the_signature_is_not_checked(
    loan_record: MadeRecord, open_html: Any
) -> None:
    opened = open_html(render_report(loan_record.envelope, None))
    assert opened.settled() == ("false", "signature")
    assert "no public key" in opened.page.inner_text("#verify-checks")


def test_browser_without_ed25519_is_reported_as_unsupported(
    loan_record: MadeRecord, browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "r.html"
    path.write_text(render_report(loan_record.envelope, loan_record.public_key_raw))
    context = browser.new_context()
    try:
        context.add_init_script(
            """(() => {
              const real = crypto.subtle.importKey.bind(crypto.subtle);
              crypto.subtle.importKey = (fmt, data, alg, ...rest) =>
                (alg && (alg === "Ed25519" || alg.name === "Ed25519"))
                  ? Promise.reject(new DOMException("no Ed25519", "NotSupportedError"))
                  : real(fmt, data, alg, ...rest);
            })();"""
        )
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_function("document.documentElement.dataset.verified !== 'pending'")
        assert page.evaluate("document.documentElement.dataset.verified") == "unsupported"
        assert "Ed25519" in page.inner_text("#verify-title")
    finally:
        context.close()


def _hostile_record(folder: Path, make_record: Any) -> MadeRecord:
    rng = random.Random(3)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["label", "prediction", HOSTILE_COLUMN])
        for i in range(180):
            y = rng.random() < 0.5
            writer.writerow([int(y), int(rng.random() < (0.6 if y else 0.3)), PAYLOADS[i % 3]])
    spec = {
        "system": {"name": PAYLOADS[0], "version": PAYLOADS[2], "use_case": PAYLOADS[1]},
        "fairness": {
            "cases": "cases.csv",
            "label": "label",
            "prediction": "prediction",
            "attributes": {HOSTILE_COLUMN: PAYLOADS},
            "rules": [
                {
                    "id": "sel",
                    "rate": "selection",
                    "attribute": HOSTILE_COLUMN,
                    "max_group_gap": 0.5,
                }
            ],
        },
    }
    # JSON is YAML: every hostile string is quoted
    (folder / "spec.yaml").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    return make_record(folder / "spec.yaml", folder)


@pytest.fixture(scope="module")
def hostile_record(tmp_path_factory: pytest.TempPathFactory, record_maker: Any) -> MadeRecord:
    return _hostile_record(tmp_path_factory.mktemp("xss"), record_maker)


def test_hostile_strings_are_shown_as_text_and_never_run(
    hostile_record: MadeRecord, open_html: Any
) -> None:
    text = render_report(hostile_record.envelope, hostile_record.public_key_raw)
    for payload in [*PAYLOADS, HOSTILE_COLUMN]:
        assert payload not in text
    opened = open_html(text)
    assert opened.settled() == ("true", "")
    page = opened.page
    assert page.evaluate("typeof window.__pwned") == "undefined"
    body = page.inner_text("body")
    for payload in PAYLOADS:
        assert payload in body
    assert HOSTILE_COLUMN in body
    assert page.title().startswith(PAYLOADS[0])
    # the group names also reach the SVG charts as text, not as elements
    chart_text = page.locator("figure.chart svg").first.text_content() or ""
    assert PAYLOADS[1] in chart_text
    assert page.locator("main script, main img, main svg svg").count() == 0
    assert opened.requests == [opened.url]
    # tampering still works on a hostile record
    assert _settle_after_click(opened, "#tamper")[0] == "false"
    assert page.evaluate("typeof window.__pwned") == "undefined"


def test_browser_jcs_matches_rfc8785(loan_record: MadeRecord, open_html: Any) -> None:
    values: list[Any] = [
        {"b": 1, "a": [True, False, None], "\u20ac": "x", "\U0001f600": 1, "\ufb33": 2},
        [1.0, -0.0, 1e21, 1e-7, 2.7890840981819507e20, 0.1 + 0.2, 5e-324, 9007199254740991],
        'quote" backslash\\ controls \b\f\n\r\t\u0001\u001f and \u2028 \u00e9',
        {"10": 1, "9": 2, "": 0, "a\u0000b": 3},
    ]
    opened = open_html(render_report(loan_record.envelope, loan_record.public_key_raw))
    opened.settled()
    got = opened.page.evaluate("values => values.map(v => RespaiCore.jcs(v))", values)
    assert got == [canonical_bytes(v).decode("utf-8") for v in values]
    assert (
        opened.page.evaluate(
            "() => { try { RespaiCore.jcs([NaN]); return 'no'; } catch (e) { return 'refused'; } }"
        )
        == "refused"
    )


# -- the HTML itself --------------------------------------------------------------------


def test_embed_json_cannot_close_its_script() -> None:
    hostile = {"s": "</script><!-- & \u2028\u2029 >"}
    text = embed_json(hostile)
    assert not re.search(r"[<>&\u2028\u2029]", text)
    assert json.loads(text) == hostile


def test_page_is_self_contained_and_its_csp_names_its_own_code(
    loan_record: MadeRecord,
) -> None:
    text = render_report(loan_record.envelope, loan_record.public_key_raw)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
    assert csp is not None
    policy = csp.group(1).replace("&#x27;", "'")
    assert "default-src 'none'" in policy
    scripts = re.findall(r"<script>(.*?)</script>", text, flags=re.S)
    styles = re.findall(r"<style>(.*?)</style>", text, flags=re.S)
    assert len(scripts) == 1 and len(styles) == 1
    for code in (scripts[0], styles[0]):
        digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    embedded = re.search(
        r'<script type="application/json" id="respai-envelope">(.*?)</script>', text, re.S
    )
    assert embedded is not None and json.loads(embedded.group(1)) == loan_record.envelope
    assert text.count('data-tamper-target=""') == 2  # the tests table and the test's section
    assert 'data-verified="pending"' in text


def test_report_shows_the_record(loan_record: MadeRecord) -> None:
    text = render_report(loan_record.envelope, loan_record.public_key_raw)
    predicate = loan_record.statement()["predicate"]
    for needle in (
        predicate["run_id"],
        predicate["key_id"],
        predicate["fingerprints"]["dataset"]["sha256"],
        predicate["fingerprints"]["engine_code"]["sha256"],
        predicate["control_mapping"]["version"],
        predicate["control_mapping"]["review_status"],
        "supports",
        "This record does not state",
        "four-fifths rule, 29 CFR 1607.4(D)",
    ):
        assert needle in text, needle
    assert text.count('<figure class="chart">') >= 10
    assert "@media print" in text


def test_render_report_file_finds_the_public_key_beside_the_record(
    loan_record: MadeRecord,
) -> None:
    text = render_report_file(loan_record.folder / "record.json")
    key = base64.b64encode(loan_record.public_key_raw).decode()
    assert key in text
    assert render_report_file(loan_record.folder / "record.json").count("<title>") == 1


# -- the page's text bound to the signed record -----------------------------------------

_VARIANTS_PATH = Path(__file__).resolve().parents[1] / "render" / "report_variants.py"


def _variants_module() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("report_variants", _VARIANTS_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report_variants = _variants_module()


def _first_fail(statement: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return next(
        (i, r)
        for i, r in enumerate(statement["predicate"]["records"])
        if r.get("verdict") == "FAIL"
    )


def _edit_once(html: str, old: str, new: str) -> str:
    assert old in html, old
    return html.replace(old, new, 1)


def _page_text_detail(opened: Any) -> str:
    return str(
        opened.page.evaluate(
            "Array.from(document.querySelectorAll('#verify-checks li'))"
            ".filter(li => li.textContent.includes('page_text'))"
            ".map(li => li.querySelector('.detail').textContent)[0]"
        )
    )


def test_untouched_report_verifies_and_shows_the_full_key_id(
    loan_record: MadeRecord, open_html: Any
) -> None:
    opened = open_html(render_report(loan_record.envelope, loan_record.public_key_raw))
    assert opened.settled() == ("true", "")
    page = opened.page
    key = loan_record.statement()["predicate"]["key_id"]
    assert len(key) == len("sha256:") + 64
    assert page.text_content("#verify-key") == key
    assert page.locator("#verify-chips li.ok", has_text="page_text").count() == 1
    assert "compare" in (page.text_content("#verification") or "").lower()
    assert "keys.json" in (page.text_content("#verification") or "")
    assert key in page.inner_text("dl.facts")  # the facts give the full id too
    assert opened.errors == []


def _visible_edits(made: MadeRecord, html: str) -> list[tuple[str, str, list[str]]]:
    """(what, edited page, words the page_text detail must contain)."""
    statement = made.statement()
    i, rec = _first_fail(statement)
    fails = sum(
        1
        for r in statement["predicate"]["records"]
        if r["record_type"] == "test" and r.get("verdict") == "FAIL"
    )
    badge = f'data-bind="/predicate/records/{i}/verdict" data-fmt="verdict">FAIL</span>'
    value = f'data-bind="/predicate/records/{i}/value" data-fmt="number">'
    shown_value = f"{rec['value']:.4f}"
    count = f'data-arg="FAIL"><b>{fails}</b> FAIL</span>'
    group = '" data-fmt="short" x="200"'
    first_group = html.index(group)
    group_start = html.index(">", first_group) + 1
    group_name = html[group_start : html.index("<", group_start)]
    return [
        (
            "a verdict cell FAIL to PASS",
            _edit_once(html, badge, badge.replace(">FAIL<", ">PASS<")),
            [
                "\u201cPASS\u201d",
                f"seq {rec['seq']}",
                "verdict",
                "signed record says \u201cFAIL\u201d",
            ],
        ),
        (
            "a verdict cell and its colour",
            _edit_once(
                html,
                f'class="badge v-FAIL" {badge}',
                f'class="badge v-PASS" {badge.replace(">FAIL<", ">PASS<")}',
            ),
            ["\u201cPASS\u201d", "signed record says \u201cFAIL\u201d"],
        ),
        (
            "a count",
            _edit_once(html, count, count.replace(f"<b>{fails}</b>", "<b>0</b>")),
            ["\u201c0 FAIL\u201d", f"signed record says \u201c{fails} FAIL\u201d"],
        ),
        (
            "a group name",
            html[:group_start] + "nobody" + html[group_start + len(group_name) :],
            ["\u201cnobody\u201d", f"says \u201c{group_name}\u201d"],
        ),
        (
            "a number",
            _edit_once(html, value + shown_value, value + "0.9999"),
            ["\u201c0.9999\u201d", f"says \u201c{shown_value}\u201d", "value"],
        ),
        (
            "a sentence added",
            _edit_once(
                html,
                '<h2 class="first" id="tests">Tests</h2>',
                '<h2 class="first" id="tests">Tests</h2><p>Every test passed.</p>',
            ),
            ["\u201cEvery test passed.\u201d", "neither from the signed record"],
        ),
        (
            "a binding removed and its text changed",
            _edit_once(html, f'class="badge v-FAIL" {badge}', 'class="badge v-PASS">PASS</span>'),
            ["\u201cPASS\u201d", "neither from the signed record"],
        ),
        (
            "a verdict hidden by a class",
            _edit_once(
                html,
                f'<td><span class="badge v-FAIL" {badge}',
                f'<td class="print-only"><span class="badge v-FAIL" {badge}',
            ),
            ["hides \u201cFAIL\u201d"],
        ),
        (
            "the scope sentence under the verdict hidden",
            _edit_once(html, '<p class="scope">', '<p class="scope" hidden>'),
            ["attribute hidden"],
        ),
        (
            "an input field showing a verdict",
            _edit_once(
                html,
                '<h2 class="first" id="tests">Tests</h2>',
                '<h2 class="first" id="tests">Tests</h2><input value="all PASS">',
            ),
            ["<input> element"],
        ),
        (
            "a dot of a chart moved",
            re.sub(
                r'(<circle class="dot" cx=")([0-9.]+)"',
                lambda m: f'{m.group(1)}{float(m.group(2)) + 40:.1f}"',
                html,
                count=1,
            ),
            ["the dot of", "away from its value"],
        ),
        (
            "a chart's limit line moved",
            re.sub(
                r'<line class="limit" x1="([0-9.]+)" (y1="[0-9.]+") x2="([0-9.]+)"',
                lambda m: (
                    f'<line class="limit" x1="{float(m.group(1)) + 30:.1f}" {m.group(2)} '
                    f'x2="{float(m.group(3)) + 30:.1f}"'
                ),
                html,
                count=1,
            ),
            ["limit line away from the limit the signed record gives"],
        ),
        (
            "a chart's limit line removed",
            re.sub(r'<line class="limit" [^>]*/>', "", html, count=1),
            ["leaves out its limit line"],
        ),
        (
            "an axis label changed",
            re.sub(
                r'(<text class="tick" [^>]*>)([0-9.]+)</text>',
                lambda m: m.group(1) + ("0.90" if m.group(2) != "0.90" else "0.10") + "</text>",
                html,
                count=1,
            ),
            ["axis reads"],
        ),
        (
            "a group left out of a chart",
            _without_row(html, re.search(r'data-row="([^"]*/groups/0)"', html)),
            ["a chart leaves out"],
        ),
        (
            "a row of the tests table removed",
            re.sub(rf'<tr data-record="/predicate/records/{i}">.*?</tr>', "", html, count=1),
            ["row(s) in the tests table but the signed record has"],
        ),
    ]


def _without_row(html: str, found: re.Match[str] | None) -> str:
    """``html`` without the marks and texts of one chart row (its ``data-row``)."""
    assert found is not None
    row = re.escape(f'data-row="{found.group(1)}"')
    html = re.sub(rf"<(?:line|circle)[^>]*{row}[^>]*/>", "", html)
    return re.sub(rf"<text[^>]*{row}[^>]*>[^<]*</text>", "", html)


def test_visible_text_edited_in_the_file_is_not_verified(
    loan_record: MadeRecord, open_html: Any
) -> None:
    html = render_report(loan_record.envelope, loan_record.public_key_raw)
    for k, (what, edited, words) in enumerate(_visible_edits(loan_record, html)):
        assert edited != html, what
        opened = open_html(edited, f"edit{k}.html")
        assert opened.settled() == ("false", "page_text"), what
        assert opened.page.inner_text("#verify-title") == "Not verified: page_text", what
        detail = _page_text_detail(opened)
        for word in words:
            assert word in detail, (what, word, detail)
        assert "differs from the signed record" in opened.page.inner_text("#verify-summary")
        assert opened.errors == [], what


def test_payload_edited_inside_the_page_is_not_verified(
    loan_record: MadeRecord, open_html: Any
) -> None:
    html = render_report(loan_record.envelope, loan_record.public_key_raw)
    statement = loan_record.statement()
    _, rec = _first_fail(statement)
    rec["verdict"] = "PASS"
    edited = _with_payload(loan_record.envelope, canonical_bytes(statement))
    page = _edit_once(html, embed_json(loan_record.envelope), embed_json(edited))
    opened = open_html(page)
    verified, failed = opened.settled()
    assert verified == "false"
    assert {"signature", "record_id", "page_text"} <= set((failed or "").split(","))
    assert "the signed record says" in _page_text_detail(opened)


def test_resigned_with_another_key_shows_that_keys_full_id(
    loan_record: MadeRecord, open_html: Any
) -> None:
    genuine = loan_record.statement()["predicate"]["key_id"]
    statement = loan_record.statement()
    for r in statement["predicate"]["records"]:
        if r.get("verdict") == "FAIL":
            r["verdict"] = "PASS"
    statement["predicate"]["verdict"] = "PASS"
    attacker = Ed25519PrivateKey.generate()
    attacker_id = key_id(attacker.public_key())
    forged = report_variants.resign(statement, attacker)
    html = render_report(forged, public_key_raw(attacker.public_key()))
    # a key id pinned beside the embedded key is not trusted: the page computes the id
    pinned = re.sub(
        r'(<script type="application/json" id="respai-public-key">\{)',
        rf'\1"key_id": "{genuine}", ',
        html,
        count=1,
    )
    for k, page_html in enumerate((html, pinned)):
        opened = open_html(page_html, f"forged{k}.html")
        # everything in the page is consistent: only comparing key ids can tell
        assert opened.settled() == ("true", "")
        assert opened.page.text_content("#verify-key") == attacker_id
        assert attacker_id != genuine
        assert genuine not in opened.page.inner_text("body")
        assert attacker_id in opened.page.inner_text("dl.facts")


def test_every_variant_of_a_record_verifies_without_a_false_alarm(
    loan_record: MadeRecord, open_html: Any
) -> None:
    signer = Ed25519PrivateKey.generate()
    raw = public_key_raw(signer.public_key())
    for name, statement in report_variants.variants(loan_record.statement()).items():
        opened = open_html(
            render_report(report_variants.resign(statement, signer), raw), f"{name}.html"
        )
        verified, failed = opened.settled()
        if name == "sparse":  # no fingerprints: the subjects check fails, the text does not
            assert (verified, failed) == ("false", "subjects"), _page_text_detail(opened)
        else:
            assert (verified, failed) == ("true", ""), (name, _page_text_detail(opened))
        assert opened.errors == [], name
    opened = open_html(
        render_report(
            report_variants.resign(
                report_variants.variants(loan_record.statement())["hostile"], signer
            ),
            raw,
        ),
        "hostile-text.html",
    )
    opened.settled()
    assert "x\\u202egnp.exe" in opened.page.inner_text("h1")


def _chart_rows(opened: Any) -> list[list[str]]:
    """The group rows each chart of the page draws (their ``data-row``), chart by chart."""
    return list(
        opened.page.evaluate(
            """Array.from(document.querySelectorAll('main figure.chart > svg')).map(svg =>
                 Array.from(new Set(Array.from(svg.querySelectorAll('circle[data-row]'))
                   .map(c => c.getAttribute('data-row')))))"""
        )
    )


def test_a_chart_of_many_groups_draws_the_extremes_and_says_so(
    loan_record: MadeRecord, open_html: Any
) -> None:
    from respai.render.extremes import EACH as DRAWN_EACH
    from respai.render.extremes import extremes as drawn
    from respai.render.report.formats import FORMATS

    signer = Ed25519PrivateKey.generate()
    raw = public_key_raw(signer.public_key())
    statement = report_variants.resign(
        report_variants.variants(loan_record.statement())["many"], signer
    )
    html = render_report(statement, raw)
    opened = open_html(html, "many.html")
    assert opened.settled() == ("true", ""), _page_text_detail(opened)
    notes = opened.page.locator('figcaption [data-fmt="drawn"]')
    assert notes.count() >= 2
    assert (
        f"With {report_variants.MANY} groups, the chart draws only the {DRAWN_EACH} "
        f"with the lowest and the {DRAWN_EACH} with the highest value"
    ) in notes.first.inner_text()
    predicate = json.loads(base64.b64decode(statement["payload"]))["predicate"]
    wanted = []
    for i, r in enumerate(predicate["records"]):
        details = r.get("details") if r.get("record_type") == "test" else None
        if isinstance(details, dict) and details.get("groups"):
            picked = drawn([g["rate"] for g in details["groups"]], DRAWN_EACH)
            wanted.append([f"/predicate/records/{i}/details/groups/{k}" for k in picked])
    drawn_rows = [rows for rows in _chart_rows(opened) if "/per_group/" not in rows[-1]]
    assert sorted(map(sorted, drawn_rows)) == sorted(map(sorted, wanted))
    assert all(len(rows) == 2 * DRAWN_EACH for rows in wanted)

    fewer = FORMATS["drawn"]([0] * report_variants.MANY, "5")  # the text matches the arg

    for k, (what, edited, words) in enumerate(
        [
            (
                "a drawn group left out",
                _without_row(html, re.search(r'data-row="([^"]*/groups/[0-9]+)"', html)),
                ["one of the groups its note says it draws"],
            ),
            (
                "the note made to name fewer groups",
                re.sub(
                    r'(data-fmt="drawn" data-arg=)"[0-9]+">[^<]*<',
                    lambda m: f'{m.group(1)}"5">{fewer}<',
                    html,
                ),
                ["which its note says it leaves out"],
            ),
            (
                "the note removed",
                re.sub(r' <span data-bind="[^"]*" data-fmt="drawn"[^>]*>[^<]*</span>', "", html),
                ["a chart leaves out"],
            ),
        ]
    ):
        assert edited != html, what
        opened = open_html(edited, f"many-edit{k}.html")
        assert opened.settled() == ("false", "page_text"), what
        detail = _page_text_detail(opened)
        for word in words:
            assert word in detail, (what, word, detail)


def test_python_and_javascript_pick_the_same_groups_to_draw(
    loan_record: MadeRecord, open_html: Any
) -> None:
    from respai.render.extremes import extremes as drawn

    opened = open_html(render_report(loan_record.envelope, loan_record.public_key_raw))
    opened.settled()
    rng = random.Random(16)
    cases: list[tuple[list[Any], int]] = []
    for _ in range(300):
        n = rng.randrange(0, 90)
        pool = [0, 1, 0.5, 0.25, -0.0, None, "0.5", True, 1e-9]
        values = [
            rng.choice(pool) if rng.random() < 0.3 else round(rng.random(), rng.randrange(1, 4))
            for _ in range(n)
        ]
        cases.append((values, rng.choice([0, 1, 2, 5, 20, 100])))
    got = opened.page.evaluate(
        "cases => cases.map(([v, e]) => RespaiBind.drawnIndexes(v, e))", [list(c) for c in cases]
    )
    assert got == [drawn(values, each) for values, each in cases]


def _format_cases(made: MadeRecord) -> list[tuple[str, Any, str | None]]:
    """Every (format, value, argument) the variant pages use, and numbers that are ties."""
    from respai.render.report.walk import page_text

    cases: list[tuple[str, Any, str | None]] = []
    seen: set[str] = set()
    for statement in report_variants.variants(made.statement()).values():
        envelope = _with_payload(made.envelope, canonical_bytes(statement))
        for b in page_text(render_report(envelope, None)).bound:
            node: Any = statement
            for token in b.pointer[1:].split("/") if b.pointer else []:
                key = token.replace("~1", "/").replace("~0", "~")
                if isinstance(node, list):
                    node = node[int(key)] if int(key) < len(node) else None
                else:
                    node = node.get(key) if isinstance(node, dict) else None
            value = b.pointer.rsplit("/", 1)[1] if b.of_key else node
            item = json.dumps([b.fmt, value, b.arg], sort_keys=True)
            if item not in seen:
                seen.add(item)
                cases.append((b.fmt, value, b.arg))
    numbers: list[Any] = [
        0, 1, 0.5, 2.5, 0.125, 0.03125, 0.00005, 0.99995, 1 / 3, 2 / 3, 0.1 + 0.2, 1e-7,
        1.5e-5, 123456.78125, 9.99995, 99999.5, -0.00001, -2.5, 1e16, 5e-324, 2**53 - 1,
        0.9875, 0.95, 0.0125, 1234567, 999999, 1000, 1e21, "0.8", None, True,
    ]  # fmt: skip
    for n in numbers:
        cases.extend(("number", n, digits) for digits in (None, "1", "4", "9"))
        cases.append(("plain", n, None))
        iv = {"lo": n, "hi": n, "confidence": n}
        cases.append(("rate_cell", {"rate": n, "numerator": n, "interval_95": iv}, None))
        cases.append(("rate_cell", {"rate": n, "with_prediction": n, "interval": iv}, None))
        cases.append(("group_column", {"test_id": "auc", "details": {"groups": [{}, iv]}}, None))
        cases.append(("count", n, None))
        cases.append(("error_budget", {"alpha": n, "alpha_per_group": n}, None))
        cases.append(("interval_note", {"interval": {"confidence": n, "method": "m"}}, None))
        cases.append(
            ("left_out", {"total": n, "share": n, "by_reason": {"b": n, "10": 1, "9": 2}}, None)
        )
        cases.append(
            (
                "cases",
                {"counts": {"cases": n}, "fingerprints": {"dataset": {"size_bytes": n}}},
                None,
            )
        )
    texts = [
        "plain", "", "a\u202eb\u2066c\u200f", "tab\there\nnew\r\u0085\u2028\u2029",
        "\u0000\u001f\u007f", "zoë 女性 \U0001f600 e\u0301", "\ufeffbom", "x" * 40,
        "\U0001f600" * 31, "rule:abc", "rule:", "2026-12-01T15:47:33Z", "2024-02-29T00:00:00Z",
        "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-12-01T15:47:60Z",
        "2026-12-01T24:00:00Z", "2026-12-01T15:47:33.123456789Z", "2026-12-01T15:47:33+00:00",
        "0000-01-01T00:00:00Z", "sha256:" + "ab" * 32, "impact_ratio", "group_rule", "PASS",
        "FAIL", "MANUAL_REVIEW", "eu_ai_act", "selection_rate", "élan",
    ]  # fmt: skip
    text_formats = [
        "text", "text0", "short", "when", "short_hash", "verdict", "test_name", "framework",
        "rate_name", "auc_title", "verdict_sentence", "decision",
    ]  # fmt: skip
    for text in texts:
        cases.extend((fmt, text, None) for fmt in text_formats)
        cases.append(("sub", {"test_id": "group_rule", "test_key": text}, None))
        cases.append(("sub", {"test_id": "x", "grouping": [text, 1, None]}, None))
        cases.append(("threshold", {"comparison": text, "value": 0.8}, None))
        cases.append(("spread_caption", {"details": {"rate": text}, "grouping": [text]}, None))
        cases.append(("group_column", {"test_id": "group_rule", "test_key": text}, None))
        cases.append(("group_column", {"test_id": text, "details": {"rate": text}}, None))
        cases.append(("rate_cell", {"group": text, "rate": text, "events": text}, None))
        cases.append(("drawn", [text] * 1234, text))
    for arg in (None, "0", "1", "20", "9999", "10000", "01", "2.5", "-1", "\u0661"):
        cases.append(("drawn", [{}] * 60, arg))
        cases.append(("drawn", "not a list", arg))
        cases.append(("listed", [{}] * 60, arg))
    return cases


def test_python_and_javascript_formats_agree(loan_record: MadeRecord, open_html: Any) -> None:
    from respai.render.report.formats import FORMATS

    opened = open_html(render_report(loan_record.envelope, loan_record.public_key_raw))
    opened.settled()
    assert sorted(opened.page.evaluate("RespaiBind.formats")) == sorted(FORMATS)
    cases = _format_cases(loan_record)
    assert len(cases) > 1000
    got = opened.page.evaluate(
        "cases => cases.map(([f, v, a]) => RespaiBind.format(f, v, a))", [list(c) for c in cases]
    )
    wrong = [
        (fmt, value, arg, js, FORMATS[fmt](value, arg))
        for (fmt, value, arg), js in zip(cases, got, strict=True)
        if js != FORMATS[fmt](value, arg)
    ]
    assert wrong == []
