"""The pre-commit hook runs as declared: ``entry`` + ``args`` gate on the verdict."""

from __future__ import annotations

import csv
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _hook() -> dict[str, Any]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = [h for h in hooks if h["id"] == "respai-gate"]
    return hook  # type: ignore[no-any-return]


def _write(folder: Path, *, biased: bool) -> None:
    """Cases with 10% errors; ``biased``: women are selected far less often than men.

    4,000 cases: the battery decides on the interval (engine 0.4.0), and an impact ratio
    of 1 needs about that many for its interval to clear 0.8.
    """
    with (folder / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "label", "prediction", "sex"])
        for i in range(4000):
            sex = "f" if i % 2 else "m"
            label = (i // 2) % 2
            prediction = label if i % 10 else 1 - label
            if biased and sex == "f" and i % 3:
                prediction = 0
            w.writerow([f"c{i}", label, prediction, sex])
    (folder / "respai.yaml").write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  unit: id\n  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: sel, rate: selection, attribute: sex, max_group_gap: "
        f"{0.1 if biased else 0.3}}}\n"
        "evaluation:\n  tests: [accuracy, impact_ratio]\n",
        encoding="utf-8",
    )


def _run_hook(folder: Path) -> subprocess.CompletedProcess[bytes]:
    hook = _hook()
    command = [*shlex.split(hook["entry"]), *hook["args"]]
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
        "RESPAI_HOME": str(folder / "keys"),
    }
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, check=False)


def test_the_hook_is_declared_for_pre_commit() -> None:
    hook = _hook()
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    assert shlex.split(hook["entry"]) == ["respai", "evaluate"]
    assert "--junit" in hook["args"]


@pytest.mark.parametrize(("biased", "code", "failures"), [(True, 1, "1"), (False, 0, "0")])
def test_the_hook_gates_on_the_verdict_and_writes_junit(
    tmp_path: Path, biased: bool, code: int, failures: str
) -> None:
    _write(tmp_path, biased=biased)
    done = _run_hook(tmp_path)
    assert done.returncode == code, done.stderr.decode()
    args = _hook()["args"]
    junit = tmp_path / args[args.index("--junit") + 1]
    root = ET.parse(junit).getroot()
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert [c.get("name") for c in suites["respai.battery"].findall("testcase")] == [
        "Accuracy [accuracy]",
        "Impact ratio by sex [impact_ratio:sex]",
    ]
    assert root.get("failures") == ("0" if code == 0 else str(1 + int(failures)))
    assert suites["respai.rules"].get("failures") == failures
    assert [c.get("name") for c in suites["respai.rules"].findall("testcase")] == [
        "Group rule sel [rule:sel]"
    ]
    out = tmp_path / args[args.index("--out") + 1]
    assert (out / "record.json").is_file() and (out / "report.html").is_file()


def test_a_bad_spec_fails_the_hook_with_2_and_no_junit(tmp_path: Path) -> None:
    _write(tmp_path, biased=True)
    spec = tmp_path / "respai.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("cases.csv", "nowhere.csv"))
    done = _run_hook(tmp_path)
    assert done.returncode == 2
    args = _hook()["args"]
    assert not (tmp_path / args[args.index("--junit") + 1]).exists()
