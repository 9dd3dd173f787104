"""A weight a user can trust: each KB rule's precision estimated out of sample within the KB.

For a KB verb group with at least :data:`MIN_POSITIVES` stated positives, the group's stated positives and its
implicit negatives (every other KB object: :mod:`kari.induce.pooling`) are dealt into ``min(FOLDS, positives)``
seeded folds; for each fold the rule is induced again without that fold's objects (pooled kin of held-out
positives only are dropped with them) and judged on the fold: the held-out positives it covers (true positives)
and the implicit negatives it covers, each counting its PU weight (false positives). Pooled over folds:

* ``precision`` = TP / (TP + weighted FP), ``recall`` = TP / held-out positives;
* ``base_rate`` = positives / (positives + weighted implicit negatives): the precision of a rule that covers
  every object;
* ``flagged``: the rule is no better than the base rate (its held-out precision is not above it), or its
  precision cannot be estimated out of sample (fewer than :data:`MIN_POSITIVES` positives; no held-out object
  covered). A flagged rule is still written; players skip it by default (``kari play --flagged-rules use``
  uses it).

The settings of the run (those its inner cross-validation chose on all the KB's objects) are reused in every fold.
The groups are judged side by side in forked worker processes (:func:`kari.io.jobs.spread_over`): each estimate
depends on its group's evidence alone, so the estimates are those of one process.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache, partial
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kari.core.benchmark import ObjectRecord
from kari.vocab.vocabulary import Vocabulary
from kari.core.induce_config import InduceConfig
from kari.induce.inputs import Evidence
from kari.induce.folds import restrict
from kari.induce.tuning import induce_rules
from kari.io.jobs import run_jobs, spread_over
from kari.rules.ast import Rule

FOLDS = 3
"""Folds of the held-out estimate (leave-one-positive-out below this many positives)."""
MIN_POSITIVES = 2
"""A group with fewer stated positives cannot be judged out of sample (no fold keeps a positive to learn from)."""


@dataclass(frozen=True)
class HeldOut:
    """A KB rule's out-of-sample precision within the KB (module docstring)."""

    positives: int  # stated positives judged (held out once each)
    covered: int  # of them, covered by the rule induced without them
    false_positives: float  # weighted implicit negatives covered when held out
    negatives_covered: int  # the same, counted
    base_rate: float
    folds: int
    reason: str = ""  # why the rule is flagged ("" when it is not)

    @property
    def precision(self) -> float | None:
        hits = self.covered + self.false_positives
        return self.covered / hits if hits else None

    @property
    def recall(self) -> float | None:
        return self.covered / self.positives if self.positives else None

    @property
    def flagged(self) -> bool:
        return bool(self.reason)

    def to_json(self) -> dict[str, Any]:
        precision, recall = self.precision, self.recall
        return {"precision": None if precision is None else round(precision, 4),
                "recall": None if recall is None else round(recall, 4), "positives": self.positives,
                "covered_positives": self.covered, "covered_negatives": self.negatives_covered,
                "covered_negative_weight": round(self.false_positives, 4), "base_rate": round(self.base_rate, 6),
                "folds": self.folds, "flagged": self.flagged, "flag_reason": self.reason or None}


@lru_cache(maxsize=None)
def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _fold(obj: str, k: int, seed: int, salt: str) -> int:
    """A negative's fold: its seeded hash shifted by the group's (each object hashed once per run)."""
    return (_hash(f"kari-kb-heldout:{seed}:{obj}") + _hash(f"kari-kb-heldout-group:{seed}:{salt}")) % k


def _folds(positives: Sequence[str], negatives: Sequence[str], k: int, seed: int, name: str) -> dict[str, int]:
    """Stated positives dealt round-robin in a seeded order (every fold holds one when k <= positives);
    negatives by a seeded hash of their id."""
    order = sorted(positives, key=lambda o: hashlib.sha256(f"{seed}:{name}:{o}".encode()).hexdigest())
    out = {o: i % k for i, o in enumerate(order)}
    out.update({o: _fold(o, k, seed, name) for o in negatives if o not in out})
    return out


