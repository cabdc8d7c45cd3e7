"""Every ``--json`` document goes through the one emitter, ``respai.cli.output.emit_json``.

Each command with a ``--json`` option runs with the emitter replaced by a recorder: the
command must hand it exactly one document and write nothing else to standard output. A
command that gains ``--json`` without a case here fails the coverage test.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from respai.cli import all_commands, cli, main, output

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"

PLAN = [
    ("Male", "White", 60, 24),
    ("Female", "White", 55, 18),
    ("Male", "Asian", 30, 12),
    ("Female", "Asian", 28, 9),
    ("", "White", 5, 2),
]


def _ll144_spec(folder: Path) -> Path:
    with (folder / "decisions.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["applicant_id", "sex", "race", "advanced"])
        n = 0
        for sex, race, applicants, selected in PLAN:
            for i in range(applicants):
                writer.writerow([f"A{n:04d}", sex, race, int(i < selected)])
                n += 1
    spec = {
        "system": {"name": "screener", "version": "1.0", "first_distributed": "2025-03-01"},
        "data": {
            "cases": "decisions.csv",
            "source": "historical",
            "explanation": "Decisions of 2025, self-reported categories.",
        },
        "ll144": {
            "audit_date": "2026-11-30",
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
        },
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def _paired_spec(folder: Path) -> None:
    rows = ["pair_id,variant,advanced"]
    rows += [f"{i},{v},{int((i + (v == 'b')) % 3 == 0)}" for i in range(60) for v in "ab"]
    (folder / "pairs.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = {
        "paired": {
            "cases": "pairs.csv",
            "pair": "pair_id",
            "variant": "variant",
            "variants": ["a", "b"],
            "outcome": "advanced",
            "max_difference": 0.05,
        }
    }
    (folder / "paired.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A signed evaluation with its ledger, and an LL144 spec with its evidence pack."""
    folder = tmp_path_factory.mktemp("emit")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        mp.chdir(folder)
        assert main(["evaluate", str(SAMPLE), "--out", "run", "--quiet"]) == 1
        spec = _ll144_spec(folder)
        assert main(["pack", str(spec), "--out", "pack", "--no-ledger"]) == 0
        _paired_spec(folder)
        yield folder


#: command -> (arguments, relative to the work folder, and the exit code).
CASES: dict[str, tuple[list[str], int]] = {
    "fairness": ([str(SAMPLE), "--quiet"], 1),
    "evaluate": ([str(SAMPLE), "--out", "again", "--no-ledger", "--quiet"], 1),
    "verify": (["run/record.json", "--key", "run/public_key.pem"], 0),
    "log": ([], 0),
    "compare": (["run/record.json", "run/record.json"], 0),
    "ll144": (["audit.yaml"], 0),
    "reproduce": (["pack"], 0),
    "plan": ([str(SAMPLE), "--no-ledger"], 0),
    "paired": (["paired.yaml"], 3),
    "monitor": ([str(SAMPLE), str(SAMPLE.with_suffix(".csv")), "--no-ledger"], 1),
}


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(output, "emit_json", calls.append)
    return calls


@pytest.mark.parametrize("command", sorted(CASES))
def test_json_goes_through_the_one_emitter(
    command: str,
    work: Path,
    recorded: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(work / "keys"))
    monkeypatch.chdir(work)
    args, code = CASES[command]
    capsys.readouterr()
    assert main([command, *args, "--json"]) == code, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert out == ""  # nothing reached stdout but through the emitter
    assert len(recorded) == 1 and isinstance(recorded[0], dict), err
    json.dumps(recorded[0], allow_nan=False)  # and what it got is JSON


def _json_commands(group: click.Group, prefix: str = "") -> Iterator[str]:
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _json_commands(command, f"{prefix}{name} ")
        elif any("--json" in p.opts for p in command.params):
            yield f"{prefix}{name}"


def test_every_json_command_has_a_case() -> None:
    all_commands()  # every command module imported, so the group lists every command
    assert set(_json_commands(cli)) == set(CASES)


def test_the_emitter_writes_one_indented_document(capsys: pytest.CaptureFixture[str]) -> None:
    output.emit_json({"rate": 0.5, "label": "×é", "none": None})
    assert capsys.readouterr().out == '{\n  "rate": 0.5,\n  "label": "×é",\n  "none": null\n}\n'
    with pytest.raises(ValueError, match="JSON compliant"):
        output.emit_json({"rate": float("nan")})
    assert capsys.readouterr().out == ""


def test_a_command_error_is_one_paragraph_and_no_json(
    recorded: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reproduce", "no-such-pack", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and recorded == []
    assert err.startswith("respai: error: the pack no-such-pack does not exist.")
