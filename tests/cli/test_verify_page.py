"""``respai verify report.html``: the file is exactly respai's report of the record it embeds.

The page's own check runs inside the page; these edits are out of its sight or its
reach (a script placed before the page's CSP that rewrites the page after the check), so
the file itself is compared with the report rendered again from its signed record.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record import canonical_bytes, key_id, sign_envelope
from respai.record.keys import public_key_raw
from respai.render.report import render_report
from respai.schemas import validate_output

SPEC = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"
EARLY_SCRIPT = (
    "<script>(function(){var r=document.documentElement;new MutationObserver(function(){"
    'if(r.getAttribute("data-verified")==="true"){document.getElementById("verdict")'
    '.className="banner v-PASS";}}).observe(r,{attributes:true});'
    "document.currentScript.remove();})();</script>"
)


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "RESPAI_HOME": str(folder / "keys")},
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("page")
    shutil.copy(SPEC, folder / "loan_screen.yaml")
    shutil.copy(SPEC.with_name("loan_screen.csv"), folder / "loan_screen.csv")
    proc = _run(folder, "evaluate", "loan_screen.yaml", "--out", "out", "--no-ledger")
    assert proc.returncode in (0, 1, 3, 4), proc.stderr
    return folder


def _verify(folder: Path, page: str, *more: str) -> subprocess.CompletedProcess[str]:
    (folder / "page.html").write_text(page, encoding="utf-8")
    return _run(folder, "verify", "page.html", "--keys", "keys/keys.json", *more)


def _page(made: Path) -> str:
    return (made / "out" / "report.html").read_text(encoding="utf-8")


def test_the_report_evaluate_wrote_verifies_as_a_page(made: Path) -> None:
    proc = _verify(made, _page(made), "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    validate_output("verify", doc)
    page = next(c for c in doc["checks"] if c["name"] == "page")
    assert page["ok"] and "exactly the report" in page["detail"]


@pytest.mark.parametrize(
    ("what", "edit", "words"),
    [
        (
            "a sentence added",
            lambda p: p.replace("</h2>", "</h2><p>Every test passed.</p>", 1),
            "differs from the report",
        ),
        (
            "a script before the CSP that repaints the banner after the check",
            lambda p: p.replace('<meta charset="utf-8">', EARLY_SCRIPT + '<meta charset="utf-8">'),
            "differs from the report",
        ),
        (
            "the page's script replaced",
            lambda p: p.replace("var RespaiTables = {", "var RespaiTables = {x: 1, ", 1),
            "differs from the report",
        ),
    ],
)
def test_an_edited_page_does_not_verify(made: Path, what: str, edit: object, words: str) -> None:
    page = _page(made)
    edited = edit(page)  # type: ignore[operator]
    assert edited != page, what
    proc = _verify(made, edited)
    assert proc.returncode == 1, (what, proc.stderr)
    assert "FAIL  page:" in proc.stderr and words in proc.stderr, (what, proc.stderr)


def test_a_page_with_another_page_code_says_so(made: Path) -> None:
    page = _page(made)
    edited = page.replace("script-src &#x27;sha256-", "script-src &#x27;sha256-AAAA", 1)
    proc = _verify(made, edited)
    assert proc.returncode == 1
    assert "not this respai version's" in proc.stderr


def test_a_page_resigned_with_another_key_does_not_verify(made: Path) -> None:
    envelope = json.loads((made / "out" / "record.json").read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["verdict"] = "PASS"
    attacker = Ed25519PrivateKey.generate()
    statement["predicate"]["key_id"] = key_id(attacker.public_key())
    forged = sign_envelope(canonical_bytes(statement), attacker, key_id(attacker.public_key()))
    page = render_report(forged, public_key_raw(attacker.public_key()))
    proc = _verify(made, page)
    assert proc.returncode == 1
    assert "FAIL  signature:" in proc.stderr and "FAIL  page:" in proc.stderr


def test_a_genuine_record_with_another_key_embedded_does_not_verify(made: Path) -> None:
    envelope = json.loads((made / "out" / "record.json").read_text(encoding="utf-8"))
    other = Ed25519PrivateKey.generate()
    page = render_report(envelope, public_key_raw(other.public_key()))
    proc = _verify(made, page)
    assert proc.returncode == 1
    assert "does not embed the public key of the key that signed it" in proc.stderr


def test_a_page_without_a_record_does_not_verify(made: Path) -> None:
    proc = _verify(made, "<!DOCTYPE html>\n<html><body><main>PASS</main></body></html>\n")
    assert proc.returncode == 1
    assert "the page holds no record" in proc.stderr
