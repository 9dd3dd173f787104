"""Rewrite atom values to canonical vocabulary values (``MADE_OF:metallic`` -> ``MADE_OF:metal``).

Spelling variants (case, spaces, hyphens) are already removed by the parsers; this step applies the synonym
table and the word forms of the vocabulary (plurals, British spellings...). Values the vocabulary does not know
stay as they are (the checker reports them; :func:`kari.domain.canon.canonical_rule` adds them as new values).
"""

from __future__ import annotations

from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import Atom, Node, Rule
from kari.rules.rewrite import map_atoms


def normalise_values(node: Node, vocab: Vocabulary) -> Node:
    """``node`` with every known value replaced by its canonical value."""

    def canonical(atom: Atom) -> Atom:
        value = vocab.normalise(atom.predicate, atom.value)
        return atom if value is None or value == atom.value else Atom(atom.predicate, value, atom.role)

    return map_atoms(node, canonical)


def normalise_rule(rule: Rule, vocab: Vocabulary) -> Rule:
    """``rule`` with canonical values; metadata kept."""
    return Rule(rule.affordance, normalise_values(rule.body, vocab), rule.metadata, rule.branch_metadata)
