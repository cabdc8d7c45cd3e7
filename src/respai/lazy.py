"""A package's public names imported from their modules on first use (PEP 562).

A package that re-exports names from its modules imports every one of them at once, and
with them every library they import. :func:`lazy_names` gives a package a module-level
``__getattr__`` that imports a name's module only when the name is first read, so
``respai --help`` and a command that needs one module do not pay for the others.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_names"]


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """A ``__getattr__`` for ``package`` that imports each name from ``homes[name]``.

    The value is kept in the package's namespace, so a name is looked up once.

    Examples
    --------
    >>> getattr_ = lazy_names("respai.record", {"GENESIS": "respai.record.chain"})
    >>> getattr_("GENESIS") == "sha256:" + "0" * 64
    True
    """

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
