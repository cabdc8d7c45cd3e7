"""JUnit XML: one testcase per test and rule, failure for FAIL, skipped for the undecided."""

from __future__ import annotations

import base64
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from respai.cli import main
from respai.export.junit import junit_xml
from respai.export.outcomes import Outcome


def _tests(record: Path) -> list[dict[str, Any]]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    return [r for r in predicate["records"] if r["record_type"] == "test"]


def test_export_junit_has_one_testcase_per_test_and_the_right_counts(
    home: Any, tmp_path: Path
) -> None:
    out = tmp_path / "junit.xml"
    assert main(["export", str(home.record), "--format", "junit", "-o", str(out)]) == 0
    root = ET.parse(out).getroot()
    tests = _tests(home.record)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["respai.battery", "respai.rules"]
    cases = root.findall("testsuite/testcase")
    assert len(cases) == len(tests) == int(root.get("tests", "-1"))
    fails = [t for t in tests if t["verdict"] == "FAIL"]
    undecided = [t for t in tests if t["verdict"] in ("INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW")]
    assert int(root.get("failures", "-1")) == len(fails) == len(root.findall(".//failure"))
    assert int(root.get("skipped", "-1")) == len(undecided) == len(root.findall(".//skipped"))
    assert fails
    for suite in suites:
        assert int(suite.get("tests", "-1")) == len(suite.findall("testcase"))
    for rec, case in zip(tests, cases, strict=True):
        assert f"[{rec['test_key']}]" in (case.get("name") or "")
        failure, skipped = case.find("failure"), case.find("skipped")
        if rec["verdict"] == "FAIL":
            assert failure is not None and skipped is None
        elif rec["verdict"] == "PASS":
            assert failure is None and skipped is None
        else:
            assert failure is None and skipped is not None
            assert (skipped.get("message") or "").startswith(rec["verdict"] + ": ")


def test_text_from_a_record_cannot_break_the_xml() -> None:
    hostile = "<script>&amp; \x1b[2J\u202e\x00 \ufffe ]]> \" '"
    body = junit_xml(
        [
            Outcome("rule", f"rule:{hostile}", hostile, "FAIL", hostile),
            Outcome("battery", "auc", "AUC", "MANUAL_REVIEW", hostile),
        ],
        name=hostile,
        properties={"verdict": hostile},
    )
    root = ET.fromstring(body)  # it parses: every character is one XML 1.0 allows
    text = body.decode("utf-8")
    for raw in ("\x1b", "\u202e", "\x00", "\ufffe", "<script>"):
        assert raw not in text
    assert "\\x1b[2J" in text and "\\u202e" in text and "&lt;script&gt;" in text
    failure = root.find(".//failure")
    assert failure is not None and (failure.get("message") or "").startswith("<script>&amp;")


def test_an_empty_run_is_an_empty_but_valid_document() -> None:
    root = ET.fromstring(junit_xml([], name="respai"))
    assert root.get("tests") == "0" and root.findall("testsuite") == []


def test_evaluate_junit_is_written_with_the_record_and_matches_the_export(
    home: Any, tmp_path: Path
) -> None:
    out, junit, exported = tmp_path / "out", tmp_path / "ci" / "junit.xml", tmp_path / "e.xml"
    spec = home.folder / "spec.yaml"
    code = main(
        ["evaluate", str(spec), "--out", str(out), "--no-ledger", "-q", "--junit", str(junit)]
    )
    assert code == 1
    assert (
        main(["export", str(out / "record.json"), "--format", "junit", "-o", str(exported)]) == 0
    )
    written, again = ET.parse(junit).getroot(), ET.parse(exported).getroot()
    assert [c.get("name") for c in written.iter("testcase")] == [
        c.get("name") for c in again.iter("testcase")
    ]
    assert written.get("failures") == again.get("failures") != "0"


def test_fairness_junit_lists_each_rule(home: Any, tmp_path: Path) -> None:
    junit = tmp_path / "f.xml"
    assert main(["fairness", str(home.folder / "spec.yaml"), "-q", "--junit", str(junit)]) == 1
    root = ET.parse(junit).getroot()
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "respai.rules"
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names == [
        "Group rule selection-gap [rule:selection-gap]",
        "Group rule error-cap [rule:error-cap]",
    ]
    assert suite.get("failures") == "1" and suite.find("testcase/failure") is not None


def test_a_refused_run_writes_no_junit(home: Any, tmp_path: Path) -> None:
    bad = tmp_path / "spec.yaml"
    bad.write_text(
        (home.folder / "spec.yaml").read_text(encoding="utf-8").replace("cases.csv", "none.csv"),
        encoding="utf-8",
    )
    for command in (
        ["evaluate", str(bad), "--out", str(tmp_path / "o"), "--no-ledger"],
        ["fairness", str(bad)],
    ):
        junit = tmp_path / f"{command[0]}.xml"
        assert main([*command, "-q", "--junit", str(junit)]) == 2
        assert not junit.exists()
    assert main(["fairness", str(home.folder / "spec.yaml"), "--junit", str(tmp_path)]) == 2