def base_rate(evidence: Evidence, negatives: Sequence[ObjectRecord]) -> float:
    """Stated positives over positives plus the weighted implicit negatives."""
    weight = sum(evidence.weights.get(o.id, 1.0) for o in negatives) if evidence.weights else float(len(negatives))
    total = len(evidence.positives) + weight
    return len(evidence.positives) / total if total else 0.0


def heldout_precision(evidence: Evidence, config: InduceConfig, vocab: Vocabulary) -> HeldOut:
    """The out-of-sample estimate of one KB verb group's rule (module docstring)."""
    from kari.induce.fastsearch import AtomMatrix, holds_rule, rule_keys  # numpy: only when estimates are made

    negatives = evidence.negatives(config.negatives)
    rate = base_rate(evidence, negatives)
    positives = [o.id for o in evidence.positives]
    if len(positives) < MIN_POSITIVES:
        return HeldOut(0, 0, 0.0, 0, rate, 0, f"fewer than {MIN_POSITIVES} KB positives: no held-out estimate")
    k = min(FOLDS, len(positives))
    fold_of = _folds(positives, [o.id for o in negatives], k, config.seed, evidence.affordance)
    everything = {o.id for o in (*evidence.universe, *evidence.positives, *evidence.pooled)}
    covered = negatives_covered = 0
    false_positives = 0.0
    for fold in range(k):
        held = {o for o, f in fold_of.items() if f == fold}
        train = restrict(evidence, everything - held)
        rules = induce_rules([train], replace(config, tune=False), vocab) if train.positives else []
        if not rules:
            continue
        tested_pos = [o for o in evidence.positives if o.id in held]
        tested_neg = [o for o in negatives if o.id in held]
        hits = holds_rule(rules[0].body, AtomMatrix([*tested_pos, *tested_neg], vocab, rule_keys(rules[0].body)))
        covered += int(hits[: len(tested_pos)].sum())
        negative_hits = [o for o, hit in zip(tested_neg, hits[len(tested_pos):]) if hit]
        negatives_covered += len(negative_hits)
        false_positives += sum(evidence.weights.get(o.id, 1.0) if evidence.weights else 1.0 for o in negative_hits)
    result = HeldOut(len(positives), covered, false_positives, negatives_covered, rate, k)
    precision = result.precision
    if precision is None:
        return replace(result, reason="covers no held-out object: no held-out estimate")
    if precision <= rate:
        return replace(result, reason=f"held-out precision {precision:.4f} is not above the base rate {rate:.4f}")
    return result


def weigh_rules(rules: Sequence[Rule], evidence: Mapping[str, Evidence], config: InduceConfig,
                vocab: Vocabulary) -> tuple[list[Rule], dict[str, dict[str, Any]]]:
    """Each KB rule with its held-out estimate in its metadata (``heldout``, ``flagged``), and the estimates by
    rule (``heldout.json`` of the run directory)."""
    judged = [(rule, evidence[rule.affordance]) for rule in rules if rule.affordance in evidence]
    jobs = [partial(heldout_precision, ev, config, vocab) for _, ev in judged]
    estimates = {rule.affordance: held.to_json()
                 for (rule, _), held in zip(judged, run_jobs(jobs, spread_over(len(jobs))))}
    return [with_estimate(r, estimates[r.affordance]) if r.affordance in estimates else r for r in rules], estimates


def with_estimate(rule: Rule, estimate: Mapping[str, Any]) -> Rule:
    """``rule`` with a held-out estimate (:meth:`HeldOut.to_json`) in its metadata."""
    return replace(rule, metadata={**(rule.metadata or {}), "heldout": dict(estimate),
                                   "flagged": bool(estimate["flagged"])})
