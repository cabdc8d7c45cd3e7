"""Text that reaches a terminal is neutralised: controls, escapes and bidi shown escaped.

A rule id, a system name, a column name or a record field can hold an escape sequence
(``ESC[2J`` clears the screen) or a bidi override (U+202E reverses what follows). Every
human-facing line shows them escaped (``\\x1b``, ``\\u202e``); ``--json`` output is
unchanged, JSON escapes control characters itself.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.text import Text

from respai.cli import main
from respai.compare import compare_records
from respai.errors import InputError, did_you_mean
from respai.render.escape import terminal_text
from respai.render.terminal import terminal_console

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples"
#: A rule id that, printed raw, clears the screen and forges a passing verdict.
HOSTILE_ID = "fnr\x1b[2J\x1b[Hverdict: PASS (exit 0)"
#: A system name with a colour escape and a right-to-left override.
HOSTILE_NAME = "loan\x1b[31m\u202eneercs"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
RAW = (b"\x1b", "\u202e".encode())


def _unsafe(text: str) -> list[str]:
    """The characters in ``text`` that must never reach a terminal raw."""
    return [c for c in text if c != "\n" and (not c.isprintable() and c != " " and c != "\xa0")]


# --- terminal_text ------------------------------------------------------------------------


def test_escape_sequences_and_c0_c1_controls_are_shown_escaped() -> None:
    assert terminal_text(HOSTILE_ID) == "fnr\\x1b[2J\\x1b[Hverdict: PASS (exit 0)"
    assert terminal_text("a\x00b\x07c\x7fd\x85e\x9b31m") == "a\\x00b\\x07c\\x7fd\\x85e\\x9b31m"
    assert terminal_text("tab\there\r\nnext") == "tab\\there\\r\\nnext"


@pytest.mark.parametrize("char", list(BIDI))
def test_every_bidi_control_is_shown_escaped(char: str) -> None:
    shown = terminal_text(f"admin{char}txt.exe")
    assert char not in shown
    assert shown == f"admin\\u{ord(char):04x}txt.exe"


def test_other_format_characters_and_separators_are_shown_escaped() -> None:
    assert terminal_text("a\u200bb\ufeffc\u2028d\u2029e") == "a\\u200bb\\ufeffc\\u2028d\\u2029e"
    assert terminal_text("tag\U000e0041") == "tag\\U000e0041"


def test_printable_text_is_unchanged() -> None:
    for text in ("Zoë Ångström", "女性, 30代", "Ελένη", "—", "[0.176, 0.235]", "a\\x1b"):
        assert terminal_text(text) == text
    assert terminal_text(0.8) == "0.8"


def test_it_is_idempotent_and_can_keep_line_breaks() -> None:
    once = terminal_text(HOSTILE_NAME + "\n" + BIDI)
    assert terminal_text(once) == once
    assert not _unsafe(once)
    assert terminal_text("a\x1b\nb", keep_newlines=True) == "a\\x1b\nb"


def test_the_console_escapes_text_the_renderer_did_not() -> None:
    buffer = io.StringIO()
    console = terminal_console(file=buffer, width=100)
    console.print(Text(f"rule {HOSTILE_ID}\n{HOSTILE_NAME}"))
    console.print(f"plain {HOSTILE_NAME}")
    out = buffer.getvalue()
    assert not _unsafe(out), out
    assert "rule fnr\\x1b[2J\\x1b[Hverdict: PASS (exit 0)\n" in out
    assert "plain loan\\x1b[31m\\u202eneercs" in out


def test_did_you_mean_and_the_error_paragraph_are_escaped() -> None:
    hint = did_you_mean("predicton", ["label", "prediction\x1b[2J\u202e"])
    assert hint == " Did you mean 'prediction\\x1b[2J\\u202e'?"
    error = InputError(f"no rule {HOSTILE_ID!s}.", f"Rename {HOSTILE_NAME}.")
    assert not _unsafe(error.diagnostics())
    assert "\\x1b[2J" in error.diagnostics() and "\\u202e" in error.diagnostics()


def test_main_prints_an_error_from_data_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    class Hostile(InputError):
        def diagnostics(self) -> str:  # as a subclass that formats its own paragraph
            return f"bad {HOSTILE_ID}"

    from respai.cli import app

    @app.cli.command("hostile-test-command", hidden=True)
    def _hostile() -> None:
        raise Hostile("x")

    try:
        assert main(["hostile-test-command"]) == 2
    finally:
        app.cli.commands.pop("hostile-test-command")
    err = capsys.readouterr().err
    assert err == "respai: error: bad fnr\\x1b[2J\\x1b[Hverdict: PASS (exit 0)\n"


def test_compare_lines_are_escaped() -> None:
    def record(name: str, verdict: str) -> dict[str, object]:
        test = {"record_type": "test", "test_key": HOSTILE_ID, "value": 0.8, "verdict": verdict}
        return {"run_id": "r", "system": {"name": name}, "records": [test]}

    lines = compare_records(record(HOSTILE_NAME, "PASS"), record("other", "FAIL")).lines()
    assert all(not _unsafe(line) for line in lines), lines
    assert any("fnr\\x1b[2J\\x1b[Hverdict: PASS (exit 0): PASS → FAIL" in x for x in lines)


# --- the commands, raw bytes --------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the sample data and a spec whose rule id and system name are hostile."""
    folder = tmp_path_factory.mktemp("hostile")
    shutil.copy(SAMPLES / "loan_screen.csv", folder / "loan_screen.csv")
    spec = (SAMPLES / "loan_screen.yaml").read_text(encoding="utf-8")
    spec = spec.replace("{id: fnr-by-sex,", '{id: "fnr\\e[2J\\e[Hverdict: PASS (exit 0)",', 1)
    spec = spec.replace(
        "system:\n  name: loan-screen", 'system:\n  name: "loan\\e[31m\\u202eneercs"'
    )
    assert HOSTILE_ID not in spec and "\\e[2J" in spec and "\\u202e" in spec
    (folder / "spec.yaml").write_text(spec, encoding="utf-8")
    return folder


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "RESPAI_HOME": str(folder / "keys"), "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "respai", *args], cwd=folder, capture_output=True, env=env
    )


