"""kari's layers point one way: no import circle (lazy and type-only imports included), no arrow back up a layer,
every folder in one layer (so the folder tree draws no arrow back up either), function-level imports only where
the import policy allows them, and every package with the same face (``__init__.py`` with ``__all__``, names
loaded on first use).

The module graph is read from the source with :mod:`ast` (``tests/import_graph.py``): every ``import`` /
``from ... import`` anywhere in a module (inside functions and ``if TYPE_CHECKING:`` blocks too, so a lazy import
cannot hide a circle), and for a package face the modules its ``lazy_exports`` call names. docs/architecture.md
draws :data:`LAYERS` and writes the import policy.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from import_graph import FunctionImport, ImportGraph, help_probe, strongly_connected

ROOT = Path(__file__).resolve().parents[1]
GRAPH = ImportGraph(ROOT)

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundations", ("kari", "kari.errors", "kari.exports", "kari.resources", "kari.interrupts", "kari.io",
                     "kari.llm", "kari.embeddings", "kari.stats")),
    ("terms and records", ("kari.core",)),
    ("vocabulary and language", ("kari.vocab", "kari.rules")),
    ("domain readings", ("kari.domain",)),
    ("readers and stores", ("kari.bench", "kari.kb")),
    ("proofs", ("kari.explain",)),
    ("solver", ("kari.solver",)),
    ("induction", ("kari.induce",)),
    ("games and tasks", ("kari.game", "kari.creativity")),
    ("reports", ("kari.report",)),
    ("human studies", ("kari.serve",)),
    ("study and pipeline", ("kari.study", "kari.grid", "kari.pipeline")),
    ("command line", ("kari.cli", "kari.__main__")),
)
"""Bottom to top, each entry a folder (a package of ``kari``, its subfolders included) or a module at the root.
A module belongs to the layer of its longest matching prefix (``kari`` itself: the root package only); it may
import its own layer and the layers below, never one above."""

COMMAND_BODIES = ("kari.cli",)
"""Where a function-level import needs no heavy library to be allowed: the CLI's command bodies."""


def modules() -> dict[str, Path]:
    return GRAPH.modules


def imports(module: str) -> frozenset[str]:
    return GRAPH.imports(module)


def layer_of(module: str) -> int:
    best, layer = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            hit = module == prefix or (prefix != "kari" and module.startswith(prefix + "."))
            if hit and len(prefix) > best:
                best, layer = len(prefix), index
    assert layer is not None, f"{module} is in no layer of LAYERS"
    return layer


def import_cycles() -> list[list[str]]:
    return strongly_connected(list(modules()), {m: set(imports(m)) for m in modules()})


def test_the_import_graph_is_read() -> None:
    # the reader sees what it must: a top-level import, a lazy one inside a function and a face's exports
    assert "kari.domain.canon" in imports("kari.bench.reader")
    assert "kari.game.run" in imports("kari.cli.play")  # imported inside the command function
    assert "kari.rules.ast" in imports("kari.rules")  # named by the face's lazy_exports
    assert GRAPH.folder("kari.report.html.page") == "kari.report" and GRAPH.folder("kari.errors") == "kari.errors"
    # what importing a module runs: its module-level imports, a face's name as the module it is read from
    assert {"kari.solver.compile"} in [s.kari for s in GRAPH.function_imports("kari.cli.rules")]  # via the face
    assert "numpy" in GRAPH.loaded("kari.game.belief")[1]
    assert "clingo" not in GRAPH.loaded("kari.solver.control")[1]  # an adapter: clingo imported on use


def test_no_import_circle() -> None:
    assert import_cycles() == []


def test_every_import_points_down_or_sideways() -> None:
    upward = [f"{m} ({LAYERS[layer_of(m)][0]}) -> {t} ({LAYERS[layer_of(t)][0]})"
              for m in sorted(modules()) for t in sorted(imports(m)) if layer_of(t) > layer_of(m)]
    assert upward == []


