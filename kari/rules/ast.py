"""Immutable AST of KARI rules: one small class per operator (atoms, AND, OR, PART).

A rule body is a tree of :class:`Atom`, :class:`And`, :class:`Or` and :class:`Part` nodes. Every atom carries
its role explicitly: ``"whole"`` (the entire object) or the variable of an enclosing PART; parsers resolve
unqualified atoms to the nearest enclosing PART variable (or ``"whole"`` at top level).

Each node evaluates itself against atom labels (the Validator's symbolic half, method.md 2):

>>> rule = Or((Part("x", And((Atom("SHAPE", "pointed", "x"), Atom("MADE_OF", "metal", "x")))),
...            Atom("SHAPE", "flat")))
>>> rule.evaluate(lambda atom: atom.value in {"pointed", "metal"})
True
>>> sorted(a.value for a in rule.atoms())
['flat', 'metal', 'pointed']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from kari.core.terms import WHOLE
from kari.errors import KariError

AtomLabeller = Callable[["Atom"], bool]
PartialLabeller = Callable[["Atom"], "bool | None"]
"""Labels an atom True, False or None (unknown) for three-valued (Kleene) evaluation."""


@dataclass(frozen=True, slots=True)
class Atom:
    """``PREDICATE:value`` about the part bound to ``role`` (``"whole"`` = the entire object)."""

    predicate: str
    value: str
    role: str = WHOLE

    def evaluate(self, holds: AtomLabeller) -> bool:
        """The label the Validator gave this atom."""
        return holds(self)

    def evaluate_partial(self, holds: PartialLabeller) -> bool | None:
        """Three-valued: the atom's label, None when it is not known yet."""
        return holds(self)

    def atoms(self) -> Iterator[Atom]:
        yield self

    def children(self) -> tuple[Node, ...]:
        return ()

    @property
    def key(self) -> str:
        """``PREDICATE:value`` without the role: the Affordance20Q question this atom asks."""
        return f"{self.predicate}:{self.value}"


@dataclass(frozen=True, slots=True)
class _Combinator:
    args: tuple[Node, ...]
    op: str = field(default="", init=False, repr=False, compare=False)

    def atoms(self) -> Iterator[Atom]:
        for arg in self.args:
            yield from arg.atoms()

    def children(self) -> tuple[Node, ...]:
        return self.args


@dataclass(frozen=True, slots=True)
class And(_Combinator):
    """All arguments hold."""

    op: str = field(default="AND", init=False, repr=False, compare=False)

    def evaluate(self, holds: AtomLabeller) -> bool:
        return all(arg.evaluate(holds) for arg in self.args)

    def evaluate_partial(self, holds: PartialLabeller) -> bool | None:
        """False if some argument is False, True if all are True, else None."""
        values = [arg.evaluate_partial(holds) for arg in self.args]
        return False if False in values else (True if all(v is True for v in values) else None)


@dataclass(frozen=True, slots=True)
class Or(_Combinator):
    """At least one argument (an OR *branch*) holds."""

    op: str = field(default="OR", init=False, repr=False, compare=False)

    def evaluate(self, holds: AtomLabeller) -> bool:
        return any(arg.evaluate(holds) for arg in self.args)

    def evaluate_partial(self, holds: PartialLabeller) -> bool | None:
        """True if some argument is True, False if all are False, else None."""
        values = [arg.evaluate_partial(holds) for arg in self.args]
        return True if True in values else (False if all(v is False for v in values) else None)


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the object, bound to ``var``, satisfies ``body``."""

    var: str
    body: Node

    def evaluate(self, holds: AtomLabeller) -> bool:
        return self.body.evaluate(holds)

    def evaluate_partial(self, holds: PartialLabeller) -> bool | None:
        return self.body.evaluate_partial(holds)

    def atoms(self) -> Iterator[Atom]:
        yield from self.body.atoms()

    def children(self) -> tuple[Node, ...]:
        return (self.body,)


Node = Union[Atom, And, Or, Part]
"""Any rule-body node."""


def any_of(nodes: Sequence[Node]) -> Node:
    """The node that holds when one of ``nodes`` does: the only one itself, else their OR (in order)."""
    if not nodes:
        raise ValueError("any_of needs at least one node")
    return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))


def all_of(nodes: Sequence[Node]) -> Node:
    """The node that holds when all of ``nodes`` do: the only one itself, else their AND (in order)."""
    if not nodes:
        raise ValueError("all_of needs at least one node")
    return nodes[0] if len(nodes) == 1 else And(tuple(nodes))


@dataclass(frozen=True, slots=True)
class Rule:
    """A named rule: ``affordance := body``.

    ``metadata`` is free-form rule metadata and ``branch_metadata`` one mapping per top-level OR branch (round,
    source, objects covered...). Both live in the JSONL form only and never affect equality. ``origin`` is where a
    rule file's loader read the rule (file, line): errors about the rule name it; it is never written.
    """

    affordance: str
    body: Node
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)
    branch_metadata: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)
    origin: tuple[str, int] | None = field(default=None, compare=False)

    def branches(self) -> tuple[Node, ...]:
        """The top-level OR branches (a rule that is not an OR is one branch)."""
        return self.body.args if isinstance(self.body, Or) else (self.body,)

    def atoms(self) -> Iterator[Atom]:
        return self.body.atoms()

    def evaluate(self, holds: AtomLabeller) -> bool:
        return self.body.evaluate(holds)

    def error(self, message: str, code: str) -> KariError:
        """A :class:`KariError` naming this rule, at the file and line its loader read it from (when known)."""
        file, line = self.origin or (None, None)
        return KariError(f"rule {self.affordance!r}: {message}", file=file, line=line, code=code)

    def where(self) -> str:
        """``FILE:LINE`` of the rule in the file it was read from, else ``rule AFFORDANCE``."""
        return f"{self.origin[0]}:{self.origin[1]}" if self.origin else f"rule {self.affordance}"
