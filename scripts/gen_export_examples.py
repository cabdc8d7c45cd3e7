"""Regenerate the export examples shown in docs/commands/export.md from real runs.

Evaluates the bundled sample in a temporary folder, then exports its record as JUnit XML
and as an in-toto test result, and writes ``docs/examples/export-help.txt``,
``export-junit.xml`` (the first lines) and ``export-intoto.json`` (the Statement's
predicate). ``--check`` compares instead of writing (exit 1 on a difference).

    python scripts/gen_export_examples.py [--check]
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import run_respai, write_or_check

_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
_HEX = re.compile(r"[0-9a-f]{64}")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _stable(text: str) -> str:
    return _UUID.sub("<run id>", _HEX.sub("<sha256>", _STAMP.sub("<time>", text)))


def generate() -> dict[str, str]:
    """The example files' contents, from runs in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        samples = resources.files("respai") / "samples"
        for name in ("loan_screen.yaml", "loan_screen.csv"):
            with resources.as_file(samples / name) as src:
                shutil.copy(src, work / name)
        evaluated = run_respai(work, "evaluate", "loan_screen.yaml", "--out", "out", "--quiet")
        if evaluated.returncode not in (0, 1, 3, 4):
            raise SystemExit(f"respai evaluate failed: {evaluated.stderr}")
        helped = run_respai(work, "export", "--help")
        junit = run_respai(work, "export", "out/record.json", "--format", "junit")
        intoto = run_respai(work, "export", "out/record.json", "--format", "in-toto-test-result")
        if junit.returncode != 0 or intoto.returncode != 0:
            raise SystemExit(f"respai export failed: {junit.stderr}{intoto.stderr}")
        envelope = json.loads(intoto.stdout)
        statement = json.loads(base64.b64decode(envelope["payload"]))
        head = "".join(junit.stdout.splitlines(keepends=True)[:12])
        return {
            "export-help.txt": f"$ respai export --help\n{helped.stdout}",
            "export-junit.xml": _stable(head),
            "export-intoto.json": _stable(json.dumps(statement, indent=2)) + "\n",
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
