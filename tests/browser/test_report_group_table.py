"""The report's per-group table: every rate the record holds per group, with its interval,
checked by the page like every other text (issue 27 point 5)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from respai.render.report import render_report

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples"
PRECISION_RULE = (
    "    - {id: precision-by-sex, rate: precision, attribute: sex, max_group_gap: 0.2}\n"
)


@pytest.fixture(scope="module")
def precision_record(tmp_path_factory: pytest.TempPathFactory, record_maker: Any) -> Any:
    """The bundled sample with one more rule, on precision by sex."""
    folder = tmp_path_factory.mktemp("precision")
    shutil.copy(SAMPLES / "loan_screen.csv", folder / "loan_screen.csv")
    spec = (SAMPLES / "loan_screen.yaml").read_text(encoding="utf-8") + PRECISION_RULE
    (folder / "loan_screen.yaml").write_text(spec, encoding="utf-8")
    return record_maker(folder / "loan_screen.yaml", folder)


def _precision(record: Any) -> tuple[int, dict[str, Any]]:
    records = record.statement()["predicate"]["records"]
    (i,) = [k for k, r in enumerate(records) if r.get("test_key") == "rule:precision-by-sex"]
    return i, records[i]


def test_the_table_shows_precision_with_its_interval_and_verifies(
    precision_record: Any, open_html: Any
) -> None:
    _, rule = _precision(precision_record)
    female = next(g for g in rule["details"]["groups"] if g["group"] == "female")
    iv = female["interval"]
    cell = (
        f"{female['rate']:.4f} {female['events']:,}/{female['with_prediction']:,} "
        f"[{iv['lo']:.4f}, {iv['hi']:.4f}]"
    )
    opened = open_html(render_report(precision_record.envelope, precision_record.public_key_raw))
    assert opened.settled() == ("true", "")
    table = opened.page.locator("table.per-group", has_text="rule precision-by-sex")
    heads = table.locator("thead th").all_text_contents()
    wanted = "precision rate, rule precision-by-sex (Clopper-Pearson"
    assert any(h.startswith(wanted) for h in heads)
    assert heads[:2] == ["Group", "Cases"]
    rows = {r.split("\t")[0]: r.split("\t") for r in table.locator("tbody tr").all_inner_texts()}
    assert cell in rows["female"]
    # the battery's selection rate with its 95% Wilson interval sits in the same row
    assert any(c.endswith("]") and "/" in c for c in rows["female"][2:])
    assert opened.errors == []


def test_an_edited_cell_or_a_cell_moved_to_another_row_fails_verification(
    precision_record: Any, open_html: Any
) -> None:
    i, rule = _precision(precision_record)
    html = render_report(precision_record.envelope, precision_record.public_key_raw)
    female = next(g for g in rule["details"]["groups"] if g["group"] == "female")
    shown = f"{female['rate']:.4f} "
    edited_rate = f"{min(female['rate'] + 0.01, 1):.4f} "
    pattern = re.compile(
        rf'(<td class="interval" data-bind="/predicate/records/{i}/details/groups/(\d+)" '
        r'data-fmt="rate_cell">)([^<]*)(</td>)'
    )
    cells = list(pattern.finditer(html))
    assert len(cells) == 2  # female and male
    first = cells[0]
    assert first.group(3).startswith(shown)
    edited = html[: first.start(3)] + first.group(3).replace(shown, edited_rate, 1)
    edited += html[first.end(3) :]
    opened = open_html(edited, "edited.html")
    assert opened.settled() == ("false", "page_text")
    assert "the signed record says" in opened.page.inner_text("#verify-checks")
    # the two groups' cells swapped, each still its own group's text: the row check fails
    a, b = cells
    swapped = (
        html[: a.start()] + b.group(0) + html[a.end() : b.start()] + a.group(0) + html[b.end() :]
    )
    opened = open_html(swapped, "swapped.html")
    assert opened.settled() == ("false", "page_text")
    assert "in the row of" in opened.page.inner_text("#verify-checks")
