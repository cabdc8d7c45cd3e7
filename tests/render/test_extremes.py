"""Long group lists: the report and the terminal show the groups at each end, and say so."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from respai.cli import main
from respai.render.extremes import ALL_UP_TO, EACH, each_end, extremes

values = st.lists(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 5),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([0.0, -0.0, 0.5, 0.5, 1.0]),
    ),
    max_size=60,
)


@given(values, st.integers(0, 30))
def test_extremes_are_the_lowest_and_highest_in_list_order(vals: list[Any], each: int) -> None:
    got = extremes(vals, each)
    if each == 0:
        assert got == list(range(len(vals)))
        return
    numbered = [
        i
        for i, v in enumerate(vals)
        if isinstance(v, int | float) and not isinstance(v, bool) and abs(v) != float("inf")
        if v == v
    ]

    # counted, not sorted: a group is shown when fewer than `each` groups come before it,
    # or fewer than `each` after it, where one comes before another by a lower value, or
    # by the same value earlier in the list
    def before(j: int, i: int) -> bool:
        return vals[j] < vals[i] or (vals[j] == vals[i] and j < i)

    want = [
        i
        for i in numbered
        if sum(before(j, i) for j in numbered) < each or sum(before(i, j) for j in numbered) < each
    ]
    assert got == want
    assert got == sorted(got) and len(got) <= min(len(numbered), 2 * each)


def test_each_end_starts_past_the_limit() -> None:
    assert each_end(ALL_UP_TO) == 0
    assert each_end(ALL_UP_TO + 1) == EACH
    assert each_end(0) == 0


def _many(tmp_path: Path, groups: int) -> tuple[Path, list[float]]:
    """A cases file where group g{i} has rate rates[i] of 40 cases, and its spec."""
    rates = [((i * 7) % groups) / groups for i in range(groups)]
    lines = ["shop,label,prediction"]
    for i, rate in enumerate(rates):
        ones = round(rate * 40)
        lines += [f"g{i},{k % 2},{int(k < ones)}" for k in range(40)]
    data = tmp_path / "cases.csv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    values = ", ".join(f"g{i}" for i in range(groups))
    spec.write_text(
        f"""system: {{name: shops, version: "1"}}
fairness:
  name: shops
  cases: {data.name}
  label: label
  prediction: prediction
  attributes:
    shop: [{values}]
  rules:
    - {{id: sel, rate: selection, attribute: shop, max_group_gap: 0.9}}
""",
        encoding="utf-8",
    )
    return spec, [round(r * 40) / 40 for r in rates]


def _listed(err: str, section: str) -> list[str]:
    """The group names in the first column of the table after the line holding ``section``."""
    lines = err.splitlines()
    start = next(i for i, line in enumerate(lines) if section in line)
    names = []
    for line in lines[start + 2 :]:
        found = re.match(r"\s*(g[0-9]+)\s", line)
        if not line.strip() or "not listed" in line:
            break
        if found:
            names.append(found.group(1))
    return names


@pytest.mark.parametrize("groups", [ALL_UP_TO, 73])
def test_the_terminal_lists_the_groups_at_each_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], groups: int
) -> None:
    spec, rates = _many(tmp_path, groups)
    code = main(["fairness", str(spec), "--json", "-q"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 3)
    doc = json.loads(out)
    rule = doc["rules"][0]
    assert len(rule["groups"]) == groups  # the JSON keeps every group
    by_rate = [f"g{i}" for i in extremes(rates, each_end(groups))]
    assert _listed(err, "sel ") == by_rate
    if groups > ALL_UP_TO:
        assert len(by_rate) == 2 * EACH
        note = (
            f"{groups - 2 * EACH} of {groups} groups are not listed: past {ALL_UP_TO} groups, "
            f"the table lists the {EACH} with the lowest and the {EACH} with the highest rate"
        )
        assert note in " ".join(err.split())
        assert "highest count" in err  # the per-group table, by count
    else:
        assert "not listed" not in err
