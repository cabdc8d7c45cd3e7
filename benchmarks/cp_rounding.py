#!/usr/bin/env python3
"""How many of SciPy's Clopper-Pearson lower ends are the correctly rounded root?

Issue 30 point 5 proposed computing the Clopper-Pearson ends from the exact binomial tail
of ``respai.exact`` instead of ``scipy.special.betaincinv``, to spare small files
SciPy's import. The record signs each end as a full float, so a replacement keeps every
signed number only if it returns SciPy's exact bits. The best any replacement can do is
the correctly rounded root; this script checks, in exact rationals, whether SciPy's
float ``s`` for ``k`` in ``n`` (95 %) is that: the root of ``P(X >= k | n, t) = 0.025``
lies within half an ulp of ``s`` exactly when the tail at ``s - ulp/2`` is at most the
level and the tail at ``s + ulp/2`` at least it.

Usage: python benchmarks/cp_rounding.py   (prints one line per n and a total)
"""

from __future__ import annotations

import math
from fractions import Fraction

from scipy.special import betaincinv

from respai.exact import _upper_tail_exact


def main() -> None:
    level = Fraction(0.05 / 2.0)  # the float stats.py passes to SciPy, exactly
    off = total = 0
    for n in (3, 10, 30, 60, 100):
        off_n = 0
        for k in range(1, n + 1):
            s = float(betaincinv(k, n - k + 1, 0.05 / 2.0))
            half = Fraction(math.ulp(s)) / 2
            lo, hi = Fraction(s) - half, Fraction(s) + half
            if not _upper_tail_exact(k, n, lo) <= level <= _upper_tail_exact(k, n, hi):
                off_n += 1
        print(f"n = {n}: {off_n} of {n} lower ends are not the correctly rounded root")
        off += off_n
        total += n
    print(f"total: {off} of {total}")


if __name__ == "__main__":
    main()
