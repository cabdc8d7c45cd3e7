"""Regenerate the ``respai site`` examples shown in docs/commands/site.md from a real run.

Builds a ledger of five runs (evaluate, plan, ll144 --out, monitor, evaluate again) on
the generated data of the site's tests (``tests/site_ledger.py``, fixed seed), then
writes ``docs/examples/site-help.txt``, ``site.txt``
(what ``respai site`` prints, and the folder it wrote), ``site-ll144.json`` (the LL144
entry of the signed manifest) and ``site-refused.txt`` (a ledger with an edited run:
exit 1, nothing written). What changes from run to run (times, run ids, the key, the
temporary folder, digests) is replaced by a placeholder. ``--check`` compares instead of
writing (exit 1 on a difference).

    python scripts/gen_site_examples.py [--check]
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from examples_kit import run_respai, write_or_check
from tests.site_ledger import write_inputs  # the same ledger inputs as the site's tests

_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z")


def _placeholders(text: str, work: Path, runs: list[str]) -> str:
    text = text.replace(str(work), "<work>")
    for i, run_id in enumerate(runs):
        text = text.replace(run_id, f"<run {i + 1}>")
    text = re.sub(r"respai\.local/ledger/[0-9a-f-]+", "respai.local/ledger/<ledger id>", text)
    text = re.sub(r"sha256:[0-9a-f]{64}", "sha256:<key id>", text)
    text = re.sub(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])", "<sha256>", text)
    text = re.sub(r"\b\d+ bytes", "<n> bytes", text)  # a record's length varies with its time
    text = re.sub(r"at byte \d+", "at byte <n>", text)
    return _STAMP.sub("<time>", text)


def _tree(site: Path, runs: list[str]) -> str:
    names = [p.relative_to(site).as_posix() for p in site.rglob("*.*")]
    return "".join(f"{n}\n" for n in sorted(_placeholders(n, site, runs) for n in names))


def generate() -> dict[str, str]:
    """The example files' contents, from runs in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_inputs(work)
        runs = [
            ("evaluate", "spec.yaml", "--out", "ev", "--ledger", "book", "--quiet"),
            ("plan", "spec.yaml", "--ledger", "book"),
            ("ll144", "ll144.yaml", "--out", "ll", "--ledger", "book"),
            ("monitor", "monitor.yaml", "week0.csv", "week1.csv", "--ledger", "book"),
            ("evaluate", "spec.yaml", "--out", "ev2", "--ledger", "book", "--quiet"),
        ]
        for args in runs:
            done = run_respai(work, *args)
            if done.returncode not in (0, 1, 3):
                raise SystemExit(f"respai {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
        args = ("site", "book", "-o", "site", "--posted", "2026-11-30", "--last-use", "2027-03-31")
        made = run_respai(work, *args)
        if made.returncode != 0:
            raise SystemExit(f"expected exit 0, got {made.returncode}: {made.stderr}")
        envelope = json.loads((work / "site" / "site.json").read_text(encoding="utf-8"))
        statement = json.loads(base64.b64decode(envelope["payload"]))
        (audit,) = statement["predicate"]["ll144"]
        ids = [r["run_id"] for r in statement["predicate"]["runs"]]
        shutil.copytree(work / "book", work / "edited")
        run = sorted((work / "edited" / "runs").iterdir())[2]
        doc = json.loads(run.read_text(encoding="utf-8"))
        edited = json.loads(base64.b64decode(doc["payload"]))
        edited["predicate"]["system"]["version"] = "2"  # signed as 1
        doc["payload"] = base64.b64encode(
            json.dumps(edited, separators=(",", ":"), sort_keys=True).encode()
        ).decode()
        run.write_text(json.dumps(doc), encoding="utf-8")
        refused = run_respai(work, "site", "edited", "-o", "site2")
        if refused.returncode != 1 or (work / "site2").exists():
            raise SystemExit(f"expected exit 1 and no site, got {refused.returncode}")
        helped = run_respai(work, "site", "--help")
        transcript = (
            f"$ respai site book -o site --posted 2026-11-30 --last-use 2027-03-31\n"
            f"{made.stderr}$ echo $?\n{made.returncode}\n$ find site -type f | sort\n"
            f"{_tree(work / 'site', ids)}"
        )
        refusal = (
            f"$ respai site edited -o site2\n{refused.stderr}$ echo $?\n{refused.returncode}\n"
            "$ ls site2\nls: cannot access 'site2': No such file or directory\n"
        )
        return {
            "site-help.txt": f"$ respai site --help\n{helped.stdout}",
            "site.txt": _placeholders(transcript, work, ids),
            "site-ll144.json": _placeholders(json.dumps(audit, indent=2) + "\n", work, ids),
            "site-refused.txt": _placeholders(refusal, work, ids),
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
