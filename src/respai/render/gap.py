"""The bounds shown for a group rule's largest gap: one definition for every output.

A rule's ``gap_bounds`` (in the record and in ``--json``) are the bounds on the largest
signed difference ``rate_i - rate_j`` over ordered pairs of distinct groups
(:func:`respai.decision.max_gap_bounds`). The lower one can be negative: every interval
then overlaps, and the groups may all have the same rate. The largest gap between two
groups, ``max rate - min rate``, is never negative, so every page and export shows its
lower bound as ``max(lo, 0)``, as the rule's reason does; the record keeps the raw
bound, which is what the verdict was decided from.

The terminal, the notebook view and ``to_dict()`` (``largest_gap``) show these bounds with
one label (:data:`GAP_LABEL`) and one text (:func:`gap_text`): four decimals, lower then
upper.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["GAP_LABEL", "gap_text", "shown_gap_bounds"]

#: What every output calls a rule's shown gap bounds.
GAP_LABEL = "largest gap"


def shown_gap_bounds(bounds: object) -> tuple[float, float] | None:
    """The largest gap's bounds as shown: ``(max(lo, 0), hi)``, or ``None``.

    Parameters
    ----------
    bounds
        A rule's ``gap_bounds`` (``{"lo": ..., "hi": ...}``), or anything else.

    Returns
    -------
    tuple of float or None
        The bounds, or ``None`` when ``bounds`` does not hold two numbers.

    Examples
    --------
    >>> shown_gap_bounds({"lo": -0.046, "hi": 0.21})
    (0.0, 0.21)
    >>> shown_gap_bounds({"lo": 0.05, "hi": 0.21})
    (0.05, 0.21)
    >>> shown_gap_bounds(None) is None
    True
    """
    if not isinstance(bounds, Mapping):
        return None
    lo, hi = bounds.get("lo"), bounds.get("hi")
    if any(isinstance(v, bool) or not isinstance(v, int | float) for v in (lo, hi)):
        return None
    assert isinstance(lo, int | float) and isinstance(hi, int | float)
    low = float(lo)
    return (low if low > 0 else 0.0), float(hi)  # never -0.0: shown as 0.0000 everywhere


def gap_text(bounds: object) -> str | None:
    """The shown bounds as every output writes them: ``[0.0000, 0.1329]``, or ``None``.

    ``bounds`` is a rule's ``gap_bounds``, as a ``{"lo", "hi"}`` mapping or a
    ``(lo, hi)`` pair.

    Examples
    --------
    >>> gap_text((-0.0115, 0.13291))
    '[0.0000, 0.1329]'
    >>> gap_text({"lo": 0.05, "hi": 0.2}), gap_text(None)
    ('[0.0500, 0.2000]', None)
    """
    if isinstance(bounds, tuple) and len(bounds) == 2:
        bounds = {"lo": bounds[0], "hi": bounds[1]}
    shown = shown_gap_bounds(bounds)
    return None if shown is None else f"[{shown[0]:.4f}, {shown[1]:.4f}]"
