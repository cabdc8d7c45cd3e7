"""Regenerate the examples of the command pages that had none, from real runs.

One temporary folder, one key and one ledger: the bundled loan-screen sample evaluated
twice (the second time under a policy) for ``respai log``, ``respai compare`` and
``respai report``; a generated hiring screen of 2,400 applicants for ``respai ll144``,
``respai pack`` and ``respai reproduce`` (once as packed, once with a number edited in
the pack); and ``respai sample-page``. Each command's ``--help`` is stored too. What
changes from run to run (times, run, record and key ids, digests of the code and of the
signed files, the folder, today's date) is replaced by a placeholder.

    python scripts/gen_commands_examples.py [--check]

``tests/test_generated_examples.py`` runs :func:`generate` and fails when a file under
``docs/examples`` differs, or when ``docs/commands/<command>.md`` does not show it.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import run_respai, write_or_check

#: The command pages whose examples this script writes.
COMMANDS = ("compare", "ledger", "ll144", "log", "pack", "report", "reproduce", "sample-page")

_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
_HEX = re.compile(r"\b[0-9a-f]{64}\b")
_SHORT_HEX = re.compile(r"\b[0-9a-f]{12}\.\.\.")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")

HIRING_SPEC = """\
# hiring.yaml: the LL144 bias audit of a resume screen (generated applicants)
system:
  name: resume-screen
  version: "2.3"
  first_distributed: 2026-01-15
data:
  cases: applicants.csv
  id: applicant_id
  source: historical
  explanation: the screen's decisions on the applicants of the last twelve months
ll144:
  kind: selection
  selected: advanced
  sex: sex
  race: race
  audit_date: 2026-11-30
  use_date: 2026-12-07   # the one-year rule is checked on this date, not on the run's
"""

POLICY = """\
# stricter.yaml: a release gate that holds the sample to a tighter accuracy floor
name: stricter gate
tests:
  accuracy: {threshold: 0.9}
"""

RETENTION = """\
# kept.yaml: the retention clocks the record states (from a fixed day, for the example)
name: kept
retention:
  - {preset: ca-ads, start: 2026-12-01}
  - {preset: eu-ai-act-logs, start: 2026-12-01}
"""

_RACES = (
    ("White", 0.40),
    ("Black or African American", 0.33),
    ("Hispanic or Latino", 0.35),
    ("Asian", 0.41),
)


def _applicants(path: Path) -> None:
    """2,400 applicants: sex, race as EEO-1 spells them, whether the screen advanced them."""
    rng = random.Random(144)
    lines = ["applicant_id,sex,race,advanced"]
    for i in range(2400):
        race, rate = _RACES[rng.randrange(len(_RACES))]
        sex = rng.choice(("Female", "Male"))
        if rng.random() < 0.03:
            race = ""  # not self-identified: counted as unknown
        advanced = int(rng.random() < rate * (0.94 if sex == "Female" else 1.0))
        lines.append(f"a{i:05d},{sex},{race},{advanced}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _stable(text: str, work: Path, key: str | None = None) -> str:
    for form in {str(work.resolve()), str(work)}:
        text = text.replace(form, "<work>")
    if key:  # the signing key's id, and its first 12 digits as `respai log` shows them
        text = text.replace(key, "<key id>").replace(key[:12], "<key>")
    text = _UUID.sub("<run id>", _STAMP.sub("<time>", text))
    text = text.replace(dt.date.today().isoformat(), "<today>")
    text = _SHORT_HEX.sub("<sha256>...", _HEX.sub("<sha256>", text))
    return "\n".join(line.rstrip() for line in text.splitlines()) + ("\n" if text else "")


class Session:
    """Runs commands in one work folder and keeps their transcripts."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.files: dict[str, str] = {}
        self.key: str | None = None

    def run(self, shown: str, *args: str, expect: int, stream: str = "stderr") -> str:
        proc = run_respai(self.work, *args, columns=120)
        if proc.returncode != expect:
            raise SystemExit(
                f"gen_commands_examples: `{shown}` exited {proc.returncode}, expected "
                f"{expect}:\n{proc.stderr}"
            )
        text = (proc.stdout if stream == "stdout" else proc.stderr).rstrip("\n")
        return _stable(f"$ {shown}\n{text}\n$ echo $?\n{proc.returncode}\n", self.work, self.key)

    def keep(self, name: str, text: str) -> None:
        self.files[name] = text

    def help(self, command: str) -> None:
        proc = run_respai(self.work, command, "--help")
        self.keep(f"{command}-help.txt", f"$ respai {command} --help\n{proc.stdout}")


