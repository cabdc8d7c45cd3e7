"""The architecture holds: only the engine package imports a dataframe engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import respai

PKG = Path(respai.__file__).resolve().parent
ENGINES = {"duckdb", "narwhals", "pandas", "polars", "pyarrow", "pyspark"}
#: The engine layer: the ``engine/`` package (DuckDB, narwhals, the Spark session).
ENGINE_PACKAGE = PKG / "engine"


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_engine_imports_an_engine() -> None:
    offenders = {
        p.relative_to(PKG).as_posix(): sorted(imported(p) & ENGINES)
        for p in PKG.rglob("*.py")
        if not p.is_relative_to(ENGINE_PACKAGE) and imported(p) & ENGINES
    }
    assert offenders == {}


def test_the_engine_layer_is_the_engine_package() -> None:
    # a module that moved out of the package (or a stray engine.py) would be allowed
    # nothing; every engine module is inside it, and it does use the engines
    assert not (PKG / "engine.py").exists() and not (PKG / "spark.py").exists()
    used = set().union(*(imported(p) for p in ENGINE_PACKAGE.rglob("*.py")))
    assert {"duckdb", "narwhals"} <= used


#: Modules that are functions of counts and declarations: no file, no engine, no YAML.
PURE_MODULES = (
    "stats",
    "decision.__init__",
    "decision.groups",
    "decision.bounds",
    "decision.verdicts",
    "rules",
    "counts",
    "tables",
    "metrics",
    "battery",
    "eeo1",
    "spec.parsed",
)


def modules_named(path: Path) -> set[str]:
    """Every module an ``import`` anywhere in the file names, in full (lazy ones too)."""
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_pure_modules_import_no_engine_module_of_ours() -> None:
    banned = (
        "yaml",
        "respai.engine",
        "respai.spark",
        "respai.load",
        "respai.spec.loading",
        "respai.spec.yaml_io",
    )
    offenders = {}
    for name in PURE_MODULES:
        mods = modules_named(PKG / f"{name.replace('.', '/')}.py")
        bad = sorted(m for m in mods if any(m == b or m.startswith(f"{b}.") for b in banned))
        if bad:
            offenders[name] = bad
    assert offenders == {}


def test_pure_modules_load_no_yaml_or_engine() -> None:
    code = (
        "import sys; "
        + "; ".join(f"import respai.{name}" for name in PURE_MODULES)
        + "; print(sorted(m for m in ('yaml','duckdb','narwhals','pyarrow') "
        "if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys; from respai.cli import main; main(['--help']); "
        "print(sorted(m for m in ('duckdb','narwhals','scipy','rich','yaml') "
        "if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


# -- the shape of the house: no cycle, results below their views, nothing imports cli/ ---


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of every node under an ``if TYPE_CHECKING:`` block (typing-only imports)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for n in ast.walk(node)}
    return skipped


def _owner(name: str) -> str | None:
    """The respai module an import names: the longest prefix that is a module of ours."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(module: str, *, typing_too: bool = False) -> set[str]:
    """Every respai module ``module`` imports anywhere in its file (lazy imports too).

    ``from respai.x import y`` names ``respai.x.y`` when that is a module, else
    ``respai.x``; typing-only imports (under ``if TYPE_CHECKING:``) count only with
    ``typing_too``. Python also runs each parent package's ``__init__`` on import; those
    implicit steps are not arrows of the file's own.
    """
    tree = ast.parse(MODULES[module].read_text())
    skipped = set() if typing_too else _type_checking_nodes(tree)
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out |= {o for a in node.names if (o := _owner(a.name))}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {o for a in node.names if (o := _owner(f"{node.module}.{a.name}"))}
    out.discard(module)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_anywhere() -> None:
    graph = {m: module_imports(m) for m in MODULES}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _under(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_views_records_and_exports_never_import_the_runner() -> None:
    shows = [m for m in MODULES if _under(m, "respai.render", "respai.export", "respai.record")]
    shows += ["respai.results", "respai.sealing"]
    offenders = {
        m: sorted(i for i in module_imports(m, typing_too=True) if _under(i, "respai.run"))
        for m in shows
    }
    assert {m: i for m, i in offenders.items() if i} == {}


def test_nothing_imports_the_cli() -> None:
    offenders = {
        m: sorted(i for i in module_imports(m, typing_too=True) if _under(i, "respai.cli"))
        for m in MODULES
        if not _under(m, "respai.cli") and m != "respai.__main__"
    }
    assert {m: i for m, i in offenders.items() if i} == {}


def test_no_module_shares_a_name_with_a_public_function_of_the_package() -> None:
    # respai.evaluate is the function; a submodule of that name would shadow it
    import respai

    clashes = [n for n in respai.__all__ if f"respai.{n}" in MODULES]
    assert clashes == []


#: Who may call the steps of the signing sequence directly (everyone else goes through
#: respai.sealing.begin_signing and Signing.seal): sealing.py itself; run/seal.py, whose
#: seal_evaluation writes an evaluation's record through seal_run; and cli/export.py,
#: which signs an in-toto export of a record (no run, no output folder, no ledger).
SEQUENCE_STEPS = ("find_signing_key", "create_signing_key", "seal_run")
SEQUENCE_OWNERS = {"respai.sealing", "respai.run.seal", "respai.cli.export"}


def test_the_signing_sequence_is_written_once() -> None:
    offenders = {}
    for module, path in MODULES.items():
        if module in SEQUENCE_OWNERS:
            continue
        called = {
            node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
        }
        if found := sorted(called & set(SEQUENCE_STEPS)):
            offenders[module] = found
    assert offenders == {}


def test_no_two_modules_share_a_name_for_different_concepts() -> None:
    # a module's file name says what it holds; the same name in two packages is allowed
    # only where it is the same concept for each (a package's own errors, verification,
    # record of its run, statistics, tables of its findings, its block; a part of the
    # report named after the part of the record it shows: controls, results, ...)
    same_concept = {
        "__init__", "__main__", "errors", "verify", "seal", "stats", "tables", "audit",
        "terminal", "report", "run", "output", "evaluation", "ll144", "paired", "monitor",
        "plan", "pack", "keys", "export", "fairness", "record", "demo", "init", "ledger",
        "summary", "diagnosis", "criteria", "evidence", "looks", "stream", "layout",
        "checkpoint", "fingerprint", "canonical", "frames", "registry", "bind", "chart",
        "labels", "formats", "document", "page", "fields", "markup", "walk", "check",
        "shell", "verification", "data", "system", "scope", "sample_page", "escape",
        "block", "controls", "results", "spec", "site", "witness", "ranking", "regression",
    }  # fmt: skip
    by_name: dict[str, list[str]] = {}
    for module in MODULES:
        by_name.setdefault(module.rpartition(".")[2], []).append(module)
    clashes = {n: sorted(ms) for n, ms in by_name.items() if len(ms) > 1 and n not in same_concept}
    assert clashes == {}
