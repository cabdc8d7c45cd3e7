"""An output may not be or lie in a guarded folder, through a link or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from respai.errors import InputError
from respai.io import refuse_inside


def _guard(folder: Path) -> list[tuple[str, Path | str, str]]:
    return [("the key folder", folder, "it could replace a key")]


@pytest.mark.parametrize("where", ["the folder", "a file in it", "a file deeper in it"])
def test_an_output_in_a_guarded_folder_is_refused(tmp_path: Path, where: str) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    out = {
        "the folder": keys,
        "a file in it": keys / "k.key",
        "a file deeper in it": keys / "a" / "b",
    }
    with pytest.raises(InputError, match=r"the key folder .*nothing was written"):
        refuse_inside([("-o", out[where])], _guard(keys))


def test_a_link_into_the_folder_or_to_a_file_in_it_is_refused(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "k.key").write_text("secret")
    (tmp_path / "to-folder").symlink_to(keys)
    (tmp_path / "to-file").symlink_to(keys / "k.key")
    for out in (tmp_path / "to-folder" / "x", tmp_path / "to-file"):
        with pytest.raises(InputError, match="the key folder"):
            refuse_inside([("-o", out)], _guard(keys))


def test_an_output_beside_the_folder_or_to_standard_output_passes(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    refuse_inside([("-o", tmp_path / "keys.html"), ("-o", None)], _guard(keys))