def generate() -> dict[str, str]:
    """The example files' contents, from runs in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        s = Session(work)
        for command in COMMANDS:
            s.help(command)
        samples = resources.files("respai") / "samples"
        for name in ("loan_screen.yaml", "loan_screen.csv"):
            with resources.as_file(samples / name) as src:
                shutil.copy(src, work / name)
        (work / "stricter.yaml").write_text(POLICY, encoding="utf-8")
        (work / "hiring.yaml").write_text(HIRING_SPEC, encoding="utf-8")
        _applicants(work / "applicants.csv")
        s.keep("ll144-hiring.yaml", HIRING_SPEC)
        s.keep("compare-policy.yaml", POLICY)

        # two signed runs of the same system in the ledger .respai
        run_respai(work, "evaluate", "loan_screen.yaml", "--out", "run1", "--quiet")
        run_respai(
            work, "evaluate", "loan_screen.yaml", "--policy", "stricter.yaml", "--out", "run2"
        )
        s.key = json.loads((work / "run1" / "record.json").read_text(encoding="utf-8"))[
            "signatures"
        ][0]["keyid"].removeprefix("sha256:")
        s.keep("log.txt", s.run("respai log", "log", expect=0))
        s.keep("compare.txt", s.run("respai compare -2 -1", "compare", "-2", "-1", expect=0))
        doc = json.loads(run_respai(work, "compare", "-2", "-1", "--json").stdout)
        excerpt = {k: doc[k] for k in ("same_system", "changed", "verdict", "verdict_changes")}
        excerpt["tests"] = [t for t in doc["tests"] if t["test_key"] == "accuracy"]
        s.keep("compare-json.json", _stable(json.dumps(excerpt, indent=2) + "\n", work))
        s.keep(
            "report.txt",
            s.run(
                "respai report run1/record.json -o run1-report.html",
                *("report", "run1/record.json", "-o", "run1-report.html"),
                expect=0,
            ),
        )

        # retention: a run under clocks in its own ledger, its keep-until, a refused removal
        (work / "kept.yaml").write_text(RETENTION, encoding="utf-8")
        s.keep("ledger-policy.yaml", RETENTION)
        run_respai(
            work,
            *("evaluate", "loan_screen.yaml", "--policy", "kept.yaml", "--ledger", "kept"),
            *("--out", "run3", "--quiet"),
        )
        s.keep("log-retention.txt", s.run("respai log kept", "log", "kept", expect=0))
        proc = run_respai(work, "ledger", "remove", "--help")
        s.keep("ledger-remove-help.txt", f"$ respai ledger remove --help\n{proc.stdout}")
        s.keep(
            "ledger-remove-refused.txt",
            s.run(
                "respai ledger remove -1 --ledger kept --reason 'no longer needed'",
                *("ledger", "remove", "-1", "--ledger", "kept", "--reason", "no longer needed"),
                expect=2,
            ),
        )

        # the LL144 audit: printed, then packed and reproduced
        s.keep("ll144.txt", s.run("respai ll144 hiring.yaml", "ll144", "hiring.yaml", expect=0))
        s.keep(
            "ll144-out.txt",
            s.run(
                "respai ll144 hiring.yaml --out audit",
                *("ll144", "hiring.yaml", "--out", "audit"),
                expect=0,
            ).split("\n", 1)[0]
            + "\n"
            + "\n".join(
                f"{p.relative_to(work).as_posix()}"
                for p in sorted((work / "audit").rglob("*"))
                if p.is_file()
            )
            + "\n",
        )
        s.keep(
            "pack.txt",
            s.run(
                "respai pack hiring.yaml --out evidence/resume-screen-2026",
                *("pack", "hiring.yaml", "--out", "evidence/resume-screen-2026"),
                expect=0,
            ),
        )
        pack = work / "evidence" / "resume-screen-2026"
        s.keep(
            "pack-files.txt",
            "\n".join(
                p.relative_to(work).as_posix() for p in sorted(pack.rglob("*")) if p.is_file()
            )
            + "\n",
        )
        s.keep(
            "reproduce.txt",
            s.run(
                "respai reproduce evidence/resume-screen-2026",
                *("reproduce", "evidence/resume-screen-2026"),
                expect=0,
            ),
        )
        tables = pack / "tables" / "ll144.json"
        text = tables.read_text(encoding="utf-8")
        edited = re.sub(
            r'"selected": (\d+)', lambda m: f'"selected": {int(m[1]) + 1}', text, count=1
        )
        tables.write_text(edited, encoding="utf-8")
        s.keep(
            "reproduce-edited.txt",
            s.run(
                "respai reproduce evidence/resume-screen-2026",
                *("reproduce", "evidence/resume-screen-2026"),
                expect=1,
            ),
        )
        s.keep(
            "sample-page.txt",
            s.run(
                "respai sample-page -o sample.html",
                *("sample-page", "-o", "sample.html"),
                expect=0,
            ),
        )
        return dict(sorted(s.files.items()))


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
