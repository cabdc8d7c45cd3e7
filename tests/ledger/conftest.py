"""The ledger tests' fixtures: the signing keys (a ring of two, and a stranger) and a
ledger of three runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.ledger.helpers import append_run

from respai.record import KeyRing, load_private_key, new_key


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Any:
    directory = tmp_path_factory.mktemp("keys")
    first = new_key(directory, passphrase=None)
    second = new_key(directory, passphrase=None)
    stranger = new_key(tmp_path_factory.mktemp("other-keys"), passphrase=None)

    class Keys:
        key = load_private_key(first.private_key, None)
        key_file = first.private_key
        key2 = load_private_key(second.private_key, None)
        key2_file = second.private_key
        other = load_private_key(stranger.private_key, None)
        ring = KeyRing.load(first.keys_json)  # lists key and key2, not other
        keys_json = first.keys_json

    return Keys


@pytest.fixture
def three(tmp_path: Path, keys: Any) -> Path:
    """A ledger with three runs of 4, 3 and 5 records."""
    directory = tmp_path / ".respai"
    append_run(directory, keys.key, "run-a")
    append_run(directory, keys.key, "run-b", values={"accuracy": 0.8})
    append_run(directory, keys.key, "run-c", values={"accuracy": 0.7, "auc": 0.75, "x": None})
    return directory
