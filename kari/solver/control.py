"""The clingo bridge: the only module that talks to clingo.

Every query hands over program texts (facts, compiled rules) plus fixed encodings from ``solver/*.lp`` and gets
back plain Python tuples, never clingo objects (a Model is only touched inside the solve callback). Controls are
short-lived: one per call. The time limit covers grounding and solving; grounding itself cannot be interrupted,
so callers keep each call's program small (rule batches).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kari.errors import KariError
from kari.resources import asset_path

Value = int | str | None | tuple[Any, ...]
"""A clingo symbol as Python: number -> int, string or constant -> str, #sup/#inf -> None, f(a,b) -> tuple."""


@dataclass
class SolveOutcome:
    """What one solver call found: the shown atoms of the last (best) model, and how the search ended."""

    atoms: list[tuple[Value, ...]] = field(default_factory=list)  # (name, *args) per shown atom
    numbers: list[int] = field(default_factory=list)  # the shown integers (numbers_only=True)
    satisfiable: bool | None = None
    costs: list[int] = field(default_factory=list)
    proven: bool = False  # the search space was exhausted: the last model is optimal (or there is none)
    timed_out: bool = False
    stats: dict[str, Any] = field(default_factory=dict)


def encoding(name: str) -> str:
    """Path of a fixed encoding in ``solver/`` (``"coverage.lp"``)."""
    path = asset_path("solver", name)
    if not path.is_file():
        raise KariError(f"solver encoding {name!r} not found", file=str(path), code="missing-file")
    return str(path)


def _value(symbol: Any) -> Value:
    import clingo

    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return symbol.number
    if kind == clingo.SymbolType.String:
        return symbol.string
    if kind == clingo.SymbolType.Function:
        if not symbol.arguments:
            return symbol.name
        return (symbol.name, *(_value(a) for a in symbol.arguments))
    return None


def solve(programs: Sequence[str], encodings: Sequence[str] = (), *, time_limit: float,
          what: str = "solver query", options: Sequence[str] = (), numbers_only: bool = False) -> SolveOutcome:
    """Ground and solve ``programs`` with the named fixed ``encodings``; optimise when they contain ``#minimize``.

    Returns the shown atoms of the last model found (with ``numbers_only``, the shown integers, which is
    much faster to read back than compound atoms). When ``time_limit`` (seconds) is hit the search is
    cancelled and ``timed_out`` is set; the caller decides whether a partial answer is acceptable.
    """
    import clingo

    started = time.perf_counter()
    messages: list[str] = []

    def logger(code: Any, message: str) -> None:
        messages.append(" ".join(message.split()))

    ctl = clingo.Control(["--warn=none", *options], logger=logger, message_limit=5)
    try:
        for name in encodings:
            ctl.load(encoding(name))
        for text in programs:
            ctl.add("base", [], text)
        ctl.ground([("base", [])])
    except RuntimeError:
        raise KariError(f"{what}: clingo rejected the program: {'; '.join(messages) or 'parse error'}",
                        code="solver-program") from None
    grounded = time.perf_counter()
    outcome = SolveOutcome()

    def on_model(model: Any) -> None:
        if numbers_only:
            outcome.numbers = [s.number for s in model.symbols(shown=True)]
            return
        outcome.atoms = [(s.name, *(_value(a) for a in s.arguments)) for s in model.symbols(shown=True)]
        outcome.costs = list(model.cost)

    remaining = time_limit - (grounded - started)
    if remaining <= 0:
        outcome.timed_out = True
        return outcome
    with ctl.solve(on_model=on_model, async_=True) as handle:
        if not handle.wait(remaining):
            handle.cancel()
            outcome.timed_out = True
        result = handle.get()
    outcome.satisfiable = True if result.satisfiable else (False if result.unsatisfiable else None)
    outcome.proven = bool(result.exhausted) and not outcome.timed_out
    summary = ctl.statistics.get("summary", {})
    solving = ctl.statistics.get("solving", {}).get("solvers", {})
    outcome.stats = {
        "ground_s": round(grounded - started, 6),
        "solve_s": round(time.perf_counter() - grounded, 6),
        "models": int(summary.get("models", {}).get("enumerated", 0)),
        "optimal_models": int(summary.get("models", {}).get("optimal", 0)),
        "choices": int(solving.get("choices", 0)),
        "conflicts": int(solving.get("conflicts", 0)),
        "timed_out": outcome.timed_out,
    }
    return outcome
