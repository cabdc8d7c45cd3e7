"""The control mapping ships, loads, says only "supports" and maps only confirmed clauses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from respai import battery
from respai.controls import Clause, ControlMapping, load_controls, parse_controls
from respai.errors import Error

ROOT = Path(__file__).resolve().parents[2]
#: The mapping must name exactly the registry's test ids, in its order.
TEST_IDS = tuple(t.value for t in battery.TestId)
FRAMEWORKS = {
    "iso42001": "ISO/IEC 42001:2023, Annex A",
    "eu_ai_act": "Regulation (EU) 2024/1689 (EU AI Act)",
    "nist_ai_rmf": "NIST AI RMF 1.0 (NIST AI 100-1)",
    "nyc_dcwp": "NYC DCWP rules, 6 RCNY §§ 5-300 to 5-304",
    "eeoc_ugesp": "29 CFR 1607.4(D)",
    "colorado": (
        "Colorado SB 24-205, reported repealed and replaced by SB 26-189 (no clause mapped)"
    ),
}
# Clause ids the research could not confirm (its section 8 and [U] marks), written down
# here independently of the YAML's own left_out list, so editing that list is not enough
# to slip one in.
UNCONFIRMED = {
    ("iso42001", c)
    for c in (
        "A.4.3",
        "A.5.3",
        "A.5.5",
        "A.6.2.2",
        "A.6.2.6",
        "A.7.2",
        "A.7.3",
        "A.7.5",
        "A.8.2",
        "A.8.3",
    )
}
UNCONFIRMED_PREFIXES = (
    ("eu_ai_act", "Art. 9(6)"),
    ("eu_ai_act", "Art. 9(7)"),
    ("eu_ai_act", "Art. 9(8)"),
    ("eu_ai_act", "Art. 11"),
    ("eu_ai_act", "Annex"),
    ("eu_ai_act", "Art. 17(1)(k)"),
    ("eu_ai_act", "Art. 26"),
    ("nyc_dcwp", "§ 5-300"),
    ("nyc_dcwp", "§ 5-303"),
    ("nyc_dcwp", "§ 5-304"),
    ("nyc_dcwp", "§ 5-301(c)(5)"),
    ("eeoc_ugesp", "§ 1607.16"),
    ("colorado", "§ 6-1-1706"),
    ("nist_ai_rmf", "MEASURE 2.12"),
)
BANNED = ("satisfies", "satisfy", "complies", "comply", "ensures compliance")
#: Claims about the law as it stands that were reported but not confirmed (written here
#: independently of the YAML): the framework, and words any text making the claim uses.
REPORTED = {
    "colorado": ("26-189", "repeal"),
    "eu_ai_act": ("Omnibus", "2 December 2027"),
}
#: Words that show a text says something was reported or could not be confirmed.
MARKED = ("not confirmed", "not read", "could not be read", "recalled", "secondary sources only")


def yaml_text() -> str:
    return resources.files("respai").joinpath("controls.yaml").read_text(encoding="utf-8")


def raw() -> dict[str, Any]:
    doc = yaml.safe_load(yaml_text())
    assert isinstance(doc, dict)
    return doc


@pytest.fixture(scope="module")
def mapping() -> ControlMapping:
    return load_controls()


def test_loads_with_version_and_review_status(mapping: ControlMapping) -> None:
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.\d+", mapping.version)
    assert mapping.review_status.strip()
    assert "outside counsel" in mapping.review_status
    assert load_controls() is mapping  # cached


def test_frameworks_are_the_declared_citations(mapping: ControlMapping) -> None:
    assert dict(mapping.frameworks) == FRAMEWORKS


def test_every_test_id_has_a_clause(mapping: ControlMapping) -> None:
    assert tuple(mapping.tests) == TEST_IDS
    for test_id in TEST_IDS:
        clauses = mapping.for_test(test_id)
        assert clauses, test_id
        assert all(isinstance(c, Clause) for c in clauses)
        assert all(c.title.strip() for c in clauses)


def test_unknown_test_id_has_no_clauses(mapping: ControlMapping) -> None:
    assert mapping.for_test("no_such_test") == ()


def test_relation_is_always_supports(mapping: ControlMapping) -> None:
    assert mapping.relation == "supports"
    assert mapping.to_record()["relation"] == "supports"

    def relations(node: object) -> list[object]:
        if isinstance(node, dict):
            found = [v for k, v in node.items() if k == "relation"]
            return found + [r for v in node.values() for r in relations(v)]
        if isinstance(node, list):
            return [r for v in node for r in relations(v)]
        return []

    assert relations(raw()) == ["supports"]
    text = yaml_text().lower()
    for word in BANNED:
        assert word not in text, word
    for line in text.splitlines():
        if re.match(r"\s*relation\s*:", line):
            assert line.split(":", 1)[1].strip() == "supports", line


def test_every_framework_referenced_is_declared(mapping: ControlMapping) -> None:
    used = {c.framework for cs in mapping.tests.values() for c in cs}
    used |= {lo.framework for lo in mapping.left_out}
    assert used <= set(mapping.frameworks)
    assert used == set(mapping.frameworks)  # and none is declared for nothing


def test_no_clause_twice_for_a_test(mapping: ControlMapping) -> None:
    for test_id, clauses in mapping.tests.items():
        keys = [(c.framework, c.clause) for c in clauses]
        assert len(keys) == len(set(keys)), test_id


def test_one_title_per_clause(mapping: ControlMapping) -> None:
    titles: dict[tuple[str, str], str] = {}
    for clauses in mapping.tests.values():
        for c in clauses:
            assert titles.setdefault((c.framework, c.clause), c.title) == c.title


def test_left_out_is_listed_with_reasons_and_never_mapped(mapping: ControlMapping) -> None:
    assert mapping.left_out
    mapped = {(c.framework, c.clause) for cs in mapping.tests.values() for c in cs}
    for lo in mapping.left_out:
        assert lo.reason.strip(), lo
        assert set(lo.would_support) <= set(TEST_IDS), lo
        assert (lo.framework, lo.clause) not in mapped, lo
        for test_id in lo.would_support:
            assert lo.clause not in {c.clause for c in mapping.for_test(test_id)}


def test_no_unconfirmed_clause_is_mapped(mapping: ControlMapping) -> None:
    for test_id, clauses in mapping.tests.items():
        for c in clauses:
            assert (c.framework, c.clause) not in UNCONFIRMED, (test_id, c)
            for fw, prefix in UNCONFIRMED_PREFIXES:
                assert not (c.framework == fw and c.clause.startswith(prefix)), (test_id, c)
    # ... and each of them was at least considered.
    left = {(lo.framework, lo.clause) for lo in mapping.left_out}
    for key in UNCONFIRMED - {
        ("iso42001", c)
        for c in ("A.4.3", "A.5.3", "A.7.3", "A.7.5")  # provenance only
    }:
        assert key in left, key


def test_every_entry_and_framework_has_a_review_status() -> None:
    # read from the YAML itself, so a default in the loader cannot stand in for one
    doc = raw()
    assert set(doc["framework_status"]) == set(doc["frameworks"])
    for fw, st in doc["framework_status"].items():
        assert st["status"] in ("confirmed", "unconfirmed"), fw
        assert st["note"].strip(), fw
    for test_id, entries in doc["tests"].items():
        for e in entries:
            assert e.get("status") == "confirmed", (test_id, e["clause"])
    for lo in doc["left_out"]:
        assert lo.get("status") in ("unconfirmed", "superseded", "not_a_fit"), lo["clause"]


def test_unconfirmed_claims_are_marked(mapping: ControlMapping) -> None:
    doc = raw()
    # a framework status that is unconfirmed, a left-out reason, says what was not confirmed
    for fw, st in doc["framework_status"].items():
        if st["status"] != "confirmed":
            assert "not confirmed" in st["note"], fw
    for lo in doc["left_out"]:
        if lo["status"] != "not_a_fit":
            assert any(m in lo["reason"].lower() for m in MARKED), lo["clause"]
    # each reported change to the law is marked unconfirmed where the mapping states it,
    # and no confirmed text (a mapped clause's note, a confirmed framework) states it
    for fw, words in REPORTED.items():
        st = doc["framework_status"][fw]
        assert st["status"] == "unconfirmed", fw
        assert all(w in st["note"] for w in words), fw
        assert "not confirmed" in st["note"], fw

    def says(text: str | None) -> bool:
        return any(w.lower() in (text or "").lower() for ws in REPORTED.values() for w in ws)

    for test_id, entries in doc["tests"].items():
        for e in entries:
            assert not says(e.get("title")) and not says(e.get("note")), (test_id, e)
    for fw, st in doc["framework_status"].items():
        if st["status"] == "confirmed":
            assert not says(st["note"]), fw
    for fw, citation in doc["frameworks"].items():
        if says(citation):
            assert "reported" in citation and doc["framework_status"][fw]["status"] != "confirmed"
    # the superseded Colorado clauses: not mapped, listed with a reason that says so
    assert not any(c.framework == "colorado" for cs in mapping.tests.values() for c in cs)
    superseded = {lo.clause for lo in mapping.left_out if lo.status == "superseded"}
    assert superseded == {"§ 6-1-1701(1)", "§ 6-1-1703(2)", "§ 6-1-1703(3)"}
    where = [w for w, _ in mapping.not_confirmed()]
    assert "framework colorado" in where and "framework eu_ai_act" in where
    assert len(where) == sum(1 for lo in mapping.left_out if lo.status != "not_a_fit") + 2


def test_the_header_says_what_was_not_confirmed() -> None:
    header = yaml_text().split("\nversion:", 1)[0]
    assert "Not confirmed in this version" in header
    assert "26-189" in header and "2027-12-02" in header


def test_ll144_clauses_only_on_the_ll144_test(mapping: ControlMapping) -> None:
    for test_id, clauses in mapping.tests.items():
        if test_id != "ll144_impact_ratio":
            assert all(c.framework != "nyc_dcwp" for c in clauses), test_id
    ll144 = {c.clause for c in mapping.for_test("ll144_impact_ratio")}
    assert {"§ 5-301(b)(1)", "§ 5-301(b)(2)", "§ 5-301(b)(3)", "§ 5-301(d)"} <= ll144


def test_record_and_clause_are_json_ready(mapping: ControlMapping) -> None:
    record = mapping.to_record()
    assert set(record) == {"version", "review_status", "relation", "frameworks"}
    assert record["frameworks"] == FRAMEWORKS
    json.dumps(record, allow_nan=False)
    for clauses in mapping.tests.values():
        for c in clauses:
            d = c.to_dict()
            assert set(d) == {"framework", "clause", "title", "note"}
            json.dumps(d, allow_nan=False)
    assert Clause("iso42001", "A.7.4", "t").to_dict()["note"] is None


def test_mapping_is_read_only(mapping: ControlMapping) -> None:
    with pytest.raises(TypeError):
        mapping.tests["x"] = ()  # type: ignore[index]
    with pytest.raises(TypeError):
        mapping.frameworks["x"] = "y"  # type: ignore[index]


# --- validation -------------------------------------------------------------------------

GOOD = """\
version: "2026-12-01.1"
review_status: "not reviewed by outside counsel"
relation: supports
frameworks:
  iso42001: ISO/IEC 42001:2023, Annex A
