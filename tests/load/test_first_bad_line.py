"""An error about a bad label or prediction names the first bad line of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from respai.cli import main

SPEC = """\
fairness:
  cases: c.csv
  label: label
  prediction: prediction
  attributes:
    sex: [f, m]
"""


@pytest.mark.parametrize(
    ("rows", "role", "value", "line"),
    [
        # the largest bad value (2) comes later than the first bad line (7 on line 5)
        (["1,1,f", "0,0,m", "1,1,f", "7,1,m", "1,1,f", "2,0,f"], "label", "'7'", 5),
        (["1,1,f", "0,yes,m", "1,1,f", "0,2,m"], "prediction", "'yes'", 3),
        (["1,1,f", "0,0,m", "1,9,f", "0,3,m"], "prediction", "'9'", 4),
    ],
)
def test_the_first_bad_line_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[str], role: str,
    value: str, line: int,
) -> None:  # fmt: skip
    (tmp_path / "c.csv").write_text("label,prediction,sex\n" + "\n".join(rows) + "\n")
    (tmp_path / "s.yaml").write_text(SPEC)
    assert main(["fairness", str(tmp_path / "s.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"the {role} column '{role}' holds {value} (first at line {line})" in err, err
