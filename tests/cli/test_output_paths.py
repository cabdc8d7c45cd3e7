"""An output path that is, holds or lies in an input or the ledger is refused first.

Each case: exit 2, one paragraph naming both paths, and nothing written anywhere (no
output, no ledger, no key), or the existing ledger and inputs byte for byte as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests.plan.helpers import write_cases, write_spec

from respai.cli import main


def _snapshot(*roots: Path) -> dict[str, str]:
    """Every file under ``roots`` (and the roots) with its SHA-256; folders as 'dir'."""
    found: dict[str, str] = {}
    for root in roots:
        for path in [root, *root.rglob("*")] if root.exists() else []:
            found[str(path)] = (
                "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
            )
    return found


def _refused(capsys: pytest.CaptureFixture[str], argv: list[str], *named: str) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and "nothing was written" in err
    for word in named:
        assert word in err, err
    return err


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    write_cases(tmp_path)
    return write_spec(tmp_path)


@pytest.mark.parametrize("command", ["evaluate", "plan", "monitor", "ll144", "pack"])
def test_out_equal_to_a_new_ledger_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path, command: str
) -> None:
    book = tmp_path / "L"
    batch = [str(tmp_path / "cases.csv")] if command == "monitor" else []
    argv = [command, str(spec), *batch, "--out", str(book), "--ledger", str(book)]
    _refused(capsys, argv, "the ledger folder", "--ledger")
    assert not book.exists()
    assert not Path("keys").exists() and not Path(".respai").exists()


@pytest.mark.parametrize("command", ["evaluate", "plan", "monitor"])
def test_out_dot_respai_on_a_first_run_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path, command: str
) -> None:
    batch = [str(tmp_path / "cases.csv")] if command == "monitor" else []
    _refused(capsys, [command, str(spec), *batch, "--out", ".respai"], ".respai")
    assert not Path(".respai").exists() and not Path("keys").exists()


@pytest.mark.parametrize("command", ["evaluate", "plan", "monitor"])
@pytest.mark.parametrize("where", ["equal", "inside", "holds"])
def test_out_and_an_existing_ledger_that_overlap_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path, command: str, where: str
) -> None:
    book = tmp_path / "book" / "ledger"
    assert main(["plan", str(spec), "--ledger", str(book)]) == 0
    capsys.readouterr()
    out = {"equal": book, "inside": book / "out", "holds": book.parent}[where]
    before = _snapshot(tmp_path, Path("keys"))
    batch = [str(tmp_path / "cases.csv")] if command == "monitor" else []
    argv = [command, str(spec), *batch, "--out", str(out), "--ledger", str(book)]
    _refused(capsys, argv, "the ledger folder")
    assert _snapshot(tmp_path, Path("keys")) == before
    assert main(["verify", "--ledger", str(book), "--keys", "keys/keys.json"]) == 0


def test_an_earlier_output_folder_holding_the_cases_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "record.json").write_text("{}")  # it looks like an earlier output
    write_cases(out)
    spec = write_spec(tmp_path, _spec_in(out))
    before = _snapshot(tmp_path)
    _refused(capsys, ["evaluate", str(spec), "--out", str(out)], "cases.csv", "holds")
    assert _snapshot(tmp_path) == before


def _spec_in(folder: Path) -> str:
    from tests.plan.helpers import SPEC

    return SPEC.replace("cases: cases.csv", f"cases: {folder.name}/cases.csv")


def test_junit_onto_the_spec_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path
) -> None:
    before = _snapshot(tmp_path)
    _refused(
        capsys,
        ["evaluate", str(spec), "--out", str(tmp_path / "o"), "--junit", str(spec)],
        "--junit",
        "the spec",
    )
    assert _snapshot(tmp_path) == before
    assert not Path(".respai").exists()


@pytest.mark.parametrize("command", ["export", "report"])
def test_an_export_or_report_onto_its_record_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path, command: str
) -> None:
    assert main(["evaluate", str(spec), "--out", str(tmp_path / "o"), "-q"]) in (0, 1, 3, 4)
    record = tmp_path / "o" / "record.json"
    link = tmp_path / "link.json"
    link.symlink_to(record)
    before = _snapshot(tmp_path, Path(".respai"))
    capsys.readouterr()
    extra = ["--format", "junit", "--keys", "keys/keys.json"] if command == "export" else []
    for target in (record, link):
        _refused(capsys, [command, str(record), *extra, "-o", str(target)], "the record")
    # a ledger run file as the record, written over by its own export
    (run,) = sorted(Path(".respai/runs").glob("*.json"))
    _refused(capsys, [command, str(run), *extra, "-o", str(run)], "the record")
    assert _snapshot(tmp_path, Path(".respai")) == before
    assert main(["verify", str(record), "--keys", "keys/keys.json"]) == 0


def test_a_pack_over_the_ledger_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path
) -> None:
    _refused(capsys, ["pack", str(spec), "--out", ".respai"], "the ledger folder")
    assert not Path(".respai").exists() and not Path("keys").exists()


@pytest.fixture
def sealed(tmp_path: Path, spec: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A signed record in ``o/`` (its run in ``.respai``, its key in ``keys/``)."""
    assert main(["evaluate", str(spec), "--out", str(tmp_path / "o"), "-q"]) in (0, 1, 3, 4)
    capsys.readouterr()
    return tmp_path / "o" / "record.json"


