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

import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from fractions import Fraction
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
            # never a terminal: a key passphrase comes from the environment or not at all
            stdin=subprocess.DEVNULL,
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
    for name in (
        "python_api",
        "python_api_evaluate",
        "python_api_accept",
        "python_api_ll144",
        "python_api_verify",
    ):
        script = EXAMPLES / f"{name}.py"
        run = Run(work, f"python {name}.py", [sys.executable, str(script)], 0)
        if run.stderr.strip():
            sys.exit(f"gen_docs_examples: {name}.py wrote to stderr:\n{run.stderr}")
        _write(f"{name}.out.txt", run.stdout)


def worked_gap(full: dict[str, Any]) -> None:
    """Recompute the first rule of the demo by hand from its counts, with respai.stats."""
    from respai import decision, stats

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
    lo, hi = decision.max_gap_bounds(intervals)
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


# --- signed records: respai evaluate, respai verify, respai keys ---------------------------

SPEC = "respai-demo/loan_screen.yaml"
PASSPHRASE = "correct horse battery staple"  # an example only; use a secret store

BATTERY_SPEC = """\
# battery.yaml: the sample data with an evaluation: block that chooses the battery's tests.
system: {name: loan-screen, version: "1.0"}
fairness:
  name: loan-screen battery
  cases: loan_screen.csv
  label: label
  prediction: prediction
  unit: person_id
  attributes:
    sex: [female, male]
    age_band: [under_30, 30_to_60, over_60]
  intersections:
    - [sex, age_band]
  rules:
    - {id: selection-by-sex, rate: selection, attribute: sex, max_group_gap: 0.15}
evaluation:
  # perturbation_stability is left out: without model access it reads MANUAL_REVIEW
  tests: [accuracy, auc, impact_ratio, selection_rate_diff, equal_opportunity_diff,
          completeness, class_balance]
  score: score
  seed: 20261201
"""

GATE = """\
# gate.yaml: battery thresholds and decision rules for one release gate.
name: loan-screen battery gate
tests:
  accuracy: {threshold: 0.85}
  impact_ratio: {decision: interval}
  equal_opportunity_diff: {threshold: 0.05, decision: interval}
"""

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z")
_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
_HEX40 = re.compile(r"\b[0-9a-f]{40}\b")
_KEY_STEM = re.compile(r"\brespai-([0-9a-f]{12})\b")


class Scrub:
    """Replace what changes from run to run (ids, times, keys, hashes) by placeholders.

    Digests of input files that do not change (the bundled sample, the example spec and
    policy files) and the all-zero genesis id are kept, so a reader can check them with
    ``sha256sum``; key ids and record ids get named placeholders so the text still shows
    which key signed and which record links to which.
    """

    def __init__(self) -> None:
        self.keep: set[str] = {"0" * 64}
        self.names: dict[str, str] = {}
        self.stems: dict[str, str] = {}

    def keep_file(self, path: Path) -> None:
        self.keep.add(hashlib.sha256(path.read_bytes()).hexdigest())

    def key(self, kid: str, label: str) -> None:
        """``sha256:<label-id>`` for the key id, ``respai-<label>`` for its file names."""
        hex_id = kid.removeprefix("sha256:")
        self.names[hex_id] = f"<{label}-id>"
        self.stems[hex_id[:12]] = f"<{label}>"

    def record(self, rid: str, seq: int) -> None:
        self.names[rid.removeprefix("sha256:")] = f"<record-id-{seq}>"

    def __call__(self, text: str) -> str:
        text = _KEY_STEM.sub(lambda m: "respai-" + self.stems.get(m[1], "<key>"), text)
        text = _HEX64.sub(
            lambda m: m[0] if m[0] in self.keep else self.names.get(m[0], "<sha256>"), text
        )
        text = _HEX40.sub("<git-commit>", text)
        text = _UUID.sub("<run-id>", text)
        return _TIMESTAMP.sub("<timestamp>", text)


