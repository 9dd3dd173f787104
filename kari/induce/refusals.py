"""What the guards refused in one round, so that no Proposer proposes it again (method.md 2).

A proposal the loop rejects names what was wrong: an atom's value (the Auditor's and the static checker's value
checks: a banned term, the affordance's own verb, a value of another predicate) or a whole branch (two exclusive
values, a branch an earlier one subsumes, a malformed one). :class:`Refusals` collects both over the repair
attempts of a round: the offline Proposer leaves a refused value out of its search and skips a refused branch,
so the next attempt proposes the next best branch instead of the same one again; the LLM Proposer's repair
message lists them (:func:`kari.induce.proposer.summarise_feedback`).

>>> from kari.rules.ast import And, Atom
>>> refused = Refusals().plus(values=[("SHAPE", "cuttable")], branches=[And((Atom("SIZE", "small"),
...                                                                          Atom("SIZE", "large")))])
>>> refused.allows(Atom("SHAPE", "cuttable")), refused.allows(Atom("SHAPE", "flat"))
(False, True)
>>> refused.lines()
['never use the value SHAPE:cuttable', 'never propose the branch AND(SIZE:small, SIZE:large) again']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from kari.core.terms import WHOLE
from kari.rules.ast import Atom, Node, Or
from kari.rules.printer import to_text
from kari.rules.simplification import AtomKey, branch_atom_set
from kari.solver.facts import ASP_PREDICATE, asp_string, value_facts

Key = tuple[str, str]
"""``(PREDICATE, value)``."""

class Form(StrEnum):
    """A branch's form in ``solver/propose.lp`` (``form/1``)."""

    WHOLE = "whole"
    PART = "part"


VALUE_CODES = frozenset({"affordance-value", "dynamic-value", "ill-typed-value"})
"""Static-check codes that refuse an atom's value (wherever it appears), not the branch's shape."""


def branch_key(branch: Node) -> frozenset[AtomKey] | str:
    """A branch's identity, argument order and repeats aside: its atom set for a conjunction (PART variables
    renamed), else its canonical text."""
    atoms = branch_atom_set(branch)
    return atoms if atoms is not None else to_text(branch).replace(" ", "")


@dataclass(frozen=True)
class Refusals:
    """Refused values and refused branches (their :func:`branch_key`, and their text for messages)."""

    values: frozenset[Key] = frozenset()
    branches: frozenset[frozenset[AtomKey] | str] = frozenset()
    texts: tuple[str, ...] = ()

    def plus(self, values: Iterable[Key] = (), branches: Iterable[Node] = ()) -> Refusals:
        """These refusals and the given values and branches."""
        new = [b for b in branches if branch_key(b) not in self.branches]
        return Refusals(self.values | frozenset(values), self.branches | {branch_key(b) for b in new},
                        tuple(dict.fromkeys([*self.texts, *(to_text(b) for b in new)])))

    def __or__(self, other: Refusals) -> Refusals:
        return Refusals(self.values | other.values, self.branches | other.branches,
                        tuple(dict.fromkeys([*self.texts, *other.texts])))

    def __bool__(self) -> bool:
        return bool(self.values or self.branches)

    def allows(self, branch: Node) -> bool:
        """Is ``branch`` free of refused values and not a refused branch?"""
        return not any((a.predicate, a.value) in self.values for a in branch.atoms()) \
            and branch_key(branch) not in self.branches

    def whole_sets(self) -> frozenset[frozenset[Key]]:
        """The refused conjunctions on the whole object, as ``(PREDICATE, value)`` sets (what a whole-object
        branch search compares its candidates with)."""
        return frozenset(frozenset((p, v) for p, v, _ in key) for key in self.branches
                         if isinstance(key, frozenset) and all(role == WHOLE for _, _, role in key))

    def part_sets(self) -> frozenset[frozenset[Key]]:
        """The refused conjunctions of ``PART(x, ...)`` form (every atom on one PART variable), as
        ``(PREDICATE, value)`` sets."""
        return frozenset(frozenset((p, v) for p, v, _ in key) for key in self.branches
                         if isinstance(key, frozenset) and key and len({r for _, _, r in key}) == 1
                         and next(iter(key))[2] != WHOLE)

    def lines(self) -> list[str]:
        """One instruction per refusal, for a repair message."""
        return ([f"never use the value {p}:{v}" for p, v in sorted(self.values)]
                + [f"never propose the branch {t} again" for t in self.texts])


def atom_at(body: Node, path: tuple[int, ...]) -> Node | None:
    """The node at child-index ``path`` of ``body`` (as :class:`kari.rules.Diagnostic` paths count), or None."""
    node = body
    for index in path:
        children = node.children()
        if index >= len(children):
            return None
        node = children[index]
    return node


def refused_by_diagnostics(body: Node, diagnostics: Iterable[object], first_new: int
                           ) -> tuple[list[Key], list[Node]]:
    """The values and new branches the static checker's error ``diagnostics`` of ``body`` refuse: a value check
    refuses the atom's value, any other error the new branch it is in."""
    branches = body.args if isinstance(body, Or) else (body,)
    values: list[Key] = []
    refused: list[Node] = []
    for diag in diagnostics:
        path = getattr(diag, "path", ())
        node = atom_at(body, path)
        if getattr(diag, "code", "") in VALUE_CODES and isinstance(node, Atom):
            values.append((node.predicate, node.value))
            continue
        index = path[0] if isinstance(body, Or) and path else 0
        if index >= first_new and index < len(branches):
            refused.append(branches[index])
    return values, refused


def refusal_facts(refused: Refusals) -> str:
    """The refusals as facts for ``solver/propose.lp``: ``avoid/2`` per refused value, ``refused/3`` and
    ``refused_atom/3`` per refused conjunction (whole or PART form)."""
    lines = [value_facts("avoid", sorted(refused.values))]
    sets = [(Form.WHOLE, s) for s in sorted(refused.whole_sets(), key=sorted)]
    sets += [(Form.PART, s) for s in sorted(refused.part_sets(), key=sorted)]
    for number, (form, atoms) in enumerate(sets):
        lines.append(f"refused({number},{form},{len(atoms)}).")
        lines += [f"refused_atom({number},{ASP_PREDICATE[p]},{asp_string(v)})." for p, v in sorted(atoms)]
    return "\n".join(line for line in lines if line)
