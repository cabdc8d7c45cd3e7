"""The strict YAML reader for spec and policy files.

A file is read as bytes (its SHA-256 goes into the record), decoded as UTF-8 (a byte order
mark is allowed) and parsed with PyYAML's safe loader, which builds no Python objects
beyond plain values. A key that appears twice in one mapping is refused, where PyYAML
would silently keep the last. The file is held to the limits of :mod:`respai.limits`:
its size, its nesting depth, the digits of an integer, and the number of values with
every alias expanded (an alias to a value still being read, which would make a
structure that contains itself, is refused). Every failure is a
:class:`~respai.errors.SpecError` naming the file and the limit, and the line and column
when YAML gives one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, ClassVar

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

try:
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    CParser = None  # type: ignore[misc, assignment]
from respai.errors import SpecError
from respai.io import NotARegularFile, read_regular
from respai.limits import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_INTEGER_DIGITS, MAX_YAML_NODES


class _Limits(Composer):
    """The composer that holds a file to the limits (a mixin before the parser)."""

    _depth: int
    _nodes: int
    _sizes: dict[int, int]

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose one node, counting aliases as copies and refusing deep nesting."""
        event: yaml.Event = self.peek_event()  # type: ignore[attr-defined]
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.AliasEvent):
            target = self.anchors.get(event.anchor) if event.anchor is not None else None
            if target is not None:
                size = self._sizes.get(id(target))
                if size is None:
                    raise SpecError(
                        f"the alias *{event.anchor} (line {line}) refers to the value it is "
                        "inside, which would make it endless.",
                        "Write the value out instead of referring to it.",
                    )
                self._count(size, line)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise SpecError(
                f"the values nest more than {MAX_YAML_DEPTH} levels deep (MAX_YAML_DEPTH) "
                f"at line {line}.",
                "A spec needs a few levels; flatten the structure.",
            )
        start = self._nodes
        self._count(1, line)
        node = super().compose_node(parent, index)
        self._depth -= 1
        if node is not None:
            self._sizes[id(node)] = self._nodes - start
        return node

    def _count(self, size: int, line: int) -> None:
        self._nodes += size
        if self._nodes > MAX_YAML_NODES:
            raise SpecError(
                f"the file holds more than {MAX_YAML_NODES:,} values (MAX_YAML_NODES) by "
                f"line {line}, counting each alias as a copy of what it names.",
                "Write fewer values, or fewer aliases to large ones.",
            )


class _StrictLoader(_Limits, yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys and holds the file to the limits."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._sizes = {}


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
    digits = sum(ch.isdigit() for ch in str(node.value))
    if digits > MAX_YAML_INTEGER_DIGITS:
        raise SpecError(
            f"the integer at line {node.start_mark.line + 1} has {digits} digits, more than "
            f"the limit of {MAX_YAML_INTEGER_DIGITS} (MAX_YAML_INTEGER_DIGITS).",
            "Write a smaller number.",
        )
    return loader.construct_yaml_int(node)


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, dict | list | set):  # a "? " complex key: unhashable, no name
            kind = "mapping" if isinstance(key, dict) else type(key).__name__
            raise SpecError(
                f"the key at line {key_node.start_mark.line + 1} is a {kind}, not a name "
                "(a YAML complex key, written with '? ').",
                "Write the key as a plain name, without '? ' before it.",
            )
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
_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)

if CParser is not None:

    class _FastLoader(_Limits, Composer, CParser, SafeConstructor, Resolver):
        """The strict loader with libyaml's scanner and parser (C).

        Python composes the nodes from libyaml's events, so the limits and the
        duplicate-key check are the same code (a spec of 100,000 declared values reads
        in about 2 s instead of 10 s).
        """

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._depth = 0
            self._nodes = 0
            self._sizes = {}

        yaml_constructors: ClassVar[dict[Any, Any]] = dict(_StrictLoader.yaml_constructors)

    _LOADER: type[Any] = _FastLoader
else:  # pragma: no cover - PyYAML built without libyaml
    _LOADER = _StrictLoader


def _read_yaml(path: Path, what: str) -> tuple[Any, str]:
    try:
        raw = read_regular(path, MAX_YAML_BYTES + 1)
    except FileNotFoundError:
        raise SpecError(f"{what} file {path} does not exist.", "Check the path.") from None
    except IsADirectoryError:
        raise SpecError(f"{what} file {path} is a directory, not a YAML file.") from None
    except NotARegularFile:
        raise SpecError(
            f"{what} file {path} is not a regular file (a pipe, a device or a socket).",
            "Point it at the YAML file itself.",
        ) from None
    except OSError as exc:
        raise SpecError(f"cannot read {what} file {path}: {exc.strerror}.") from None
    if len(raw) > MAX_YAML_BYTES:
        raise SpecError(
            f"{what} file {path} is larger than {MAX_YAML_BYTES:,} bytes (MAX_YAML_BYTES).",
            "A spec or policy is a few kilobytes; check that this is the file you meant.",
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{what} file {path} is not UTF-8 text (bad byte at offset {exc.start}).",
            "Save it as UTF-8.",
        ) from None
    try:
        try:
            doc = yaml.load(text, Loader=_LOADER)
        except yaml.YAMLError:  # read again by the Python parser: its words, its limits
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
