"""SciPy's compiled functions without ``scipy.special``'s package import (respai.special).

Each check that depends on what is imported runs a fresh interpreter: the test process
has imported ``scipy.special`` already.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import scipy.special

from respai.special import ufunc

NAMES = ("betaincinv", "betainccinv", "stdtrit", "ndtri", "betaln")


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_each_function_is_the_object_scipy_special_exports() -> None:
    for name in NAMES:
        assert ufunc(name) is getattr(scipy.special, name)


def test_the_package_is_not_imported_and_imports_whole_afterwards() -> None:
    code = (
        "import sys\n"
        "from respai.special import ufunc\n"
        f"fs = {{n: ufunc(n) for n in {NAMES!r}}}\n"
        "print('scipy.special' in sys.modules, 'scipy.special._ufuncs' in sys.modules)\n"
        "import scipy.special, scipy.stats\n"  # a later block needs the whole package
        "print(all(getattr(scipy.special, n) is f for n, f in fs.items()))\n"
        "print(float(scipy.stats.beta.ppf(0.025, 3, 5)) == float(fs['betaincinv'](3, 5, 0.025)))\n"
        "print(ufunc('betaincinv') is scipy.special.betaincinv)\n"
    )
    assert _run(code).split() == ["False", "True", "True", "True", "True"]


def test_a_function_the_compiled_module_lacks_comes_from_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a SciPy that moved a function out of scipy.special._ufuncs
    monkeypatch.delattr(sys.modules["scipy.special._ufuncs"], "betaln")
    assert ufunc("betaln") is scipy.special.betaln


def test_after_the_package_is_imported_its_functions_are_used() -> None:
    code = (
        "import sys, scipy.special\n"
        "from respai.special import ufunc\n"
        "print(ufunc('stdtrit') is scipy.special.stdtrit)\n"
    )
    assert _run(code) == "True"


def test_threads_loading_and_importing_the_package_at_once_all_succeed() -> None:
    # half the threads take a function, half import the package; every one must end with
    # SciPy's function (never a stand-in package without its names)
    code = (
        "import threading, importlib\n"
        "import numpy, scipy\n"
        "from respai.special import ufunc\n"
        "got, start = [], threading.Barrier(16)\n"
        "def take():\n"
        "    start.wait(); got.append(ufunc('betaincinv'))\n"
        "def whole():\n"
        "    start.wait(); got.append(importlib.import_module('scipy.special').betaincinv)\n"
        "ts = [threading.Thread(target=take if i % 2 else whole) for i in range(16)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "import scipy.special\n"
        "print(len(got), all(f is scipy.special.betaincinv for f in got))\n"
    )
    for _ in range(3):
        assert _run(code) == "16 True"


def test_a_scipy_without_the_compiled_module_gives_the_package_s_functions() -> None:
    code = (
        "import sys\n"
        "import respai.special as special\n"
        "special._COMPILED = 'scipy.special._no_such_module'\n"
        "f = special.ufunc('betaincinv')\n"
        "import scipy.special\n"
        "print(f is scipy.special.betaincinv)\n"
    )
    assert _run(code) == "True"
