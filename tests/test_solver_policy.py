"""The fast target-blind policy (bounds, anytime search) against a plain, bound-free dynamic programme."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import pytest
from solver_fixtures import VALUES, obj, vocab

from kari.solver import build_policy

V = vocab()
QUESTIONS = sorted({(p, v) for p, vs in VALUES.items() for v in vs})


def _facts(o):
    return frozenset((p.predicate, x) for p in o.properties for x in V.ancestors(p.predicate, p.value))


def _instance(seed: int, candidates: int = 4, per: int = 3, questions: int = 9):
    rng = random.Random(seed)
    props = [(p, v) for p, vs in VALUES.items() for v in vs]
    reps = {f"a{c}": [obj(f"r{c}_{i}", *(("whole", p, v) for p, v in rng.sample(props, rng.randint(1, 4))))
                      for i in range(rng.randint(1, per))] for c in range(candidates)}
    return reps, rng.sample(QUESTIONS, questions)


def _plain_dp(reps, questions, threshold=0.9):
    """C(S) by the Bellman equation over sets of representatives, no bounds, no classes: the slow reference."""
    items = [(aff, _facts(o)) for aff, objs in reps.items() for o in objs]
    th = Fraction(threshold).limit_denominator(10_000)

    @cache
    def cost(state: frozenset[int]) -> int:
        counts = {}
        for i in state:
            counts[items[i][0]] = counts.get(items[i][0], 0) + 1
        if not state or max(counts.values()) * th.denominator > th.numerator * len(state):
            return 0
        best = None
        for q in questions:
            yes = frozenset(i for i in state if q in items[i][1])
            if yes and yes != state:
                total = len(state) + cost(yes) + cost(state - yes)
                best = total if best is None else min(best, total)
        return 0 if best is None else best

    return cost, items


def _played_total(policy, reps) -> int:
    """Questions asked when the tree is played against each representative in turn, summed."""
    asked = 0
    for objs in reps.values():
        for hidden in objs:
            history = []
            while (q := policy.next_question(history)) is not None:
                history.append((q, q in _facts(hidden)))
                assert len(history) <= len(QUESTIONS)
            asked += len(history)
    return asked


@pytest.mark.parametrize("seed", range(25))
def test_fast_policy_equals_the_plain_dp(seed: int) -> None:
    reps, questions = _instance(seed)
    cost, items = _plain_dp(reps, questions)
    total = len(items)
    policy = build_policy(reps, V, questions, threshold=0.9, time_limit=30.0)
    assert policy.proven_optimal
    assert policy.expected_questions * total == pytest.approx(cost(frozenset(range(total))))
    assert policy.lower_bound == cost(frozenset(range(total)))
    assert _played_total(policy, reps) == cost(frozenset(range(total)))


@pytest.mark.parametrize("seed", range(10))
def test_lower_bounds_never_exceed_the_optimum(seed: int) -> None:
    reps, questions = _instance(1000 + seed, candidates=3, per=4, questions=8)
    cost, items = _plain_dp(reps, questions)
    policy = build_policy(reps, V, questions, threshold=0.9, time_limit=30.0)
    # map classes back to representatives: each class is a bit; its members are the items with its signature
    members = {}
    for i, (_, facts) in enumerate(items):
        signature = facts & frozenset(questions)
        members.setdefault(policy._signatures.index(signature), []).append(i)
    rng = random.Random(seed)
    for _ in range(60):
        state = rng.randrange(1, policy.root + 1)
        fresh = build_policy(reps, V, questions, threshold=0.9, time_limit=30.0)
        exact = cost(frozenset(i for k, idx in members.items() if state >> k & 1 for i in idx))
        assert fresh.lower_bound_of(state) <= exact
        assert fresh._huffman(state) <= exact


def test_out_of_time_returns_the_best_tree_found_honestly() -> None:
    reps, questions = _instance(7, candidates=6, per=4, questions=12)
    cost, items = _plain_dp(reps, questions)
    optimum = cost(frozenset(range(len(items))))
    policy = build_policy(reps, V, questions, threshold=0.9, time_limit=0.0)
    assert not policy.proven_optimal
    played = _played_total(policy, reps)
    assert played == pytest.approx(policy.expected_questions * len(items))
    assert optimum <= played <= policy.greedy_cost(policy.root)
    assert policy.lower_bound <= optimum
    info = policy.info()
    assert info["proven_optimal"] is False and info["expected_questions"] == pytest.approx(played / len(items))
    solved = build_policy(reps, V, questions, threshold=0.9, time_limit=30.0)
    assert solved.proven_optimal and solved.info()["proven_optimal"] is True
    assert solved.expected_questions * len(items) == pytest.approx(optimum)


def test_threshold_one_needs_single_classes() -> None:
    reps, questions = _instance(3)
    cost, items = _plain_dp(reps, questions, threshold=1.0)
    policy = build_policy(reps, V, questions, threshold=1.0, time_limit=30.0)
    assert policy.proven_optimal
    assert policy.expected_questions * len(items) == pytest.approx(cost(frozenset(range(len(items)))))
