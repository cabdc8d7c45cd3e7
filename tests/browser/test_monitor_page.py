"""The page ``respai monitor --out`` writes verifies in Chromium, and an edited one does not.

A drift stream like the docs' (six monthly batches of 1,500 cases; women's false-negative
rate 0.5, from month 4 0.7) is monitored in one call; its ``report.html`` must read
Verified. Editing one batch rate, moving the change marker, swapping a look's verdict or
the alarm's look in the text must each make it read "Not verified" on ``page_text``.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main

pytestmark = pytest.mark.slow

SPEC = """\
system: {name: credit-model, version: "3"}
fairness:
  label: defaulted
  prediction: flagged
  attributes:
    sex: [female, male]
  rules:
    - {id: fnr-gap, rate: false_negative, attribute: sex, max_group_gap: 0.10}
"""


def _month(path: Path, month: int, rng: random.Random, n: int = 1500) -> None:
    rows = ["defaulted,flagged,sex"]
    for _ in range(n):
        sex = rng.choice(("female", "male"))
        defaulted = int(rng.random() < 0.5)
        fnr = (0.7 if month >= 4 else 0.5) if sex == "female" else 0.48
        flagged = int(rng.random() >= fnr) if defaulted else int(rng.random() < 0.2)
        rows.append(f"{defaulted},{flagged},{sex}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    work = tmp_path_factory.mktemp("drift")
    (work / "credit.yaml").write_text(SPEC, encoding="utf-8")
    rng = random.Random(26)
    for month in range(1, 7):
        _month(work / f"month{month}.csv", month, rng)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(work / "keys"))
        mp.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
        batches = [str(work / f"month{m}.csv") for m in range(1, 7)]
        args = ["monitor", str(work / "credit.yaml"), *batches, "--no-ledger"]
        assert main([*args, "--out", str(work / "out")]) == 1
    return (work / "out" / "report.html").read_text(encoding="utf-8")


def test_the_monitoring_page_of_a_drift_run_reads_verified(page: str, open_html: Any) -> None:
    opened = open_html(page)
    assert opened.settled() == ("true", ""), opened.page.inner_text("#verify-summary")
    assert opened.errors == [] and all(u.startswith("file:") for u in opened.requests)
    text = opened.page.inner_text("main")
    assert "change detected at look 4" in text
    assert "The stream's verdict is its latest look's (look 6)" in text
    assert opened.page.locator("figure.chart").count() == 2
    assert opened.page.locator("table.looks tbody tr").count() == 6
    assert opened.page.locator("figure.chart > svg circle.point").count() == 12


def _edit_batch_rate(html: str) -> str:
    # look 4's batch rate of women in the table: 0.73.. shown as 0.63..
    found = re.search(r'(data-fmt="rate_iv">)0\.7', html)
    assert found is not None
    return html[: found.start()] + found.group(1) + "0.6" + html[found.end() :]


def _move_alarm(html: str) -> str:
    line = re.search(r'<line class="alarm" x1="([0-9.]+)"[^>]*x2="([0-9.]+)"', html)
    assert line is not None
    moved = f"{float(line.group(1)) + 112.7:.1f}"  # one look later
    edited = line.group(0).replace(f'x1="{line.group(1)}"', f'x1="{moved}"')
    edited = edited.replace(f'x2="{line.group(2)}"', f'x2="{moved}"')
    return html.replace(line.group(0), edited, 1)


def _swap_verdict(html: str) -> str:
    # look 3's row shows look 4's verdict (FAIL) in place of its own
    rows = re.findall(r'<tr data-record="(/predicate/records/[0-9]+)">', html)
    three, four = rows[2], rows[3]
    badge = re.search(
        rf'<span class="badge [^"]*" data-bind="{four}/verdict"[^>]*>[^<]*</span>', html
    )
    own = re.search(
        rf'<span class="badge [^"]*" data-bind="{three}/verdict"[^>]*>[^<]*</span>', html
    )
    assert badge is not None and own is not None
    return html.replace(own.group(0), badge.group(0), 1)


def _alarm_text(html: str) -> str:
    assert "change detected at look 4</text>" in html
    return html.replace("change detected at look 4</text>", "change detected at look 5</text>", 1)


@pytest.mark.parametrize("edit", [_edit_batch_rate, _move_alarm, _swap_verdict, _alarm_text])
def test_an_edited_monitoring_page_is_not_verified(page: str, open_html: Any, edit: Any) -> None:
    edited = edit(page)
    assert edited != page
    opened = open_html(edited)
    verified, failed = opened.settled()
    assert (verified, failed) == ("false", "page_text"), opened.page.inner_text("#verify-summary")


# -- a stream continued over six runs: the sixth run's page draws the whole stream ----------


@pytest.fixture(scope="module")
def stream_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The page of the sixth of six ``respai monitor`` calls, one month each, ledger kept."""
    work = tmp_path_factory.mktemp("stream")
    (work / "credit.yaml").write_text(SPEC, encoding="utf-8")
    rng = random.Random(26)
    for month in range(1, 7):
        _month(work / f"month{month}.csv", month, rng)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(work / "keys"))
        mp.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
        codes = [
            main(
                [
                    "monitor",
                    str(work / "credit.yaml"),
                    str(work / f"month{m}.csv"),
                    "--ledger",
                    str(work / "ledger"),
                    "--out",
                    str(work / f"out{m}"),
                ]
            )
            for m in range(1, 7)
        ]
    assert codes[-1] == 1 and codes[:3] == [3, 3, 3], codes
    return (work / "out6" / "report.html").read_text(encoding="utf-8")


