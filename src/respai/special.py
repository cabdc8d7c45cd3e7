"""SciPy's compiled special functions, without the import of ``scipy.special``'s package.

respai's exact intervals call a few of SciPy's compiled functions: ``betaincinv`` and
``betainccinv`` (the Clopper-Pearson ends), ``stdtrit`` (Student's t quantile),
``ndtri`` and ``betaln``. They live in SciPy's compiled module ``scipy.special._ufuncs``,
which loads in about 5 ms. ``import scipy.special`` runs the package's ``__init__``
first, and its array-API layer imports ``array_api_compat``, which touches every lazily
loaded part of numpy (``f2py``, ``testing``, ``random``, ``polynomial``): about 0.15 s,
more than the whole run on a file of a few thousand rows.

:func:`ufunc` loads the compiled module alone: while holding the import lock of
``scipy.special`` it puts a bare stand-in for the package (marked as being initialised,
as Python marks a package during its own import) in ``sys.modules``, imports
``scipy.special._ufuncs`` under its real name, and takes the stand-in out again. Each
compiled module is loaded once, under the name SciPy gives it, so a later
``import scipy.special`` (a block that needs ``scipy.stats``) reuses it, and the
function returned is the very object ``scipy.special`` exports: every digit is SciPy's
(``tests/test_special.py``). Another thread importing ``scipy.special`` meanwhile waits
on the same lock and then imports the real package. When ``scipy.special`` is already
imported, or anything in the above fails, the package is imported the usual way.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Name", "ufunc"]

#: The functions respai takes from SciPy's compiled module.
Name = Literal["betaincinv", "betainccinv", "stdtrit", "ndtri", "betaln"]

_PACKAGE = "scipy.special"
_COMPILED = "scipy.special._ufuncs"
_loading = threading.Lock()


def ufunc(name: Name) -> np.ufunc:
    """Return SciPy's ufunc ``name``: the object ``scipy.special`` exports under it.

    Examples
    --------
    >>> float(ufunc("betaincinv")(3.0, 5.0, 0.025))
    0.09898827844250786
    """
    module = sys.modules.get(_COMPILED) or _load()
    result: np.ufunc | None = getattr(module, name, None)
    if result is None:  # a SciPy that keeps it in another module: the package has it
        result = getattr(importlib.import_module(_PACKAGE), name)
    return result


def _load() -> types.ModuleType:
    """Import ``scipy.special._ufuncs``, alone when the package is not imported yet."""
    with _loading:
        loaded = sys.modules.get(_COMPILED)
        if loaded is not None:
            return loaded
        if _PACKAGE not in sys.modules:
            try:
                return _load_alone()
            except Exception:  # a SciPy or Python whose layout differs: the usual way
                sys.modules.pop(_COMPILED, None)
        package = importlib.import_module(_PACKAGE)
        return sys.modules.get(_COMPILED) or package  # no such compiled module: the package


def _load_alone() -> types.ModuleType:
    """The compiled module under a stand-in package held by the package's import lock."""
    from importlib._bootstrap import _ModuleLockManager  # type: ignore[attr-defined]

    import numpy  # noqa: F401  (the compiled modules import it; import it outside the lock)
    import scipy  # noqa: F401

    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{_PACKAGE} is not installed as a package")
    with _ModuleLockManager(_PACKAGE):
        if _PACKAGE in sys.modules:  # another thread imported it meanwhile
            return importlib.import_module(_COMPILED)
        stand_in = types.ModuleType(_PACKAGE)
        stand_in.__path__ = list(spec.submodule_search_locations)
        stand_in.__spec__ = importlib.util.spec_from_loader(_PACKAGE, None, is_package=True)
        stand_in.__spec__._initializing = True  # type: ignore[union-attr]
        sys.modules[_PACKAGE] = stand_in
        try:
            return importlib.import_module(_COMPILED)
        finally:
            if sys.modules.get(_PACKAGE) is stand_in:
                del sys.modules[_PACKAGE]
