"""The ``offline`` backend: a symbolic Proposer (clingo optimisation, ``solver/propose.lp``) and a KB-grounded
Validator. No network, no key; deterministic.

The Proposer treats the labels as a noisy sample: a branch is a conjunction of 1..k property atoms (taxonomy
ancestors included, so ``metal`` can stand for ``steel``) that

* covers at least ``min_support`` known positives, each atom held by as many positives and by at least
  ``min_objects`` known objects (rare values are never proposed);
* has an m-estimate of precision of at least ``min_precision`` (the labels' base rate as the prior);
* maximises the training F1 of the rule with it, ``2TP / (TP + FP + P)``: clingo maximises the linear
  ``(1 - t) * new positives - t * new negatives`` and :func:`f1_branch` moves ``t`` to half the F1 reached
  (Dinkelbach's method for a ratio; a branch helps exactly when its precision on new objects exceeds F1/2);
* raises that F1 by at least ``min_gain`` (else the rule is finished); the first branch, when none meets the
  precision floor, is the best one without it (any rule beats none for F1);
* never combines values that imply or exclude each other (``solver/exclusive.lp``).

Its settings are chosen by inner cross-validation on the training objects (:mod:`kari.induce.tuning`). The
search is ``solver/facts.lp`` + ``solver/exclusive.lp`` + ``solver/propose.lp`` run through the one solver
bridge (:func:`kari.solver.control.solve`); Python writes the facts, reads the answer and moves ``t``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Protocol

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import has_property, object_view, rule_holds
from kari.core.terms import WHOLE, Semantics
from kari.vocab.vocabulary import Vocabulary
from kari.induce.branches import BranchChoice, avoid_facts
from kari.core.induce_config import SEED_BRANCHES, SOLVER_TIME_LIMIT, Backend, ProposerSettings
from kari.induce.proposer import Proposal, ProposalTask
from kari.induce.refusals import Refusals, refusal_facts
from kari.induce.validator import AtomLabels
from kari.rules.ast import Atom, Or, Part, Rule, all_of, any_of
from kari.solver.control import Grounding, SolveOutcome
from kari.solver.facts import PREDICATE_OF_ASP, exclusive_facts, marks, object_facts, taxonomy_facts


def _implies_any(values: frozenset[tuple[str, str]], vocab: Vocabulary) -> Callable[[str, str], bool]:
    """Does a fact ``predicate:value`` imply (is-a) one of ``values``?"""
    def keep(predicate: str, value: str) -> bool:
        return any((predicate, a) in values for a in vocab.ancestors(predicate, value))
    return keep


class BranchSearch:
    """``solver/propose.lp`` grounded once over the known positives and negatives; :meth:`best` answers one
    branch question per call by setting its externals (targets, round targets, done negatives, weight)."""

    def __init__(self, positives: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord], vocab: Vocabulary,
                 settings: ProposerSettings | None = None, *, time_limit: float = SOLVER_TIME_LIMIT,
                 refused: Refusals = Refusals()) -> None:
        settings = settings or ProposerSettings()
        known = list({o.id: o for o in positives}.values())
        ids = {k.id for k in known}
        others = [o for o in dict.fromkeys(negatives) if o.id not in ids]
        prior = len(known) / (len(known) + len(others)) if known or others else 0.5
        # Only a value some positive holds (taxonomy closed) can be proposed, so a negative matters through its
        # facts that imply such a value: the others are left out of the grounding (the answer is the same).
        relevant = frozenset().union(*(object_view(o, vocab).whole for o in known))
        self.objects = [*known, *(o for o in others if object_view(o, vocab).whole & relevant)]
        self.number = {o.id: i for i, o in enumerate(self.objects)}
        self.time_limit = time_limit
        keep = _implies_any(relevant, vocab)
        program = "\n".join([
            object_facts(known, vocab),
            object_facts(self.objects[len(known):], vocab, ids=range(len(known), len(self.objects)), keep=keep),
            marks("positive", range(len(known))),
            marks("negative", range(len(known), len(self.objects))),
            taxonomy_facts(vocab),
            avoid_facts(vocab),
            refusal_facts(refused),
            exclusive_facts(vocab),
        ])
        constants = settings.constants(prior, len(known))
        options = ["--opt-mode=opt", *(arg for name, value in constants.items() for arg in ("-c", f"{name}={value}"))]
        self.grounding = Grounding([program], ["facts.lp", "exclusive.lp", "propose.lp"], what="offline proposer",
                                   options=options)

    def best(self, targets: Sequence[ObjectRecord], *, round_targets: Sequence[ObjectRecord] = (),
             done: Sequence[ObjectRecord] = (), weight: float = 0.5) -> BranchChoice | None:
        """The optimal branch for the uncovered positives ``targets``: it covers one of ``round_targets`` (any
        target when empty); a negative in ``done`` is already covered (no new cost); a new negative costs
        ``weight / (1 - weight)`` new positives. None when no branch meets the settings."""
        t = min(100, max(0, round(100 * weight)))
        externals = [("target", (self.number[o.id],)) for o in targets]
        externals += [("round_target", (self.number[o.id],)) for o in round_targets]
        externals += [("done", (self.number[o.id],)) for o in done if o.id in self.number]
        externals += [("weight_bit", (i,)) for i in range(7) if t >> i & 1]
        outcome = self.grounding.solve(externals, time_limit=self.time_limit)
        if not outcome.atoms:
            return None
        return _choice(outcome, [o.id for o in self.objects], optimal=outcome.proven)


class BranchFinder(Protocol):
    """What the Proposer asks of a branch search (:class:`BranchSearch`, or the exact enumeration
    :class:`kari.induce.fastsearch.VectorBranchSearch`)."""

    def best(self, targets: Sequence[ObjectRecord], *, round_targets: Sequence[ObjectRecord] = (),
             done: Sequence[ObjectRecord] = (), weight: float = 0.5) -> BranchChoice | None: ...


def branch_search(positives: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord], vocab: Vocabulary,
                  settings: ProposerSettings, *, time_limit: float = SOLVER_TIME_LIMIT,
                  refused: Refusals = Refusals(), weights: Mapping[str, float] | None = None) -> BranchFinder:
    """The search for one proposal: clingo (``solver/propose.lp``) for the strict PART form, else the exact
    enumeration of :mod:`kari.induce.fastsearch` (same criterion, no grounding; KB-scale evidence). Neither
    chooses a value or a branch in ``refused``. ``weights`` (object id -> weight, 1 when absent) weigh the counts
    of the vectorised search; the strict form counts objects unweighted (``solver/propose.lp`` has no weights)."""
    if settings.strict:
        return BranchSearch(positives, negatives, vocab, settings, time_limit=time_limit, refused=refused)
    from kari.induce.fastsearch import VectorBranchSearch

    return VectorBranchSearch(positives, negatives, vocab, settings, time_limit=time_limit, refused=refused,
                              weights=weights)


def best_branch(
    targets: Sequence[ObjectRecord],
    negatives: Sequence[ObjectRecord],
    vocab: Vocabulary,
    settings: ProposerSettings | None = None,
    *,
    positives: Sequence[ObjectRecord] = (),
    round_targets: Sequence[ObjectRecord] = (),
    done: Sequence[ObjectRecord] = (),
    weight: float = 0.5,
    time_limit: float = SOLVER_TIME_LIMIT,
) -> BranchChoice | None:
    """One :meth:`BranchSearch.best` question: ``positives`` are every known positive (``targets`` are added:
    support and precision count them all)."""
    search = BranchSearch([*targets, *positives], negatives, vocab, settings, time_limit=time_limit)
    return search.best(targets, round_targets=round_targets, done=done, weight=weight)


@dataclass(frozen=True)
class Selected:
    """``sel(P, V)``: the branch has the atom P:V (P in ASP spelling)."""

    ATOM: ClassVar[str] = "sel"
    predicate: str
    value: str


@dataclass(frozen=True)
class Covered:
    """``cov(I)``: the branch covers known positive I."""

    ATOM: ClassVar[str] = "cov"
    object: int


@dataclass(frozen=True)
class CoveredNegative:
    """``ncov(I)``: the branch covers known negative I."""

    ATOM: ClassVar[str] = "ncov"
    object: int


def _choice(outcome: SolveOutcome, ids: Sequence[str], optimal: bool) -> BranchChoice:
    chosen = sorted((PREDICATE_OF_ASP[str(a.predicate)], str(a.value)) for a in outcome.answers(Selected))
    part_form = outcome.holds("form", "part")
    role = "x" if part_form else WHOLE
    nodes = tuple(Atom(p, v, role) for p, v in chosen)
    body = all_of(nodes)
    branch = Part("x", body) if part_form else body
    covers = tuple(sorted(ids[int(a.object)] for a in outcome.answers(Covered)))
    negatives = tuple(sorted(ids[int(a.object)] for a in outcome.answers(CoveredNegative)))
    return BranchChoice(branch, covers, negatives, optimal)


class SymbolicProposer:
    """Proposes rules by clingo optimisation over the KB evidence (see :class:`BranchSearch`)."""

    name = Backend.OFFLINE

    def __init__(self, vocab: Vocabulary, settings: ProposerSettings | None = None, *,
                 seed_branches: int = SEED_BRANCHES, time_limit: float = SOLVER_TIME_LIMIT) -> None:
        self.vocab = vocab
        self.settings = settings or ProposerSettings()
        self.seed_branches = seed_branches
        self.time_limit = time_limit

    def propose(self, task: ProposalTask) -> Proposal:
        """Seed: add up to ``seed_branches`` branches; extend: add at most one. Each must cover a target of this
        round and raise the rule's F1 on the positives seen so far and the negatives by ``min_gain``; none uses a
        value or is a branch the guards refused this round (``task.refused``: the next best one instead)."""
        branches = list(
            task.current.args if isinstance(task.current, Or) else ([task.current] if task.current is not None else [])
        )
        semantics = Semantics.STRICT if self.settings.strict else Semantics.ANY_PART
        stated = {o.id: o for o in (*task.seen, *task.targets)}
        seen = [*stated.values(), *(o for o in task.pooled if o.id not in stated)]  # pooled kin: weighed, never targets
        weights = task.weights or None
        current = Rule(task.affordance, task.current) if task.current is not None else None
        covered = {o.id for o in seen if current is not None and rule_holds(current, o, self.vocab, semantics)}
        done = {o.id for o in task.negatives if current is not None and rule_holds(current, o, self.vocab, semantics)}
        round_targets = [o for o in task.targets if o.id not in covered]
        notes = []
        search = branch_search(seen, task.negatives, self.vocab, self.settings, time_limit=self.time_limit,
                               refused=task.refused, weights=weights)
        for _ in range(self.seed_branches if task.seeding else 1):
            if not round_targets:
                break
            found = f1_branch(search, seen, task.negatives, covered, done, round_targets, self.settings.min_gain,
                              beta=self.settings.beta, weights=weights)
            fallback = found is None and not branches
            if fallback:  # any rule beats none for F1: the first branch needs support only
                loose = branch_search(seen, task.negatives, self.vocab, replace(self.settings, min_precision=0.0),
                                      time_limit=self.time_limit, refused=task.refused, weights=weights)
                found = f1_branch(loose, seen, task.negatives, covered, done, round_targets, 0.0,
                                  beta=self.settings.beta, weights=weights)
            if found is None:
                break
            choice, before, after = found
            branches.append(choice.branch)
            notes.append(("no branch meets the precision floor; without it: " if fallback else "")
                         + f"training F1 {before:.3f} -> {after:.3f}: covers {len(choice.covers)} of {len(seen)} "
                         f"positives seen, {len(choice.negatives)} negatives"
                         + ("" if choice.optimal else " (time limit: best found)"))
            covered |= set(choice.covers)
            done |= set(choice.negatives)
            round_targets = [o for o in round_targets if o.id not in covered]
        if not notes:
            return Proposal(None, "", "no branch meets the support and precision settings and raises F1", exhausted=True)
        body = any_of(branches)
        return Proposal(body, "; ".join(notes))


def f1(true_positives: float, false_positives: float, positives: float, beta: float = 1.0) -> float:
    """F-beta, ``(1 + b^2) TP / (TP + FP + b^2 P)`` (``2TP / (TP + FP + P)`` for beta 1; 0 without positives)."""
    total = true_positives + false_positives + beta * beta * positives
    return (1 + beta * beta) * true_positives / total if total else 0.0


def f1_branch(
    search: BranchFinder,
    positives: Sequence[ObjectRecord],
    negatives: Sequence[ObjectRecord],
    covered: set[str],
    done: set[str],
    round_targets: Sequence[ObjectRecord],
    min_gain: float,
    *,
    steps: int = 4,
    beta: float = 1.0,
    weights: Mapping[str, float] | None = None,
) -> tuple[BranchChoice, float, float] | None:
    """The branch that raises the rule's training F-beta the most (Dinkelbach's method, at most ``steps`` solver
    calls on ``search``: a new negative costs ``F / (1 + beta^2)`` of a new positive), with the F-beta before and
    after; None when none raises it by ``min_gain``.

    ``covered`` / ``done``: ids of the positives / negatives the rule already covers; ``weights``: each object's
    weight (1 when absent; the counts of the F-beta are sums of weights)."""
    def mass(ids: Iterable[str]) -> float:
        return sum(weights.get(i, 1.0) for i in ids) if weights else float(len(set(ids)))

    share = 1.0 / (1.0 + beta * beta)
    total = mass(o.id for o in positives)
    before = f1(mass(covered), mass(done), total, beta)
    targets = [o for o in positives if o.id not in covered]
    done_objects = [o for o in negatives if o.id in done]
    best: tuple[BranchChoice, float] | None = None
    weight = before * share
    for _ in range(steps):
        choice = search.best(targets, round_targets=round_targets, done=done_objects, weight=weight)
        if choice is None:
            break
        after = f1(mass(covered | set(choice.covers)), mass(done | set(choice.negatives)), total, beta)
        if best is not None and after <= best[1] + 1e-9:
            break
        best = (choice, after)
        weight = after * share
    if best is None or best[1] < before + min_gain:
        return None
    return best[0], before, best[1]


class KBValidator:
    """Answers atoms from the object's property facts and the vocabulary taxonomy (any-part reading)."""

    name = "kb"

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab

    def label_many(self, affordance: str, objects: Sequence[ObjectRecord], atoms: Sequence[Atom]) -> list[AtomLabels]:
        return [AtomLabels({a: has_property(obj, a.predicate, a.value, self.vocab) for a in atoms}) for obj in objects]
