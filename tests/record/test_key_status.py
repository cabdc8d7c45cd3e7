"""A key whose status (retired, revoked) cannot be read from keys.json does not sign."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.plan.helpers import write_cases, write_spec

from respai.cli import main
from respai.record import KeyMaterialError, new_key


def _revoked_key(folder: Path) -> Path:
    files = new_key(folder, passphrase=None)
    assert main(["keys", "revoke", files.key_id, "--dir", str(folder)]) == 0
    return files.private_key


@pytest.mark.parametrize("how", ["missing", "fifo", "device", "folder"])
def test_a_revoked_key_without_a_readable_keys_json_does_not_sign(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    folder = tmp_path / "k"
    key = _revoked_key(folder)
    listing = folder / "keys.json"
    listing.rename(tmp_path / "keys.json.aside")
    if how == "fifo":
        os.mkfifo(listing)
    elif how == "device":
        listing.symlink_to("/dev/zero")
    elif how == "folder":
        listing.mkdir()
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    capsys.readouterr()
    code = main(["evaluate", str(spec), "--key", str(key), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "keys.json" in err and "refuses to sign" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists() and not Path(".respai").exists()
    # the same key with its keys.json back: refused as revoked
    if listing.is_dir() and not listing.is_symlink():
        listing.rmdir()
    else:
        listing.unlink(missing_ok=True)
    (tmp_path / "keys.json.aside").rename(listing)
    assert main(["evaluate", str(spec), "--key", str(key), "--out", str(tmp_path / "o")]) == 2
    assert "revoked" in capsys.readouterr().err


def test_the_default_key_folder_without_keys_json_is_refused(tmp_path: Path) -> None:
    from respai.record import default_key_dir
    from respai.sealing import signing_key

    folder = default_key_dir()
    key = _revoked_key(folder)
    (folder / "keys.json").unlink()
    with pytest.raises(KeyMaterialError, match=r"no keys\.json beside it"):
        signing_key(None)
    assert sorted(folder.glob("*.key")) == [key]  # no new key made in its place


def test_a_first_run_creates_its_key_and_keys_json_and_signs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from respai.record import default_key_dir

    assert not default_key_dir().exists()
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    code = main(["evaluate", str(spec), "--out", str(tmp_path / "o"), "-q"])
    assert code in (0, 1, 3, 4), capsys.readouterr().err
    assert (default_key_dir() / "keys.json").is_file()
    assert main(["evaluate", str(spec), "--out", str(tmp_path / "o"), "-q"]) in (0, 1, 3, 4)
