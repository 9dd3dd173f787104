"""kari's layers point one way: no import circle (lazy and type-only imports included), no arrow back up a layer,
and every package has the same face (``__init__.py`` with ``__all__``, names loaded on first use).

The module graph is read from the source with :mod:`ast`: every ``import`` / ``from ... import`` anywhere in a
module (inside functions and ``if TYPE_CHECKING:`` blocks too, so a lazy import cannot hide a circle), and for a
package face the modules its ``lazy_exports`` call names. docs/architecture.md draws :data:`LAYERS`.
"""

from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundations", ("kari", "kari.errors", "kari.exports", "kari.resources", "kari.interrupts", "kari.io",
                     "kari.llm", "kari.embeddings", "kari.stats")),
    ("terms and records", ("kari.domain.terms", "kari.bench.model", "kari.solver.types", "kari.game.defaults",
                           "kari.game.names", "kari.game.records", "kari.game.settings", "kari.induce.config",
                           "kari.records")),
    ("vocabulary and language", ("kari.domain.morphology", "kari.domain.vocabulary", "kari.rules")),
    ("domain readings", ("kari.domain",)),
    ("readers and stores", ("kari.bench", "kari.kb")),
    ("proofs", ("kari.explain",)),
    ("solver", ("kari.solver",)),
    ("induction", ("kari.induce",)),
    ("games and tasks", ("kari.game", "kari.creativity")),
    ("human studies", ("kari.serve",)),
    ("study and pipeline", ("kari.study", "kari.pipeline")),
    ("command line", ("kari.cli", "kari.__main__")),
)
"""Bottom to top. A module belongs to the layer of its longest matching prefix (``kari`` itself: the root
package only); it may import its own layer and the layers below, never one above."""


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((ROOT / "kari").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _target(name: str) -> str | None:
    """The module an imported dotted name lives in (``kari.rules.ast.Atom`` -> ``kari.rules.ast``)."""
    mods = modules()
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports(module: str) -> frozenset[str]:
    """The kari modules ``module`` imports anywhere in its source (and, for a face, the modules it exports)."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(t for a in node.names if a.name.startswith("kari") and (t := _target(a.name)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base]).strip(".")
            if base.split(".")[0] == "kari":
                found.update(t for a in node.names if (t := _target(f"{base}.{a.name}")))
        elif path.name == "__init__.py" and isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in modules():
            found.add(node.value)
    found.discard(module)
    return frozenset(found)


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
    """The strongly connected components of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(imports(node)):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(modules()):
        if module not in index:
            visit(module)
    return found


def test_the_import_graph_is_read() -> None:
    # the reader sees what it must: a top-level import, a lazy one inside a function and a face's exports
    assert "kari.domain.canon" in imports("kari.bench.reader")
    assert "kari.game.run" in imports("kari.cli.play")  # imported inside the command function
    assert "kari.rules.ast" in imports("kari.rules")  # named by the face's lazy_exports


def test_no_import_circle() -> None:
    assert import_cycles() == []


def test_every_import_points_down_or_sideways() -> None:
    upward = [f"{m} ({LAYERS[layer_of(m)][0]}) -> {t} ({LAYERS[layer_of(t)][0]})"
              for m in sorted(modules()) for t in sorted(imports(m)) if layer_of(t) > layer_of(m)]
    assert upward == []


def test_config_records_are_leaves() -> None:
    # settings records and fixed names import foundations and other records only: nothing they would build
    records = next(index for index, (name, _) in enumerate(LAYERS) if name == "terms and records")
    for module in ("kari.induce.config", "kari.game.defaults", "kari.game.names", "kari.game.settings"):
        assert layer_of(module) == records, module
        assert {t for t in imports(module) if layer_of(t) > records} == set(), module


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
