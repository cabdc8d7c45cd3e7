"""Regenerate the ``respai witness`` examples shown in docs/commands/witness.md from real runs.

Two runs of ``respai evaluate`` on the bundled sample spec build a ledger; two witnesses
are made (``witness-init.txt``), each cosigns after each run (``witness-cosign.txt``),
``respai verify --witness ... --quorum 2`` checks them (``witness-verify.txt``, its
witness lines), and a copy of the ledger given another run is refused by a witness that
cosigned the first branch (``witness-fork.txt``). Keys, times, ledger ids and the
temporary folder are replaced by placeholders. ``--check`` compares instead of writing.

    python scripts/gen_witness_examples.py [--check]
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import ROOT, run_respai, write_or_check

SPEC = ROOT / "src" / "respai" / "samples" / "loan_screen.yaml"


def _clean(text: str, work: Path) -> str:
    text = text.replace(str(work), ".")
    text = re.sub(r"respai\.local/ledger/[A-Za-z0-9._-]+", "respai.local/ledger/<id>", text)
    text = re.sub(r"\+[0-9a-f]{8}\+[A-Za-z0-9+/=]{44}", "+<key id>+<base64 key>", text)
    text = re.sub(r"(witness \S+) \([0-9a-f]{8}\)", r"\1 (<key id>)", text)
    return re.sub(r"time [0-9]+", "time <T>", text)


def _shown(work: Path, *args: str, only: str | None = None) -> str:
    done = run_respai(work, *args)
    lines = done.stderr.splitlines()
    if only is not None:
        lines = [line for line in lines if re.match(only, line)]
    body = "\n".join(lines)
    return _clean(f"$ respai {' '.join(args)}\n{body}\n(exit {done.returncode})\n", work)


def generate() -> dict[str, str]:
    """Return the example files, by name, from real runs in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        assert run_respai(work, "evaluate", str(SPEC), "--out", "o1").returncode == 1
        init = [
            _shown(
                work,
                "witness",
                "init",
                "--name",
                f"example.{tld}/w",
                "--dir",
                name,
                "--log-key",
                "o1/public_key.pem",
            )
            for tld, name in (("org", "w1"), ("net", "w2"))
        ]
        cosign = [_shown(work, "witness", "cosign", "--ledger", ".respai", "--state", "w1")]
        run_respai(work, "witness", "cosign", "--ledger", ".respai", "--state", "w2")
        shutil.copytree(work / ".respai", work / "fork")
        assert run_respai(work, "evaluate", str(SPEC), "--out", "o2").returncode == 1
        cosign += [
            _shown(work, "witness", "cosign", "--ledger", ".respai", "--state", state)
            for state in ("w1", "w2")
        ]
        verify = _shown(
            work,
            "verify",
            "--ledger",
            ".respai",
            "--key",
            "o1/public_key.pem",
            "--witness",
            "w1/witness.vkey",
            "--witness",
            "w2/witness.vkey",
            "--quorum",
            "2",
            only=r"(Witness|ok    witness|FAIL  witness|ok    quorum|FAIL  quorum|\.respai:)",
        )
        assert (
            run_respai(work, "evaluate", str(SPEC), "--out", "o3", "--ledger", "fork").returncode
            == 1
        )
        fork = _shown(work, "witness", "cosign", "--ledger", "fork", "--state", "w1")
        files = {
            "witness-init.txt": "\n".join(init),
            "witness-cosign.txt": "\n".join(cosign),
            "witness-verify.txt": verify,
            "witness-fork.txt": fork,
            "witness-init-help.txt": run_respai(work, "witness", "init", "--help").stdout,
            "witness-cosign-help.txt": run_respai(work, "witness", "cosign", "--help").stdout,
        }
    return files


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
