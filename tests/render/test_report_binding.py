"""Every text the report shows is bound to the signed payload or is a fixed label.

The page's script (report_assets/bind.js) refuses loose text that is not a label and
recomputes every bound text from the signed record; these tests hold the Python side to
the same rules, over records that reach every branch of the renderer, so a new field
added to the report without a binding, or a new label not listed, fails here first.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.cli import main
from respai.record import canonical_bytes
from respai.render.report import render_report
from respai.render.report.formats import FORMATS
from respai.render.report.labels import ATTRIBUTES, LABELS, TAGS, TICK_LABELS
from respai.render.report.walk import page_text

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "src" / "respai" / "samples" / "loan_screen.yaml"
_spec = importlib.util.spec_from_file_location(
    "report_variants", Path(__file__).with_name("report_variants.py")
)
assert _spec is not None and _spec.loader is not None
report_variants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_variants)


@pytest.fixture(scope="module")
def statement(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("loan")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        mp.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
        code = main(["evaluate", str(SPEC), "--out", str(folder / "out"), "--no-ledger"])
    assert code in (0, 1, 3, 4)
    envelope = json.loads((folder / "out" / "record.json").read_text(encoding="utf-8"))
    return json.loads(base64.b64decode(envelope["payload"]))


def _envelope(statement: dict[str, Any]) -> dict[str, Any]:
    return {
        "payload": base64.b64encode(canonical_bytes(statement)).decode("ascii"),
        "payloadType": "application/vnd.in-toto+json",
        "signatures": [],
    }


@pytest.fixture(scope="module")
def pages(statement: dict[str, Any]) -> dict[str, tuple[dict[str, Any], str]]:
    """Each variant's statement and its page, with and without an embedded key."""
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    out = {}
    for name, s in report_variants.variants(statement).items():
        out[name] = (s, render_report(_envelope(s), key))
        out[name + "-nokey"] = (s, render_report(_envelope(s), None))
    return out


def resolve(root: Any, pointer: str) -> tuple[bool, Any]:
    """RFC 6901, written again here: (found, value)."""
    node = root
    if pointer == "":
        return True, node
    for token in pointer[1:].split("/"):
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and re.fullmatch(r"0|[1-9][0-9]*", key) and int(key) < len(node):
            node = node[int(key)]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return False, None
    return True, node


def test_every_loose_text_in_main_is_a_label(pages: dict[str, tuple[dict[str, Any], str]]) -> None:
    for name, (_, html) in pages.items():
        loose = set(page_text(html).loose) - LABELS - TICK_LABELS
        assert not loose, (
            f"{name}: text in <main> that is neither bound to the record nor a label in "
            f"respai/render/report/labels.py (bind it with At.show, or add it): {sorted(loose)}"
        )


def test_every_label_is_used(pages: dict[str, tuple[dict[str, Any], str]]) -> None:
    used = set().union(*(page_text(html).loose for _, html in pages.values()))
    assert LABELS - used == set()


def test_every_bound_text_is_its_value_formatted(
    pages: dict[str, tuple[dict[str, Any], str]],
) -> None:
    used: set[str] = set()
    for name, (statement, html) in pages.items():
        bound = page_text(html).bound
        assert len(bound) > 50, name
        for b in bound:
            found, value = resolve(statement, b.pointer)
            if b.of_key:
                assert found, (name, b.pointer)
                value = b.pointer.rsplit("/", 1)[1].replace("~1", "/").replace("~0", "~")
            assert b.fmt in FORMATS, (name, b.fmt)
            assert b.text == FORMATS[b.fmt](value, b.arg), (name, b.pointer, b.fmt)
            used.add(b.fmt)
    assert used == set(FORMATS), f"formats no page uses: {set(FORMATS) - used}"


def test_what_a_reader_decides_on_is_bound(
    pages: dict[str, tuple[dict[str, Any], str]],
) -> None:
    statement, html = pages["original"]
    pointers = {(b.pointer, b.fmt) for b in page_text(html).bound}
    predicate = statement["predicate"]
    for field, fmt in (("verdict", "verdict"), ("key_id", "text"), ("run_id", "text")):
        assert (f"/predicate/{field}", fmt) in pointers, field
    for i, r in enumerate(predicate["records"]):
        if r["record_type"] != "test":
            continue
        at = f"/predicate/records/{i}"
        for field, fmt in (
            ("verdict", "verdict"),
            ("value", "number"),
            ("threshold", "threshold"),
        ):
            assert (f"{at}/{field}", fmt) in pointers, (i, field)
        for j, g in enumerate(r["details"].get("groups", [])):
            assert (f"{at}/details/groups/{j}/group", "short") in pointers, (i, g["group"])
            assert (f"{at}/details/groups/{j}/rate", "number") in pointers, (i, g["group"])


