"""What the offline Proposer's two searches share (clingo's :class:`kari.induce.offline.BranchSearch` and the
vectorised :class:`kari.induce.fastsearch.VectorBranchSearch`) and the branch guard reads: the branch a search
chose, and the umbrella values of the taxonomy that no branch may use."""

from __future__ import annotations

from dataclasses import dataclass

from kari.core.terms import PREDICATES
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import Node
from kari.solver.facts import value_facts


@dataclass(frozen=True)
class BranchChoice:
    """One optimal branch and what it covers (object ids)."""

    branch: Node
    covers: tuple[str, ...]
    negatives: tuple[str, ...]
    optimal: bool


def umbrella_values(vocab: Vocabulary, predicate: str) -> set[str]:
    """Values never proposed: umbrella roots of the taxonomy (``material`` says nothing about an object)."""
    memo = vocab.memo("umbrella_values")
    if predicate not in memo:
        memo[predicate] = _umbrellas(vocab, predicate)
    return set(memo[predicate])


def _umbrellas(vocab: Vocabulary, predicate: str) -> set[str]:
    values = vocab.values(predicate)
    below: dict[str, int] = {}
    for value in values:
        for ancestor in vocab.ancestors(predicate, value) - {value}:
            below[ancestor] = below.get(ancestor, 0) + 1
    return {v for v, n in below.items() if len(vocab.ancestors(predicate, v)) == 1 and 2 * n >= len(values)}


def avoid_facts(vocab: Vocabulary) -> str:
    """``avoid(pred,"value").`` for every umbrella value (read by propose.lp and branch.lp)."""
    return value_facts("avoid", [(p, v) for p in PREDICATES for v in sorted(umbrella_values(vocab, p))])