def _key_files() -> tuple[Path, Path]:
    keys = Path("keys")
    (private,) = sorted(keys.glob("respai-*.key"))
    return keys / "keys.json", private


@pytest.mark.parametrize("command", ["export", "report"])
@pytest.mark.parametrize("target", ["keys.json", "private key", "ledger.json", "ledger run"])
def test_an_export_or_report_into_the_keys_or_a_ledger_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sealed: Path,
    command: str,
    target: str,
) -> None:
    keys_json, private = _key_files()
    (run,) = sorted(Path(".respai/runs").glob("*.json"))
    out = {
        "keys.json": keys_json,
        "private key": private,
        "ledger.json": Path(".respai/ledger.json"),
        "ledger run": run,
    }[target]
    before = _snapshot(tmp_path, Path("keys"), Path(".respai"))
    extra = ["--format", "junit"] if command == "export" else []
    folder = "the key folder" if target in ("keys.json", "private key") else "the ledger folder"
    _refused(capsys, [command, str(sealed), *extra, "-o", str(out)], folder, str(out))
    assert _snapshot(tmp_path, Path("keys"), Path(".respai")) == before
    assert main(["verify", "--ledger", ".respai", "--keys", str(keys_json)]) == 0


@pytest.mark.parametrize("command", ["export", "report"])
def test_the_default_key_folder_is_refused_without_any_key_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sealed: Path, command: str
) -> None:
    # the reproduction: --format junit -o ~/.config/respai/keys/keys.json, no --keys
    keys_json, _ = _key_files()
    before = _snapshot(Path("keys"))
    extra = ["--format", "junit"] if command == "export" else []
    argv = [command, str(sealed), *extra, "-o", str(keys_json.resolve())]
    _refused(capsys, argv, "the key folder")
    new = Path("keys") / "notes" / "x.xml"  # a new file deeper in the folder is refused too
    _refused(capsys, [command, str(sealed), *extra, "-o", str(new)], "the key folder")
    assert _snapshot(Path("keys")) == before


def test_the_folders_of_keys_and_key_are_key_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sealed: Path
) -> None:
    from respai.record import new_key

    other = new_key(tmp_path / "theirs", passphrase=None)
    keys_json, _ = _key_files()
    before = _snapshot(tmp_path / "theirs")
    into = str(tmp_path / "theirs" / "page.html")
    _refused(
        capsys,
        [
            "report",
            str(sealed),
            "--keys",
            str(keys_json),
            "--keys",
            str(other.keys_json),
            "-o",
            into,
        ],
        "the key folder",
        "--keys",
    )
    argv = [
        "export",
        str(sealed),
        "--format",
        "in-toto-test-result",
        "--key",
        str(other.private_key),
        "--keys",
        str(keys_json),
        "-o",
        into,
    ]
    _refused(capsys, argv, "the key folder", "--key")
    assert _snapshot(tmp_path / "theirs") == before


def test_a_folder_above_the_output_holding_a_ledger_json_is_a_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path, sealed: Path
) -> None:
    book = tmp_path / "book"
    assert main(["plan", str(spec), "--ledger", str(book)]) == 0
    capsys.readouterr()
    before = _snapshot(book)
    link = tmp_path / "into-book"
    link.symlink_to(book / "runs")
    for out in (book / "runs" / "new" / "x.xml", book / "checkpoints" / "1.txt", link / "y.xml"):
        _refused(
            capsys,
            ["export", str(sealed), "--format", "junit", "-o", str(out)],
            "the ledger folder",
        )
    assert _snapshot(book) == before


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_normal_output_path_still_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sealed: Path, command: str
) -> None:
    extra = ["--format", "junit"] if command == "export" else []
    out = Path("out.xml") if command == "export" else sealed.parent / "again.html"
    assert main([command, str(sealed), *extra, "-o", str(out)]) == 0, capsys.readouterr().err
    assert out.is_file() and out.stat().st_size > 0


def test_an_earlier_output_folder_holding_a_ledger_is_not_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path
) -> None:
    # an output folder a ledger was later put into: replacing it would delete the ledger
    assert main(["evaluate", str(spec), "--out", "o", "--no-ledger"]) in (0, 1, 3, 4)
    assert main(["evaluate", str(spec), "--out", "o2", "--ledger", "o"]) in (0, 1, 3, 4)
    capsys.readouterr()
    before = _snapshot(Path("o"))
    code = main(["evaluate", str(spec), "--out", "o", "--no-ledger"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert _snapshot(Path("o")) == before
    assert (Path("o") / "ledger.json").is_file()


def test_a_failed_run_leaves_an_existing_empty_ledger_folder_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Path
) -> None:
    (tmp_path / "a-file").write_text("x")
    book = tmp_path / "L"
    book.mkdir()
    code = main(
        ["evaluate", str(spec), "--out", str(tmp_path / "a-file" / "o"), "--ledger", str(book)]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert list(book.iterdir()) == []
