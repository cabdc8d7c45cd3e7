"""Fuzzing the key folder's ``keys.json`` when signing: a refusal, never a crash or a write.

``respai evaluate`` signs with the newest key of its key folder and checks that key
against the folder's ``keys.json`` (a retired or revoked key is refused). Each example
mutates that ``keys.json`` (validity times, ids, duplicates, broken JSON) and runs
``respai evaluate spec.yaml --out out --no-ledger``: exit 0, 1, 3 or 4 when the key may
still sign, 2 when it may not; never anything else, and on exit 2 nothing written, not
in the working folder nor in the key folder (which lies inside it here).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.cli import main

pytestmark = pytest.mark.fuzz

SPEC = """\
system:
  name: fuzz-target
  version: "1.0"
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  unit: person_id
  attributes:
    sex: [female, male]
  min_cell: 5
  rules:
    - {id: error-by-sex, rate: error, attribute: sex, worst_group: {max: 0.6}}
"""
CASES = "person_id,label,prediction,sex\n" + "".join(
    f"{i + 1},{i % 2},{(i // 2) % 2},{('female', 'male')[i % 2]}\n" for i in range(40)
)


@dataclass(frozen=True)
class KeyFolder:
    """A key folder made by ``respai keys new``: its files by name."""

    files: dict[str, bytes]


@pytest.fixture(scope="module")
def key_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KeyFolder]:
    home = tmp_path_factory.mktemp("keys") / "home"
    assert main(["keys", "new", "--dir", str(home)]) == 0
    yield KeyFolder({p.name: p.read_bytes() for p in home.iterdir() if p.is_file()})


def _folder(root: Path, keys: KeyFolder, keys_json: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(dir=root))
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "cases.csv").write_text(CASES, encoding="utf-8")
    home = folder / "home"
    home.mkdir(mode=0o700)
    for name, data in {**keys.files, "keys.json": keys_json}.items():
        (home / name).write_bytes(data)
        if name.endswith(".key"):
            (home / name).chmod(0o600)
    return folder


def _evaluate(cli: Any, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("RESPAI_HOME", str(folder / "home"))
    before = cli.snapshot(folder)
    run = cli.run(["evaluate", "spec.yaml", "--out", "out", "--no-ledger"], folder)
    cli.check(run, (0, 1, 2, 3, 4), folder, before)
    return run


def test_the_genuine_key_folder_signs(
    key_folder: KeyFolder, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path, key_folder, key_folder.files["keys.json"])
    run = _evaluate(cli, folder, monkeypatch)
    assert run.code in (0, 1, 3, 4), run.err
    assert (folder / "out" / "record.json").is_file()


KEYS_TOKENS = (
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"null",
    b"0",
    b'"2000-01-01T00:00:00Z"',
    b'"9999-12-31T23:59:59Z"',
    b'"1999-13-40T99:00:00Z"',
    b'"revoked_at": "2001-01-01T00:00:00Z", ',
    b'"not_after": "2001-01-01T00:00:00Z", ',
    b'"key_id": "sha256:' + b"0" * 64 + b'", ',
    b'"algorithm": "rsa", ',
)


@settings(settings.get_profile("respai-fuzz"), max_examples=30)
@given(data=st.data())
def test_mutated_keys_json_in_the_key_folder(
    data: st.DataObject,
    key_folder: KeyFolder,
    cli: Any,
    mutate: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys_json = data.draw(mutate(key_folder.files["keys.json"], KEYS_TOKENS), label="keys.json")
    folder = _folder(tmp_path, key_folder, keys_json)
    try:
        _evaluate(cli, folder, monkeypatch)
    finally:
        shutil.rmtree(folder)
