"""The strict YAML reader for spec and policy files.

A file is read as bytes (its SHA-256 goes into the record), decoded as UTF-8 (a byte order
mark is allowed) and parsed with PyYAML's safe loader, which builds no Python objects
beyond plain values. A key that appears twice in one mapping is refused, where PyYAML
would silently keep the last. Every failure is a :class:`~respai.errors.SpecError` naming
the file, and the line and column when YAML gives one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from respai.errors import SpecError


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            line = key_node.start_mark.line + 1
            raise SpecError(
                f"key '{key}' appears twice in the same block (line {line}).",
                "Keep one of them.",
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def _read_yaml(path: Path, what: str) -> tuple[Any, str]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SpecError(f"{what} file {path} does not exist.", "Check the path.") from None
    except IsADirectoryError:
        raise SpecError(f"{what} file {path} is a directory, not a YAML file.") from None
    except OSError as exc:
        raise SpecError(f"cannot read {what} file {path}: {exc.strerror}.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{what} file {path} is not UTF-8 text (bad byte at offset {exc.start}).",
            "Save it as UTF-8.",
        ) from None
    try:
        doc = yaml.load(text, Loader=_StrictLoader)
    except SpecError as exc:
        raise SpecError(f"{path}: {exc.message}", exc.hint) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(
            f"{what} file {path} is not valid YAML{where}: {problem}.",
            "Check indentation and quoting there.",
        ) from None
    return doc, hashlib.sha256(raw).hexdigest()
