"""Two files: decisions joined to self-ID, reconciled, and refused when ids repeat."""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

SEL = {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race_ethnicity"}
TWO = {"id": "applicant_id", "demographics": "self_id.csv", "join_on": "applicant_id"}


def _files(
    tmp_path: Path,
    ll: SimpleNamespace,
    *,
    decisions: list[tuple[Any, ...]] | None = None,
    self_id: list[tuple[Any, ...]] | None = None,
) -> None:
    ll.write_csv(
        tmp_path / "decisions.csv",
        ["applicant_id", "advanced"],
        decisions or [("A1", 1), ("A2", 0), ("A3", 1), ("A4", 0), ("A5", 1), ("A6", 1), ("A7", 0)],
    )
    ll.write_csv(
        tmp_path / "self_id.csv",
        ["applicant_id", "sex", "race_ethnicity"],
        self_id
        or [
            ("A1", "Male", "White"),
            ("A2", "Female", "White"),
            ("A3", "Female", "Asian"),
            ("A4", "Male", "Asian"),
            ("A5", "", "Asian"),
            ("B1", "Female", "White"),
            ("B2", "Male", "Hispanic or Latino"),
        ],
    )


def test_reconciliation_counts_unmatched_rows_on_each_side(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(tmp_path, ll)
    spec = ll.write_spec(tmp_path, {**SEL, "min_share": 0}, data=TWO)
    out = tmp_path / "out"
    run = cli_run("ll144", str(spec), "--json", "--out", str(out))
    assert run.code == 0, run.err
    payload = json.loads(run.out)
    rec = payload["reconciliation"]
    assert (rec["decision_rows"], rec["demographic_rows"], rec["joined"]) == (7, 7, 5)
    assert (rec["decisions_without_self_id"], rec["self_id_without_decision"]) == (2, 2)
    assert rec["applicants"] == 7
    assert (rec["sex_known"], rec["race_known"], rec["both_known"]) == (4, 5, 4)
    digests = {f["role"]: f["sha256"] for f in rec["files"]}
    for role, name in (("decisions", "decisions.csv"), ("self-identification", "self_id.csv")):
        assert digests[role] == hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()
    # A6 and A7 have no self-ID: unknown on both axes; B1 and B2 are in no table
    sex = payload["tables"]["sex"]
    assert sex["unknown"] == 3  # A5 (empty) + A6 + A7
    assert [r["applicants"] for r in sex["rows"]] == [2, 2]
    # the loud warning is in every output
    warning = "WARNING: the join on 'applicant_id' lost rows"
    assert any(w.startswith(warning) for w in payload["warnings"])
    assert warning in run.err
    for name in ("summary.md", "summary.csv", "ll144.json"):
        assert warning in (out / name).read_text(encoding="utf-8").replace("&#x27;", "'"), name
    assert html.escape(warning) in (out / "summary.html").read_text(encoding="utf-8")


def test_a_complete_join_has_no_warning(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(
        tmp_path,
        ll,
        decisions=[("A1", 1), ("A2", 0)],
        self_id=[("A2", "Female", "White"), ("A1", "Male", "White")],
    )
    spec = ll.write_spec(tmp_path, SEL, data=TWO)
    run = cli_run("ll144", str(spec), "--json")
    assert run.code == 0, run.err
    payload = json.loads(run.out)
    assert payload["reconciliation"]["joined"] == 2
    assert not any("lost rows" in w for w in payload["warnings"])


def test_a_duplicate_id_is_refused_with_both_lines(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(
        tmp_path,
        ll,
        self_id=[
            ("A1", "Male", "White"),
            ("A2", "Female", "White"),
            ("A3", "Female", "Asian"),
            ("A2", "Female", "Asian"),
        ],
    )
    spec = ll.write_spec(tmp_path, SEL, data=TWO)
    out = tmp_path / "out"
    run = cli_run("ll144", str(spec), "--json", "--out", str(out))
    assert run.code == 2 and run.out == ""
    assert "self_id.csv: the id 'A2' appears 2 times on lines 3 and 5" in run.err
    assert not out.exists()


def test_a_duplicate_in_the_decisions_file(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(tmp_path, ll, decisions=[("A1", 1), ("A2", 0), ("A1", 0)])
    spec = ll.write_spec(tmp_path, SEL, data=TWO)
    run = cli_run("ll144", str(spec))
    assert run.code == 2
    assert "decisions.csv: the id 'A1' appears 2 times on lines 2 and 4" in run.err


def test_an_empty_id_is_refused(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(tmp_path, ll, decisions=[("A1", 1), ("", 0)])
    spec = ll.write_spec(tmp_path, SEL, data=TWO)
    run = cli_run("ll144", str(spec))
    assert run.code == 2 and "is empty on line 3" in run.err


def test_a_missing_column_names_both_files(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(tmp_path, ll)
    spec = ll.write_spec(tmp_path, {**SEL, "race": "race"}, data=TWO)
    run = cli_run("ll144", str(spec))
    assert run.code == 2
    assert "nor" in run.err and "has a column 'race'" in run.err
    assert "Did you mean 'race_ethnicity'?" in run.err


def test_ids_with_leading_zeros_join_as_text(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    _files(
        tmp_path,
        ll,
        decisions=[("007", 1), ("7", 0)],
        self_id=[("007", "Male", "White"), ("7", "Female", "White")],
    )
    spec = ll.write_spec(tmp_path, SEL, data=TWO)
    run = cli_run("ll144", str(spec), "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["reconciliation"]["joined"] == 2
