"""Regenerate the example outputs shown in the documentation from real runs.

Every transcript, JSON excerpt and printed result under ``docs/examples/`` is written by
this script: it runs the installed ``respai`` command line in a fresh temporary folder
(``respai demo``, ``respai fairness --json``, a policy run, a handful of broken inputs)
and the Python API example ``docs/examples/python_api.py``, then stores what they
printed. The temporary folder's path is replaced by the placeholder ``<work>`` so that a
re-run on another machine gives the same files.

Run it from the repository root with the project's environment active:

    python scripts/gen_docs_examples.py

It fails (exit 1) when a command exits with a code other than the expected one, when a
failed command leaves a file behind, or when the worked example in the methods page does
not reproduce the numbers the command printed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
PLACEHOLDER = "<work>"
WIDTH = "160"  # the width `respai demo` renders its own summary at

POLICY = """\
# release.yaml: the thresholds one release gate applies to the loan-screen spec.
name: loan-screen release gate
description: Thresholds agreed for the 2027 release; they override the spec's.
max_left_out: 0.05
rules:
  fnr-by-sex: {max_group_gap: 0.15}
  error-by-age: {worst_group: {max: 0.40}}
"""

# --- broken inputs for docs/errors.md ------------------------------------------------------

CASES_CSV = """\
case_id,label,prediction,sex,age_band
1,1,1,female,under_30
2,0,0,male,30_to_60
3,yes,1,male,over_60
4,0,1,female,30_to_60
"""

_GOOD_HEAD = """\
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
"""

ERRORS: dict[str, str] = {
    # an unknown key, with the closest allowed spelling
    "spec-typo": _GOOD_HEAD
    + """\
  attributes:
    sex: [female, male]
  min_cel: 30
""",
    # a declared column the file does not have
    "missing-column": """\
fairness:
  cases: cases.csv
  label: label
  prediction: predicted
  attributes:
    sex: [female, male]
""",
    # a label that is not 0 or 1, found while counting
    "bad-label": _GOOD_HEAD
    + """\
  attributes:
    sex: [female, male]
  rules:
    - {id: selection-by-sex, rate: selection, attribute: sex, max_group_gap: 0.10}
""",
    # YAML 1.1 reads unquoted yes / no as booleans
    "yaml-boolean": _GOOD_HEAD
    + """\
  attributes:
    sex: [female, male]
    consented: [yes, no]
""",
    # a rule over an intersection that is not declared
    "undeclared-intersection": _GOOD_HEAD
    + """\
  attributes:
    sex: [female, male]
    age_band: [under_30, 30_to_60, over_60]
  rules:
    - {id: fnr-crossed, rate: false_negative, attribute: [sex, age_band], max_group_gap: 0.10}
""",
}


def _respai() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m respai``."""
    script = Path(sys.executable).with_name("respai")
    return [str(script)] if script.exists() else [sys.executable, "-m", "respai"]


def _env(columns: str = WIDTH) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env.update(
        COLUMNS=columns,
        LINES="50",
        TERM="dumb",
        NO_COLOR="1",
        PYTHONIOENCODING="utf-8",
        LC_ALL="C.UTF-8",
    )
    env.pop("RESPAI_DEBUG", None)
    return env


