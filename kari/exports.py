"""The one shape of a package face: ``__all__`` and names loaded on first use (PEP 562).

Every ``kari`` package's ``__init__.py`` is a docstring and one call::

    __all__, __getattr__, __dir__ = lazy_exports(__name__, {"kari.solver.compile": ("compile_rules",)})

Importing a package therefore imports none of its modules (``import kari.rules.ast`` stays cheap, and no
package face can close an import circle); ``from kari.solver import compile_rules`` loads
:mod:`kari.solver.compile` when the name is first read. ``tests/test_layers.py`` reads the module names
given here as the face's imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]
                 ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` for ``package``: each name of ``exports[module]`` is read from
    ``module`` on first access and then kept in the package's namespace."""
    where = {name: module for module, names in exports.items() for name in names}
    names = sorted(where)
    namespace: dict[str, Any] = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return names, __getattr__, __dir__
