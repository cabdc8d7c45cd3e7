"""The LL144 pages show what the command really prints.

``docs/ll144.md`` and ``docs/methods/ll144.md`` carry marked blocks::

    <!-- ll144-example: input NAME/FILE -->      a file the example writes (code or spec)
    <!-- ll144-example: output NAME/WHAT -->     what running the example printed

This test writes each example's input files into an empty folder, runs the generator
(``gen.py``) and then ``respai ll144`` there, and checks that every output block is still
what the command prints (the run folder's absolute path is shown as ``./``). After a
deliberate change, rewrite the blocks with::

    .venv/bin/python tests/ll144/test_docs_examples.py --write
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / "ll144.md", ROOT / "docs" / "methods" / "ll144.md"]
MARK = re.compile(r"<!-- ll144-example: (input|output) ([\w-]+)/([\w.-]+) -->\n")
FENCE = re.compile(r"(```[^\n]*\n)(.*?)(\n```)", re.DOTALL)
WIDTH = "100"


def _blocks(text: str) -> Iterator[tuple[str, str, str, int, int]]:
    """(kind, example, name, start, end) of each marked block's body in ``text``."""
    for mark in MARK.finditer(text):
        fence = FENCE.match(text, mark.end())
        assert fence is not None, f"no code block after {mark.group(0)!r}"
        yield mark.group(1), mark.group(2), mark.group(3), fence.start(2), fence.end(2)


def _inputs() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for kind, example, name, start, end in _blocks(text):
            if kind == "input":
                out.setdefault(example, {})[name] = text[start:end] + "\n"
    return out


@contextlib.contextmanager
def _in_folder(folder: Path) -> Iterator[None]:
    old_cwd, old_cols = Path.cwd(), os.environ.get("COLUMNS")
    os.chdir(folder)
    os.environ["COLUMNS"] = WIDTH
    try:
        yield
    finally:
        os.chdir(old_cwd)
        if old_cols is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old_cols


def _respai(*args: str) -> tuple[int, str, str]:
    from respai.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _section(text: str, first: str, stop: str) -> str:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(stop))
    return "\n".join(lines[start:end]).rstrip()


def _run_example(example: str, files: dict[str, str]) -> dict[str, str]:
    """Every output block of ``example``, as the command prints it now."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp).resolve()
        for name, body in files.items():
            (folder / name).write_text(body, encoding="utf-8")
        subprocess.run([sys.executable, "gen.py"], cwd=folder, check=True)
        from respai.record import new_key

        # ``--out`` signs: with a key of its own in the folder, the run says which key
        # signed (shown as <key id>) rather than that it made one
        key = new_key(folder / "keys", passphrase=None)
        old_home = os.environ.get("RESPAI_HOME")
        os.environ["RESPAI_HOME"] = str(folder / "keys")

        def clean(text: str) -> str:
            text = text.replace(str(folder) + os.sep, "./").replace(key.key_id, "<key id>")
            return text.rstrip()

        outputs: dict[str, str] = {}
        with _in_folder(folder):
            if example == "guide":
                code, _, err = _respai("ll144", "spec.yaml", "--out", "audit-2026")
                assert code == 0, err
                outputs["run"] = clean(err)
                summary = (folder / "audit-2026" / "summary.md").read_text(encoding="utf-8")
                outputs["summary"] = clean(_section(summary, "# Bias", "## Race/ethnicity"))
                outputs["files"] = "\n".join(
                    sorted(p.name for p in (folder / "audit-2026").iterdir())
                )
                code, out, _ = _respai("ll144", "--help")
                assert code == 0
                outputs["help"] = clean(out)
                typo = files["spec.yaml"].replace("race: race_ethnicity", "race: race")
                (folder / "typo.yaml").write_text(typo, encoding="utf-8")
                code, out, err = _respai("ll144", "typo.yaml", "--json", "--out", "x")
                assert code == 2 and out == ""
                outputs["error"] = clean(err)
            else:
                code, _, err = _respai("ll144", "spec.yaml")  # prints, signs nothing
                assert code == 0, err
                outputs["cutoffs"] = clean(
                    _section(err, "cutoff sensitivity", "row reconciliation")
                )
                outputs["median"] = clean(_section(err, "median score", "race/ethnicity ("))
        if old_home is None:
            os.environ.pop("RESPAI_HOME", None)
        else:
            os.environ["RESPAI_HOME"] = old_home
    return outputs


def _expected() -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for example, files in _inputs().items():
        for name, text in _run_example(example, files).items():
            out[(example, name)] = text
    return out


def _rewrite(
    expected: dict[tuple[str, str], str], check: Callable[[str, str, str], None] | None = None
) -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        pieces, pos = [], 0
        for kind, example, name, start, end in _blocks(text):
            if kind != "output":
                continue
            want = expected[(example, name)]
            if check is not None:
                check(f"{page.name}: {example}/{name}", text[start:end], want)
            pieces += [text[pos:start], want]
            pos = end
        pieces.append(text[pos:])
        if check is None:
            page.write_text("".join(pieces), encoding="utf-8")


def test_pages_show_what_the_command_prints() -> None:
    expected = _expected()
    assert {k[0] for k in expected} == {"guide", "scoring"}

    def check(where: str, shown: str, want: str) -> None:
        assert shown == want, (
            f"{where} is out of date; rerun: .venv/bin/python "
            "tests/ll144/test_docs_examples.py --write"
        )

    _rewrite(expected, check)


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: test_docs_examples.py --write")
    _rewrite(_expected())
    print("rewrote the generated blocks of " + ", ".join(str(p) for p in PAGES))
