"""Rewrite atom values to canonical vocabulary values (``MADE_OF:metallic`` -> ``MADE_OF:metal``).

Spelling variants (case, spaces, hyphens) are already removed by the parsers; this step applies the synonym
table of the vocabulary. Values the vocabulary does not know stay as they are (the checker reports them).
"""

from __future__ import annotations

from kari.rules.ast import Atom, Node, Part, Rule
from kari.domain.vocabulary import Vocabulary


def normalise_values(node: Node, vocab: Vocabulary) -> Node:
    """``node`` with every synonym value replaced by its canonical value."""
    if isinstance(node, Atom):
        canonical = vocab.normalise(node.predicate, node.value)
        return node if canonical is None or canonical == node.value else Atom(node.predicate, canonical, node.role)
    if isinstance(node, Part):
        return Part(node.var, normalise_values(node.body, vocab))
    args = tuple(normalise_values(arg, vocab) for arg in node.args)
    return type(node)(args)


def normalise_rule(rule: Rule, vocab: Vocabulary) -> Rule:
    """``rule`` with canonical values; metadata kept."""
    return Rule(rule.affordance, normalise_values(rule.body, vocab), rule.metadata, rule.branch_metadata)
