"""Write the details part of record.schema.json from the TypedDicts of respai.record.predicate.

Run after changing a details type: ``python scripts/gen_record_schema.py``. The test
tests/record/test_model.py fails while the schema and the types disagree.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

from respai.record import predicate as m

SCHEMA = Path(m.__file__).with_name("record.schema.json")
REFS: dict[Any, str] = {
    m.IntervalJSON: "#/$defs/interval",
    m.RateRow: "#/$defs/rate_row",
    m.GroupsDerived: "#/$defs/groups_derived",
}


def convert(t: Any) -> dict[str, Any]:
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin in (typing.NotRequired, typing.Required):
        return convert(args[0])
    simple = {type(None): "null", int: "integer", float: "number", str: "string", bool: "boolean"}
    if t in simple:
        return {"type": simple[t]}
    if t is typing.Any:
        return {}
    if t in REFS:
        return {"$ref": REFS[t]}
    if origin in (typing.Union, types.UnionType):
        parts = [convert(a) for a in args]
        if all(set(p) == {"type"} for p in parts):
            return {"type": [p["type"] for p in parts]}
        return {"anyOf": parts}
    if origin is list:
        item = convert(args[0])
        return {"type": "array", "items": item} if item else {"type": "array"}
    if origin is dict:
        value = convert(args[1])
        return {"type": "object", "additionalProperties": value} if value else {"type": "object"}
    raise TypeError(f"no JSON Schema for {t!r}")


def typed_dict(cls: Any) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, include_extras=True)
    return {
        "type": "object",
        "required": sorted(cls.__required_keys__),
        "properties": {k: convert(v) for k, v in hints.items()},
        "additionalProperties": False,
    }


def details_def(test_id: str) -> str:
    return "details_" + m.DETAILS_TYPES[test_id].__name__.removesuffix("Details").lower()


def main() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    defs["interval"] = {
        "type": "object",
        "required": ["lo", "hi", "method", "confidence"],
        "properties": {
            "lo": {"type": "number"},
            "hi": {"type": "number"},
            "method": {"type": "string", "minLength": 1},
            "confidence": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        },
        "additionalProperties": False,
    }
    defs["rate_row"] = typed_dict(m.RateRow)
    defs["groups_derived"] = typed_dict(m.GroupsDerived)
    for test_id, cls in m.DETAILS_TYPES.items():
        defs[details_def(test_id)] = typed_dict(cls)
    record = defs["test_record"]
    record["allOf"] = [
        {
            "if": {"properties": {"test_id": {"const": test_id}}, "required": ["test_id"]},
            "then": {
                "required": ["details"],
                "properties": {"details": {"$ref": f"#/$defs/{details_def(test_id)}"}},
            },
        }
        for test_id in m.DETAILS_TYPES
    ]
    SCHEMA.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
