"""Start-up: a command imports only what it uses, when it uses it.

Each check runs a fresh interpreter (the test process has imported everything already)
and reads ``sys.modules`` after the import or the command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries that cost tens to hundreds of milliseconds to import.
HEAVY = (
    "duckdb",
    "numpy",
    "scipy",
    "narwhals",
    "pyarrow",
    "pandas",
    "polars",
    "rich",
    "cryptography",
    "jsonschema",
    "yaml",
    "sklearn",
)


def _modules_after(code: str, cwd: Path | None = None, *, every: bool = False) -> set[str]:
    """The top-level modules (and respai's, or ``every`` module) after running ``code``."""
    names = (
        "sys.modules"
        if every
        else "{m.split('.')[0] for m in sys.modules} "
        "| {m for m in sys.modules if m.startswith('respai.')}"
    )
    script = (
        "import json, sys\n"
        f"{code}\n"
        "sys.stderr.flush()\n"
        f"print(json.dumps(sorted({names})), file=sys.__stdout__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_library() -> None:
    loaded = _modules_after("import respai.cli")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_help_loads_no_heavy_library() -> None:
    code = (
        "import contextlib, io\n"
        "from respai.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
    )
    loaded = _modules_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


#: A spec of one rule over ``cases.csv`` (``label``, ``prediction``, ``sex``).
SPEC = (
    "system: {name: t, version: '1'}\n"
    "fairness:\n"
    "  name: t\n"
    "  cases: cases.csv\n"
    "  label: label\n"
    "  prediction: prediction\n"
    "  attributes: {sex: [f, m]}\n"
    "  rules:\n"
    "    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.5}\n"
)


def test_a_run_without_an_auc_does_not_load_the_numpy_fold(tmp_path: Path) -> None:
    # the AUC's numpy fold (respai.engine.fold) is loaded by the AUC pass only
    (tmp_path / "cases.csv").write_text("sex,label,prediction\nf,1,1\nm,0,1\nf,0,0\nm,1,1\n")
    (tmp_path / "spec.yaml").write_text(SPEC)
    code = (
        "import contextlib, io\n"
        "from respai.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['fairness', 'spec.yaml'])\n"
        "import respai.load\n"  # the command ran: its modules are there
    )
    loaded = _modules_after(code, cwd=tmp_path)
    assert "respai.run.group_rules" in loaded and "duckdb" in loaded
    assert "respai.engine.fold" not in loaded
    assert "sklearn" not in loaded and "pyarrow" not in loaded
    assert "cryptography" not in loaded  # nothing is signed


def test_a_small_file_s_evaluation_imports_neither_scipy_special_nor_pyarrow(
    tmp_path: Path,
) -> None:
    # SciPy's compiled functions come without scipy.special's package (respai.special),
    # and a small file's sorted scores come as numpy arrays, not Arrow batches
    rows = "".join(
        f"{'fm'[i % 2]},{i % 3 % 2},{i % 5 % 2},{(i * 7 % 10) / 10}\n" for i in range(60)
    )
    (tmp_path / "cases.csv").write_text("sex,label,prediction,score\n" + rows)
    (tmp_path / "spec.yaml").write_text(
        SPEC + "evaluation:\n  tests: [accuracy, auc]\n  score: score\n"
    )
    code = (
        "import contextlib, io, os\n"
        "os.environ['RESPAI_NO_PRELOAD'] = '1'\n"
        f"os.environ['RESPAI_HOME'] = {str(tmp_path / 'home')!r}\n"
        "from respai.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['evaluate', 'spec.yaml', '--no-ledger', '--out', 'out'])\n"
        "assert os.path.exists('out/record.json')\n"
    )
    loaded = _modules_after(code, cwd=tmp_path, every=True)
    assert {"respai.engine.fold", "scipy.special._ufuncs", "cryptography"} <= loaded
    assert "scipy.special" not in loaded and "pyarrow" not in loaded


def test_preload_imports_on_a_thread_and_can_be_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from respai.cli.preload import FAIRNESS, preload

    code = (
        "from respai.cli.preload import FAIRNESS, preload\n"
        "preload(('respai_no_such_module',) + FAIRNESS).join(60)\n"
    )
    loaded = _modules_after(code)
    assert "rich" in loaded  # a module that fails does not stop the others
    monkeypatch.setenv("RESPAI_NO_PRELOAD", "1")
    assert preload(FAIRNESS) is None


def test_preload_holds_only_libraries_that_never_import_respai() -> None:
    # two threads importing respai modules at once could wait on each other's locks
    from respai.cli.preload import EVALUATE

    assert all(not name.startswith("respai") for name in EVALUATE)
    code = f"import importlib\nfor name in {EVALUATE!r}:\n    importlib.import_module(name)\n"
    loaded = _modules_after(code)
    assert not any(m.startswith("respai.") for m in loaded)
