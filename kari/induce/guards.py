"""Guards every proposed branch passes, whoever proposed it (offline Proposer or LLM), and the final tidy-up.

* :func:`guard_branch`: the branch simplified (nested AND/OR flattened, repeated atoms dropped); atoms that
  exclude each other reject it (``SIZE:small`` with ``SIZE:large``: it holds for no object); an atom another
  atom implies is dropped (``MADE_OF:metal`` beside ``MADE_OF:steel``); the atoms are lifted up the is-a taxonomy
  while the branch's precision holds (``solver/branch.lp``).
* :func:`subsumed_by`: the earlier branch that already covers everything a new branch covers (taxonomy included).
* :func:`tidy`: a finished rule simplified with subsumed branches dropped, per-branch metadata kept aligned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kari.core.benchmark import ObjectRecord
from kari.core.terms import WHOLE
from kari.vocab.vocabulary import Vocabulary
from kari.core.induce_config import LIFT_TOLERANCE, SOLVER_TIME_LIMIT
from kari.domain.objects import object_view
from kari.induce.branches import avoid_facts, umbrella_values
from kari.rules import to_text
from kari.rules.ast import And, Atom, Node, Or, Part, all_of, any_of
from kari.rules.simplification import AtomKey, branch_atom_set, simplify
from kari.solver.control import solve
from kari.solver.facts import PREDICATE_OF_ASP, exclusive_facts, marks, object_facts, taxonomy_facts, value_facts


@dataclass
class GuardResult:
    """The guarded branch (None when rejected), why it was rejected, and what was changed."""

    branch: Node | None
    problems: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Conflict:
    """``conflict(P, V1, V2)``: the branch requires two values of one exclusive group."""

    ATOM: ClassVar[str] = "conflict"
    predicate: str
    first: str
    second: str


@dataclass(frozen=True)
class Redundant:
    """``redundant(P, V)``: another atom of the branch implies P:V."""

    ATOM: ClassVar[str] = "redundant"
    predicate: str
    value: str


@dataclass(frozen=True)
class Lift:
    """``lift(P, V, A)``: P:V is lifted to its ancestor A while the branch's precision holds."""

    ATOM: ClassVar[str] = "lift"
    predicate: str
    value: str
    to: str


def _conjunction(branch: Node) -> tuple[str | None, list[Atom]] | None:
    """``(PART variable or None, atoms)`` of a branch that is a conjunction of atoms, optionally under one PART
    whose atoms all use its variable; None for any other shape (left as it is)."""
    var = None
    body = branch
    if isinstance(branch, Part):
        var, body = branch.var, branch.body
    members = [body] if isinstance(body, Atom) else list(body.args) if isinstance(body, And) else []
    atoms = [a for a in members if isinstance(a, Atom) and a.role == (var or WHOLE)]
    if not members or len(atoms) != len(members):
        return None
    return var, atoms


def _rebuild(var: str | None, atoms: Sequence[Atom]) -> Node:
    body = all_of(atoms)
    return Part(var, body) if var is not None else body


