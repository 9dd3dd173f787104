"""Representatives, the question pool and consistency: n_t(a), b_t(a) and IG_t (method.md 4).

A representative is consistent with ``(q, yes)`` iff it has ``q`` (:func:`has_property`: any part, with the
taxonomy) and with ``(q, no)`` iff it does not. ``n_t(a)`` counts ``a``'s consistent representatives,
``b_t(a) = n_t(a) / sum_a n_t(a)`` and ``IG_t = KL(b_t || b_{t-1})`` in bits.

Edge cases, never NaN: when no representative is consistent, :func:`beliefs` returns None ("no belief") and
:func:`information_gain` of an undefined belief is 0.0. Consistent sets only shrink, so ``b_t(a) > 0`` implies
``b_{t-1}(a) > 0``; a pair that breaks this is rejected with ValueError.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kari.core.benchmark import Benchmark, ObjectRecord
from kari.domain.objects import object_view
from kari.core.terms import PREDICATES, History, Question
from kari.vocab.vocabulary import Vocabulary


def question_pool(objects: Iterable[ObjectRecord], vocab: Vocabulary) -> list[Question]:
    """Every ``(PREDICATE, value)`` some object has (taxonomy ancestors included), plus the vocabulary; sorted."""
    pool: set[tuple[str, str]] = {(p, v) for p in PREDICATES for v in vocab.values(p)}
    for obj in objects:
        pool |= object_view(obj, vocab).whole
    return [Question(*q) for q in sorted(pool)]


def select_representatives(bench: Benchmark, k: int = 10, seed: int = 0,
                           exclude: Collection[str] = ()) -> dict[str, list[str]]:
    """Up to ``k`` positive objects per affordance, seeded and deterministic.

    Each affordance's positives (sorted, known objects only) are shuffled by a generator seeded with
    ``(seed, affordance)``; excluded ids are then dropped and the first ``k`` kept. Excluding one object
    therefore changes a list only by letting the next-ranked positive in (leave-one-out).
    """
    excluded = set(exclude)
    out: dict[str, list[str]] = {}
    for aff in bench.affordances:
        ranked = sorted({o for o in bench.positives(aff) if o in bench.objects})
        random.Random(f"kari-representatives:{seed}:{aff}").shuffle(ranked)
        out[aff] = [o for o in ranked if o not in excluded][:k]
    return out


def consistent_representatives(reps: Mapping[str, Sequence[ObjectRecord]], history: History,
                               vocab: Vocabulary) -> dict[str, list[str]]:
    """Per candidate, the ids of the representatives consistent with every ``(question, answer)``."""
    out: dict[str, list[str]] = {}
    for aff, objects in reps.items():
        keep = []
        for obj in objects:
            facts = object_view(obj, vocab).whole
            if all((q in facts) == answer for q, answer in history):
                keep.append(obj.id)
        out[aff] = keep
    return out


def consistent_counts(reps: Mapping[str, Sequence[ObjectRecord]], history: History,
                      vocab: Vocabulary) -> dict[str, int]:
    """``n_t(a)``: the number of ``a``'s representatives consistent with the history."""
    return {aff: len(ids) for aff, ids in consistent_representatives(reps, history, vocab).items()}


def beliefs(counts: Mapping[str, int]) -> dict[str, float] | None:
    """``b_t(a) = n_t(a) / sum n_t``; None when no representative is consistent."""
    total = sum(counts.values())
    if total <= 0:
        return None
    return {aff: n / total for aff, n in counts.items()}


def information_gain(b_t: Mapping[str, float] | None, b_prev: Mapping[str, float] | None) -> float:
    """``IG_t = sum_a b_t(a) log2(b_t(a) / b_{t-1}(a))`` (KL in bits); 0.0 when either belief is undefined."""
    if b_t is None or b_prev is None:
        return 0.0
    gain = 0.0
    for aff, p in b_t.items():
        if p <= 0:
            continue
        q = b_prev.get(aff, 0.0)
        if q <= 0:
            raise ValueError(f"b_t({aff}) > 0 but b_(t-1)({aff}) = 0: beliefs must come from a shrinking history")
        gain += p * math.log2(p / q)
    return max(gain, 0.0)


@dataclass(frozen=True, slots=True)
class TurnBelief:
    """The belief state after turn ``t`` (t = 0 is before any question)."""

    t: int
    counts: dict[str, int]
    belief: dict[str, float] | None
    information_gain: float


def belief_trace(reps: Mapping[str, Sequence[ObjectRecord]], history: History, vocab: Vocabulary) -> list[TurnBelief]:
    """``n_t``, ``b_t`` and ``IG_t`` for t = 0 .. len(history)."""
    trace: list[TurnBelief] = []
    previous: dict[str, float] | None = None
    for t in range(len(history) + 1):
        counts = consistent_counts(reps, history[:t], vocab)
        current = beliefs(counts)
        trace.append(TurnBelief(t, counts, current, information_gain(current, previous) if t else 0.0))
        previous = current
    return trace
