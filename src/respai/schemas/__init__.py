"""The JSON Schemas (draft 2020-12) of every command's ``--json`` output, shipped here.

One file per command, ``<command>.schema.json`` (see :data:`COMMANDS`), with the shared
definitions (verdicts, intervals, measures, per-group rows, rules) in
``defs.schema.json``. Their ``$id`` is ``https://respai.org/cli/v1/<file>``; the files
reference one another by name. :func:`validate_output` checks a document against its
command's schema; ``tests/schemas/test_json_schemas.py`` runs each command and checks its output.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonschema loads on first use
    from jsonschema import Draft202012Validator

__all__ = ["BASE_URI", "COMMANDS", "command_schema", "validate_output"]

COMMANDS = (
    "evaluate",
    "fairness",
    "verify",
    "ll144",
    "paired",
    "monitor",
    "plan",
    "log",
    "compare",
    "reproduce",
)
"""The commands whose ``--json`` document has a schema here."""

BASE_URI = "https://respai.org/cli/v1/"
"""Where the schemas' ``$id`` values live."""

_DEFS = "defs.schema.json"


def _read(name: str) -> dict[str, Any]:
    text = (importlib.resources.files("respai.schemas") / name).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def command_schema(command: str) -> dict[str, Any]:
    """Return a fresh copy of the ``--json`` schema of ``command``.

    Raises
    ------
    KeyError
        When ``command`` has no schema (it is not in :data:`COMMANDS`).

    Examples
    --------
    >>> command_schema("verify")["title"]
    'respai verify --json'
    """
    if command not in COMMANDS:
        raise KeyError(f"no --json schema for {command!r}; there are {', '.join(COMMANDS)}")
    return _read(f"{command}.schema.json")


@functools.cache
def _validator(command: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    resources = [
        (BASE_URI + name, Resource.from_contents(_read(name)))
        for name in (_DEFS, *(f"{c}.schema.json" for c in COMMANDS))
    ]
    registry: Registry[Any] = Registry().with_resources(resources)
    return Draft202012Validator(command_schema(command), registry=registry)


def validate_output(command: str, payload: Any) -> list[str]:
    """Every way ``payload`` differs from the ``--json`` schema of ``command``.

    Returns
    -------
    list of str
        ``"$.path.to.value: message"`` per violation, sorted; empty when it is valid.
    """
    out = []
    for error in _validator(command).iter_errors(payload):
        path = "$" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path
        )
        out.append(f"{path}: {error.message[:300]}")
    return sorted(out)
