"""Validation from labels, representatives, consistency (n_t, b_t, IG_t), Optimal, the players' soft belief and
greedy IG, each cross-checked against brute force on small games."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from solver_fixtures import VALUES, a, obj, vocab

from kari.core.benchmark import Affordance, Benchmark, Label, ObjectRecord
from kari.errors import KariError
from kari.rules.ast import And, Or, Part, Rule
from kari.solver import (
    beliefs,
    consistent_counts,
    covered_by_labels,
    information_gain,
    optimal_target_aware,
    question_pool,
    select_representatives,
)
from kari.solver.consistency import belief_trace, consistent_representatives

V = vocab()
KNIFE = obj("knife", ("blade", "SHAPE", "sharp_edge"), ("blade", "MADE_OF", "steel"), ("handle", "MADE_OF", "wood"))
SAW = obj("saw", ("whole", "SHAPE", "sharp_edge"), ("whole", "MADE_OF", "wood"))
MUG = obj("mug", ("whole", "SHAPE", "hollow"), ("whole", "MADE_OF", "wood"))
TIN = obj("tin", ("whole", "SHAPE", "hollow"), ("whole", "MADE_OF", "metal"))
REPS = {"cut": [KNIFE, SAW], "contain": [MUG, TIN]}


# --- validation from labels -------------------------------------------------------------------------------------
def test_covered_by_labels_picks_the_lowest_branch() -> None:
    rule = Rule("cut", Or((Part("x", And((a("SHAPE:sharp_edge", "x"), a("MADE_OF:metal", "x")))), a("SHAPE:pointed"))))
    labels = {a("SHAPE:sharp_edge", "x"): True, a("MADE_OF:metal", "x"): False, a("SHAPE:pointed"): True}
    decision = covered_by_labels(rule, labels)
    assert (decision.covered, decision.branch) == (True, 1)
    by_key = {a("SHAPE:sharp_edge"): True, a("MADE_OF:metal"): True, a("SHAPE:pointed"): False}
    assert covered_by_labels(rule, by_key).branch == 0  # PRED:value labels answer PART atoms too
    assert not covered_by_labels(rule, {k: False for k in by_key}).covered


def test_missing_label_is_an_error_naming_the_rule() -> None:
    rule = Rule("cut", Or((a("SHAPE:pointed"), a("MADE_OF:metal"))))
    with pytest.raises(KariError, match="'cut'.*MADE_OF:metal"):
        covered_by_labels(rule, {a("SHAPE:pointed"): True})


# --- representatives ---------------------------------------------------------------------------------------------
def _bench() -> Benchmark:
    objects = {f"o{i}": ObjectRecord(f"o{i}") for i in range(30)}
    labels = [Label(f"o{i}", "cut", i % 2 == 0) for i in range(30)] + [Label(f"o{i}", "eat", True) for i in range(3)]
    return Benchmark(root=None, objects=objects, affordances={"cut": Affordance("cut"), "eat": Affordance("eat"),  # type: ignore[arg-type]
                                                               "fly": Affordance("fly")}, labels=labels, games=[])


def test_representatives_are_seeded_positive_and_leave_one_out_stable() -> None:
    bench = _bench()
    reps = select_representatives(bench)
    assert reps == select_representatives(bench) and reps["fly"] == [] and sorted(reps["eat"]) == ["o0", "o1", "o2"]
    assert len(reps["cut"]) == 10 and all(int(o[1:]) % 2 == 0 for o in reps["cut"])
    assert select_representatives(bench, seed=1)["cut"] != reps["cut"]
    dropped = reps["cut"][3]
    loo = select_representatives(bench, exclude={dropped})["cut"]
    assert dropped not in loo and [o for o in reps["cut"] if o != dropped] == loo[:9]


# --- consistency ---------------------------------------------------------------------------------------------------
def test_consistency_counts_beliefs_and_information_gain() -> None:
    history = [(("MADE_OF", "metal"), True)]
    assert consistent_representatives(REPS, history, V) == {"cut": ["knife"], "contain": ["tin"]}
    assert consistent_counts(REPS, [], V) == {"cut": 2, "contain": 2}
    trace = belief_trace(REPS, [*history, (("SHAPE", "hollow"), False)], V)
    assert [t.counts for t in trace] == [{"cut": 2, "contain": 2}, {"cut": 1, "contain": 1}, {"cut": 1, "contain": 0}]
    assert trace[1].information_gain == 0.0 and trace[2].information_gain == pytest.approx(1.0)
    assert trace[2].belief == {"cut": 1.0, "contain": 0.0}


def test_consistency_edge_cases_are_defined() -> None:
    counts = consistent_counts(REPS, [(("MADE_OF", "metal"), True), (("MADE_OF", "wood"), True)], V)
    assert counts == {"cut": 1, "contain": 0}  # the knife has a wooden handle
    nothing = consistent_counts(REPS, [(("SHAPE", "flat"), True)], V)
    assert beliefs(nothing) is None
    assert information_gain(None, {"cut": 0.5, "contain": 0.5}) == 0.0
    assert information_gain({"cut": 1.0}, None) == 0.0
    with pytest.raises(ValueError):
        information_gain({"cut": 1.0, "contain": 0.0}, {"cut": 0.0, "contain": 1.0})
    assert not any(math.isnan(information_gain(beliefs({"a": n, "b": 3 - n}), {"a": 0.5, "b": 0.5})) for n in range(4))


def test_question_pool_holds_representative_values_ancestors_and_vocabulary() -> None:
    pool = question_pool([KNIFE], V)
    assert ("MADE_OF", "metal") in pool and ("MADE_OF", "material") in pool and ("SIZE", "thin") in pool
    assert pool == sorted(set(pool))
    extra = obj("odd", ("whole", "SHAPE", "zigzag"))
    assert ("SHAPE", "zigzag") in question_pool([extra], V)


# --- Optimal (target-aware) against brute force -----------------------------------------------------------------
QUESTIONS = [("MADE_OF", "metal"), ("MADE_OF", "wood"), ("SHAPE", "sharp_edge"), ("SHAPE", "hollow"),
             ("SIZE", "long"), ("SURFACE", "smooth"), ("MADE_OF", "fabric")]


def _random_object(rng: random.Random, name: str) -> ObjectRecord:
    props = rng.sample([(p, v) for p, vs in VALUES.items() for v in vs], rng.randint(1, 4))
    return obj(name, *(("whole", p, v) for p, v in props))


def _brute_force_optimal(hidden, target, reps, threshold):
    """Min questions reaching b(target) > threshold; when unreachable, the best (target is the strict argmax,
    fewest questions, margin) and the margin it reaches."""
    frac = Fraction(threshold).limit_denominator(10_000)
    answers = {q: (q in {(p.predicate, x) for p in hidden.properties for x in V.ancestors(p.predicate, p.value)})
               for q in QUESTIONS}
    best = None
    for size in range(len(QUESTIONS) + 1):
        for subset in itertools.combinations(QUESTIONS, size):
            counts = consistent_counts(reps, [(q, answers[q]) for q in subset], V)
            total = sum(counts.values())
            if frac.denominator * counts[target] > frac.numerator * total:
                return True, size, None, True
            argmax = all(n < counts[target] for a, n in counts.items() if a != target)
            margin = frac.denominator * counts[target] - frac.numerator * total
            if best is None or (argmax, -size, margin) > best:
                best = (argmax, -size, margin)
    return False, -best[1], best[2], best[0]


@pytest.mark.parametrize("seed", range(25))
def test_optimal_agrees_with_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    reps = {f"a{c}": [_random_object(rng, f"r{c}{i}") for i in range(rng.randint(1, 3))] for c in range(3)}
    target = "a0"
    hidden = reps[target][0] if seed % 2 else _random_object(rng, "hidden")
    threshold = rng.choice([0.5, 0.9])
    result = optimal_target_aware(hidden, target, reps, V, QUESTIONS, threshold=threshold)
    reached, size, margin, argmax = _brute_force_optimal(hidden, target, reps, threshold)
    assert result.proven_optimal and result.reached == reached and result.turns == size
    counts = consistent_counts(reps, list(zip(result.questions, result.answers)), V)
    total = sum(counts.values())
    if reached:
        assert result.guess == target and counts[target] > threshold * total
    else:
        frac = Fraction(threshold).limit_denominator(10_000)
        assert frac.denominator * counts[target] - frac.numerator * total == margin
        assert result.guess == target if argmax else True  # a strict argmax is guessed


def test_optimal_reports_an_unreachable_threshold_and_guesses_the_argmax() -> None:
    # the hidden cleaver answers like the knife, so a cut representative always survives: b(contain) <= 2/3
    hidden = obj("cleaver", ("blade", "MADE_OF", "steel"), ("blade", "SHAPE", "sharp_edge"), ("handle", "MADE_OF", "wood"))
    result = optimal_target_aware(hidden, "contain", REPS, V, question_pool([*REPS["cut"], *REPS["contain"]], V))
    assert not result.reached and result.proven_optimal
    # no question makes "contain" the strict argmax (the cleaver answers like the knife): ask nothing more
    assert result.questions == () and result.target_belief == 0.5
    assert result.guess == "cut"  # a tie is no win: the argmax in candidate order, never the target by fiat
    assert optimal_target_aware(hidden, "cut", REPS, V, QUESTIONS).turns == 1
    with pytest.raises(KariError, match="not among the candidates"):
        optimal_target_aware(hidden, "fly", REPS, V, QUESTIONS)


# --- the players' soft belief (kari.game.belief) ---------------------------------------------------------------
def test_soft_belief_with_eps_zero_is_hard_elimination_and_gains_follow_the_split() -> None:
    from kari.game.belief import BeliefModel

    pool = [("SIZE", "long"), ("MADE_OF", "metal"), ("SHAPE", "hollow")]
    hard = BeliefModel(REPS, pool, V, eps=0.0, smoothing=0.0)
    gains = dict(zip(pool, hard.gains(hard.weights([]), [])))
    assert gains[("SHAPE", "hollow")] == pytest.approx(1.0)  # separates the candidates: 1 bit
    assert gains[("MADE_OF", "metal")] == pytest.approx(0.0) and gains[("SIZE", "long")] == pytest.approx(0.0)
    answered = [(("SHAPE", "hollow"), True)]
    assert hard.belief(hard.weights(answered), answered) == {"cut": 0.0, "contain": 1.0}
    assert hard.belief(hard.weights(answered), answered) == beliefs(consistent_counts(REPS, answered, V))
    soft = BeliefModel(REPS, pool, V, eps=0.25, smoothing=0.0)
    b = soft.belief(soft.weights(answered), answered)
    assert b["contain"] == pytest.approx(0.8) and b["cut"] == pytest.approx(0.2)  # 2 vs 2 * 0.25: down-weighted
    # smoothing mixes in the candidate's Laplace-smoothed property share: (2 + 1) / (2 + 2) for contain, 1 / 4 for
    # cut, so P(yes | contain rep) = 0.5 * 0.8 + 0.5 * 0.75 and P(yes | cut rep) = 0.5 * 0.2 + 0.5 * 0.25
    smooth = BeliefModel(REPS, pool, V, eps=0.25, smoothing=0.5)
    b = smooth.belief(smooth.weights(answered), answered)
    assert b["contain"] == pytest.approx(0.775) and b["cut"] == pytest.approx(0.225)