def test_layers_name_folders() -> None:
    # LAYERS is written in folders: no entry is a module inside a package
    folders = {GRAPH.folder(m) for m in modules()}
    assert {prefix for _, prefixes in LAYERS for prefix in prefixes} <= folders


def test_every_folder_is_in_one_layer() -> None:
    layers: dict[str, set[str]] = {}
    for module in modules():
        layers.setdefault(GRAPH.folder(module), set()).add(LAYERS[layer_of(module)][0])
    assert {folder: sorted(names) for folder, names in layers.items() if len(names) > 1} == {}


def test_no_arrow_back_up_between_folders() -> None:
    # the folder drawing of docs/architecture.md: folders import folders of their layer or below, in no circle
    edges = GRAPH.folder_edges()
    upward = [f"{a} -> {b}" for a in sorted(edges) for b in sorted(edges[a])
              if layer_of(b if b != "kari" else "kari.errors") > layer_of(a)]
    assert upward == []
    assert strongly_connected(sorted({GRAPH.folder(m) for m in modules()}), edges) == []


def test_config_records_are_leaves() -> None:
    # settings records, fixed names and typed records import foundations and one another only
    records = next(index for index, (name, _) in enumerate(LAYERS) if name == "terms and records")
    for module in (m for m in modules() if GRAPH.folder(m) == "kari.core"):
        assert layer_of(module) == records, module
        assert {t for t in imports(module) if layer_of(t) >= records and GRAPH.folder(t) != "kari.core"} == set(), \
            module


def test_function_level_imports_only_in_commands_and_heavy_adapters() -> None:
    # the import policy (docs/architecture.md): a function-level import outside the CLI puts off a heavy library
    # (loads one, itself or through the kari modules it loads, that its module does not load anyway); every other
    # import is at the top of its module
    stray = [f"{s.module}:{s.node.lineno}: {ast.unparse(s.node)}"
             for module in sorted(modules()) if not module.startswith(COMMAND_BODIES)
             for s in GRAPH.function_imports(module) if not GRAPH.defers_heavy(s)]
    assert stray == []


def test_policy_reader_tells_heavy_from_light() -> None:
    # the policy test can fail: a light import inside a function is found, one that puts off a heavy library is not
    tree = ast.parse("def f():\n    import json\n    from kari.errors import KariError\n    import numpy\n"
                     "    from kari.kb.store import open_db\n")
    statements = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    loads = [((), ("json",)), (("kari.errors",), ()), ((), ("numpy",)), (("kari.kb.store",), ())]
    light_module = [GRAPH.defers_heavy(FunctionImport("kari.errors", node, frozenset(k), frozenset(o)))
                    for node, (k, o) in zip(statements, loads)]
    assert light_module == [False, False, True, True]
    # kari.stats loads numpy at import: a numpy import inside one of its functions would put off nothing
    assert not GRAPH.defers_heavy(FunctionImport("kari.stats", statements[2], frozenset(), frozenset({"numpy"})))


def test_kari_help_imports_no_heavy_library() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # typer is named too, so the probe is seen to find a library --help does import
    done = subprocess.run([sys.executable, "-c", help_probe(["numpy", "duckdb", "clingo", "torch", "typer"])],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pipeline" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "LOADED typer"


PACKAGES = sorted(m for m, p in modules().items() if p.name == "__init__.py")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_has_the_same_face(package: str) -> None:
    tree = ast.parse(modules()[package].read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{package} has no docstring"
    names = {t.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
             for t in (target.elts if isinstance(target, ast.Tuple) else [target]) if isinstance(t, ast.Name)}
    assert "__all__" in names, f"{package}/__init__.py defines no __all__"
    face = importlib.import_module(package)
    submodules = {m.rpartition(".")[2] for m in modules() if m.rpartition(".")[0] == package}
    for name in face.__all__:
        assert name not in submodules, f"{package}.{name} is both an export and a submodule"
        assert getattr(face, name) is not None, f"{package}.{name}"
