"""The clingo bridge: the only module that talks to clingo.

Every query hands over program texts (facts, compiled rules) plus fixed encodings from ``solver/*.lp`` and gets
back plain Python tuples, never clingo objects (a Model is only touched inside the solve callback). Controls are
short-lived: one per call, or one per :class:`Grounding` (a program solved many times under different truth
values of its ``#external`` atoms). The time limit covers grounding and solving; grounding itself cannot be interrupted,
so callers keep each call's program small (rule batches).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from kari.errors import KariError
from kari.resources import asset_path

if TYPE_CHECKING:  # clingo is imported when a query runs (start-up time)
    import clingo

Value = int | str | None | tuple[Any, ...]
"""A clingo symbol as Python: number -> int, string or constant -> str, #sup/#inf -> None, f(a,b) -> tuple."""



class AtomAnswer(Protocol):
    """A typed answer of a query: a frozen dataclass whose ``ATOM`` names the shown predicate and whose fields
    take its arguments, in order."""

    ATOM: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Any]]


A = TypeVar("A", bound=AtomAnswer)


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

    def answers(self, kind: type[A]) -> list[A]:
        """The shown atoms of one predicate as typed answers, in model order: ``kind`` is an :class:`AtomAnswer`
        (atoms of another arity are others).

        >>> @dataclass(frozen=True)
        ... class Ask:
        ...     ATOM: ClassVar[str] = "ask"
        ...     question: int
        >>> SolveOutcome(atoms=[("ask", 3), ("reached",), ("ask", 1)]).answers(Ask)
        [Ask(question=3), Ask(question=1)]
        """
        name, arity = kind.ATOM, len(fields(kind))
        return [kind(*atom[1:]) for atom in self.atoms if atom[0] == name and len(atom) == arity + 1]

    def holds(self, name: str, *args: Value) -> bool:
        """Is the atom ``name(args)`` shown in the model?"""
        return (name, *args) in self.atoms


def encoding(name: str) -> str:
    """Path of a fixed encoding in ``solver/`` (``"coverage.lp"``)."""
    path = asset_path("solver", name)
    if not path.is_file():
        raise KariError(f"solver encoding {name!r} not found", file=str(path), code="missing-file")
    return str(path)


def number(value: Value) -> int:
    """An atom's argument that its encoding shows as an integer (a :class:`TypeError` otherwise: a bug)."""
    if not isinstance(value, int):
        raise TypeError(f"expected an integer argument, got {value!r}")
    return value


def _value(symbol: clingo.Symbol) -> Value:
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
    started = time.perf_counter()
    ctl = _grounded(programs, encodings, options, what)
    return _search(ctl, time_limit - (time.perf_counter() - started), time.perf_counter() - started, numbers_only)


class Grounding:
    """One program grounded once and solved many times under different truth values of its ``#external``
    atoms (clingo multi-shot solving): for queries that ask the same facts many small questions."""

    def __init__(self, programs: Sequence[str], encodings: Sequence[str] = (), *, what: str = "solver query",
                 options: Sequence[str] = ()) -> None:
        started = time.perf_counter()
        self._ctl = _grounded(programs, encodings, options, what)
        self.ground_s = time.perf_counter() - started
        self._true: set[clingo.Symbol] = set()

    def solve(self, true_externals: Sequence[tuple[str, tuple[int | str, ...]]], *, time_limit: float,
              numbers_only: bool = False) -> SolveOutcome:
        """Solve with exactly the given ``(name, args)`` externals true (every other external false)."""
        import clingo

        def symbol(arg: int | str) -> clingo.Symbol:
            return clingo.Number(arg) if isinstance(arg, int) else clingo.String(arg)

        wanted = {clingo.Function(name, [symbol(a) for a in args]) for name, args in true_externals}
        for atom in self._true - wanted:
            self._ctl.assign_external(atom, False)
        for atom in wanted - self._true:
            self._ctl.assign_external(atom, True)
        self._true = wanted
        return _search(self._ctl, time_limit, 0.0, numbers_only)


def _grounded(programs: Sequence[str], encodings: Sequence[str], options: Sequence[str],
              what: str) -> clingo.Control:
    """A clingo Control with the encodings and programs loaded and grounded (a clear error when they do not parse)."""
    import clingo

    messages: list[str] = []

    def logger(code: clingo.MessageCode, message: str) -> None:
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
    return ctl


def _search(ctl: clingo.Control, remaining: float, ground_s: float, numbers_only: bool) -> SolveOutcome:
    """Solve the grounded ``ctl`` within ``remaining`` seconds; the last (best) model's shown atoms."""
    outcome = SolveOutcome()

    def on_model(model: clingo.Model) -> None:
        if numbers_only:
            outcome.numbers = [s.number for s in model.symbols(shown=True)]
            return
        outcome.atoms = [(s.name, *(_value(a) for a in s.arguments)) for s in model.symbols(shown=True)]
        outcome.costs = list(model.cost)

    if remaining <= 0:
        outcome.timed_out = True
        return outcome
    started = time.perf_counter()
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
        "ground_s": round(ground_s, 6),
        "solve_s": round(time.perf_counter() - started, 6),
        "models": int(summary.get("models", {}).get("enumerated", 0)),
        "optimal_models": int(summary.get("models", {}).get("optimal", 0)),
        "choices": int(solving.get("choices", 0)),
        "conflicts": int(solving.get("conflicts", 0)),
        "timed_out": outcome.timed_out,
    }
    return outcome
