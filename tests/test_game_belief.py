"""The players' soft belief: its vectorised rule evidence agrees with the three-valued rule reading of the
domain core on random rules, histories and hypothetical next answers (contradictory noisy answers included)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from solver_fixtures import VALUES, rules, vocab

from kari.domain.objects import rule_status
from kari.game.belief import RuleEvidence

V = vocab()
POOL = sorted((p, v) for p, vs in VALUES.items() for v in vs)
answers = st.lists(st.tuples(st.sampled_from(POOL), st.booleans()), max_size=6)


def _factor(evidence: RuleEvidence, candidate: str, history: list) -> float:
    body = evidence.bodies.get(candidate)
    if body is None:
        return 1.0
    status = rule_status(body, history, V)
    return evidence.satisfied if status is True else evidence.falsified if status is False else 1.0


@settings(max_examples=120, deadline=None)
@given(st.lists(rules(), min_size=1, max_size=4), answers)
def test_compiled_rules_agree_with_the_three_valued_reading(rule_list: list, history: list) -> None:
    candidates = [f"c{i}" for i in range(len(rule_list) + 1)]  # the last candidate has no rule
    evidence = RuleEvidence({c: r.body for c, r in zip(candidates, rule_list)}, V)
    compiled = evidence.compile(candidates, POOL)
    assert np.allclose(compiled.factors(history), [_factor(evidence, c, history) for c in candidates])
    after_yes, after_no = compiled.after_answers(history, np.arange(len(POOL)))
    for column, question in enumerate(POOL):
        for answer, table in ((True, after_yes), (False, after_no)):
            expected = [_factor(evidence, c, [*history, (question, answer)]) for c in candidates]
            assert np.allclose(table[:, column], expected), (question, answer)