framework_status:
  iso42001: {status: confirmed, note: ids and titles}
tests:
  accuracy:
    - {framework: iso42001, clause: A.6.2.4, title: V&V, status: confirmed}
left_out:
  - {framework: iso42001, clause: A.6.2.6, title: Monitoring, status: unconfirmed,
     would_support: [accuracy], reason: not read}
"""


def test_minimal_document_parses() -> None:
    m = parse_controls(GOOD)
    assert m.for_test("accuracy") == (Clause("iso42001", "A.6.2.4", "V&V", None),)
    assert m.for_test("accuracy")[0].status == "confirmed"
    assert m.left_out[0].would_support == ("accuracy",)
    assert m.left_out[0].status == "unconfirmed"
    assert m.framework_status["iso42001"].status == "confirmed"
    assert m.not_confirmed() == (("iso42001 A.6.2.6 (unconfirmed)", "not read"),)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("relation: supports", "relation: satisfies", "only relation allowed is 'supports'"),
        (
            "{framework: iso42001, clause: A.6.2.4",
            "{framework: iso4200, clause: A.6.2.4",
            "'iso4200' is not declared",
        ),
        (
            "title: V&V, status: confirmed}",
            "title: V&V, status: confirmed}\n"
            "    - {framework: iso42001, clause: A.6.2.4, title: x, status: confirmed}",
            "listed twice",
        ),
        ("clause: A.6.2.6", "clause: A.6.2.4", "left out but is mapped"),
        ("would_support: [accuracy]", "would_support: [acuracy]", "not a test id"),
        ("  accuracy:\n", "  acuracy:\n", "'acuracy' is not a respai test id. Did you mean"),
        ('version: "2026-12-01.1"', "version: v1", "YYYY-MM-DD.N"),
        ("relation: supports", "relation: supports\nrelation: supports", "repeated"),
        ("status: confirmed}", "status: confirmed, verb: meets}", "unknown key 'verb'"),
        ('review_status: "not reviewed by outside counsel"\n', "", "'review_status' is missing"),
        ("title: V&V, status: confirmed}", "title: V&V}", "'status' is missing"),
        (
            "title: V&V, status: confirmed}",
            "title: V&V, status: unconfirmed}",
            "Only confirmed clauses are mapped",
        ),
        ("status: unconfirmed,", "status: confirmed,", "A confirmed clause is mapped under tests"),
        ("status: unconfirmed,", "status: unconfrimed,", "Did you mean 'unconfirmed'?"),
        (
            "  iso42001: {status: confirmed, note: ids and titles}\n",
            "  {}\n",
            "framework 'iso42001' has no review status",
        ),
        (
            "iso42001: {status: confirmed, note: ids and titles}",
            "iso42001: {status: repealed, note: x}",
            "'repealed' is not a review status",
        ),
        (
            "framework_status:\n  iso42001: {status: confirmed, note: ids and titles}\n",
            "",
            "'framework_status' is missing",
        ),
    ],
)
def test_bad_documents_are_refused(old: str, new: str, message: str) -> None:
    assert old in GOOD
    with pytest.raises(Error, match=re.escape(message)):
        parse_controls(GOOD.replace(old, new, 1))


# --- docs and packaging -------------------------------------------------------------------


def test_docs_page_matches_the_mapping(mapping: ControlMapping) -> None:
    page = (ROOT / "docs" / "controls.md").read_text(encoding="utf-8")
    assert f"`{mapping.version}`" in page
    assert mapping.review_status in page
    sections = dict(re.findall(r"^### `(\w+)`\n(.*?)(?=^##)", page + "\n##", re.S | re.M))
    assert tuple(sections) == TEST_IDS
    for test_id, body in sections.items():
        rows = re.findall(r"^\| (\w+) \| (.+?) \| (.+?) \|$", body, re.M)
        expected = [(c.framework, c.clause, c.title) for c in mapping.for_test(test_id)]
        assert rows[1:] == expected, test_id  # rows[0] is the header
    for lo in mapping.left_out:
        assert lo.clause in page, lo


def test_yaml_ships_in_the_wheel(tmp_path: Path) -> None:
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("respai-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        assert "respai/controls.yaml" in zf.namelist()
        assert zf.read("respai/controls.yaml").decode("utf-8") == yaml_text()
    print(f"wheel built in {time.monotonic() - start:.1f} s")
