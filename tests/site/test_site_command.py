"""``respai site``: what it writes, what it signs, and what it refuses (fast, no browser).

The manifest is checked with ``cryptography`` directly (the DSSE PAE written out here),
its digests with ``hashlib`` over the files, and every page's text against the manifest
by an HTML parser independent of the page's own script.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from tests.site_ledger import make_site_ledger

from respai.cli import main
from respai.site.page import FORMATS, LABELS


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the ledger ``book`` of five runs and the key folder ``keys``."""
    folder = tmp_path_factory.mktemp("site")
    make_site_ledger(folder)
    return folder


def _site(made: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setenv("RESPAI_HOME", str(made / "keys"))
    return main(["site", str(made / "book"), *args])


def _statement(out: Path) -> dict[str, Any]:
    envelope = json.loads((out / "site.json").read_text(encoding="utf-8"))
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return statement


def test_the_site_holds_every_page_and_a_manifest_signed_over_every_file(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert _site(made, monkeypatch, "-o", str(out), "--posted", "2026-11-29") == 0
    envelope = json.loads((out / "site.json").read_text(encoding="utf-8"))
    payload = base64.b64decode(envelope["payload"])
    kind = envelope["payloadType"].encode()
    pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    public = load_pem_public_key((out / "public_key.pem").read_bytes())
    assert isinstance(public, Ed25519PublicKey)
    public.verify(base64.b64decode(envelope["signatures"][0]["sig"]), pae)  # raises if bad
    statement = _statement(out)
    predicate = statement["predicate"]
    assert [r["kind"] for r in predicate["runs"]] == [
        "evaluate", "plan", "ll144", "monitor", "evaluate",
    ]  # fmt: skip
    run_files = sorted((made / "book" / "runs").iterdir())
    assert [s["digest"]["sha256"] for s in statement["subject"]] == [
        hashlib.sha256(f.read_bytes()).hexdigest() for f in run_files
    ]
    for run in predicate["runs"]:
        page = out / run["page"]
        assert hashlib.sha256(page.read_bytes()).hexdigest() == run["page_sha256"]
        assert page.name == f"{run['run_id']}.html"
    expected = {"index.html", "streams.html", "compare.html", "site.json", "public_key.pem"}
    expected |= {f"ll144-{a['run_id']}.html" for a in predicate["ll144"]}
    assert {p.name for p in out.iterdir() if p.is_file()} == expected
    assert len(predicate["ll144"]) == 1
    (compared,) = predicate["comparisons"]  # the two evaluate runs, the only pair
    assert (compared["a"]["run_id"], compared["b"]["run_id"]) == (
        predicate["runs"][0]["run_id"],
        predicate["runs"][4]["run_id"],
    )
    (stream,) = predicate["streams"]
    assert [r["run_id"] for r in stream["runs"]] == [predicate["runs"][3]["run_id"]]
    assert stream["chart"] == stream["runs"][-1]  # the latest run's page draws it all


def test_ll144_dates_say_where_they_come_from_and_the_period_follows_the_rule(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    args = ["-o", str(out), "--posted", "2026-11-30", "--last-use", "2027-08-31"]
    assert _site(made, monkeypatch, *args) == 0
    (audit,) = _statement(out)["predicate"]["ll144"]
    assert audit["audit_date"] == {
        "value": "2026-11-30", "source": "the signed LL144 record of the audit",
    }  # fmt: skip
    assert audit["distribution_date"]["value"] == "2026-12-01"
    assert "--posted" in audit["posted"]["source"]
    assert "not part of the signed audit record" in audit["posted"]["source"]
    assert audit["publication"]["from"] == "2026-11-30"
    assert audit["publication"]["until"] == "2028-02-29"  # six months after 31 August 2027
    assert audit["findings"] == []
    late = tmp_path / "late"
    assert _site(made, monkeypatch, "-o", str(late), "--posted", "2026-12-03") == 0
    (audit,) = _statement(late)["predicate"]["ll144"]
    assert audit["publication"]["until"] is None
    assert "--last-use" in audit["publication"]["note"]
    assert [f["text"] for f in audit["findings"]] == [
        "The summary was posted on 2026-12-03, after the distribution date 2026-12-01: "
        "it must be posted before the tool is used."
    ]


class _Texts(HTMLParser):
    """Each text of ``<main>``: (the innermost data-bind/data-fmt around it, the text)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str | None, str | None]] = []
        self.inside = False
        self.texts: list[tuple[str | None, str | None, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "main":
            self.inside = True
        if self.inside:
            self.stack.append((a.get("data-bind"), a.get("data-fmt")))

    def handle_endtag(self, tag: str) -> None:
        if self.inside:
            self.stack.pop()
        if tag == "main":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside and data.strip():
            bind, fmt = self.stack[-1]
            self.texts.append((bind, fmt, data))


def _resolve(doc: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def test_every_text_of_a_site_page_is_signed_or_a_label(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert _site(made, monkeypatch, "-o", str(out)) == 0
    statement = _statement(out)
    pages = ["index.html", "streams.html", "compare.html", *(p.name for p in out.glob("ll144-*"))]
    bound = 0
    for name in pages:
        parser = _Texts()
        parser.feed((out / name).read_text(encoding="utf-8"))
        for bind, fmt, text in parser.texts:
            if bind is None:
                assert text in LABELS, (name, text)
            else:
                assert fmt is not None
                assert text == FORMATS[fmt](_resolve(statement, bind)), (name, bind)
                bound += 1
    assert bound > 50


def test_a_ledger_that_does_not_verify_writes_nothing(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    book = tmp_path / "book"
    shutil.copytree(made / "book", book)
    run = sorted((book / "runs").iterdir())[2]
    envelope = json.loads(run.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    statement["predicate"]["system"]["version"] = "2"
    envelope["payload"] = base64.b64encode(
        json.dumps(statement, separators=(",", ":"), sort_keys=True).encode()
    ).decode()
    run.write_text(json.dumps(envelope), encoding="utf-8")
    monkeypatch.setenv("RESPAI_HOME", str(made / "keys"))
    out = tmp_path / "site"
    assert main(["site", str(book), "-o", str(out)]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book"]  # no site, no staging


@pytest.mark.parametrize(
    "where", ["inside the ledger", "the key folder", "a folder of other files"]
)
def test_an_output_folder_that_is_not_the_sites_own_is_refused(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str
) -> None:
    out = {
        "inside the ledger": made / "book" / "site",
        "the key folder": made / "keys" / "site",
        "a folder of other files": tmp_path / "mine",
    }[where]
    if where == "a folder of other files":
        out.mkdir()
        (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = sorted(p.name for p in out.parent.iterdir())
    assert _site(made, monkeypatch, "-o", str(out)) == 2
    assert sorted(p.name for p in out.parent.iterdir()) == before
    if where == "a folder of other files":
        assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_an_earlier_site_is_replaced(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert _site(made, monkeypatch, "-o", str(out)) == 0
    first = (out / "site.json").read_bytes()
    assert _site(made, monkeypatch, "-o", str(out), "--posted", "2026-11-30") == 0
    assert (out / "site.json").read_bytes() != first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize(
    "args",
    [
        ["--posted", "30/11/2026"],
        ["--posted", "nosuchrun=2026-11-30"],
        ["--posted", "2026-11-30", "--posted", "2026-12-01"],
        ["--distribution-date", "2026-12-05"],  # the record states 2026-12-01
    ],
)
def test_a_date_option_that_cannot_be_used_is_refused(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str]
) -> None:
    assert _site(made, monkeypatch, "-o", str(tmp_path / "site"), *args) == 2
    assert not (tmp_path / "site").exists()


def test_a_signing_key_that_the_ledger_is_not_verified_with_is_refused(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "other-keys"))
    assert main(["keys", "new"]) == 0
    keys = made / "keys" / "keys.json"
    out = tmp_path / "site"
    assert main(["site", str(made / "book"), "-o", str(out), "--keys", str(keys)]) == 2
    assert not out.exists()


def test_a_stream_links_to_its_latest_run_page_which_draws_the_whole_stream(
    made: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(made, folder)
    lines = (folder / "week1.csv").read_text(encoding="utf-8").splitlines()
    (folder / "week2.csv").write_text("\n".join([lines[0], *lines[:0:-1]]) + "\n", "utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("RESPAI_HOME", str(folder / "keys"))
    args = ["monitor", "monitor.yaml", "week2.csv", "--ledger", "book"]
    assert main(args) in (0, 1, 3, 4)
    out = tmp_path / "site"
    assert main(["site", str(folder / "book"), "-o", str(out)]) == 0
    (stream,) = _statement(out)["predicate"]["streams"]
    assert len(stream["runs"]) == 2 and stream["looks"] == 3
    assert stream["chart"] == stream["runs"][1]
    page = (out / stream["chart"]["page"]).read_text(encoding="utf-8")
    assert (
        page.count('<tr class="earlier" data-record="/predicate/records/0/monitor/history/') == 2
    )
    assert "from earlier run " + stream["runs"][0]["run_id"] in page
    streams = (out / "streams.html").read_text(encoding="utf-8")
    assert (
        f'href="{stream["chart"]["page"]}" data-href="/predicate/streams/0/chart/page"' in streams
    )
