"""The exact target-aware Optimal questioner (method.md 4), decided by clingo optimisation (solver/optimal.lp).

Optimal knows the hidden object's answers. It looks for a minimum-size set of pool questions after which
``b(target) > threshold``. Because consistent sets only shrink and b depends only on which representatives
survive, the *order* of the questions does not change the final belief; the set is ordered afterwards so that
each question drives the target's likelihood highest (the paper's description of Optimal).

Reduction before solving (it keeps the optimum): a question whose answers agree with the hidden object on
every representative rules nothing out and is dropped; questions that rule out the same representatives are
interchangeable, and only the first in pool order is kept.

Replanning: given the ``history`` of questions already answered (with the answers actually received, which a
noisy Oracle may have flipped), the representatives those answers rule out are gone and only unasked questions
are planned. If every answer so far was the one the plan expected, the rest of the plan stays optimal (a shorter
rest would give a shorter plan), so players replan only when an answer surprised them.

Unreachable threshold (no question set lifts b(target) above it, e.g. no target representative agrees with the
hidden object): ``reached`` is False, the solver maximises the secondary objective, the margin
``D*n(target) - P*sum_a n(a)`` for threshold P/D (the target's lead), then minimises questions. ``guess`` is the
argmax of the final belief (ties: candidate order; None when no representative is consistent): the target only
when the answers make it the most likely candidate, never by fiat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from kari.core.benchmark import ObjectRecord
from kari.errors import KariError
from kari.solver.control import solve
from kari.domain.objects import object_view
from kari.solver.facts import asp_fact, asp_string
from kari.core.terms import History, Question
from kari.vocab.vocabulary import Vocabulary
from kari.core.solver_types import THRESHOLD


@dataclass(frozen=True)
class OptimalResult:
    """The optimum: questions in asking order with the hidden object's answers, and the guess.

    ``turns`` is the number of questions (the final guess is not counted). ``proven_optimal`` is the solver's
    proof (search exhausted within the time limit); ``reached`` tells whether b(target) exceeds the threshold.
    """

    questions: tuple[Question, ...]
    answers: tuple[bool, ...]
    turns: int
    guess: str | None
    proven_optimal: bool
    solver_stats: dict[str, Any] = field(default_factory=dict)
    reached: bool = True
    target_belief: float | None = None


@dataclass(frozen=True)
class GameMatrix:
    """A game reduced to integers: representatives, and per kept question the representatives it rules out."""

    candidates: tuple[str, ...]
    rep_candidate: tuple[int, ...]  # representative index -> candidate index
    questions: tuple[Question, ...]  # kept questions, pool order
    eliminates: tuple[frozenset[int], ...]  # per kept question
    answers: dict[Question, bool]  # the hidden object's answer to each kept question


def game_matrix(hidden: ObjectRecord, reps_objects: Mapping[str, Sequence[ObjectRecord]], vocab: Vocabulary,
                pool: Sequence[Question]) -> GameMatrix:
    """Answers and eliminations of every pool question; drops questions that rule nothing out or repeat one."""
    candidates = tuple(reps_objects)
    rep_candidate: list[int] = []
    rep_facts = []
    for c, aff in enumerate(candidates):
        for obj in reps_objects[aff]:
            rep_candidate.append(c)
            rep_facts.append(object_view(obj, vocab).whole)
    hidden_facts = object_view(hidden, vocab).whole
    seen: set[frozenset[int]] = set()
    kept: list[Question] = []
    eliminated: list[frozenset[int]] = []
    answers: dict[Question, bool] = {}
    for q in dict.fromkeys(pool):
        answer = q in hidden_facts
        out = frozenset(r for r, facts in enumerate(rep_facts) if (q in facts) != answer)
        if out and out not in seen:
            seen.add(out)
            kept.append(q)
            eliminated.append(out)
            answers[q] = answer
    return GameMatrix(candidates, tuple(rep_candidate), tuple(kept), tuple(eliminated), answers)


def belief_after(matrix: GameMatrix, asked: Sequence[int]) -> dict[str, float] | None:
    """b(a) after asking the kept questions with indices ``asked``; None when no representative survives."""
    out = frozenset().union(*(matrix.eliminates[i] for i in asked))
    counts = [0] * len(matrix.candidates)
    for r, c in enumerate(matrix.rep_candidate):
        if r not in out:
            counts[c] += 1
    total = sum(counts)
    return None if total == 0 else {a: n / total for a, n in zip(matrix.candidates, counts)}


def _program(matrix: GameMatrix, target: int, threshold: Fraction) -> str:
    lines = [asp_fact("threshold", threshold.numerator, threshold.denominator), asp_fact("target", target)]
    lines += [asp_fact("rep", r, c) for r, c in enumerate(matrix.rep_candidate)]
    for q, out in enumerate(matrix.eliminates):
        lines.append(f"{asp_fact('question', q)} % {asp_string(':'.join(matrix.questions[q]))}")
        lines += [asp_fact("elim", q, r) for r in sorted(out)]
    return "\n".join(lines)


def _order(matrix: GameMatrix, chosen: list[int], target: str) -> list[int]:
    """Ask first the question that drives b(target) highest, then the next, and so on (ties: pool order)."""
    ordered: list[int] = []
    rest = sorted(chosen)
    while rest:
        def score(q: int) -> float:
            belief = belief_after(matrix, [*ordered, q])
            return -1.0 if belief is None else belief[target]
        best = max(rest, key=score)  # max keeps the first of equal scores
        ordered.append(best)
        rest.remove(best)
    return ordered


@dataclass(frozen=True)
class Asked:
    """``ask(Q)``: question Q is in the optimal plan."""

    ATOM: ClassVar[str] = "ask"
    question: int


def optimal_target_aware(hidden: ObjectRecord, target: str, reps_objects: Mapping[str, Sequence[ObjectRecord]],
                         vocab: Vocabulary, pool: Sequence[Question], threshold: float = THRESHOLD,
                         time_limit: float = 10.0, history: History = ()) -> OptimalResult:
    """The minimum number of further questions after which b(target) > ``threshold`` (clingo ``#minimize``),
    given the questions already answered in ``history``."""
    if target not in reps_objects:
        raise KariError(f"target {target!r} is not among the candidates", code="optimal-input")
    if not 0 <= threshold < 1:
        raise KariError(f"threshold must be in [0, 1), got {threshold}", code="optimal-input")
    asked = {q for q, _ in history}
    alive = {a: [o for o in objs if all((q in object_view(o, vocab).whole) == answer for q, answer in history)]
             for a, objs in reps_objects.items()}
    matrix = game_matrix(hidden, alive, vocab, [q for q in pool if q not in asked])
    t_index = matrix.candidates.index(target)
    outcome = solve([_program(matrix, t_index, Fraction(threshold).limit_denominator(10_000))], ["optimal.lp"],
                    time_limit=time_limit, what=f"optimal questions for {hidden.id!r}")
    if outcome.satisfiable is not True:
        raise KariError(f"the optimal questioner found no answer within {time_limit:g} s for object {hidden.id!r}; "
                        f"raise the time limit", code="time-limit")
    chosen = [answer.question for answer in outcome.answers(Asked)]
    reached = outcome.holds("reached")
    ordered = _order(matrix, chosen, target)
    belief = belief_after(matrix, ordered)
    guess = None if belief is None else max(matrix.candidates, key=lambda a: belief[a])
    questions = tuple(matrix.questions[i] for i in ordered)
    stats = {**outcome.stats, "costs": outcome.costs, "pool": len(pool), "kept_questions": len(matrix.questions),
             "representatives": len(matrix.rep_candidate)}
    return OptimalResult(questions, tuple(matrix.answers[q] for q in questions), len(questions), guess,
                         outcome.proven, stats, reached, None if belief is None else belief[target])