def guard_branch(branch: Node, positives: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord],
                 vocab: Vocabulary, *, lift_tolerance: float = LIFT_TOLERANCE, strict: bool = False,
                 lift: bool = True, time_limit: float = SOLVER_TIME_LIMIT,
                 avoid: frozenset[tuple[str, str]] = frozenset()) -> GuardResult:
    """Simplify, check and lift one branch against the known ``positives`` and ``negatives``; an atom is never
    lifted to a value in ``avoid`` (values refused this round)."""
    simple = simplify(branch)
    shape = _conjunction(simple)
    if shape is None:
        return GuardResult(simple, changes=["simplified"] if simple != branch else [])
    var, atoms = shape
    if not (strict and var is not None):
        result = _vector_guard(simple, var, atoms, positives, negatives, vocab, lift_tolerance, lift, avoid)
        if result.branch is not None and simple != branch:
            result.changes.insert(0, "simplified")
        return result
    positives, negatives = _reachable(atoms, positives, vocab), _reachable(atoms, negatives, vocab)
    objects = [*positives, *negatives]
    program = "\n".join([
        object_facts(objects, vocab), value_facts("given", [(a.predicate, a.value) for a in atoms]),
        marks("positive", range(len(positives))), marks("negative", range(len(positives), len(objects))),
        taxonomy_facts(vocab), avoid_facts(vocab), value_facts("avoid", sorted(avoid)), exclusive_facts(vocab),
    ])
    options = ["--opt-mode=opt", "-c", f"tol={round(100 * lift_tolerance)}", "-c", f"part={int(strict and var is not None)}"]
    outcome = solve([program], ["facts.lp", "exclusive.lp", "branch.lp"], time_limit=time_limit,
                    what="branch guard", options=options)
    conflicts = [f"{p}:{a.first} and {p}:{a.second}" for a in outcome.answers(Conflict)
                 for p in [PREDICATE_OF_ASP[str(a.predicate)]]]
    if conflicts:
        return GuardResult(None, [f"{to_text(simple)} requires {c}, values of one exclusive group that no object "
                                  "has together" for c in conflicts])
    changes = ["simplified"] if simple != branch else []
    redundant = {(PREDICATE_OF_ASP[str(a.predicate)], str(a.value)) for a in outcome.answers(Redundant)}
    changes += [f"dropped {p}:{v} (implied by another atom)" for p, v in sorted(redundant)]
    lifted = ({(PREDICATE_OF_ASP[str(a.predicate)], str(a.value)): str(a.to) for a in outcome.answers(Lift)}
              if lift else {})
    changes += [f"lifted {p}:{v} to {p}:{a}" for (p, v), a in sorted(lifted.items()) if a != v]
    kept = [Atom(a.predicate, lifted.get((a.predicate, a.value), a.value), a.role) for a in atoms
            if (a.predicate, a.value) not in redundant]
    return GuardResult(_rebuild(var, list(dict.fromkeys(kept))), changes=changes)


def _vector_guard(simple: Node, var: str | None, atoms: Sequence[Atom], positives: Sequence[ObjectRecord],
                  negatives: Sequence[ObjectRecord], vocab: Vocabulary, lift_tolerance: float,
                  lift: bool, avoid: frozenset[tuple[str, str]] = frozenset()) -> GuardResult:
    """:func:`guard_branch` for a whole-object reading, answered by :func:`kari.induce.fastsearch.vector_guard`."""
    from kari.induce.fastsearch import vector_guard

    found = vector_guard(atoms, positives, negatives, vocab, tolerance=round(100 * lift_tolerance), avoid=avoid)
    if found.conflicts:
        return GuardResult(None, [f"{to_text(simple)} requires {p}:{v1} and {p}:{v2}, values of one exclusive group "
                                  "that no object has together" for p, v1, v2 in found.conflicts])
    changes = [f"dropped {p}:{v} (implied by another atom)" for p, v in sorted(found.redundant)]
    lifted = dict(found.lifted) if lift else {}
    changes += [f"lifted {p}:{v} to {p}:{a}" for (p, v), a in sorted(lifted.items()) if a != v]
    kept = [Atom(a.predicate, lifted.get((a.predicate, a.value), a.value), a.role) for a in atoms
            if (a.predicate, a.value) not in found.redundant]
    return GuardResult(_rebuild(var, list(dict.fromkeys(kept))), changes=changes)


@dataclass(frozen=True)
class GuardVerdict:
    """A proposal's new branches guarded: the guarded body (None when a branch is refused), the problems, what
    was changed per new branch, and the branches refused (as proposed)."""

    body: Node | None
    problems: list[str]
    changes: list[list[str]]
    refused: list[Node]