@contextlib.contextmanager
def _environment(**values: str | None) -> Iterator[None]:
    """Set (or, with ``None``, remove) environment variables for the runs inside."""
    saved = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _listed_keys(folder: Path) -> list[str]:
    """The key ids of a key folder's keys.json, in the order they were created."""
    data = json.loads((folder / "keys.json").read_text(encoding="utf-8"))
    return [entry["key_id"] for entry in data["keys"]]


def _key_file(folder: Path, kid: str) -> str:
    return f"{folder.name}/respai-{kid.removeprefix('sha256:')[:12]}.key"


def _listing(work: Path, folders: list[str]) -> str:
    lines = []
    for name in folders:
        for path in sorted((work / name).iterdir()):
            mode = stat.filemode(path.stat().st_mode)
            lines.append(f"{mode}  {path.relative_to(work).as_posix()}")
    return "\n".join(lines) + "\n"


def _statement(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return statement


def _compact_json(data: Any, indent: int = 0) -> str:
    """Indented JSON with short lists of plain values on one line (keys, bins)."""
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(data, dict) and data:
        items = [
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {_compact_json(v, indent + 2)}"
            for k, v in data.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(data, list) and data:
        flat = json.dumps(data, ensure_ascii=False)
        if all(not isinstance(v, dict | list) for v in data) and len(flat) <= 88:
            return flat
        items = [f"{inner}{_compact_json(v, indent + 2)}" for v in data]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(data, ensure_ascii=False)


def _cut(items: list[Any], keep: int, what: str) -> list[Any]:
    """The first ``keep`` items, then a string saying how many were cut for the page."""
    if len(items) <= keep:
        return items
    more = len(items) - keep
    return [*items[:keep], f"… {more} more {what if more > 1 else what.removesuffix('s')}"]


def _cut_supports(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "supports": _cut(record["supports"], 1, "clauses")}


def signed_records(work: Path) -> None:
    """The examples of the evaluate, verify, keys, record and battery pages.

    The key folder is ``<work>/keys`` (``RESPAI_HOME``); no run touches the user's own
    key folder, and ``--no-ledger`` keeps the runs out of any ledger.
    """
    scrub = Scrub()
    for name in ("loan_screen.csv", "loan_screen.yaml"):
        scrub.keep_file(work / "respai-demo" / name)
    home = work / "keys"
    with _environment(RESPAI_HOME=str(home), RESPAI_KEY_PASSPHRASE=None, XDG_CONFIG_HOME=None):
        evaluate_examples(work, home, scrub)
        statement = record_examples(work, scrub)
        battery_worked(statement["predicate"])
        verify_examples(work, home, scrub)
        keys_examples(work, scrub)


def evaluate_examples(work: Path, home: Path, scrub: Scrub) -> None:
    cmd = _respai()
    for name, args in (
        ("evaluate-help", ["evaluate"]),
        ("verify-help", ["verify"]),
        ("keys-help", ["keys"]),
        ("keys-new-help", ["keys", "new"]),
    ):
        shown = " ".join(["respai", *args, "--help"])
        run = Run(work, shown, [*cmd, *args, "--help"], 0, columns="88")
        _write(f"{name}.txt", run.transcript("stdout"))

    # First run: no key yet, so one is created in the key folder.
    first = Run(
        work, f"respai evaluate {SPEC} --no-ledger", [*cmd, "evaluate", SPEC, "--no-ledger"], 1
    )
    if "was created" not in first.stderr:
        sys.exit("gen_docs_examples: the first evaluate run did not create a key")
    scrub.key(_listed_keys(home)[0], "key")
    _write("evaluate.txt", scrub(first.transcript()))
    _write("evaluate-files.txt", scrub(_listing(work, ["respai-out", "keys"])))
    summary = (work / "respai-out" / "summary.txt").read_text(encoding="utf-8")
    _write("evaluate-summary.txt", scrub(_stable(summary, work)))

    # Second run: the key is found; --json on stdout; the earlier output folder is replaced.
    again = Run(
        work,
        f"respai evaluate {SPEC} --no-ledger --json > evaluate.json",
        [*cmd, "evaluate", SPEC, "--no-ledger", "--json"],
        1,
    )
    if "was created" in again.stderr or len(_listed_keys(home)) != 1:
        sys.exit("gen_docs_examples: the second evaluate run created another key")
    full = json.loads(again.stdout)
    _write("evaluate.json", scrub(_json(full)))
    tests = full["tests"]
    # the excerpt: the summary, the first test and the one without a value, and the first
    # row of the per-group table; the record's other blocks are named, not shown
    shown = ("tests", "per_group", "counts", "control_mapping", "claims", "run_start")
    excerpt = {k: v for k, v in full.items() if k not in shown}
    excerpt["tests"] = [tests[0], *(t for t in tests if t["verdict"] == "MANUAL_REVIEW")]
    excerpt["tests"].append(f"… {len(tests) - 2} more tests")
    first = next(iter(full["per_group"]["tables"]))
    excerpt["per_group"] = {
        "cases": full["per_group"]["cases"],
        "tables": {first: {"rows": [full["per_group"]["tables"][first]["rows"][0], "…"]}},
        "…": "overall, calibration, and every table's rows and left-out counts",
    }
    excerpt |= {k: f"… as in the record ({k})" for k in shown if k not in excerpt}
    _write("evaluate-json.json", scrub(_json(excerpt)))

    # An evaluation: block and a policy with per-test thresholds and decision rules.
    (work / "respai-demo" / "battery.yaml").write_text(BATTERY_SPEC, encoding="utf-8")
    (work / "gate.yaml").write_text(GATE, encoding="utf-8")
    scrub.keep_file(work / "respai-demo" / "battery.yaml")
    scrub.keep_file(work / "gate.yaml")
    _write("battery.yaml", BATTERY_SPEC)
    _write("gate.yaml", GATE)
    gated = Run(
        work,
        "respai evaluate respai-demo/battery.yaml --policy gate.yaml --no-ledger --out gated",
        [
            *cmd,
            "evaluate",
            "respai-demo/battery.yaml",
            "--policy",
            "gate.yaml",
            "--no-ledger",
            "--out",
            "gated",
        ],
        1,
    )
    _write("evaluate-policy.txt", scrub(gated.transcript()))


def record_examples(work: Path, scrub: Scrub) -> dict[str, Any]:
    """Excerpts of the record the last run of the sample spec wrote to respai-out/."""
    envelope = json.loads((work / "respai-out" / "record.json").read_text(encoding="utf-8"))
    statement = _statement(work / "respai-out" / "record.json")
    predicate = statement["predicate"]
    records = predicate["records"]
    for r in records:
        scrub.record(r["record_id"], r["seq"])

    def out(name: str, data: Any) -> None:
        _write(name, scrub(_compact_json(data) + "\n"))

    out(
        "record-envelope.json",
        {
            "payload": "<base64 of the payload: the RFC 8785 bytes of the Statement>",
            "payloadType": envelope["payloadType"],
            "signatures": [
                {"keyid": s["keyid"], "sig": "<base64 of the 64-byte Ed25519 signature>"}
                for s in envelope["signatures"]
            ],
        },
    )
    out("record-statement.json", {**statement, "predicate": "<the record, below>"})
    top = dict(predicate)
    top["records"] = [
        f"<{len(records)} records: run_start, {len(records) - 2} test records, run_end>"
    ]
    top["counts"] = "<the counts, below>"
    out("record-predicate.json", top)
    by_key = {r.get("test_key"): r for r in records}
    out("record-run-start.json", records[0])
    out("record-test.json", _cut_supports(by_key["accuracy"]))
    out("record-test-ratio.json", _cut_supports(by_key["impact_ratio:sex"]))
    out("record-test-undefined.json", _cut_supports(by_key["perturbation_stability"]))
    out("record-test-rule.json", _cut_supports(by_key["rule:fnr-by-sex"]))
    auc = _cut_supports(by_key["auc"])
    auc["details"] = {
        **auc["details"],
        "per_group": {k: _cut(v, 1, "groups") for k, v in auc["details"]["per_group"].items()},
    }
    out("record-test-auc.json", auc)
    end = dict(records[-1])
    ids = end["record_ids"]
    end["record_ids"] = [*ids[:2], f"… {len(ids) - 3} more ids, in order", ids[-1]]
    out("record-run-end.json", end)

    counts = predicate["counts"]
    sex = counts["groupings"]["sex"]
    excerpt = {k: counts[k] for k in ("cases", "overall", "empty_cells")}
    excerpt["groupings"] = {
        "sex": {
            "attributes": sex["attributes"],
            "groups": sex["groups"],
            "left_out": sex["left_out"],
            "calibration_bins": _cut(sex["calibration_bins"], 1, "groups"),
            "rank_sums": _cut(sex["rank_sums"], 1, "groups"),
        },
        **{name: "…" for name in counts["groupings"] if name != "sex"},
    }
    excerpt["rank_sums"] = counts["rank_sums"]
    excerpt["calibration_bin_columns"] = counts["calibration_bin_columns"]
    out("record-counts.json", excerpt)
    return statement


def battery_worked(predicate: dict[str, Any]) -> None:
    """Recompute the impact ratio, the selection-rate difference and AUC by sex by hand."""
    from respai import stats

    tests = {r["test_key"]: r for r in predicate["records"] if r["record_type"] == "test"}
    groups = predicate["counts"]["groupings"]["sex"]["groups"]
    alpha = predicate["records"][0]["settings"]["alpha"]
    alpha_g = stats.bonferroni_alpha(alpha, len(groups))
    level = 1 - alpha_g
    lines = [
        "selection rates by sex, from counts.groupings.sex (over cases with a prediction;",
        "the interval counts the cases without one at their worst on each side)",
        f"G = {len(groups)} groups, alpha = {alpha}  ->  each Clopper-Pearson interval at "
        f"1 - alpha/G = {level:g}",
        "",
    ]
    rates, los, his, low, high = [], [], [], [], []
    for g in groups:
        k, n = g["tp"] + g["fp"], g["tp"] + g["fp"] + g["tn"] + g["fn"]
        m = g["missing_prediction_label_1"] + g["missing_prediction_label_0"]
        iv = stats.widened_interval(k, m, n + m, alpha_g)
        low.append(Fraction(k, n + m))  # every case without a prediction not selected
        high.append(Fraction(k + m, n + m))  # every one selected
        rates.append(k / n)
        los.append(iv.lo)
        his.append(iv.hi)
        lines.append(
            f"  {' × '.join(g['key']):<7} (tp + fp) / (tp + fp + tn + fn) = {k} / {n} = "
            f"{k / n:.4f}   ({m} without)  Clopper-Pearson {level:g}: "
            f"[{iv.lo:.4f}, {iv.hi:.4f}]"
        )
    ratio = min(rates) / max(rates)
    ratio_iv = (min(los) / max(his), min(1.0, min(his) / max(los)))
    diff = max(rates) - min(rates)
    diff_iv = (max(0.0, max(los) - min(his)), max(his) - min(los))
    pairs = [(i, j) for i in range(len(groups)) for j in range(len(groups)) if i != j]
    ratio_worst = float(min(Fraction(1), *(low[i] / high[j] for i, j in pairs)))
    diff_worst = float(max(high[i] - low[j] for i, j in pairs))
    for key, worst in (("impact_ratio:sex", ratio_worst), ("selection_rate_diff:sex", diff_worst)):
        if worst != tests[key]["value_range"]["worst"]:
            sys.exit(f"gen_docs_examples: the worked worst case of {key} differs from the record")
    for key, value, (lo, hi) in (
        ("impact_ratio:sex", ratio, ratio_iv),
        ("selection_rate_diff:sex", diff, diff_iv),
    ):
        record = tests[key]
        stored = (record["value"], record["interval"]["lo"], record["interval"]["hi"])
        if (value, lo, hi) != stored:
            sys.exit(f"gen_docs_examples: the worked {key} differs from the record")
    t_ir, t_sd = tests["impact_ratio:sex"]["threshold"], tests["selection_rate_diff:sex"]
    lines += [
        "",
        f"impact ratio         min / max = {min(rates):.4f} / {max(rates):.4f} = {ratio:.4f}",
        f"  worst case         min over g != h of k(g) / (n(g) + m(g)) over "
        f"(k(h) + m(h)) / (n(h) + m(h)) = {ratio_worst:.4f}",
        f"  interval           [min lo / max hi, min(1, min hi / max lo)] = "
        f"[{ratio_iv[0]:.4f}, {ratio_iv[1]:.4f}]",
        f"  verdict            worst case {ratio_worst:.4f} {t_ir['comparison']} {t_ir['value']}: "
        f"{tests['impact_ratio:sex']['verdict']}; uncertain: "
        f"{str(tests['impact_ratio:sex']['uncertain']).lower()} (the interval "
        f"{'crosses' if ratio_iv[0] < t_ir['value'] < ratio_iv[1] else 'does not cross'} "
        f"{t_ir['value']})",
        f"selection-rate diff  max - min = {max(rates):.4f} - {min(rates):.4f} = {diff:.4f}",
        f"  worst case         max over g != h of (k(g) + m(g)) / (n(g) + m(g)) - "
        f"k(h) / (n(h) + m(h)) = {diff_worst:.4f}",
        f"  interval           [max(0, max lo - min hi), max hi - min lo] = "
        f"[{diff_iv[0]:.4f}, {diff_iv[1]:.4f}]",
        f"  verdict            worst case {diff_worst:.4f} {t_sd['threshold']['comparison']} "
        f"{t_sd['threshold']['value']}: {t_sd['verdict']}; uncertain: "
        f"{str(t_sd['uncertain']).lower()}",
    ]
    ranks = predicate["counts"]["rank_sums"]
    positives, negatives = ranks["scored_labelled_1"], ranks["scored_labelled_0"]
    twice_u = int(ranks["twice_u"])
    sums = (
        positives,
        negatives,
        twice_u,
        int(ranks["positive_placement_squares"]),
        int(ranks["negative_placement_squares"]),
    )
    found = stats.auc_from_rank_sums(*sums)
    assert found is not None
    value, _, se = found
    score = stats.auc_score_interval(positives, negatives, twice_u)
    logit = stats.auc_logit_interval(*sums)
    iv = stats.auc_interval(*sums)
    record = tests["auc"]
    assert iv is not None and se is not None and score is not None and logit is not None
    small = min(positives, negatives) * min(value, 1 - value)
    bound = stats.auc_bound_joins(positives, negatives, twice_u)
    if (value, iv.lo, iv.hi) != (
        record["value"],
        record["interval"]["lo"],
        record["interval"]["hi"],
    ):
        sys.exit("gen_docs_examples: the worked AUC differs from the record")
    lines += [
        "",
        f"AUC from counts.rank_sums ({positives} cases labelled 1, {negatives} labelled 0)",
        f"  twice_u / (2 m n) = {twice_u} / (2 x {positives} x {negatives}) = {value:.4f}",
        f"  DeLong standard error {se:.5f} (from the squares)",
        f"  95% Newcombe score interval   [{score.lo:.4f}, {score.hi:.4f}] (from m, n, twice_u)",
        f"  95% DeLong logit, t quantile  [{logit.lo:.4f}, {logit.hi:.4f}] (from the squares)",
        "  the distribution-free bound   "
        + (
            f"joins (min(m, n) x min(AUC, 1 - AUC) = {small:.1f} < 5)"
            if bound
            else f"left out (min(m, n) x min(AUC, 1 - AUC) = {small:.1f} >= 5)"
        ),
        f"  95% interval: the widest      [{iv.lo:.4f}, {iv.hi:.4f}]",
    ]
    _write("battery-worked.txt", "\n".join(lines) + "\n")


def verify_examples(work: Path, home: Path, scrub: Scrub) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from respai.record import canonical_bytes, key_id, seal

    cmd = _respai()
    record, pub = "respai-out/record.json", "respai-out/public_key.pem"
    ok = Run(
        work, f"respai verify {record} --key {pub}", [*cmd, "verify", record, "--key", pub], 0
    )
    _write("verify.txt", scrub(ok.transcript()))
    js = Run(
        work,
        f"respai verify {record} --key {pub} --json",
        [*cmd, "verify", record, "--key", pub, "--json"],
        0,
    )
    _write("verify.json", scrub(_json(json.loads(js.stdout))))
    by_hand = Run(
        work,
        f"python verify_by_hand.py {record} {pub}",
        [sys.executable, str(EXAMPLES / "verify_by_hand.py"), record, pub],
        0,
    )
    _write("verify_by_hand.out.txt", scrub(by_hand.transcript("stdout")))

    # Tampering: one value edited inside the payload, re-encoded canonically, same signature.
    envelope = json.loads((work / record).read_text(encoding="utf-8"))
    statement = _statement(work / record)
    records = statement["predicate"]["records"]
    target = next(r for r in records if r.get("test_key") == "impact_ratio:age_band")
    edit = (
        f"records[{records.index(target)}] ({target['test_key']}): value "
        f"{target['value']!r} -> 0.85, verdict {target['verdict']} -> PASS; payload "
        "re-encoded as RFC 8785 JSON; signature unchanged\n"
    )
    target["value"], target["verdict"] = 0.85, "PASS"
    envelope["payload"] = base64.b64encode(canonical_bytes(statement)).decode("ascii")
    (work / "tampered.json").write_text(json.dumps(envelope, indent=2), encoding="utf-8")
    _write("verify-tamper-edit.txt", edit)
    tampered = Run(
        work,
        f"respai verify tampered.json --key {pub}",
        [*cmd, "verify", "tampered.json", "--key", pub],
        1,
    )
    _write("verify-tampered.txt", scrub(tampered.transcript()))

    # A full rewrite: the same edit, every id recomputed, signed with another key.
    other = Ed25519PrivateKey.generate()
    other_id = key_id(other.public_key())
    scrub.key(other_id, "other-key")
    predicate = dict(statement["predicate"], key_id=other_id)
    rewritten = seal(predicate, None, other, other_id)
    (work / "rewritten.json").write_text(json.dumps(rewritten, indent=2), encoding="utf-8")
    resigned = Run(
        work,
        f"respai verify rewritten.json --key {pub}",
        [*cmd, "verify", "rewritten.json", "--key", pub],
        1,
    )
    _write("verify-resigned.txt", scrub(resigned.transcript()))

    # No key given and no keys.json in the key folder: a usage error.
    (work / "empty-home").mkdir()
    with _environment(RESPAI_HOME=str(work / "empty-home")):
        nokey = Run(work, f"respai verify {record}", [*cmd, "verify", record], 2)
    _write("verify-nokey.txt", scrub(nokey.transcript()))


def keys_examples(work: Path, scrub: Scrub) -> None:
    cmd = _respai()
    with _environment(RESPAI_KEY_PASSPHRASE=PASSPHRASE):
        made = Run(
            work,
            "respai keys new --dir signing-keys    # RESPAI_KEY_PASSPHRASE is set",
            [*cmd, "keys", "new", "--dir", "signing-keys"],
            0,
        )
    kid = _listed_keys(work / "signing-keys")[0]
    scrub.key(kid, "signing-key")
    _write("keys-new.txt", scrub(made.transcript()))
    key_file = _key_file(work / "signing-keys", kid)
    head = (work / key_file).read_text(encoding="ascii").splitlines()[0]
    _write(
        "keys-files.txt",
        scrub(f"{_listing(work, ['signing-keys'])}\n$ head -1 {key_file}\n{head}\n"),
    )
    data = json.loads((work / "signing-keys" / "keys.json").read_text(encoding="utf-8"))
    for entry in data["keys"]:
        entry["public_key_raw_b64"] = "<base64 of the raw 32-byte public key>"
        entry["public_key_pem"] = (
            "-----BEGIN PUBLIC KEY-----\n<base64 of the SPKI DER>\n-----END PUBLIC KEY-----\n"
        )
    _write("keys-json.json", scrub(_json(data)))

    # An encrypted key with no passphrase in the environment and no terminal to ask on.
    before = _files(work)
    shown = f"respai evaluate {SPEC} --key {key_file} --no-ledger --out signed"
    argv = [*cmd, "evaluate", SPEC, "--key", key_file, "--no-ledger", "--out", "signed"]
    nopass = Run(work, shown, argv, 2)
    # A key file other users can read.
    (work / key_file).chmod(0o644)
    loose = Run(work, shown, argv, 2)
    (work / key_file).chmod(0o600)
    if _files(work) != before:
        sys.exit("gen_docs_examples: a refused evaluate left files behind")
    _write("keys-no-passphrase.txt", scrub(nopass.transcript()))
    _write("keys-refused.txt", scrub(f"$ chmod 644 {key_file}\n{loose.transcript()}"))

    rotation(work, scrub)


def rotation(work: Path, scrub: Scrub) -> None:
    """Rotate: a new key, the old one retired, then revoked; what verifies at each step."""
    cmd = _respai()
    admin = str(EXAMPLES / "keys_admin.py")
    parts: list[str] = []

    def evaluate(key: str, out: str, expect: int = 1) -> None:
        shown = f"respai evaluate {SPEC} --key {key} --no-ledger --out {out}"
        run = Run(
            work,
            shown,
            [*cmd, "evaluate", SPEC, "--key", key, "--no-ledger", "--out", out],
            expect,
        )
        last = run.stderr.rstrip("\n").splitlines()[-1]
        parts.append(f"$ {shown}\n…\n{last}\n$ echo $?\n{run.code}\n")

    def verify(record: str, expect: int) -> None:
        shown = f"respai verify {record} --keys rotation/keys.json"
        run = Run(work, shown, [*cmd, "verify", record, "--keys", "rotation/keys.json"], expect)
        parts.append(run.transcript())

    def new_key(label: str) -> str:
        run = Run(
            work, "respai keys new --dir rotation", [*cmd, "keys", "new", "--dir", "rotation"], 0
        )
        kid = _listed_keys(work / "rotation")[-1]
        scrub.key(kid, label)
        parts.append(run.transcript())
        return kid

    def admin_run(action: str, kid: str) -> None:
        shown = f"python keys_admin.py {action} rotation/keys.json {kid}"
        run = Run(work, shown, [sys.executable, admin, action, "rotation/keys.json", kid], 0)
        parts.append(run.transcript("stdout"))

    old = new_key("old-key")
    evaluate(_key_file(work / "rotation", old), "before")
    new = new_key("new-key")
    admin_run("retire", old)
    evaluate(_key_file(work / "rotation", new), "after")
    evaluate(_key_file(work / "rotation", old), "late", 2)  # a retired key may not sign
    verify("before/record.json", 0)
    verify("after/record.json", 0)
    _write("keys-rotation.txt", scrub("\n".join(parts)))

    data = json.loads((work / "rotation" / "keys.json").read_text(encoding="utf-8"))
    windows = [
        {k: e[k] for k in ("key_id", "not_before", "not_after", "revoked_at")}
        for e in data["keys"]
    ]
    _write("keys-rotation.json", scrub(_json({"keys": windows})))

    parts.clear()
    admin_run("revoke", old)
    verify("before/record.json", 1)
    _write("keys-revoked.txt", scrub("\n".join(parts)))


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
        signed_records(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
