"""``respai verify --site``: a published site checked offline, as the browser checks it.

The site is built once from a five-run ledger; each test copies it and changes one thing
an attacker (or a careless host) could change, and the check must name it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.site_ledger import make_site_ledger

from respai.cli import main


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site folder of a five-run ledger (``<tmp>/site``), keys in ``<tmp>/keys``."""
    folder = tmp_path_factory.mktemp("verify-site")
    make_site_ledger(folder)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        assert main(["site", str(folder / "book"), "-o", str(folder / "site")]) == 0
    return folder / "site"


def _verify(
    site: Path, key: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["verify", "--site", str(site), "--key", str(key), "--json"])
    out = capsys.readouterr().out
    payload = json.loads(out[out.index("{") :])
    return code, {c["name"]: c for c in payload["checks"]}


def _copy(built: Path, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    shutil.copytree(built, site)
    return site


def test_a_site_as_written_verifies(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _copy(built, tmp_path)
    code, checks = _verify(site, built / "public_key.pem", capsys)
    assert code == 0
    assert list(checks) == ["manifest", "site_pages", "run_pages", "unlisted"]
    assert all(c["ok"] for c in checks.values())
    assert "5 run page(s)" in checks["run_pages"]["detail"]


def test_an_edited_site_page_is_named(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _copy(built, tmp_path)
    index = site / "index.html"
    text = index.read_text(encoding="utf-8")
    index.write_text(text.replace("INSUFFICIENT_EVIDENCE", "PASS", 1), encoding="utf-8")
    code, checks = _verify(site, built / "public_key.pem", capsys)
    assert code == 1 and checks["manifest"]["ok"] and not checks["site_pages"]["ok"]
    assert "index.html" in checks["site_pages"]["detail"]


def test_an_edited_or_swapped_run_page_is_named(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _copy(built, tmp_path)
    pages = sorted((site / "runs").iterdir())
    a, b = pages[0], pages[1]
    a_bytes, b_bytes = a.read_bytes(), b.read_bytes()
    a.write_bytes(b_bytes)  # one run's page shown under another run's name
    b.write_bytes(a_bytes)
    code, checks = _verify(site, built / "public_key.pem", capsys)
    assert code == 1 and not checks["run_pages"]["ok"]
    assert "SHA-256" in checks["run_pages"]["detail"]


def test_a_page_added_beside_the_site_is_named(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _copy(built, tmp_path)
    (site / "runs" / "extra.html").write_text("<p>All tests PASS</p>", encoding="utf-8")
    code, checks = _verify(site, built / "public_key.pem", capsys)
    assert code == 1 and not checks["unlisted"]["ok"]
    assert "runs/extra.html" in checks["unlisted"]["detail"]


def test_a_manifest_the_key_did_not_sign_stops_every_other_check(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _copy(built, tmp_path)
    other = tmp_path / "other.pem"
    other.write_bytes(
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    code, checks = _verify(site, other, capsys)
    assert code == 1 and list(checks) == ["manifest"] and not checks["manifest"]["ok"]
    # a manifest with one flipped payload byte does not verify with the right key either
    envelope = json.loads((site / "site.json").read_text(encoding="utf-8"))
    payload = envelope["payload"]
    envelope["payload"] = payload[:40] + ("A" if payload[40] != "A" else "B") + payload[41:]
    (site / "site.json").write_text(json.dumps(envelope), encoding="utf-8")
    code, checks = _verify(site, built / "public_key.pem", capsys)
    assert code == 1 and not checks["manifest"]["ok"]


def test_site_goes_with_no_record_and_no_ledger(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", "--site", str(built), "--ledger", str(built)])
    assert code == 2
