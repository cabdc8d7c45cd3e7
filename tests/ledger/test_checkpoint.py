"""Signed checkpoints: the note format round-trips, and a bad one is refused."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from tests.ledger.helpers import CT_LEAVES

from respai.ledger import (
    CheckpointError,
    checkpoint_body,
    merkle_root,
    note_key_hash,
    sign_checkpoint,
    verify_checkpoint,
)

ORIGIN = "respai.local/ledger/test"


def test_checkpoint_round_trip(keys: Any) -> None:
    root = merkle_root(CT_LEAVES)
    text = sign_checkpoint(ORIGIN, 8, root, keys.key)
    body, block = text.split("\n\n")
    assert body + "\n" == checkpoint_body(ORIGIN, 8, root)
    assert body.split("\n") == [ORIGIN, "8", base64.b64encode(root).decode()]
    assert block.startswith(f"\u2014 {ORIGIN} ") and block.endswith("\n")
    blob = base64.b64decode(block.split(" ")[2])
    assert blob[:4] == note_key_hash(ORIGIN, keys.key.public_key()) and len(blob) == 68
    raw = keys.key.public_key().public_bytes_raw()
    assert blob[:4] == hashlib.sha256(ORIGIN.encode() + b"\n\x01" + raw).digest()[:4]
    keys.key.public_key().verify(blob[4:], (body + "\n").encode())
    assert verify_checkpoint(text, [keys.key.public_key()]) == (ORIGIN, 8, root)
    assert verify_checkpoint(text, keys.ring, origin=ORIGIN).size == 8
    # An unknown signer's extra line is ignored.
    extra = sign_checkpoint(ORIGIN, 8, root, keys.other).split("\n\n")[1]
    assert verify_checkpoint(text + extra, keys.ring).root == root
    assert verify_checkpoint(text.split("\n\n")[0] + "\n\n" + extra + block, keys.ring)


def test_checkpoint_refused(keys: Any) -> None:
    root = merkle_root(CT_LEAVES)
    text = sign_checkpoint(ORIGIN, 8, root, keys.key)
    with pytest.raises(CheckpointError, match="is for the ledger"):
        verify_checkpoint(text, keys.ring, origin="respai.local/ledger/other")
    with pytest.raises(CheckpointError, match="not signed by any trusted key"):
        verify_checkpoint(text, [keys.other.public_key()])
    with pytest.raises(CheckpointError, match="not signed by any trusted key"):
        verify_checkpoint(text.replace("\n8\n", "\n9\n"), keys.ring)
    # Signed under another name than the origin: not a signature for this checkpoint.
    renamed = text.replace(f"\u2014 {ORIGIN} ", "\u2014 someone ")
    with pytest.raises(CheckpointError, match="not signed by any trusted key"):
        verify_checkpoint(renamed, keys.ring)
    with pytest.raises(CheckpointError, match="em dash"):
        verify_checkpoint(text.replace("\u2014", "-"), keys.ring)
    with pytest.raises(CheckpointError, match="no signature block"):
        verify_checkpoint(checkpoint_body(ORIGIN, 8, root), keys.ring)
    with pytest.raises(CheckpointError, match="leading zeros"):
        verify_checkpoint(text.replace("\n8\n", "\n08\n"), keys.ring)
    with pytest.raises(CheckpointError, match="newline"):
        verify_checkpoint(text.rstrip("\n"), keys.ring)
    with pytest.raises(CheckpointError, match="origin"):
        sign_checkpoint("has space", 1, root, keys.key)