def test_the_sixth_run_of_a_stream_draws_all_six_looks(stream_page: str, open_html: Any) -> None:
    opened = open_html(stream_page)
    assert opened.settled() == ("true", ""), opened.page.inner_text("#verify-summary")
    text = opened.page.inner_text("main")
    assert "This run holds look(s) 6 of the stream; look(s) 1–5 are from earlier runs" in text
    assert "change detected at look 4" in text
    assert opened.page.locator("table.looks tbody tr").count() == 6
    assert opened.page.locator("table.looks tbody tr.earlier").count() == 5
    assert text.count("from earlier run ") == 5
    # two groups at each of six looks; the five earlier looks' dots are open
    assert opened.page.locator("figure.chart > svg circle.point").count() == 12
    assert opened.page.locator("figure.chart > svg circle.point.earlier").count() == 10
    assert opened.page.locator("figure.chart > svg line.alarm").count() == 2


def _edit_earlier_rate(html: str) -> str:
    # look 2's (an earlier run's) batch rate of a group in the table, changed in its first digit
    found = re.search(
        r'(data-bind="/predicate/records/0/monitor/history/1/details/groups/0/batch" '
        r'data-fmt="rate_iv">)0\.(\d)',
        html,
    )
    assert found is not None
    digit = str((int(found.group(2)) + 1) % 10)
    return html[: found.start()] + found.group(1) + "0." + digit + html[found.end() :]


def _own_look_marked_earlier(html: str) -> str:
    # the sixth (own) look's dot drawn open, as if it were copied from an earlier run
    found = re.search(r'<circle class="point s0" ', html)
    assert found is not None
    return html.replace(found.group(0), '<circle class="point s0 earlier" ', 1)


def _drop_earlier_dot(html: str) -> str:
    found = re.search(r'<circle class="point s1 earlier" [^>]*/>', html)
    assert found is not None
    return html.replace(found.group(0), "", 1)


@pytest.mark.parametrize("edit", [_edit_earlier_rate, _own_look_marked_earlier, _drop_earlier_dot])
def test_an_edited_earlier_look_is_not_verified(
    stream_page: str, open_html: Any, edit: Any
) -> None:
    edited = edit(stream_page)
    assert edited != stream_page
    opened = open_html(edited)
    verified, failed = opened.settled()
    assert (verified, failed) == ("false", "page_text"), opened.page.inner_text("#verify-summary")
