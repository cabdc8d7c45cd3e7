"""NYC Local Law 144 bias audit: impact-ratio tables, diagnosis and the published summary.

The pipeline follows the rest of respai: :mod:`respai.ll144.scan` opens the decisions (and
optionally a self-identification file joined on an id) and runs one engine count pass;
:mod:`respai.ll144.tables` and :mod:`respai.ll144.diagnosis` are pure functions of those
integer counts; :mod:`respai.ll144.summary` renders the published summary; and
:mod:`respai.cli.ll144` is the thin ``respai ll144`` command.

Heavy modules load only when used, so importing this package stays cheap.
"""

from __future__ import annotations

__all__ = ["LL144Result", "run_ll144"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from respai.ll144 import audit

        return getattr(audit, name)
    raise AttributeError(f"module 'respai.ll144' has no attribute {name!r}")
