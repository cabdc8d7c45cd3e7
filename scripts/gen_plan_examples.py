"""Regenerate the plan examples shown in docs/commands/plan.md from a real run.

Writes ``docs/examples/plan-help.txt``, ``plan.yaml`` (the spec, with its ``scope:``
block), ``plan.txt`` (what ``respai plan`` prints, before any data file exists),
``plan.json`` (its ``--json``) and ``plan-refused.txt`` (``respai evaluate --plan`` after a
threshold was raised: exit 2, naming the criterion). The plan id is the criteria's
SHA-256, so it is the same on every run; what changes from run to run (times, run and
record ids, the key, the temporary folder) is replaced by a placeholder. ``--check``
compares instead of writing (exit 1 on a difference).

    python scripts/gen_plan_examples.py [--check]
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import run_respai, write_or_check

SPEC = """\
# The criteria of a loan pre-approval audit, sealed before the cases file exists.
system: {name: loan-screen, version: "2.1"}
scope:
  decision_point: pre-approval screen (approve / refer to an underwriter)
  output_type: binary decision
  population: applicants who completed the online form
  window: 2026-01-01 to 2026-03-31
  categories: sex (female, male); age band (under 40, 40 and over)
  flag_rule: a group rule that FAILs is a finding; INSUFFICIENT_EVIDENCE is reported
  auditor: Internal model risk, second line
  independence_statement: the auditors did not build or tune the model
fairness:
  cases: cases.csv
  label: repaid
  prediction: approved
  alpha: 0.05
  min_cell: 30
  attributes:
    sex: [female, male]
    age_band: [under_40, 40_plus]
  intersections:
    - [sex, age_band]
  rules:
    - id: fnr-by-sex
      rate: false_negative
      attribute: sex
      max_group_gap: 0.1
"""

_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_KEY_FILE = re.compile(r"respai-[0-9a-f]{12}\.key")


def _stable(text: str, work: Path, plan_id: str) -> str:
    """``text`` with what differs between runs replaced by placeholders (not the plan id)."""
    text = text.replace(str(work), "<work>")
    text = _DIGEST.sub(lambda m: m.group(0) if m.group(0) == plan_id else "sha256:<digest>", text)
    text = _KEY_FILE.sub("respai-<key>.key", _STAMP.sub("<time>", text))
    return _UUID.sub("<run id>", text)


def generate() -> dict[str, str]:
    """The example files' contents, from runs in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "spec.yaml").write_text(SPEC, encoding="utf-8")
        helped = run_respai(work, "plan", "--help")
        shown = run_respai(work, "plan", "spec.yaml")
        js = run_respai(work, "plan", "spec.yaml", "--json")
        if shown.returncode != 0 or js.returncode != 0:
            raise SystemExit(f"respai plan failed: {shown.stderr}{js.stderr}")
        plan_id = json.loads(js.stdout)["plan_id"]
        raised = SPEC.replace("max_group_gap: 0.1", "max_group_gap: 0.2")
        (work / "spec.yaml").write_text(raised, encoding="utf-8")
        refused = run_respai(work, "evaluate", "spec.yaml", "--plan", plan_id)
        if refused.returncode != 2:
            raise SystemExit(f"expected exit 2, got {refused.returncode}: {refused.stderr}")
        return {
            "plan-help.txt": f"$ respai plan --help\n{helped.stdout}",
            "plan.yaml": SPEC,
            "plan.txt": _stable(
                "$ ls cases.csv\nls: cannot access 'cases.csv': No such file or directory\n"
                f"$ respai plan spec.yaml\n{shown.stderr}$ echo $?\n{shown.returncode}\n",
                work,
                plan_id,
            ),
            "plan.json": _stable(js.stdout, work, plan_id),
            "plan-refused.txt": _stable(
                "$ # the rule's threshold raised from 0.1 to 0.2 after a first look\n"
                f"$ respai evaluate spec.yaml --plan {plan_id}\n{refused.stderr}"
                f"$ echo $?\n{refused.returncode}\n",
                work,
                plan_id,
            ),
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
