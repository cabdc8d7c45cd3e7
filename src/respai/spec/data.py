"""The ``data:`` block: where the cases and the self-identification come from.

``cases``, ``format`` and ``delimiter`` may be set here or under ``fairness:``, not both.
``demographics`` names a second file joined on an id column (``join_on``, else ``id``).
``source`` says whether the data is historical or test data; test data needs an
``explanation`` (the LL144 summary must give one). ``weight`` names a column of survey or
sampling weights of the cases file, read by every block that weighs its estimates;
``weight_decimals`` (0 to 12, default 6) the grid the weights are summed on exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from respai.errors import did_you_mean
from respai.spec.checks import _check_keys, _Ctx, _format_and_delimiter, _name, _path, _text
from respai.spec.parsed import DataSpec, FairnessSpec

_DATA_KEYS = (
    "cases",
    "id",
    "demographics",
    "join_on",
    "source",
    "explanation",
    "format",
    "delimiter",
    "weight",
    "weight_decimals",
)


def _check_data_block(ctx: _Ctx, data: Mapping[Any, Any]) -> None:
    """The ``data:`` keys and kinds, checked before the other blocks are parsed."""
    _check_keys(ctx, "data", data, _DATA_KEYS, ())
    for key in ("id", "explanation"):
        if key in data:
            _text(ctx, f"data.{key}", data[key])
    if "source" in data:
        source = _text(ctx, "data.source", data["source"])
        if source not in ("historical", "test"):
            raise ctx.fail(
                "data.source",
                f"'{source}' is not a data source kind."
                + did_you_mean(source, ("historical", "test")),
                "Use historical (real use) or test (with an explanation).",
            )


def _parse_data(
    ctx: _Ctx, data: Mapping[Any, Any], base_dir: Path | None, fairness: FairnessSpec | None
) -> DataSpec:
    """Validate the ``data:`` block into a :class:`DataSpec`."""
    if fairness is not None:
        cases, fmt, delimiter = fairness.cases, fairness.format, fairness.delimiter
    else:
        cases = _path(ctx, "data.cases", data.get("cases"), base_dir)
        fmt, delimiter = _format_and_delimiter(ctx, "data", data)
    id_col = None if data.get("id") is None else _name(ctx, "data.id", data["id"])
    join_on = None if data.get("join_on") is None else _name(ctx, "data.join_on", data["join_on"])
    weight = None if data.get("weight") is None else _name(ctx, "data.weight", data["weight"])
    weight_decimals = _weight_decimals(ctx, data)
    if weight is None and "weight_decimals" in data:
        raise ctx.fail(
            "data.weight_decimals",
            "is set but data.weight is not, so there are no weights to sum.",
            "Name the weight column in data.weight, or remove weight_decimals.",
        )
    demographics = _path(ctx, "data.demographics", data.get("demographics"), base_dir)
    if join_on is not None and demographics is None:
        raise ctx.fail(
            "data.join_on",
            "is set but data.demographics is not, so there is nothing to join.",
            "Name the self-identification file under data.demographics, or remove join_on.",
        )
    if demographics is not None and join_on is None:
        if id_col is None:
            raise ctx.fail(
                "data.join_on",
                "is required with data.demographics: it names the id column both files share.",
                "For example join_on: applicant_id.",
            )
        join_on = id_col
    source = None if data.get("source") is None else _text(ctx, "data.source", data["source"])
    explanation = (
        None
        if data.get("explanation") is None
        else _text(ctx, "data.explanation", data["explanation"]).strip() or None
    )
    if source == "test" and explanation is None:
        raise ctx.fail(
            "data.explanation",
            "is required when data.source is test: the published summary must say why "
            "historical data was not used and how the test data was made (6 RCNY § 5-302(b)).",
            "Write both in one or two sentences under data.explanation.",
        )
    return DataSpec(
        cases=cases,
        id=id_col,
        demographics=demographics,
        join_on=join_on,
        source=source,
        explanation=explanation,
        format=fmt,
        delimiter=delimiter,
        weight=weight,
        weight_decimals=weight_decimals,
    )


def _weight_decimals(ctx: _Ctx, data: Mapping[Any, Any]) -> int:
    """``data.weight_decimals``: a whole number from 0 to 12 (default 6)."""
    value = data.get("weight_decimals", 6)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 12:
        raise ctx.fail(
            "data.weight_decimals",
            f"must be a whole number from 0 to 12, got {value!r}.",
            "The default 6 sums weights in millionths; fewer decimals admit larger weights.",
        )
    return value
