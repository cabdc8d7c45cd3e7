"""The spec package's shape: its public names, and which way its imports point."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import respai.spec

SPEC_PKG = Path(respai.spec.__file__).resolve().parent

#: Every name other modules, tests, scripts and docs import from ``respai.spec``.
PUBLIC = (
    "DEFAULT_ALPHA",
    "DEFAULT_CALIBRATION_BINS",
    "DEFAULT_MAX_LEFT_OUT",
    "DEFAULT_MIN_CELL",
    "FORMATS",
    "DataSpec",
    "EvaluationSpec",
    "FairnessSpec",
    "Policy",
    "Rate",
    "Rule",
    "Spec",
    "SystemInfo",
    "apply_policy",
    "load_policy",
    "load_spec",
    "parse_evaluation",
    "parse_fairness",
    "parse_policy",
    "parse_spec",
)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("name", PUBLIC)
def test_public_names_are_exported_from_the_package(name: str) -> None:
    assert name in respai.spec.__all__
    assert getattr(respai.spec, name) is not None


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'parse_nothing'"):
        _ = respai.spec.parse_nothing  # type: ignore[attr-defined]


def test_the_spec_layer_imports_no_feature_package_or_engine() -> None:
    # The LL144 parser reads the EEO-1 spellings from respai.eeo1 (pure domain data),
    # not from the respai.ll144 feature package, which itself imports the spec.
    banned = ("respai.ll144", "respai.engine", "respai.spark", "respai.load")
    offenders = {
        p.name: sorted(
            m for m in imported_modules(p) if any(m == b or m.startswith(f"{b}.") for b in banned)
        )
        for p in sorted(SPEC_PKG.glob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_yaml_is_read_in_one_module() -> None:
    readers = sorted(p.name for p in SPEC_PKG.glob("*.py") if "yaml" in imported_modules(p))
    assert readers == ["yaml_io.py"]


def test_importing_the_package_and_the_model_loads_no_yaml() -> None:
    code = (
        "import sys; import respai.spec, respai.spec.parsed; "
        "from respai.spec import FairnessSpec, Spec; "
        "print('yaml' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"
