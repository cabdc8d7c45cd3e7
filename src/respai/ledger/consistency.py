"""RFC 6962 consistency proofs: that a tree of ``n`` leaves extends the tree of its first ``m``.

:func:`consistency_proof` builds the proof from the leaves (RFC 6962 section 2.1.2,
``PROOF(m, D[n])``); :func:`verify_consistency` checks a proof knowing only the two sizes
and the two roots (RFC 9162 section 2.1.4.2). A witness uses the second: the proof is
built from the ledger's run files, but what the witness trusts is only the root it
cosigned before and the root of the checkpoint it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.ledger.merkle import merkle_root, node_hash

__all__ = ["consistency_proof", "verify_consistency"]


def _subproof(m: int, leaves: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [merkle_root(leaves)]
    k = 1
    while k * 2 < n:
        k *= 2
    if m <= k:
        return [*_subproof(m, leaves[:k], complete), merkle_root(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), merkle_root(leaves[:k])]


def consistency_proof(leaves: Sequence[bytes], m: int) -> list[bytes]:
    """Return the RFC 6962 consistency proof from the first ``m`` leaves to all of them.

    Parameters
    ----------
    leaves
        The leaf data of the larger tree, in order (for a ledger, each run's
        :func:`~respai.ledger.run_leaf`).
    m
        The size of the smaller tree, ``0 <= m <= len(leaves)``.

    Returns
    -------
    list of bytes
        The proof's node hashes (empty when ``m`` is 0 or ``len(leaves)``).

    Raises
    ------
    ValueError
        If ``m`` is outside ``0..len(leaves)``.
    """
    if not 0 <= m <= len(leaves):
        raise ValueError(f"size {m} is outside 0..{len(leaves)}")
    if m == 0:
        return []
    return _subproof(m, leaves, True)


def verify_consistency(
    m: int, n: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """Whether ``proof`` shows that tree ``(n, new_root)`` extends tree ``(m, old_root)``.

    The check is RFC 9162 section 2.1.4.2's. Every tree extends the empty one; a tree
    extends one of its own size only when the roots are equal. A smaller ``n`` than ``m``
    is never consistent.

    Examples
    --------
    >>> from respai.ledger.merkle import merkle_root
    >>> leaves = [b"a", b"b", b"c"]
    >>> proof = consistency_proof(leaves, 2)
    >>> verify_consistency(2, 3, merkle_root(leaves[:2]), merkle_root(leaves), proof)
    True
    >>> verify_consistency(2, 3, merkle_root([b"a", b"x"]), merkle_root(leaves), proof)
    False
    """
    if m < 0 or n < m:
        return False
    if m == 0:
        return not proof
    if m == n:
        return not proof and old_root == new_root
    path = list(proof)
    if m & (m - 1) == 0:  # m is a power of two: the old root is the first node
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = m - 1, n - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == old_root and sr == new_root and sn == 0
