"""The pack tests' fixtures: the LL144 files and command runner of ``tests/ll144``.

A pack is built from an LL144 run, so its tests write their files with the same helpers;
pytest finds a fixture by name in a conftest on the test's path, hence the import here.
"""

from __future__ import annotations

from tests.ll144.conftest import cli_run, ll

__all__ = ["cli_run", "ll"]
