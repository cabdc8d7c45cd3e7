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
    assert (
        render_report_file(loan_record.folder / "record.json", title="T").count("<title>T</title>")
        == 1
    )
