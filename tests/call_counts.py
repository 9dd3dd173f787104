"""Counting the calls of kari's loaders wherever a module holds them (a name imported at the top of a module is
bound there when the module loads, so patching the defining module alone would miss it)."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def counting(targets: dict[str, tuple[Any, str]]) -> Iterator[Counter[str]]:
    """Count calls of each ``owner.name`` (a module function, wrapped in every kari module that holds it, or a
    class attribute), restoring everything after the block."""
    counts: Counter[str] = Counter()
    undo: list[tuple[Any, str, Any]] = []

    def wrap(label: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[label] += 1
            return original(*args, **kwargs)
        return counted

    for label, (owner, name) in targets.items():
        if isinstance(owner, type):
            original = owner.__dict__[name]
            if isinstance(original, classmethod):
                replacement: Any = classmethod(wrap(label, original.__func__))
            else:
                replacement = wrap(label, original)
            undo.append((owner, name, original))
            setattr(owner, name, replacement)
            continue
        original = getattr(owner, name)
        replacement = wrap(label, original)
        for module in [m for n, m in sys.modules.items() if n.startswith("kari") and m is not None]:
            for attr, value in list(vars(module).items()):
                if value is original:
                    undo.append((module, attr, value))
                    setattr(module, attr, replacement)
    try:
        yield counts
    finally:
        for owner, name, value in reversed(undo):
            setattr(owner, name, value)
