"""The ``offline`` backend: a symbolic Proposer (clingo optimisation, ``solver/propose.lp``) and a KB-grounded
Validator. No network, no key; deterministic.

The Proposer proposes what a careful expert would from KB evidence alone: the conjunction of 1..k property
atoms (taxonomy ancestors included, so ``metal`` can stand for ``steel``) that covers the most uncovered
positives while covering as few known negatives as possible, found by ``solver/facts.lp`` + ``solver/propose.lp``
through the one solver bridge (:func:`kari.solver.control.solve`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kari.bench.model import ObjectRecord
from kari.domain.objects import has_property
from kari.domain.terms import PREDICATES, WHOLE
from kari.domain.vocabulary import Vocabulary
from kari.induce.proposer import Proposal, ProposalTask
from kari.induce.validator import AtomLabels
from kari.rules.ast import And, Atom, Node, Or, Part
from kari.solver.control import solve
from kari.solver.facts import PREDICATE_OF_ASP, exclusive_facts, marks, object_facts, taxonomy_facts, value_facts


@dataclass(frozen=True)
class BranchChoice:
    """One optimal branch and what it covers (object ids)."""

    branch: Node
    covers: tuple[str, ...]
    negatives: tuple[str, ...]
    optimal: bool


def _program(targets: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord], vocab: Vocabulary) -> str:
    """Facts for facts.lp + propose.lp: objects numbered targets first (few symbols), marks, taxonomy, avoided
    values and exclusive groups, all through the one fact writer."""
    objects = [*targets, *negatives]
    return "\n".join([
        object_facts(objects, vocab),
        marks("target", range(len(targets))),
        marks("negative", range(len(targets), len(objects))),
        taxonomy_facts(vocab),
        value_facts("avoid", [(p, v) for p in PREDICATES for v in sorted(umbrella_values(vocab, p))]),
        exclusive_facts(vocab),
    ])


def umbrella_values(vocab: Vocabulary, predicate: str) -> set[str]:
    """Values never proposed: umbrella roots of the taxonomy (``material`` says nothing about an object)."""
    values = vocab.values(predicate)
    below: dict[str, int] = {}
    for value in values:
        for ancestor in vocab.ancestors(predicate, value) - {value}:
            below[ancestor] = below.get(ancestor, 0) + 1
    return {v for v, n in below.items() if len(vocab.ancestors(predicate, v)) == 1 and 2 * n >= len(values)}


def best_branch(
    targets: Sequence[ObjectRecord],
    negatives: Sequence[ObjectRecord],
    vocab: Vocabulary,
    *,
    max_atoms: int = 3,
    min_precision: float = 0.4,
    min_support: int = 1,
    strict: bool = False,
    time_limit: float = 10.0,
) -> BranchChoice | None:
    """The optimal branch for ``targets`` against ``negatives`` (clingo ``#maximize``/``#minimize``).

    None when no branch covers ``min(min_support, len(targets))`` targets with precision >= ``min_precision``.
    """
    constants = {"k": max_atoms, "min_prec": round(min_precision * 100), "strict": int(strict),
                 "min_sup": max(1, min(min_support, len(targets)))}
    options = ["--opt-mode=opt", *(arg for name, value in constants.items() for arg in ("-c", f"{name}={value}"))]
    outcome = solve([_program(targets, negatives, vocab)], ["facts.lp", "propose.lp"], time_limit=time_limit,
                    what="offline proposer", options=options)
    if not outcome.atoms:
        return None
    ids = [o.id for o in (*targets, *negatives)]
    return _choice(outcome.atoms, ids, optimal=outcome.proven)


def _choice(atoms: Sequence[tuple[Any, ...]], ids: Sequence[str], optimal: bool) -> BranchChoice:
    chosen = sorted((PREDICATE_OF_ASP[str(a[1])], str(a[2])) for a in atoms if a[0] == "sel")
    part_form = ("form", "part") in atoms
    role = "x" if part_form else WHOLE
    nodes = tuple(Atom(p, v, role) for p, v in chosen)
    body: Node = nodes[0] if len(nodes) == 1 else And(nodes)
    branch = Part("x", body) if part_form else body
    covers = tuple(sorted(ids[int(a[1])] for a in atoms if a[0] == "cov"))
    negatives = tuple(sorted(ids[int(a[1])] for a in atoms if a[0] == "ncov"))
    return BranchChoice(branch, covers, negatives, optimal)


class SymbolicProposer:
    """Proposes rules by clingo optimisation over the KB evidence (see :func:`best_branch`)."""

    name = "offline"

    def __init__(
        self,
        vocab: Vocabulary,
        *,
        max_atoms: int = 3,
        seed_branches: int = 3,
        min_precision: float = 0.4,
        min_support: int = 1,
        strict: bool = False,
        time_limit: float = 10.0,
    ) -> None:
        self.vocab = vocab
        self.max_atoms = max_atoms
        self.seed_branches = seed_branches
        self.min_precision = min_precision
        self.min_support = min_support
        self.strict = strict
        self.time_limit = time_limit

    def _best(self, targets: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord]) -> BranchChoice | None:
        return best_branch(
            targets,
            negatives,
            self.vocab,
            max_atoms=self.max_atoms,
            min_precision=self.min_precision,
            min_support=self.min_support,
            strict=self.strict,
            time_limit=self.time_limit,
        )

    def propose(self, task: ProposalTask) -> Proposal:
        """Seed: greedily cover the targets with up to ``seed_branches`` branches; extend: append one branch."""
        branches = list(
            task.current.args if isinstance(task.current, Or) else ([task.current] if task.current is not None else [])
        )
        budget = self.seed_branches if task.seeding else 1
        remaining = list(task.targets)
        notes = []
        for _ in range(budget):
            choice = self._best(remaining, task.negatives) if remaining else None
            if choice is None:
                break
            branches.append(choice.branch)
            notes.append(
                f"covers {len(choice.covers)}/{len(remaining)} targets, {len(choice.negatives)} negatives"
                + ("" if choice.optimal else " (time limit: best found)")
            )
            remaining = [o for o in remaining if o.id not in set(choice.covers)]
        if not notes:
            return Proposal(None, "", "no branch covers a target with the required precision", exhausted=True)
        body = branches[0] if len(branches) == 1 else Or(tuple(branches))
        return Proposal(body, "; ".join(notes))


class KBValidator:
    """Answers atoms from the object's property facts and the vocabulary taxonomy (any-part reading)."""

    name = "kb"

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab

    def label_many(self, affordance: str, objects: Sequence[ObjectRecord], atoms: Sequence[Atom]) -> list[AtomLabels]:
        return [AtomLabels({a: has_property(obj, a.predicate, a.value, self.vocab) for a in atoms}) for obj in objects]
