"""Under umask 000 the ledger and the outputs still get 0755 folders and 0644 files."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.plan.helpers import write_cases, write_spec

from respai.cli import main


@pytest.fixture
def umask_000() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _tree(root: Path) -> list[Path]:
    return [root, *sorted(root.rglob("*"))]


def test_umask_000_gives_fixed_modes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], umask_000: None
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    junit = tmp_path / "reports" / "junit.xml"
    code = main(
        ["evaluate", str(spec), "--out", str(tmp_path / "out"), "--junit", str(junit), "-q"]
    )
    assert code in (0, 1, 3, 4), capsys.readouterr().err
    assert main(["plan", str(spec), "--out", str(tmp_path / "plan")]) == 0
    record = tmp_path / "out" / "record.json"
    assert main(["report", str(record), "-o", str(tmp_path / "pages" / "r.html")]) == 0
    assert (
        main(
            [
                "export",
                str(record),
                "--format",
                "junit",
                "--keys",
                "keys/keys.json",
                "-o",
                str(tmp_path / "exports" / "r.xml"),
            ]
        )
        == 0
    )
    checked = [
        *_tree(Path(".respai")),
        *_tree(tmp_path / "out"),
        *_tree(tmp_path / "plan"),
        *_tree(tmp_path / "reports"),
        *_tree(tmp_path / "pages"),
        *_tree(tmp_path / "exports"),
    ]
    assert len(checked) > 15
    for path in checked:
        want = 0o755 if path.is_dir() else 0o644
        assert _mode(path) == want, f"{path}: {oct(_mode(path))}"
    keys = Path("keys")
    assert _mode(keys) == 0o700
    (private,) = keys.glob("respai-*.key")
    assert _mode(private) == 0o600


def test_a_stricter_umask_is_kept(tmp_path: Path) -> None:
    from respai.io import shared_mode, write_file

    old = os.umask(0o077)
    try:
        written = write_file(tmp_path / "new" / "a.txt", "x")
        assert shared_mode(0o666) == 0o600
    finally:
        os.umask(old)
    assert _mode(written) == 0o600 and _mode(written.parent) == 0o700
