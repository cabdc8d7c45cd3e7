"""An LL144 record's report lists its findings apart from the tests table, bound to the
record like every other text (issue 27 point 5: 14 identical MANUAL_REVIEW pills hid five
findings)."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from tests.ll144.conftest import write_csv, write_spec

from respai.cli import main
from respai.record.keys import load_public_key, public_key_raw
from respai.render.report import render_report

PLAN = [  # sex, race, applicants, selected
    ("Male", "White", 120, 48),
    ("Female", "White", 110, 36),
    ("Male", "Asian", 60, 27),
    ("Female", "Asian", 55, 17),
    ("Male", "Black or African American", 50, 16),
    ("Female", "Black or African American", 52, 11),
    ("Male", "Hispanic or Latino", 40, 13),
    ("Female", "Hispanic or Latino", 38, 9),
    ("Female", "Native Hawaiian or Other Pacific Islander", 4, 1),
]


@pytest.fixture(scope="module")
def ll144_record(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], bytes]:
    folder = tmp_path_factory.mktemp("ll144")
    rows: list[tuple[str, str, str, int]] = []
    for sex, race, n, k in PLAN:
        picks = [1] * k + [0] * (n - k)
        random.Random(len(rows)).shuffle(picks)
        rows += [(f"A{len(rows) + i:04d}", sex, race, picks[i]) for i in range(n)]
    write_csv(folder / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], rows)
    spec = write_spec(
        folder,
        {
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
            "exclusion_justification": "Under 2% of applicants: too few to compare.",
        },
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        assert main(["ll144", str(spec), "--out", str(folder / "o"), "--no-ledger"]) == 0
    envelope = json.loads((folder / "o" / "record.json").read_text(encoding="utf-8"))
    return envelope, public_key_raw(load_public_key(folder / "o" / "public_key.pem"))


def _findings(envelope: dict[str, Any]) -> list[dict[str, Any]]:
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    tests = [r for r in predicate["records"] if r["record_type"] == "test"]
    return [t for t in tests if t["details"].get("finding")]


def test_the_findings_are_listed_before_the_table_and_verify(
    ll144_record: tuple[dict[str, Any], bytes], open_html: Any
) -> None:
    envelope, key = ll144_record
    found = _findings(envelope)
    assert len(found) >= 3
    html = render_report(envelope, key)
    assert html.index('id="findings"') < html.index('id="tests"')
    opened = open_html(html)
    assert opened.settled() == ("true", "")
    items = opened.page.locator("ul.findings > li").all_inner_texts()
    assert len(items) == len(found)
    for item, rec in zip(items, found, strict=True):
        d = rec["details"]
        assert item.startswith(f"{d['category']} ({d['table']}) · impact ratio {rec['value']:.4f}")
        assert d["finding"].replace("_", " ") in item
        assert item.endswith(d["finding_sentence"])
    assert opened.errors == []


def test_an_edited_finding_fails_verification(
    ll144_record: tuple[dict[str, Any], bytes], open_html: Any
) -> None:
    envelope, key = ll144_record
    html = render_report(envelope, key)
    first = _findings(envelope)[0]["details"]["finding"].replace("_", " ")
    edited = html.replace(f'data-fmt="rate_name">{first}<', 'data-fmt="rate_name">no finding<', 1)
    assert edited != html
    opened = open_html(edited, "edited.html")
    assert opened.settled() == ("false", "page_text")
