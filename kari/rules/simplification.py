"""Simplification: flatten nested AND/OR, drop duplicate arguments, find OR branches another branch subsumes.

A branch is *subsumed* when its atoms are a superset of another branch's atoms (``A or (A and B)`` is ``A``):
it covers no object the other branch does not. Only conjunctive branches (atoms, AND, PART; no OR inside) are
compared, with PART variables renamed in order of appearance, so the test is sound under both the any-part and
the strict semantics.

>>> from kari.rules.parser import parse_rule
>>> from kari.rules.printer import to_text
>>> to_text(simplify(parse_rule("AND(SHAPE:flat, AND(SIZE:thin, SHAPE:flat), OR(SIZE:long))")))
'AND(SHAPE:flat, SIZE:thin, SIZE:long)'
>>> subsumed_branches(parse_rule("OR(PART(x, AND(SHAPE:flat, SIZE:thin)), PART(y, SHAPE:flat), SIZE:long)"))
[0]
"""

from __future__ import annotations

from collections import Counter

from kari.rules.ast import Atom, Node, Or, Part, Rule


def simplify(node: Node, drop_subsumed: bool = False) -> Node:
    """Flatten AND in AND and OR in OR, unwrap one-argument AND/OR, drop repeated arguments (first kept);
    with ``drop_subsumed`` also drop subsumed OR branches. Empty AND/OR stay (the checker reports them)."""
    if isinstance(node, Atom):
        return node
    if isinstance(node, Part):
        return Part(node.var, simplify(node.body, drop_subsumed))
    cls = type(node)
    kept: dict[Node, None] = {}              # insertion-ordered and hashed: repeats dropped in linear time
    for arg in node.args:
        arg = simplify(arg, drop_subsumed)
        for item in arg.args if isinstance(arg, cls) else (arg,):
            kept.setdefault(item, None)
    args = list(kept)
    if drop_subsumed and cls is Or:
        dropped = set(_subsumed(args))
        args = [arg for index, arg in enumerate(args) if index not in dropped]
    if len(args) == 1:
        return args[0]
    return cls(tuple(args))


def subsumed_branches(rule: Rule | Node) -> list[int]:
    """Indices (0-based) of top-level OR branches whose atoms are a superset of another branch's atoms.

    Of two branches with the same atoms, the later one is reported."""
    body = rule.body if isinstance(rule, Rule) else rule
    return _subsumed(list(body.args)) if isinstance(body, Or) else []


AtomKey = tuple[str, str, str]
"""``(predicate, value, role)``: an atom as a plain tuple (cheaper to hash than an :class:`Atom`)."""


def branch_atom_set(branch: Node) -> frozenset[AtomKey] | None:
    """The atoms of a conjunctive branch as ``(predicate, value, role)`` with PART variables renamed
    ``_1, _2, ...`` in order of appearance; None when the branch contains an OR or has no atom."""
    renames: dict[str, str] = {}
    atoms: list[Atom] = []
    stack = [branch]
    while stack:
        node = stack.pop()
        if isinstance(node, Atom):
            atoms.append(node)
        elif isinstance(node, Part):
            renames.setdefault(node.var, f"_{len(renames) + 1}")
            stack.append(node.body)
        elif isinstance(node, Or):
            return None
        else:
            stack.extend(reversed(node.args))
    if not atoms:
        return None
    if not renames:
        return frozenset([(a.predicate, a.value, a.role) for a in atoms])
    return frozenset([(a.predicate, a.value, renames.get(a.role, a.role)) for a in atoms])


def subsumed_indices(sets: list[frozenset[AtomKey] | None]) -> list[int]:
    """Indices of the sets that include another set (of two equal sets, the later one); None never counts.

    Near-linear in practice: equal sets are found by hashing, and a set is compared only with the shorter sets
    filed under one of its own atoms, each set filed under its rarest atom (a subset's rarest atom is in every
    superset). Sorted by index."""
    first: dict[frozenset[AtomKey], int] = {}
    out: set[int] = set()
    for i, mine in enumerate(sets):
        if mine is None:
            continue
        if mine in first:
            out.add(i)                      # the same atoms as an earlier branch
        else:
            first[mine] = i
    frequency: Counter[AtomKey] = Counter(atom for distinct in first for atom in distinct)
    filed: dict[AtomKey, list[frozenset[AtomKey]]] = {}
    for distinct in first:
        rarest = min(distinct, key=lambda atom: (frequency[atom], atom))
        filed.setdefault(rarest, []).append(distinct)
    for distinct, index in first.items():
        if len(distinct) > 1 and any(len(other) < len(distinct) and other <= distinct
                                     for atom in distinct for other in filed.get(atom, ())):
            out.add(index)                  # a strict superset of another branch (its repeats are in already)
    return sorted(out)


def _subsumed(branches: list[Node]) -> list[int]:
    return subsumed_indices([branch_atom_set(branch) for branch in branches])


def simplify_rule(rule: Rule, drop_subsumed: bool = False) -> Rule:
    """``rule`` with a simplified body; per-branch metadata survives only if the branches stay the same."""
    body = simplify(rule.body, drop_subsumed)
    simplified = Rule(rule.affordance, body, rule.metadata)
    same = simplified.branches() == rule.branches()
    return Rule(rule.affordance, body, rule.metadata, rule.branch_metadata if same else ())
