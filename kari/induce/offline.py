"""The ``offline`` backend: a symbolic Proposer (clingo optimisation, ``solver/propose.lp``) and a KB-grounded
Validator. No network, no key; deterministic.

The Proposer proposes what a careful expert would from KB evidence alone: the conjunction of 1..k property
atoms (taxonomy ancestors included, so ``metal`` can stand for ``steel``) that covers the most uncovered
positives while covering as few known negatives as possible. This is the only module of the induce package that
talks to clingo.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kari.bench.model import ObjectRecord
from kari.induce.proposer import Proposal, ProposalTask
from kari.induce.validator import AtomLabels
from kari.rules.ast import WHOLE, And, Atom, Node, Or, Part
from kari.vocabulary import Vocabulary


@dataclass(frozen=True)
class BranchChoice:
    """One optimal branch and what it covers (object ids)."""

    branch: Node
    covers: tuple[str, ...]
    negatives: tuple[str, ...]
    optimal: bool


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _facts(
    targets: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord], vocab: Vocabulary
) -> tuple[str, list[str]]:
    """ASP facts for propose.lp; objects are numbered (few symbols), the index maps numbers back to ids."""
    index: list[str] = []
    lines: list[str] = []
    predicates: set[str] = set()
    for kind, objects in (("target", targets), ("negative", negatives)):
        for obj in objects:
            number = len(index)
            index.append(obj.id)
            lines.append(f"{kind}({number}).")
            for prop in obj.properties:
                predicates.add(prop.predicate)
                lines.append(f"fact({number},{_q(prop.part)},{_q(prop.predicate)},{_q(prop.value)}).")
    lines += [f"isa({_q(p)},{_q(c)},{_q(a)})." for p, c, a in vocab.isa_pairs() if p in predicates]
    lines += [f"avoid({_q(p)},{_q(v)})." for p in sorted(predicates) for v in sorted(_avoided(vocab, p, targets))]
    return "\n".join(lines), index


def _avoided(vocab: Vocabulary, predicate: str, objects: Iterable[ObjectRecord]) -> set[str]:
    """Values never proposed: banned terms and umbrella roots of the taxonomy (``material``: says nothing)."""
    values = vocab.values(predicate)
    below: dict[str, int] = {}
    for value in values:
        for ancestor in vocab.ancestors(predicate, value) - {value}:
            below[ancestor] = below.get(ancestor, 0) + 1
    umbrellas = {v for v, n in below.items() if len(vocab.ancestors(predicate, v)) == 1 and 2 * n >= len(values)}
    banned = {
        p.value
        for o in objects
        for p in o.properties
        if p.predicate == predicate and vocab.banned_reason(p.value) is not None
    }
    return umbrellas | banned


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
    """The optimal branch for ``targets`` against ``negatives``.

    None when no branch covers ``min(min_support, len(targets))`` targets with precision >= ``min_precision``.
    """
    import clingo

    from kari.resources import asset_path

    facts, index = _facts(targets, negatives, vocab)
    ctl = clingo.Control(
        [
            "--opt-mode=opt",
            f"-c k={max_atoms}",
            f"-c min_prec={round(min_precision * 100)}",
            f"-c strict={int(strict)}",
            f"-c min_sup={max(1, min(min_support, len(targets)))}",
            "--warn=none",
        ]
    )
    ctl.load(str(asset_path("solver", "propose.lp")))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    best: list[list[tuple[str, tuple]]] = []

    def on_model(model: clingo.Model) -> None:
        best[:] = [
            [
                (
                    s.name,
                    tuple(
                        a.string
                        if a.type == clingo.SymbolType.String
                        else a.name
                        if a.type == clingo.SymbolType.Function
                        else a.number
                        for a in s.arguments
                    ),
                )
                for s in model.symbols(shown=True)
            ]
        ]

    with ctl.solve(on_model=on_model, async_=True) as handle:
        finished = handle.wait(time_limit)
        if not finished:
            handle.cancel()
        result = handle.get()
    if not best:
        return None
    return _choice(best[0], index, optimal=bool(finished and result.exhausted))


def _choice(symbols: list[tuple[str, tuple]], index: list[str], optimal: bool) -> BranchChoice:
    atoms = sorted((args[0], args[1]) for name, args in symbols if name == "sel")
    part_form = ("form", ("part",)) in symbols
    role = "x" if part_form else WHOLE
    nodes = tuple(Atom(p, v, role) for p, v in atoms)
    body: Node = nodes[0] if len(nodes) == 1 else And(nodes)
    branch = Part("x", body) if part_form else body
    covers = tuple(sorted(index[a[0]] for n, a in symbols if n == "cov"))
    negatives = tuple(sorted(index[a[0]] for n, a in symbols if n == "ncov"))
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
        from kari.solver import has_property

        return [AtomLabels({a: has_property(obj, a.predicate, a.value, self.vocab) for a in atoms}) for obj in objects]
