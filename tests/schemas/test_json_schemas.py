"""Every command's ``--json`` document against the schema shipped in ``respai/schemas``.

Each command runs on generated data (a cases file, matched pairs, two monitoring
batches); its standard output must validate. ``respai evaluate --json`` must also hold
every number its terminal summary prints: each number of the test table as a number of
the document (to the digits shown), each number of a reason or note as a number or
inside the same sentence of it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from respai import metrics
from respai.schemas import COMMANDS, command_schema, validate_output
from respai.spec.fairness import EQUALIZED_ODDS

SPEC = """\
system: {name: schema-test, version: "1"}
data:
  cases: cases.csv
  id: id
  source: test
  explanation: generated for the test
fairness:
  label: y
  prediction: p
  probability: s
  attributes: {sex: [Female, Male], race: [White, Black or African American]}
  intersections: [[sex, race]]
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.2}
"""
LL144 = """\
ll144:
  kind: selection
  selected: p
  sex: sex
  race: race
"""
PAIRED = """\
system: {name: paired-test}
paired:
  cases: pairs.csv
  pair: cv
  variant: variant
  variants: [control, b, h]
  outcome: advanced
  max_difference: 0.1
"""
MONITOR = """\
system: {name: monitor-test}
fairness:
  label: y
  prediction: p
  attributes: {sex: [Female, Male]}
  rules:
    - {id: gap, rate: selection, attribute: sex, max_group_gap: 0.3}