class Run:
    """One command run in the work folder, with its outputs made path-independent."""

    def __init__(
        self, work: Path, shown: str, argv: list[str], expect: int, columns: str = WIDTH
    ) -> None:
        proc = subprocess.run(
            argv,
            cwd=work,
            env=_env(columns),
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        self.shown = shown
        self.code = proc.returncode
        self.stdout = _stable(proc.stdout, work)
        self.stderr = _stable(proc.stderr, work)
        if self.code != expect:
            sys.exit(
                f"gen_docs_examples: `{shown}` exited {self.code}, expected {expect}.\n"
                f"stderr:\n{proc.stderr}"
            )

    def transcript(self, stream: str = "stderr") -> str:
        """The command, what it printed on ``stream``, and its exit code."""
        text = getattr(self, stream).rstrip("\n")
        return f"$ {self.shown}\n{text}\n$ echo $?\n{self.code}\n"


def _stable(text: str, work: Path) -> str:
    for form in {str(work.resolve()), str(work)}:
        text = text.replace(form, PLACEHOLDER)
    # Rich pads table lines to the console width; trailing blanks are noise in the docs.
    return "\n".join(line.rstrip() for line in text.splitlines()) + ("\n" if text else "")


def _write(name: str, text: str) -> None:
    path = EXAMPLES / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _files(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*")}


# --- the examples ----------------------------------------------------------------------


def help_texts(work: Path) -> None:
    cmd = _respai()
    for name, args in (("help", []), ("fairness-help", ["fairness"]), ("demo-help", ["demo"])):
        run = Run(
            work, " ".join(["respai", *args, "--help"]), [*cmd, *args, "--help"], 0, columns="88"
        )
        _write(f"{name}.txt", run.transcript("stdout"))


def demo(work: Path) -> None:
    cmd = _respai()
    run = Run(work, "respai demo --out respai-demo", [*cmd, "demo", "--out", "respai-demo"], 0)
    _write("demo.txt", run.transcript())
    listing = sorted(str(p) for p in (work / "respai-demo").rglob("*") if p.is_file())
    _write("demo-files.txt", "\n".join(_stable(p, work).strip() for p in listing) + "\n")
    spec = (work / "respai-demo" / "loan_screen.yaml").read_text(encoding="utf-8")
    _write("loan_screen.yaml", spec)
    head = (work / "respai-demo" / "tables" / "sex.csv").read_text(encoding="utf-8")
    _write("demo-sex-table.csv", "".join(head.splitlines(keepends=True)[:7]))

    # an --out folder that exists and is not an earlier demo output is refused
    (work / "notes").mkdir()
    (work / "notes" / "keep.txt").write_text("mine\n", encoding="utf-8")
    before = _files(work)
    refused = Run(work, "respai demo --out notes", [*cmd, "demo", "--out", "notes"], 2)
    if _files(work) != before:
        sys.exit("gen_docs_examples: a refused demo left files behind")
    _write("demo-refused.txt", refused.transcript())


def fairness(work: Path) -> dict[str, Any]:
    cmd = _respai()
    spec = "respai-demo/loan_screen.yaml"
    run = Run(
        work,
        f"respai fairness {spec} --json > fairness.json",
        [*cmd, "fairness", spec, "--json"],
        1,
    )
    _write("fairness.txt", run.transcript())
    readme_example(run.transcript())
    full = json.loads(run.stdout)
    _write("fairness.json", _json(full))
    keep = ("kind", "engine", "name", "source", "spec_sha256", "policy", "verdict", "exit_code")
    excerpt = {k: full[k] for k in keep}
    excerpt["rules"] = [full["rules"][0]]
    excerpt.update({k: full[k] for k in ("cases", "unit", "settings")})
    _write("fairness-rule.json", _json(excerpt))
    table = {
        "tables": {
            "sex": {
                "attributes": full["tables"]["sex"]["attributes"],
                "rows": full["tables"]["sex"]["rows"][:1],
                "left_out": full["tables"]["sex"]["left_out"],
            }
        },
        "calibration": {"sex": full["calibration"]["sex"]},
        "calibration_note": full["calibration_note"],
        "assumptions": full["assumptions"],
    }
    _write("fairness-table.json", _json(table))
    return dict(full)


def policy(work: Path) -> None:
    cmd = _respai()
    (work / "release.yaml").write_text(POLICY, encoding="utf-8")
    _write("release.yaml", POLICY)
    spec = "respai-demo/loan_screen.yaml"
    shown = f"respai fairness {spec} --policy release.yaml"
    run = Run(work, shown, [*cmd, "fairness", spec, "--policy", "release.yaml", "--json"], 1)
    _write("policy.txt", run.transcript())
    full = json.loads(run.stdout)
    excerpt = {
        "policy": full["policy"],
        "verdict": full["verdict"],
        "exit_code": full["exit_code"],
        "settings": full["settings"],
        "rules": [
            {k: r[k] for k in ("id", "verdict", "reason", "threshold")}
            | {"left_out": {k: r["left_out"][k] for k in ("max_left_out", "max_left_out_source")}}
            for r in full["rules"]
        ],
    }
    _write("policy-excerpt.json", _json(excerpt))


def errors(work: Path) -> None:
    cmd = _respai()
    folder = work / "broken"
    folder.mkdir()
    (folder / "cases.csv").write_text(CASES_CSV, encoding="utf-8")
    _write("errors/cases.csv", CASES_CSV)
    for name, text in ERRORS.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
        _write(f"errors/{name}.yaml", text)
        before = _files(folder)
        run = Run(folder, f"respai fairness {name}.yaml", [*cmd, "fairness", f"{name}.yaml"], 2)
        if _files(folder) != before:
            sys.exit(f"gen_docs_examples: the failed run of {name}.yaml left files behind")
        if "Traceback" in run.stderr or run.stdout:
            sys.exit(f"gen_docs_examples: {name}.yaml printed a traceback or to stdout")
        _write(f"errors/{name}.txt", run.transcript())
    usage = Run(
        folder,
        "respai fairness bad-label.yaml --jsn",
        [*cmd, "fairness", "bad-label.yaml", "--jsn"],
        2,
    )
    _write("errors/usage.txt", usage.transcript())


def python_api(work: Path) -> None:
    script = EXAMPLES / "python_api.py"
    run = Run(work, "python python_api.py", [sys.executable, str(script)], 0)
    if run.stderr.strip():
        sys.exit(f"gen_docs_examples: python_api.py wrote to stderr:\n{run.stderr}")
    _write("python_api.out.txt", run.stdout)


def worked_gap(full: dict[str, Any]) -> None:
    """Recompute the first rule of the demo by hand from its counts, with respai.stats."""
    from respai import stats

    rule = full["rules"][0]
    if rule["rate"] != "false_negative" or len(rule["groups"]) != 2:
        sys.exit("gen_docs_examples: the worked example expects a two-group FNR rule first")
    groups = rule["groups"]
    g = len(groups)
    alpha = rule["alpha"]
    per = stats.bonferroni_alpha(alpha, g)
    lines = [
        f"rule {rule['id']}: {rule['rate']} rate by {' × '.join(rule['attribute'])}, "
        f"max_group_gap {rule['threshold']['max_group_gap']}",
        f"G = {g} declared groups, alpha = {alpha}  ->  alpha / G = {per:g} per group "
        f"(each interval at {1 - per:.4g})",
        "",
    ]
    intervals = []
    for grp in groups:
        n, k, m = grp["cases"], grp["events"], grp["missing_prediction"]
        iv = stats.widened_interval(k, m, n, per)
        lo_cp = stats.clopper_pearson_interval(k, n, per)
        hi_cp = stats.clopper_pearson_interval(k + m, n, per)
        assert lo_cp is not None and hi_cp is not None
        if (iv.lo, iv.hi) != (grp["interval"]["lo"], grp["interval"]["hi"]):
            sys.exit(f"gen_docs_examples: worked interval of {grp['group']} differs")
        intervals.append(iv)
        lines += [
            f"{grp['group']}: {n} cases labelled 1; {m} without a prediction; "
            f"{k} predicted 0 (events)",
            f"  rate          {k}/{n - m} = {k / (n - m):.4f}   (over the {n - m} with a "
            "prediction)",
            f"  lower bound   Clopper-Pearson lower of {k} of {n}       = {lo_cp.lo:.4f}"
            f"   (the {m} counted as non-events)",
            f"  upper bound   Clopper-Pearson upper of {k + m} of {n}       = {hi_cp.hi:.4f}"
            f"   (the {m} counted as events)",
            "",
        ]
    lo, hi = stats.max_gap_bounds(intervals)
    if (lo, hi) != (rule["gap_bounds"]["lo"], rule["gap_bounds"]["hi"]):
        sys.exit("gen_docs_examples: worked gap bounds differ from the command's")
    a, b = groups[0]["group"], groups[1]["group"]
    limit = rule["threshold"]["max_group_gap"]
    lines += [
        "largest gap between two groups, all intervals holding at once:",
        f"  at least  max(lo_{a} - hi_{b}, lo_{b} - hi_{a}) = {lo:.4f}",
        f"  at most   max(hi_{a} - lo_{b}, hi_{b} - lo_{a}) = {hi:.4f}",
        "",
        f"proven broken?  {lo:.4f} > {limit}  {'yes' if lo > limit else 'no'}",
        f"proven held?    {hi:.4f} <= {limit}  {'yes' if hi <= limit else 'no'}",
        f"verdict         {rule['verdict']} ({rule['reason_code']})",
    ]
    _write("worked-gap.txt", "\n".join(lines) + "\n")


def readme_example(transcript: str) -> None:
    """Put the rule part of the fairness transcript between the README's markers."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    start = text.index("<!-- example:start")
    start = text.index("\n", start) + 1
    end = text.index("<!-- example:end -->")
    lines = transcript.splitlines()[1:]  # drop the "$ command" line
    cut = next(i for i, line in enumerate(lines) if "per-group table" in line)
    block = "```text\n" + "\n".join(lines[:cut]).rstrip() + "\n```\n"
    readme.write_text(text[:start] + block + text[end:], encoding="utf-8")


def main() -> None:
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="respai-docs-"))
    try:
        help_texts(work)
        demo(work)
        full = fairness(work)
        policy(work)
        errors(work)
        python_api(work)
        worked_gap(full)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
