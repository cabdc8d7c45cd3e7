"""The RFC 6962 Merkle tree a checkpoint signs, and what its leaves are.

A ledger's tree has **one leaf per run**: the SHA-256 of the run file's exact bytes (the
run's whole DSSE envelope: payload type, payload and every signature, as stored). The
leaves are in ledger order, run 0 first. A checkpoint of size ``n`` therefore commits to
the exact bytes of the first ``n`` runs: changing anything in a run, even re-signing a
rewritten run with the same key, changes its leaf and so every root after it.

Hashing follows RFC 6962 section 2.1: a leaf hashes as ``SHA-256(0x00 || leaf)``, an
interior node as ``SHA-256(0x01 || left || right)``, the tree splits at the largest power
of two smaller than the number of leaves, and the empty tree's root is ``SHA-256()``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

__all__ = [
    "EMPTY_ROOT",
    "Frontier",
    "MerkleTree",
    "leaf_hash",
    "merkle_root",
    "node_hash",
    "run_leaf",
]

EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The RFC 6962 Merkle root of no leaves: SHA-256 of the empty string."""


def run_leaf(run_file_bytes: bytes) -> bytes:
    """Return a run's Merkle leaf: the 32-byte SHA-256 of the run file's exact bytes.

    The run file is the run's DSSE envelope as it was appended, so the leaf covers the
    payload type, the payload (every record, fingerprint, count and the timestamp) and
    each signature. ``sha256sum runs/<file>.json`` prints the same digest in hex.

    Parameters
    ----------
    run_file_bytes
        The bytes of ``runs/<seq>-<run_id>.json``.

    Returns
    -------
    bytes
        The 32-byte leaf.

    Examples
    --------
    >>> run_leaf(b"").hex()[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(run_file_bytes).digest()


def leaf_hash(leaf: bytes) -> bytes:
    """Return the RFC 6962 leaf hash ``SHA-256(0x00 || leaf)``.

    Examples
    --------
    >>> leaf_hash(b"").hex()[:16]
    '6e340b9cffb37a98'
    """
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """Return the RFC 6962 interior node hash ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _bag(subtrees: Sequence[bytes]) -> bytes:
    # The perfect subtrees of a size's binary decomposition, largest (leftmost) first,
    # hashed together from the right: exactly RFC 6962's split at the largest power of two.
    if not subtrees:
        return EMPTY_ROOT
    root = subtrees[-1]
    for left in reversed(subtrees[:-1]):
        root = node_hash(left, root)
    return root


class MerkleTree:
    """Every perfect, aligned subtree hash of a leaf list, so any prefix's root is cheap.

    Parameters
    ----------
    leaves
        The leaf data, in order.
    """

    def __init__(self, leaves: Sequence[bytes]) -> None:
        level = [leaf_hash(leaf) for leaf in leaves]
        self.size = len(level)
        self._levels = [level]
        while len(level) > 1:
            level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            self._levels.append(level)

    def root(self, size: int) -> bytes:
        """Return the RFC 6962 root of the first ``size`` leaves.

        Raises
        ------
        ValueError
            If ``size`` is negative or larger than the tree.
        """
        if not 0 <= size <= self.size:
            raise ValueError(f"size {size} is outside 0..{self.size}")
        subtrees: list[bytes] = []
        offset = 0
        for height in reversed(range(size.bit_length())):
            if size >> height & 1:
                subtrees.append(self._levels[height][offset >> height])
                offset += 1 << height
        return _bag(subtrees)


class Frontier:
    """The right edge of an RFC 6962 tree, grown one leaf at a time in O(log n) memory.

    It holds ``(height, hash)`` of the perfect subtrees of the size's binary
    decomposition, largest first; :meth:`root` bags them into the tree's root.

    Parameters
    ----------
    leaves
        Leaves to append at once, in order.
    """

    __slots__ = ("_nodes", "size")

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        self._nodes: list[tuple[int, bytes]] = []
        self.size = 0
        for leaf in leaves:
            self.append(leaf)

    def append(self, leaf: bytes) -> None:
        """Add one leaf at the right."""
        height, digest = 0, leaf_hash(leaf)
        while self._nodes and self._nodes[-1][0] == height:
            left_height, left = self._nodes.pop()
            height, digest = left_height + 1, node_hash(left, digest)
        self._nodes.append((height, digest))
        self.size += 1

    def root(self) -> bytes:
        """Return the root of the leaves appended so far."""
        return _bag([digest for _, digest in self._nodes])


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """Return the RFC 6962 Merkle Tree Hash of ``leaves``.

    ``MTH({}) = SHA-256()``, ``MTH({d}) = SHA-256(0x00 || d)``, and for ``n > 1``
    ``MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))`` with ``k`` the largest
    power of two smaller than ``n``.

    Parameters
    ----------
    leaves
        The leaf data, in order. In a ledger, the 32-byte :func:`run_leaf` of each run
        file, in ledger order.

    Returns
    -------
    bytes
        The 32-byte root.

    Examples
    --------
    >>> merkle_root([]).hex()[:16]
    'e3b0c44298fc1c14'
    >>> merkle_root([b""]).hex()[:16]
    '6e340b9cffb37a98'
    """
    return MerkleTree(leaves).root(len(leaves))