def test_rows_and_sections_show_only_their_own_record(
    pages: dict[str, tuple[dict[str, Any], str]],
) -> None:
    for name, (statement, html) in pages.items():
        tests = [
            i
            for i, r in enumerate(statement["predicate"]["records"])
            if r["record_type"] == "test"
        ]
        records = [b.record for b in page_text(html).bound if b.record is not None]
        for b in page_text(html).bound:
            if b.record is None:
                continue
            own = b.pointer == b.record or b.pointer.startswith(b.record + "/")
            counted = b.fmt == "test_number" and b.arg == b.record.rsplit("/", 1)[1]
            assert own or counted, (name, b.record, b.pointer)
        # a monitoring run's rows of the looks it copies from earlier runs of its stream
        start = statement["predicate"]["records"][0]
        copied = (start.get("monitor") or {}).get("history") or []
        history = {f"/predicate/records/0/monitor/history/{k}" for k in range(len(copied))}
        assert set(records) == {f"/predicate/records/{i}" for i in tests} | history, name


def test_record_text_is_escaped_and_its_controls_shown(
    pages: dict[str, tuple[dict[str, Any], str]],
) -> None:
    _, html = pages["hostile"]
    body = html[html.index("<main>") : html.index("</main>")]
    assert "\u202e" not in body and "\u0007" not in body
    assert (
        "x\\u202egnp.exe &lt;b onmouseover=&quot;alert(1)&quot;&gt;&amp;amp;&lt;/b&gt;\\x07\\n"
        in body
    )
    assert "<b onmouseover" not in body


def test_the_embedded_key_carries_no_key_id(pages: dict[str, tuple[dict[str, Any], str]]) -> None:
    _, html = pages["original"]
    found = re.search(
        r'<script type="application/json" id="respai-public-key">(.*?)</script>', html
    )
    assert found is not None
    assert list(json.loads(found.group(1))) == ["raw_b64"]


def test_every_mark_of_a_chart_is_bound(pages: dict[str, tuple[dict[str, Any], str]]) -> None:
    for name, (statement, html) in pages.items():
        charts = re.findall(r"<svg viewBox[^>]*>.*?</svg>", html, flags=re.S)
        assert charts or name.startswith("sparse"), name
        for chart in charts:
            if "data-series=" in chart:
                _series_marks_are_bound(name, statement, chart)
                continue
            assert re.match(r'<svg [^>]*data-scale="[^"]+ [^"]+ 210 560"', chart), name
            for circle in re.findall(r"<circle [^>]*>", chart):
                found, value = resolve(statement, re.findall(r'data-x="([^"]*)"', circle)[0])
                assert found and isinstance(value, int | float), (name, circle)
            for line in re.findall(r'<line class="(?:inner|outer)"[^>]*>', chart):
                for end in re.findall(r'data-x[12]="([^"]*)"', line):
                    assert resolve(statement, end)[0], (name, line)
            for line in re.findall(r'<line class="limit"[^>]*>', chart):
                assert 'data-limit="' in line and 'data-limit-fmt="' in line, (name, line)


def _series_marks_are_bound(name: str, statement: dict[str, Any], chart: str) -> None:
    """A monitoring chart: every dot, bar, band vertex and the alarm line name a number."""
    assert re.match(r'<svg [^>]*data-series="[^"]+ [^"]+ 250 28 [0-9]+ [0-9]+ 64 740"', chart)
    pointers = re.findall(r'data-(?:y|y1|y2|alarm|limit)="([^"]*)"', chart)
    for band in re.findall(r'data-(?:lo|hi)="([^"]*)"', chart):
        pointers.extend(band.split(" "))
    assert pointers, name
    for p in pointers:
        found, value = resolve(statement, p)
        assert found and isinstance(value, int | float), (name, p)
    assert len(re.findall(r"<circle ", chart)) == len(re.findall(r'data-y="', chart)), name


def test_a_monitoring_page_draws_every_batch_and_the_alarm(
    pages: dict[str, tuple[dict[str, Any], str]],
) -> None:
    statement, html = pages["monitor"]
    tests = [r for r in statement["predicate"]["records"] if r["record_type"] == "test"]
    batches = sum(len(r["details"]["groups"]) for r in tests)
    charts = re.findall(r"<svg viewBox[^>]*data-series[^>]*>.*?</svg>", html, flags=re.S)
    assert len(charts) == 3  # the gap rule's rates and gap, the worst-group rule's rates
    assert sum(len(re.findall(r"<circle ", c)) for c in charts) == batches
    assert all('class="alarm"' in c for c in charts)  # both rules' alarms at look 3
    assert sum('class="limit"' in c for c in charts) == 2
    assert len(re.findall(r'<table class="looks">', html)) == 2


def test_main_holds_only_the_elements_and_attributes_the_script_allows(
    pages: dict[str, tuple[dict[str, Any], str]],
) -> None:
    for name, (_, html) in pages.items():
        found = page_text(html)
        assert found.tags <= TAGS, (name, found.tags - TAGS)
        assert found.attributes <= ATTRIBUTES, (name, found.attributes - ATTRIBUTES)
        assert all(h.startswith("#") for h in found.hrefs), name
