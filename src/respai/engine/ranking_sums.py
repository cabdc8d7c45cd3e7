"""The ``ranking:`` block's exact sums: one portable SQL text per pass, on every engine.

Every item's position is an exact whole number of half positions (``p2 = 2 x position``):
with ``position:`` the declared position; with ``score:``, the average position of its
tie (``2 RANK() + ties - 1`` over the list ordered by score descending, the same on DuckDB
and Spark since ranks and counts are integers and ties are exact equality of the scores).
An item's exposure ``1 / log2(1 + position)`` is read from a table of fixed-point units
computed here in Python for the positions present (:func:`exposure_units`), joined in
SQL, so no engine's logarithm enters a signed number.

The sums are two-level, the list being the unit: per list and group the item count ``n``,
the items in the top ``k`` for each ``k``, and the exposure ``e`` (each summed over
items, with weight 1 and, with ``data.weight``, with the item's weight in fixed-point
units); then per group, over the lists it appears in, the sums, squares and cross
products a cluster-robust variance needs, and over every list the lists' totals.
Everything is summed in ``DECIMAL(38, 0)``; an overflowing sum (Spark gives ``NULL``) is
refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from respai.engine.group_match import EMPTY_CODE, group_codes
from respai.engine.source import Source
from respai.engine.sql import MAX_FIXED, Dialect, fixed, query
from respai.errors import InputError

__all__ = [
    "LEVELS",
    "GroupSums",
    "ListTotals",
    "RankingSums",
    "exposure_units",
    "ranking_sums",
    "weight_sums",
]

#: The two ways an item is counted: once (``count``), or at its weight (``weight``).
LEVELS = ("count", "weight")
_D = "DECIMAL(38, 0)"


def exposure_units(p2: int, decimals: int) -> int:
    """``1 / log2(1 + p2 / 2)`` in whole ``10^-decimals`` units, rounded half up.

    Examples
    --------
    >>> exposure_units(2, 6), exposure_units(4, 6), exposure_units(3, 0)
    (1000000, 630930, 1)
    """
    scale: int = 10**decimals
    return math.floor(scale / math.log2(1 + p2 / 2) + 0.5)


@dataclass(frozen=True, slots=True)
class GroupSums:
    """One group's sums over the lists it appears in, for one way of counting.

    ``n`` items (or weight units), ``t[k]`` of them in the top ``k``, ``e`` exposure
    (units ``10^-decimals``, times weight units when weighted); ``*2`` the sums over lists
    of the per-list squares, ``tn``, ``en``, ``eE`` ... the sums of per-list products with
    the list's own totals ``E`` (exposure) and ``N`` (items) over the kept items.
    """

    lists: int
    n: int
    n2: int
    e: int
    e2: int
    en: int
    e_big: int
    e_n_big: int
    n_e_big: int
    n_n_big: int
    t: dict[int, int] = field(default_factory=dict)
    t2: dict[int, int] = field(default_factory=dict)
    tn: dict[int, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Every sum, as an exact number (a decimal string beyond 2^53)."""
        return {
            "lists": self.lists,
            "n": _num(self.n),
            "n2": _num(self.n2),
            "e": _num(self.e),
            "e2": _num(self.e2),
            "en": _num(self.en),
            "eE": _num(self.e_big),
            "eN": _num(self.e_n_big),
            "nE": _num(self.n_e_big),
            "nN": _num(self.n_n_big),
            "top_k": {
                str(k): {"t": _num(self.t[k]), "t2": _num(self.t2[k]), "tn": _num(self.tn[k])}
                for k in sorted(self.t)
            },
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> GroupSums:
        """The sums back from :meth:`to_json`."""
        tk = d["top_k"]
        return GroupSums(
            lists=int(d["lists"]),
            n=int(d["n"]),
            n2=int(d["n2"]),
            e=int(d["e"]),
            e2=int(d["e2"]),
            en=int(d["en"]),
            e_big=int(d["eE"]),
            e_n_big=int(d["eN"]),
            n_e_big=int(d["nE"]),
            n_n_big=int(d["nN"]),
            t={int(k): int(v["t"]) for k, v in tk.items()},
            t2={int(k): int(v["t2"]) for k, v in tk.items()},
            tn={int(k): int(v["tn"]) for k, v in tk.items()},
        )


@dataclass(frozen=True, slots=True)
class ListTotals:
    """Sums over every list of its totals ``E`` (exposure) and ``N`` (items), kept items."""

    lists: int
    e: int
    e2: int
    n: int
    n2: int
    en: int

    def to_json(self) -> dict[str, Any]:
        """Every sum, as an exact number (a decimal string beyond 2^53)."""
        return {
            "lists": self.lists,
            "E": _num(self.e),
            "E2": _num(self.e2),
            "N": _num(self.n),
            "N2": _num(self.n2),
            "EN": _num(self.en),
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> ListTotals:
        """The totals back from :meth:`to_json`."""
        return ListTotals(
            int(d["lists"]), int(d["E"]), int(d["E2"]), int(d["N"]), int(d["N2"]), int(d["EN"])
        )


@dataclass(frozen=True, slots=True)
class RankingSums:
    """The counts of one attribute: per group and level, the list totals, what was left out.

    ``groups[level][group]`` and ``totals[level]`` for each level counted (``count``, and
    ``weight`` with a weight column); ``missing[group]`` the rows of a declared group with
    a list but no position (or score); ``left_out`` rows by reason.
    """

    groups: dict[str, dict[str, GroupSums]]
    totals: dict[str, ListTotals]
    missing: dict[str, int]
    left_out: dict[str, int]


def _num(v: int) -> int | str:
    return v if abs(v) < 2**53 else str(v)


def _position(d: Dialect, order: str, by_score: bool, list_col: str) -> str:
    o, lc = d.ident(order), d.ident(list_col)
    if not by_score:
        return f"CAST(2 * CAST({o} AS DOUBLE) AS BIGINT)"
    return (
        f"CASE WHEN {o} IS NULL THEN NULL ELSE 2 * RANK() OVER (PARTITION BY {lc}, "
        f"CASE WHEN {o} IS NULL THEN 1 ELSE 0 END ORDER BY {o} DESC) + COUNT(*) OVER "
        f"(PARTITION BY {lc}, {o}) - 1 END"
    )


def _check_positions(
    source: Source, list_col: str, order: str, by_score: bool, columns: list[str]
) -> None:
    """Refuse positions below 1, not whole, or repeated within a list; NaN scores."""
    from respai.load import show_value

    def build(d: Dialect) -> str:
        lc, o = d.ident(list_col), d.ident(order)
        if by_score:
            return (
                f"SELECT CAST({lc} AS STRING), CAST({o} AS DOUBLE) FROM {d.table} "
                f"WHERE {lc} IS NOT NULL AND isnan(CAST({o} AS DOUBLE)) "
                f"ORDER BY 1 LIMIT 1"
            )
        x = f"CAST({o} AS DOUBLE)"
        return (
            f"SELECT l, p, bad FROM (SELECT CAST({lc} AS STRING) AS l, {x} AS p, CASE "
            f"WHEN isnan({x}) OR {x} < 1 OR {x} <> FLOOR({x}) OR {x} > 1e9 THEN 'bad' "
            f"WHEN COUNT(*) OVER (PARTITION BY {lc}, {x}) > 1 THEN 'twice' ELSE NULL END "
            f"AS bad FROM {d.table} WHERE {lc} IS NOT NULL AND {o} IS NOT NULL) AS c "
            "WHERE bad IS NOT NULL ORDER BY bad, l, p LIMIT 1"
        )

    rows = query(source, build, columns)
    if not rows:
        return
    if by_score:
        raise InputError(
            f"the score column '{order}' of {source.description} holds NaN in list "
            f"{show_value(rows[0][0])}.",
            "Leave a score empty when it is not known; NaN cannot be ranked.",
        )
    lid, pos, why = rows[0]
    if isinstance(pos, float) and pos.is_integer():
        pos = int(pos)
    if why == "twice":
        raise InputError(
            f"list {show_value(lid)} of {source.description} has more than one item at "
            f"position {show_value(pos)} (column '{order}').",
            "Give every item of a list its own position, or declare score: instead of "
            "position: to rank ties at their average position.",
        )
    raise InputError(
        f"the position column '{order}' of {source.description} holds {show_value(pos)} in "
        f"list {show_value(lid)}; positions are whole numbers from 1 (the top).",
        "Write each item's position as 1, 2, 3, ... within its list; leave it empty when the "
        "item was not ranked.",
    )


def _check_weights(source: Source, weight: str, decimals: int, columns: list[str]) -> None:
    from respai.load import show_value

    def build(d: Dialect) -> str:
        w = f"CAST({d.ident(weight)} AS DOUBLE)"
        return (
            f"SELECT {w} FROM {d.table} WHERE {d.ident(weight)} IS NOT NULL AND "
            f"(isnan({w}) OR {w} < 0 OR {w} * CAST({10**decimals} AS DOUBLE) > "
            f"CAST({MAX_FIXED} AS DOUBLE)) LIMIT 1"
        )

    rows = query(source, build, columns)
    if rows:
        value = rows[0][0]
        too_big = isinstance(value, float) and value >= 0 and not math.isnan(value)
        raise InputError(
            f"the weight column '{weight}' of {source.description} holds {show_value(value)}"
            + (
                f", beyond {MAX_FIXED} units of 10^-{decimals}."
                if too_big
                else "; weights must be finite and 0 or more."
            ),
            "Use fewer decimals (ranking.decimals)" if too_big else "Fix or drop the row.",
        )


def _positions_present(
    source: Source, list_col: str, order: str, by_score: bool, cols: list[str]
) -> list[int]:
    def build(d: Dialect) -> str:
        p = _position(d, order, by_score, list_col)
        return (
            f"SELECT DISTINCT p2 FROM (SELECT {p} AS p2 FROM {d.table} WHERE "
            f"{d.ident(list_col)} IS NOT NULL) AS r WHERE p2 IS NOT NULL ORDER BY p2"
        )

    return [int(r[0]) for r in query(source, build, cols)]


def ranking_sums(
    source: Source,
    *,
    list_col: str,
    order: str,
    by_score: bool,
    attribute: str,
    groups: Sequence[str],
    top_k: Sequence[int],
    decimals: int,
    weight: str | None = None,
) -> RankingSums:
    """Count one attribute's groups over the ranked lists of ``source``, exactly.

    Items of every group (declared or not) keep their slots in a list; the sums are over
    the kept items: a list id, a declared group, and a position (or score). A group value
    is matched to the declared groups exactly as the ``fairness:`` block matches it
    (:mod:`respai.engine.group_match`).

    Raises
    ------
    InputError
        For a position below 1, not whole or repeated within a list, a NaN score, a
        negative or non-finite weight or one beyond :data:`MAX_FIXED` units, or a sum
        beyond ``DECIMAL(38, 0)``.
    """
    cols = list(dict.fromkeys([list_col, order, attribute, *([weight] if weight else [])]))
    _check_positions(source, list_col, order, by_score, cols)
    if weight is not None:
        _check_weights(source, weight, decimals, cols)
    present = _positions_present(source, list_col, order, by_score, cols)
    codes = group_codes(source, {attribute: groups})[attribute]
    units = [(p2, exposure_units(p2, decimals)) for p2 in present]
    levels = LEVELS if weight is not None else LEVELS[:1]
    ks = list(top_k)

    def base(d: Dialect) -> str:
        lc = d.ident(list_col)
        w = fixed(d.ident(weight), decimals) if weight is not None else "NULL"
        p = _position(d, order, by_score, list_col)
        table = ", ".join(f"({a}, {b})" for a, b in units) or "(0, 0)"
        xs = {"count": f"CAST(1 AS {_D})", "weight": "w"}
        per = []
        for lv in levels:
            x = xs[lv]
            per.append(f"SUM({x}) AS n_{lv}")
            per.append(f"SUM({x} * CAST(u.u AS {_D})) AS e_{lv}")
            per += [
                f"SUM(CASE WHEN r.p2 <= {2 * k} THEN {x} ELSE CAST(0 AS {_D}) END) AS t{k}_{lv}"
                for k in ks
            ]
        return (
            f"WITH r AS (SELECT CAST({lc} AS STRING) AS l, {codes.code(d)} AS g, "
            f"{w} AS w, {p} AS p2 FROM {d.table}{codes.join(d)} WHERE {lc} IS NOT NULL), "
            f"u AS (SELECT * FROM (VALUES {table}) AS v(p2, u)), "
            f"lg AS (SELECT r.l, r.g, {', '.join(per)} FROM r JOIN u ON r.p2 = u.p2 "
            "WHERE r.g >= 0"
            + (" AND r.w IS NOT NULL" if weight is not None else "")
            + " GROUP BY r.l, r.g), "
            "lt AS (SELECT l, "
            + ", ".join(f"SUM(n_{lv}) AS bn_{lv}, SUM(e_{lv}) AS be_{lv}" for lv in levels)
            + " FROM lg GROUP BY l) "
        )

    def per_group(d: Dialect) -> str:
        sel = []
        for lv in levels:
            n, e, bn, be = f"n_{lv}", f"e_{lv}", f"bn_{lv}", f"be_{lv}"
            sel += [
                f"SUM({n})",
                f"SUM({n} * {n})",
                f"SUM({e})",
                f"SUM({e} * {e})",
                f"SUM({e} * {n})",
                f"SUM({e} * {be})",
                f"SUM({e} * {bn})",
                f"SUM({n} * {be})",
                f"SUM({n} * {bn})",
            ]
            for k in ks:
                t = f"t{k}_{lv}"
                sel += [f"SUM({t})", f"SUM({t} * {t})", f"SUM({t} * {n})"]
        return (
            base(d) + f"SELECT lg.g, COUNT(*), {', '.join(sel)} FROM lg JOIN lt ON lg.l = lt.l "
            "GROUP BY lg.g"
        )

    def totals(d: Dialect) -> str:
        sel = []
        for lv in levels:
            bn, be = f"bn_{lv}", f"be_{lv}"
            sel += [
                f"SUM({be})",
                f"SUM({be} * {be})",
                f"SUM({bn})",
                f"SUM({bn} * {bn})",
                f"SUM({be} * {bn})",
            ]
        return base(d) + f"SELECT COUNT(*), {', '.join(sel)} FROM lt"

    def tallies(d: Dialect) -> str:
        lc, o = d.ident(list_col), d.ident(order)
        wnull = f" OR {d.ident(weight)} IS NULL" if weight is not None else ""
        return (
            "SELECT g, COUNT(*), SUM(no_list), SUM(no_pos) FROM ("
            f"SELECT {codes.code(d)} AS g, CASE WHEN {lc} IS NULL THEN 1 ELSE 0 END AS no_list, "
            f"CASE WHEN {lc} IS NOT NULL AND ({o} IS NULL{wnull}) THEN 1 ELSE 0 END AS no_pos "
            f"FROM {d.table}{codes.join(d)}) AS c GROUP BY g"
        )

    group_rows = query(source, per_group, cols)
    total_rows = query(source, totals, cols)
    tally_rows = query(source, tallies, cols)
    for row in [*group_rows, *total_rows]:
        if any(v is None for v in row[1:]) and row[1]:
            raise InputError(
                f"a sum of the ranking block over {source.description} is beyond "
                "DECIMAL(38, 0) (the engine gave no value).",
                "Use fewer decimals (ranking.decimals), or smaller weights.",
            )
    out_groups: dict[str, dict[str, GroupSums]] = {lv: {} for lv in levels}
    # ordered by the group's name, as the record lists them
    for row in sorted(group_rows, key=lambda r: groups[int(r[0])]):
        g, lists, rest = groups[int(row[0])], int(row[1]), [int(v) for v in row[2:]]
        for lv in levels:
            head, rest = rest[:9], rest[9:]
            t, t2, tn = {}, {}, {}
            for k in ks:
                t[k], t2[k], tn[k] = rest[0], rest[1], rest[2]
                rest = rest[3:]
            out_groups[lv][g] = GroupSums(
                lists,
                head[0],
                head[1],
                head[2],
                head[3],
                head[4],
                head[5],
                head[6],
                head[7],
                head[8],
                t=t,
                t2=t2,
                tn=tn,
            )
    trow = total_rows[0]
    out_totals: dict[str, ListTotals] = {}
    rest = [int(v or 0) for v in trow[1:]]
    for lv in levels:
        out_totals[lv] = ListTotals(int(trow[0]), *rest[:5])
        rest = rest[5:]
    missing = dict.fromkeys(groups, 0)
    left = {"missing_list": 0, "missing_group": 0, "undeclared_group": 0}
    for code, rows, no_list, no_pos in tally_rows:
        left["missing_list"] += int(no_list)
        with_list = int(rows) - int(no_list)
        name = codes.name(int(code))
        if name is not None:
            missing[name] += int(no_pos)
        elif int(code) == EMPTY_CODE:
            left["missing_group"] += with_list
        else:
            left["undeclared_group"] += with_list
    return RankingSums(out_groups, out_totals, missing, left)


def weight_sums(source: Source, weight: str, decimals: int) -> dict[str, Any]:
    """The weights' fingerprint: ``{column, decimals, n, sum, sum_squares, n_eff}``.

    ``n`` rows with a weight, ``sum`` and ``sum_squares`` exact in ``10^-decimals`` units
    (decimal strings beyond 2^53), ``n_eff`` Kish's effective size ``sum^2 / sum_squares``
    (``None`` when every weight is 0).
    """
    _check_weights(source, weight, decimals, [weight])

    def build(d: Dialect) -> str:
        w = fixed(d.ident(weight), decimals)
        return f"SELECT COUNT({w}), SUM({w}), SUM({w} * {w}) FROM {d.table}"

    n, total, squares = query(source, build, [weight])[0]
    total, squares = int(total or 0), int(squares or 0)
    return {
        "column": weight,
        "decimals": decimals,
        "n": int(n),
        "sum": _num(total),
        "sum_squares": _num(squares),
        "n_eff": None if squares == 0 else total * total / squares,
    }
