"""Summary figures of a rule set (``kari rules stats``): rules, branches, atoms per predicate, depth."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import mean
from typing import Any

from kari.core.terms import PREDICATES
from kari.rules.ast import Atom, Node, Part, Rule


def depth(node: Node) -> int:
    """Operator nesting depth: an atom is 1, ``OR(PART(x, AND(a)))`` is 4."""
    if isinstance(node, Atom):
        return 1
    children = (node.body,) if isinstance(node, Part) else node.args
    return 1 + max((depth(child) for child in children), default=0)


def rule_stats(rules: Sequence[Rule]) -> dict[str, Any]:
    """Counts and distributions over ``rules`` (JSON-serialisable)."""
    branches = [len(rule.branches()) for rule in rules]
    depths = [depth(rule.body) for rule in rules]
    atoms = [atom for rule in rules for atom in rule.atoms()]
    per_predicate = Counter(atom.predicate for atom in atoms)
    values = {p: len({a.value for a in atoms if a.predicate == p}) for p in PREDICATES}
    parts = sum(_count_parts(rule.body) for rule in rules)

    def spread(xs: list[int]) -> dict[str, float]:
        return {"min": min(xs), "mean": round(mean(xs), 2), "max": max(xs)} if xs else {"min": 0, "mean": 0, "max": 0}

    return {
        "rules": len(rules),
        "branches": {"total": sum(branches), **spread(branches)},
        "atoms": {"total": len(atoms), **{p: per_predicate.get(p, 0) for p in PREDICATES}},
        "distinct_values": values,
        "parts": parts,
        "depth": spread(depths),
    }


def _count_parts(node: Node) -> int:
    if isinstance(node, Atom):
        return 0
    if isinstance(node, Part):
        return 1 + _count_parts(node.body)
    return sum(_count_parts(arg) for arg in node.args)
