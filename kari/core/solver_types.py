"""Typed results of the solver queries, shared by the ASP path and the plain Python evaluator."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

THRESHOLD = 0.9
"""Hard belief b_t above which the Optimal questioner's plan is done and it guesses (the paper's 0.9); the game's
default (:data:`kari.core.game_defaults.THRESHOLD`) is this one."""


class CoverageRow(NamedTuple):
    """One rule x object: covered or not, the lowest covering OR branch (0-based) and its witnessing part.

    ``part`` is the part bound to the branch's first PART variable (strict semantics only); None otherwise.
    """

    affordance: str
    object: str
    covered: bool
    branch: int | None
    part: str | None
    rule: int = 0


def coverage_row(affordance: str, obj: str, covered: bool, branch: int | None, part: str | None,
                 rule: int) -> CoverageRow:
    """A :class:`CoverageRow` built without the keyword machinery (a million rows per query are common)."""
    return tuple.__new__(CoverageRow, (affordance, obj, covered, branch, part, rule))


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small immutable rows."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True, slots=True)
class CoverageDecision:
    """Coverage decided from atom labels: ``branch`` is the lowest OR branch that holds (0-based)."""

    covered: bool
    branch: int | None
