"""The Validator's symbolic half: decide a rule's coverage from YES/NO labels of its atoms (method.md 2).

An LLM (or a person) labels every atom of the rule for one object; the AND/OR tree is then evaluated in code.
A label keyed by the atom itself wins; otherwise a label for the same ``PREDICATE:value`` with any role is used
(the paper's Validator labels ``PRED:value`` and reads PART atoms any-part). A missing label is an error.

>>> from kari.rules.ast import Atom, And, Or, Rule
>>> rule = Rule("cut", Or((And((Atom("SHAPE", "sharp_edge"), Atom("MADE_OF", "metal"))), Atom("SHAPE", "serrated"))))
>>> covered_by_labels(rule, {Atom("SHAPE", "sharp_edge"): False, Atom("MADE_OF", "metal"): True,
...                          Atom("SHAPE", "serrated"): True})
CoverageDecision(covered=True, branch=1)
"""

from __future__ import annotations

from collections.abc import Mapping

from kari.rules.ast import Atom, Rule
from kari.core.solver_types import CoverageDecision


def covered_by_labels(rule: Rule, labels: Mapping[Atom, bool]) -> CoverageDecision:
    """Coverage of ``rule`` given a YES/NO label per atom; ``branch`` is the lowest OR branch that holds."""
    by_key: dict[str, set[bool]] = {}
    for atom, label in labels.items():
        by_key.setdefault(atom.key, set()).add(bool(label))

    def holds(atom: Atom) -> bool:
        if atom in labels:
            return bool(labels[atom])
        seen = by_key.get(atom.key)
        if seen is None or len(seen) != 1:
            problem = "no label" if seen is None else "conflicting labels"
            raise rule.error(f"{problem} for atom {atom.key} (role {atom.role})", "missing-label")
        return next(iter(seen))

    for atom in rule.atoms():  # every atom needs a label, even past the first branch that holds
        holds(atom)
    for number, branch in enumerate(rule.branches()):
        if branch.evaluate(holds):
            return CoverageDecision(True, number)
    return CoverageDecision(False, None)
