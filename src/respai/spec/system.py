"""The ``system:`` block: what is being evaluated (name, version, owner, use, dates).

Every key is optional text, copied into the record and the summaries as written.
"""

from __future__ import annotations

from typing import Any

from respai.spec.checks import _check_keys, _Ctx, _mapping, _text
from respai.spec.parsed import SystemInfo

_SYSTEM_KEYS = ("name", "version", "owner", "use_case", "jurisdiction", "first_distributed")


def _parse_system(ctx: _Ctx, block: Any) -> SystemInfo:
    """Validate the ``system:`` block (``None`` when absent) into a :class:`SystemInfo`."""
    system_block = _mapping(ctx, "system", block or {})
    _check_keys(ctx, "system", system_block, _SYSTEM_KEYS, ())
    return SystemInfo(**{k: _text(ctx, f"system.{k}", v) for k, v in system_block.items()})