def _assert_neutral(raw: bytes) -> str:
    for needle in RAW:
        assert needle not in raw, f"{needle!r} reached the terminal: {raw[:400]!r}"
    text = raw.decode("utf-8")
    assert not _unsafe(text), _unsafe(text)
    return text


def test_fairness_shows_a_hostile_rule_id_escaped(hostile: Path) -> None:
    proc = _run(hostile, "fairness", "spec.yaml")
    assert proc.returncode == 1, proc.stderr[-600:]
    assert proc.stdout == b""
    err = _assert_neutral(proc.stderr)
    assert "fnr\\x1b[2J\\x1b[Hverdict: PASS (exit 0)" in err
    assert "verdict: FAIL (exit 1)" in err


def test_evaluate_and_log_show_hostile_names_escaped_and_json_keeps_them(
    hostile: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _run(hostile, "evaluate", "spec.yaml", "--out", "out", "--json")
    assert proc.returncode == 1, proc.stderr[-600:]
    err = _assert_neutral(proc.stderr)
    assert "rule:fnr\\x1b[2J" in err
    summary = (hostile / "out" / "summary.txt").read_text(encoding="utf-8")
    assert not _unsafe(summary), _unsafe(summary)
    json.loads(proc.stdout)  # valid JSON, its control characters escaped by JSON itself
    assert "fnr\\u001b[2J\\u001b[Hverdict" in proc.stdout.decode("utf-8")
    assert "\\x1b" not in proc.stdout.decode("utf-8")

    monkeypatch.chdir(hostile)
    assert main(["log"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert not _unsafe(captured.err), _unsafe(captured.err)
    assert "loan\\x1b[31m\\u202eneercs 1.0" in captured.err
    assert main(["log", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert runs[-1]["system_name"] == HOSTILE_NAME


def test_a_usage_error_shows_what_was_typed_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    from respai.cli import main

    assert main(["evaluate", "spec.yaml", "--bogus\x1b[2J\u202e"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err
    assert "--bogus\\x1b[2J\\u202e" in err and "Usage:" in err