"""


def _write(folder: Path) -> None:
    rng = np.random.default_rng(11)
    n = 300
    y = rng.integers(0, 2, n)
    pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "y": y,
            "p": np.where(rng.random(n) < 0.8, y, 1 - y),
            "s": rng.integers(0, 1000, n) / 1000,
            "sex": rng.choice(["Female", "Male"], n),
            "race": rng.choice(["White", "Black or African American"], n),
        }
    ).to_csv(folder / "cases.csv", index=False)
    rows = []
    for i in range(100):
        base = int(rng.random() < 0.5)
        rows += [
            {"cv": f"cv{i}", "variant": v, "advanced": base if rng.random() < 0.9 else 1 - base}
            for v in ("control", "b", "h")
        ]
    pd.DataFrame(rows).to_csv(folder / "pairs.csv", index=False)
    for week in (0, 1):
        yy = rng.integers(0, 2, 120)
        pd.DataFrame(
            {
                "y": yy,
                "p": np.where(rng.random(120) < 0.8, yy, 1 - yy),
                "sex": rng.choice(["Female", "Male"], 120),
            }
        ).to_csv(folder / f"week{week}.csv", index=False)
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "ll144.yaml").write_text(SPEC + LL144, encoding="utf-8")
    (folder / "paired.yaml").write_text(PAIRED, encoding="utf-8")
    (folder / "monitor.yaml").write_text(MONITOR, encoding="utf-8")


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", *args, "--json"],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
        timeout=300,
        env={**os.environ, "RESPAI_HOME": str(folder / "keys")},  # its own key folder
    )


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("json")
    _write(folder)
    runs = {
        "evaluate": ("evaluate", "ll144.yaml", "--out", "ev", "--ledger", "book"),
        "evaluate-plain": ("evaluate", "spec.yaml", "--out", "ev2", "--no-ledger"),
        "fairness": ("fairness", "spec.yaml"),
        "ll144": ("ll144", "ll144.yaml"),
        "paired": ("paired", "paired.yaml"),
        "monitor": ("monitor", "monitor.yaml", "week0.csv", "week1.csv", "--ledger", "book"),
        "plan": ("plan", "spec.yaml", "--ledger", "book"),
    }
    got: dict[str, Any] = {}
    for name, args in runs.items():
        proc = _run(folder, *args)
        assert proc.returncode in (0, 1, 3, 4), (name, proc.stderr)
        got[name] = {"json": json.loads(proc.stdout), "stderr": proc.stderr}
    verified = _run(folder, "verify", "ev/record.json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    got["verify"] = {"json": json.loads(verified.stdout), "stderr": verified.stderr}
    ledger = _run(folder, "verify", "--ledger", "book")
    got["verify-ledger"] = {"json": json.loads(ledger.stdout), "stderr": ledger.stderr}
    again = _run(folder, "evaluate", "ll144.yaml", "--out", "ev3", "--ledger", "book")
    assert again.returncode in (0, 1, 3, 4), again.stderr
    packed = subprocess.run(
        [sys.executable, "-m", "respai", "pack", "ll144.yaml", "--out", "pk", "--ledger", "book"],
        capture_output=True, text=True, cwd=folder, check=False, timeout=300,
        env={**os.environ, "RESPAI_HOME": str(folder / "keys")},
    )  # fmt: skip
    assert packed.returncode == 0, packed.stderr
    for name, args in {
        "reproduce": ("reproduce", "pk"),
        "log": ("log", "--ledger", "book"),
        "compare": ("compare", "-2", "-1", "--ledger", "book"),
    }.items():
        proc = _run(folder, *args)
        assert proc.returncode == 0, (name, proc.stderr)
        got[name] = {"json": json.loads(proc.stdout), "stderr": proc.stderr}
    return got


@pytest.mark.parametrize(
    ("run", "command"),
    [
        ("evaluate", "evaluate"),
        ("evaluate-plain", "evaluate"),
        ("fairness", "fairness"),
        ("ll144", "ll144"),
        ("paired", "paired"),
        ("monitor", "monitor"),
        ("plan", "plan"),
        ("verify", "verify"),
        ("verify-ledger", "verify"),
        ("log", "log"),
        ("compare", "compare"),
        ("reproduce", "reproduce"),
    ],
)
def test_every_json_output_matches_its_shipped_schema(
    outputs: dict[str, Any], run: str, command: str
) -> None:
    assert validate_output(command, outputs[run]["json"]) == []


def test_every_command_has_a_schema_that_is_itself_valid() -> None:
    from jsonschema import Draft202012Validator

    for command in COMMANDS:
        schema = command_schema(command)
        Draft202012Validator.check_schema(schema)
        assert schema["$id"].endswith(f"/{command}.schema.json")


def test_a_schema_refuses_what_its_command_never_writes(outputs: dict[str, Any]) -> None:
    doc = json.loads(json.dumps(outputs["evaluate-plain"]["json"]))
    doc["tests"][0]["verdict"] = "MAYBE"
    doc["per_group"]["overall"]["metrics"]["fnr"] = doc["per_group"]["overall"]["metrics"][
        "selection"
    ]
    del doc["tests"][1]["details"]
    errors = validate_output("evaluate", doc)
    assert any("$.tests[0].verdict" in e for e in errors)
    assert any("'fnr' is not one of" in e for e in errors)
    assert any("$.tests[1]" in e and "details" in e for e in errors)
    fairness = json.loads(json.dumps(outputs["fairness"]["json"]))
    fairness["rules"][0]["groups"][0]["rate"] = 1.5
    assert validate_output("fairness", fairness)


def test_the_rate_names_of_the_schema_are_the_registry_names() -> None:
    defs = json.loads(
        (Path(__file__).resolve().parents[2] / "src/respai/schemas/defs.schema.json").read_text()
    )
    assert defs["$defs"]["rate_name"]["enum"] == list(metrics.RATES)
    rule_rates = [r.value for r in metrics.Rate] + [EQUALIZED_ODDS]  # both error rates
    assert defs["$defs"]["rule"]["properties"]["rate"]["enum"] == rule_rates


# --- every number the terminal shows is in the JSON ------------------------------------

_NUMBER = re.compile(r"(?<![\w.#:-])-?\d+(?:\.\d+)?%?(?![\w.])")


def _numbers(o: Any) -> Iterator[float]:
    if isinstance(o, bool):
        return
    if isinstance(o, int | float):
        yield float(o)
    elif isinstance(o, dict):
        for v in o.values():
            yield from _numbers(v)
    elif isinstance(o, list):
        for v in o:
            yield from _numbers(v)


def _strings(o: Any) -> Iterator[str]:
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values():
            yield from _strings(v)
    elif isinstance(o, list):
        for v in o:
            yield from _strings(v)


def missing_numbers(terminal: str, payload: Any) -> list[str]:
    """Numbers of ``terminal`` the JSON lacks.

    On a row of the test table (a line that starts with a test's key) every number must
    be a number of the JSON, to the digits shown. Elsewhere (the reasons, notes and
    interpretation) a number may also be a word of one of the JSON's sentences.
    """
    values = list(_numbers(payload))
    words = {w for s in _strings(payload) for w in re.findall(r"\d+(?:\.\d+)?", s)}
    keys = {t["test_key"] for t in payload.get("tests", [])}
    out = []
    for line in terminal.splitlines():
        first = line.split()[0] if line.split() else ""
        cut = first.removesuffix("…")  # a long key is cut short in the table
        in_table = first in keys or (cut != first and any(k.startswith(cut) for k in keys))
        for token in _NUMBER.findall(line):
            text = token.rstrip("%")
            digits = len(text.split(".")[1]) if "." in text else 0
            x = float(text) / (100 if token.endswith("%") else 1)
            tol = 0.5 * 10 ** -(digits + (2 if token.endswith("%") else 0)) + 1e-12
            if any(abs(v - x) <= tol for v in values):
                continue
            if not in_table and text in words:
                continue
            out.append(f"{token} in {line.strip()!r}")
    return out


@pytest.mark.parametrize("run", ["evaluate", "evaluate-plain"])
def test_every_number_the_evaluate_terminal_prints_is_in_its_json(
    outputs: dict[str, Any], run: str
) -> None:
    terminal, payload = outputs[run]["stderr"], outputs[run]["json"]
    assert re.search(r"\d\.\d{3}", terminal)  # the summary shows values
    table = [ln for ln in terminal.splitlines() if ln.startswith(("accuracy ", "impact_ratio"))]
    assert table  # and the check reads the test table as such
    assert missing_numbers(terminal, payload) == []


def test_the_number_check_catches_a_summary_without_the_details(
    outputs: dict[str, Any],
) -> None:
    # the --json of 0.3.0 (test summaries only) lacked the rules' gap bounds, which the
    # terminal prints: the check must notice
    payload = outputs["evaluate-plain"]["json"]
    keep = ("test_key", "test_id", "value", "interval", "threshold", "verdict", "uncertain")
    old = {
        **{k: payload[k] for k in ("kind", "verdict", "exit_code", "fingerprints")},
        "tests": [{k: t.get(k) for k in keep} for t in payload["tests"]],
    }
    assert missing_numbers(outputs["evaluate-plain"]["stderr"], old)


@pytest.mark.parametrize("run", ["fairness", "ll144", "paired", "monitor", "plan"])
def test_every_number_the_other_commands_print_is_in_their_json(
    outputs: dict[str, Any], run: str
) -> None:
    payload = outputs[run]["json"]
    if run == "ll144":
        # the terminal's "no kept category has an impact ratio under 0.85" is the line plus
        # the margin, which the JSON gives as its two parts (a new key would make packs
        # sealed before it read NOT IDENTICAL on reproduce)
        settings = payload["settings"]
        payload = {**payload, "derived": settings["line"] + settings["margin"]}
    assert missing_numbers(outputs[run]["stderr"], payload) == []