@dataclass(frozen=True)
class Guard:
    """The guards of one run, applied to the new branches of every proposal (:meth:`check`)."""

    vocab: Vocabulary
    lift_tolerance: float = LIFT_TOLERANCE
    strict: bool = False
    lift: bool = True
    time_limit: float = SOLVER_TIME_LIMIT

    def check(self, body: Node, first_new: int, positives: Sequence[ObjectRecord],
              negatives: Sequence[ObjectRecord], *, avoid: frozenset[tuple[str, str]] = frozenset()) -> GuardVerdict:
        """The branches from ``first_new`` on guarded one by one (never lifted to a value in ``avoid``); a branch
        that excludes itself or that an earlier branch subsumes is a problem (body None) and is refused as
        proposed."""
        branches: list[Node] = list(body.args) if isinstance(body, Or) else [body]
        kept, problems, changes, refused = branches[:first_new], [], [], []
        for branch in branches[first_new:]:
            result = guard_branch(branch, positives, negatives, self.vocab, lift_tolerance=self.lift_tolerance,
                                  strict=self.strict, lift=self.lift, time_limit=self.time_limit, avoid=avoid)
            problems += result.problems
            if result.branch is None:
                refused.append(branch)
                continue
            earlier = subsumed_by(result.branch, kept, self.vocab)
            if earlier is not None:
                problems.append(f"the new branch {to_text(result.branch)} adds nothing: branch {earlier + 1} "
                                f"({to_text(kept[earlier])}) already covers every object it covers")
                refused.append(branch)
                continue
            kept.append(result.branch)
            changes.append(result.changes)
        if problems:
            return GuardVerdict(None, problems, [], refused)
        return GuardVerdict(any_of(kept), [], changes, [])


def _reachable(atoms: Sequence[Atom], objects: Sequence[ObjectRecord], vocab: Vocabulary) -> list[ObjectRecord]:
    """The objects some lifting of ``atoms`` could cover (each atom, or an ancestor of it, holds on the whole):
    the only ones the lifting question needs (fewer facts to ground)."""
    reach = []
    for atom in atoms:
        avoid = umbrella_values(vocab, atom.predicate)
        reach.append({(atom.predicate, a) for a in vocab.ancestors(atom.predicate, atom.value) if a not in avoid}
                     | {(atom.predicate, atom.value)})
    return [o for o in objects if all(r & object_view(o, vocab).whole for r in reach)]


def _closed(keys: frozenset[AtomKey] | None, vocab: Vocabulary) -> frozenset[AtomKey] | None:
    """Every atom a branch implies through the taxonomy (steel implies metal)."""
    if keys is None:
        return None
    return frozenset((p, a, r) for p, v, r in keys for a in vocab.ancestors(p, v))


def _subsumers(branches: Sequence[Node], vocab: Vocabulary) -> list[int | None]:
    """For each branch, the index of a branch that covers everything it covers (of two equivalent branches the
    earlier one stands), or None."""
    plain = [branch_atom_set(b) for b in branches]
    closed = [_closed(p, vocab) for p in plain]
    out: list[int | None] = []
    for i, mine in enumerate(closed):
        found = None
        for j, other in enumerate(plain):
            if j == i or mine is None or other is None or not other <= mine:
                continue
            own, wider = plain[i], closed[j]
            equivalent = own is not None and wider is not None and own <= wider
            if not equivalent or j < i:
                found = j
                break
        out.append(found)
    return out


def subsumed_by(new: Node, earlier: Sequence[Node], vocab: Vocabulary) -> int | None:
    """The index of an ``earlier`` branch that covers every object ``new`` covers, or None."""
    found = _subsumers([*earlier, new], vocab)[-1]
    return found if found is not None and found < len(earlier) else None


def tidy(branches: Sequence[Node], metadata: Sequence[dict[str, Any]], vocab: Vocabulary
         ) -> tuple[list[Node], list[dict[str, Any]]]:
    """Branches simplified (kari.rules.simplification), repeated and subsumed ones dropped (taxonomy included),
    with their metadata; a nested OR is spread into top-level branches that share its metadata."""
    flat: list[Node] = []
    meta: list[dict[str, Any]] = []
    for branch, info in zip(branches, metadata):
        simple = simplify(branch)
        for item in simple.args if isinstance(simple, Or) else (simple,):
            if item not in flat:
                flat.append(item)
                meta.append(info)
    keep = [i for i, s in enumerate(_subsumers(flat, vocab)) if s is None]
    return [flat[i] for i in keep], [meta[i] for i in keep]
