"""The JSON Schema (draft 2020-12) of a record's predicate, shipped in the package.

Two validators read the one schema. ``jsonschema_rs`` (compiled) answers whether a
predicate is valid, in milliseconds even for a record of tens of megabytes, where
``jsonschema`` (pure Python) takes seconds; only when it says no does ``jsonschema`` list
the violations, with its clearer messages. The two must agree on what is valid, so
``tests/record/test_schema_validators.py`` runs both on thousands of broken records.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from respai.record.canonical import format_path

if TYPE_CHECKING:  # jsonschema loads on first use, keeping `import respai.record` light
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = [
    "SCHEMA_FILE",
    "SCHEMA_VERSION",
    "record_schema",
    "validate_predicate",
]

SCHEMA_VERSION = "1.0"
"""The ``schema_version`` of a record without a compact grouping (one with is ``"1.1"``,
:data:`respai.record.compact.COMPACT_SCHEMA_VERSION`); the schema admits both."""

SCHEMA_FILE = "record.schema.json"
"""The schema's file name inside the ``respai.record`` package."""


@functools.cache
def _schema_text() -> str:
    return (importlib.resources.files("respai.record") / SCHEMA_FILE).read_text("utf-8")


def record_schema() -> dict[str, Any]:
    """Return a fresh copy of the record predicate's JSON Schema."""
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema


@functools.cache
def _fast_validator() -> Any:
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(record_schema())


@functools.cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(record_schema())


def _messages(error: ValidationError) -> list[str]:
    from jsonschema.exceptions import best_match

    if error.context:
        chosen = best_match(error.context)
        if chosen is not None:
            error = chosen
    path = tuple(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, Mapping):
        names = error.validator_value if isinstance(error.validator_value, list) else []
        return [
            f"{format_path((*path, name))}: required field is missing"
            for name in names
            if name not in error.instance
        ]
    return [f"{format_path(path)}: {error.message}"]


def validate_predicate(predicate: Any) -> list[str]:
    """Return every schema violation of ``predicate``, each prefixed with its JSON path.

    Parameters
    ----------
    predicate
        The parsed predicate of a Statement.

    Returns
    -------
    list of str
        Messages such as ``"$.records[2].verdict: 'MAYBE' is not one of [...]"``, sorted
        by path; empty when the predicate is valid.
    """
    if _fast_validator().is_valid(predicate):
        return []
    messages: list[str] = []
    for error in _validator().iter_errors(predicate):
        messages.extend(_messages(error))
    return sorted(set(messages))
