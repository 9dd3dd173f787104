"""Greedy information-gain questioner: ask the question whose answer is expected to move the belief most.

With b_t(a) = n_t(a) / N (uniform over consistent representatives), the expected IG of the next answer,
E[KL(b_{t+1} || b_t)], equals the mutual information between the candidate and the answer:
``H(b_t) - sum_ans P(ans) H(b_{t+1} | ans)`` with ``P(yes)`` the share of consistent representatives that
have the property. The greedy policy asks the question maximising it (ties: pool order) and returns None
when no question has positive expected gain (nothing left to learn, or no consistent representative).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from kari.bench.model import ObjectRecord
from kari.domain.terms import History
from kari.domain.objects import Fact, object_view
from kari.domain.terms import Question
from kari.domain.vocabulary import Vocabulary

_EPSILON = 1e-12


def _entropy(counts: Sequence[int]) -> float:
    total = sum(counts)
    return -sum(n / total * math.log2(n / total) for n in counts if n) if total else 0.0


def expected_information_gain(consistent: Sequence[Sequence[frozenset[Fact]]], question: Question) -> float:
    """Expected IG (bits) of asking ``question``, given each candidate's consistent representatives' facts."""
    yes = [sum(question in facts for facts in group) for group in consistent]
    counts = [len(group) for group in consistent]
    total = sum(counts)
    if not total:
        return 0.0
    no = [n - y for n, y in zip(counts, yes)]
    n_yes, n_no = sum(yes), total - sum(yes)
    return _entropy(counts) - (n_yes / total) * _entropy(yes) - (n_no / total) * _entropy(no)


def greedy_ig_question(reps_objects: Mapping[str, Sequence[ObjectRecord]], history: History, vocab: Vocabulary,
                       pool: Sequence[Question]) -> Question | None:
    """The pool question (not yet asked) with the highest expected information gain, or None."""
    consistent = []
    for objects in reps_objects.values():
        facts = [object_view(obj, vocab).whole for obj in objects]
        consistent.append([f for f in facts if all((q in f) == answer for q, answer in history)])
    asked = {q for q, _ in history}
    best: Question | None = None
    best_gain = 0.0
    for question in pool:
        if question in asked:
            continue
        gain = expected_information_gain(consistent, question)
        if gain > best_gain + _EPSILON:  # near-equal gains are ties: the first in pool order stays
            best, best_gain = question, gain
    return best
