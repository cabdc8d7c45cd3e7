"""The Merkle tree: RFC 6962 tree heads, against the reference vectors and the recursion."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from tests.ledger.helpers import CT_LEAVES, CT_ROOTS, reference_mth, run_paths

from respai.ledger import EMPTY_ROOT, leaf_hash, merkle_root, run_leaf
from respai.ledger.merkle import Frontier, MerkleTree


def test_merkle_root_known_vectors() -> None:
    assert merkle_root([]) == EMPTY_ROOT
    assert merkle_root([]).hex() == CT_ROOTS[0]
    assert merkle_root([b""]).hex() == CT_ROOTS[1] == leaf_hash(b"").hex()
    for size in range(len(CT_LEAVES) + 1):
        assert merkle_root(CT_LEAVES[:size]).hex() == CT_ROOTS[size], size


def test_merkle_root_matches_the_recursion_on_random_leaves() -> None:
    rng = random.Random(6962)
    for n in [*range(0, 70), 127, 128, 129, 255, 300]:
        leaves = [rng.randbytes(32) for _ in range(n)]
        assert merkle_root(leaves) == reference_mth(leaves), n
    leaves = [rng.randbytes(32) for _ in range(40)]
    tree = MerkleTree(leaves)
    assert all(tree.root(m) == reference_mth(leaves[:m]) for m in range(41))
    with pytest.raises(ValueError, match="outside"):
        tree.root(41)
    frontier = Frontier()
    assert frontier.root() == EMPTY_ROOT
    for m, leaf in enumerate(leaves, start=1):
        frontier.append(leaf)
        assert frontier.size == m and frontier.root() == reference_mth(leaves[:m])
    assert Frontier(leaves).root() == merkle_root(leaves)


def test_run_leaf_is_the_sha256_of_the_run_file(three: Path) -> None:
    for path in run_paths(three):
        data = path.read_bytes()
        assert run_leaf(data) == hashlib.sha256(data).digest()
    assert run_leaf(b"a") != run_leaf(b"a ")
