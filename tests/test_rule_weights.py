"""Rule weights from a rule's own evidence: bounded by the fixed factors, monotone in precision and support, and
used per candidate by the soft belief."""

from __future__ import annotations

import pytest

from kari.core.benchmark import ObjectRecord, Property
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.game.belief import BeliefModel, RuleEvidence
from kari.game.rule_weights import rule_weight
from kari.rules.ast import Atom, Rule
from kari.stats import beta_quantile


def ruled(tp: int, fp: int, positives: int, negatives: int = 1000) -> Rule:
    return Rule("cut", Atom("SHAPE", "sharp_edge"), {"evidence_counts": {
        "positives": positives, "negatives": negatives, "covered_positives": tp, "covered_negatives": fp}})


def test_factors_grow_with_precision_and_support_within_the_fixed_bounds() -> None:
    thin, supported, imprecise = rule_weight(ruled(1, 0, 1)), rule_weight(ruled(20, 0, 20)), rule_weight(ruled(20, 400, 20))
    assert thin.basis == supported.basis == "evidence"
    assert 1.0 < thin.satisfied < supported.satisfied < 3.0 and 0.7 < supported.falsified < thin.falsified < 1.0
    assert imprecise.satisfied < 1.1 and imprecise.falsified > 0.98  # covers 400 objects the KB does not name
    assert thin.precision_low == pytest.approx(beta_quantile(0.1, 1.5, 0.5))
    partial = rule_weight(ruled(5, 0, 50))  # precise but covers a tenth of its positives: a miss says little
    assert partial.falsified > supported.falsified


def test_fixed_weights_and_rules_without_evidence() -> None:
    assert (rule_weight(ruled(1, 0, 1), "fixed").satisfied, rule_weight(ruled(1, 0, 1), "fixed").falsified) == (3.0, 0.7)
    bare = rule_weight(Rule("cut", Atom("SHAPE", "sharp_edge")))
    assert (bare.satisfied, bare.falsified, bare.basis) == (3.0, 0.7, "no-evidence")
    with pytest.raises(KariError):
        rule_weight(ruled(1, 0, 1), "calibrated")


def test_the_belief_applies_each_candidates_own_factors() -> None:
    vocab = Vocabulary.load()
    knife = ObjectRecord("knife", properties=(Property("whole", "SHAPE", "sharp_edge"),))
    spoon = ObjectRecord("spoon", properties=(Property("whole", "SHAPE", "round"),))
    pool = [("SHAPE", "sharp_edge")]
    bodies = {"cut": Atom("SHAPE", "sharp_edge"), "stab": Atom("SHAPE", "sharp_edge")}
    evidence = RuleEvidence(bodies, vocab, weights={"cut": (2.0, 0.9), "stab": (1.2, 0.95)})
    model = BeliefModel({"cut": [knife], "stab": [knife], "eat": [spoon]}, pool, vocab, eps=0.2, smoothing=0.0,
                        rules=evidence)
    yes = [(("SHAPE", "sharp_edge"), True)]
    belief = model.belief(model.weights(yes), yes)
    assert belief["cut"] / belief["stab"] == pytest.approx(2.0 / 1.2, rel=1e-4)
    no = [(("SHAPE", "sharp_edge"), False)]
    after = model.belief(model.weights(no), no)
    assert after["cut"] / after["stab"] == pytest.approx(0.9 / 0.95, rel=1e-4)
