"""The offline Proposer's settings chosen by inner cross-validation on the training objects only.

For each candidate setting of :data:`GRID` (from loose to strict: the share of positives a branch must cover
and the atoms it may combine), rules are induced on ``INNER_FOLDS - 1`` inner folds of the training objects and
judged on the remaining one, in turn, giving a held-out F1 per affordance (counts summed over inner folds). The
choice follows the one-standard-error rule (Breiman et al., 1984): the strictest setting whose macro F1 is
within one standard error of the best one's (the error of the mean per-affordance difference to the best),
since a stricter rule that scores as well generalises more surely. Nothing outside the given (training)
objects is read, so within ``kari induce --cv K`` each outer fold tunes on its own training folds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kari.vocab.vocabulary import Vocabulary
from kari.core.induce_config import Backend, InduceConfig
from kari.induce.folds import assign_folds, evidence_objects, restrict_all
from kari.induce.heldout import heldout_scores
from kari.induce.inputs import Evidence
from kari.induce.loop import checked_names, induce_affordance, rule_from_result
from kari.induce.roles import components
from kari.io.jobs import run_jobs, spread_over
from kari.rules.ast import Rule

GRID: tuple[dict[str, Any], ...] = (
    {"min_coverage": 0.05, "max_atoms": 3},
    {"min_coverage": 0.1, "max_atoms": 2},
    {"min_coverage": 0.2, "max_atoms": 2},
)
"""Candidate settings (fields of :class:`~kari.core.induce_config.InduceConfig`), from loose to strict."""

INNER_FOLDS = 3


def induce_rules(chosen: Sequence[Evidence], config: InduceConfig, vocab: Vocabulary) -> list[Rule]:
    """Offline rules for the chosen evidence, in memory (no run directory, no report)."""
    comps = components(config, vocab)
    names = checked_names(chosen)
    rules = []
    for ev in chosen:
        rule = rule_from_result(induce_affordance(ev, comps, config, affordances=names), {"backend": Backend.OFFLINE})
        if rule is not None:
            rules.append(rule)
    return rules


def cross_validated_f1(evidence: Mapping[str, Evidence], config: InduceConfig, vocab: Vocabulary, k: int,
                       seed: int) -> dict[str, float]:
    """Per affordance, the F1 of rules induced without each of ``k`` folds of ``evidence``'s objects and judged
    on that fold (the counts summed over folds)."""
    fold_of = assign_folds(evidence_objects(evidence), k, seed)
    fold_rules = {}
    for fold in range(k):
        train = restrict_all(evidence, {o for o, f in fold_of.items() if f != fold})
        fold_rules[fold] = induce_rules([ev for ev in train.values() if ev.positives], config, vocab)
    scores = heldout_scores(fold_rules, evidence, fold_of, vocab, negatives=config.negatives,
                            semantics=config.semantics)
    return {a: s.f1 for a, s in scores.items()}


@dataclass(frozen=True)
class Tuning:
    """The chosen setting and every candidate's inner macro F1."""

    chosen: dict[str, Any]
    scores: tuple[tuple[dict[str, Any], float], ...]
    reason: str = ""

    def apply(self, config: InduceConfig) -> InduceConfig:
        return replace(config, **self.chosen)

    def to_json(self) -> dict[str, Any]:
        return {"chosen": self.chosen, "inner_folds": INNER_FOLDS, "reason": self.reason,
                "candidates": [{**setting, "inner_macro_f1": round(f1, 4)} for setting, f1 in self.scores]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tuning:
        scores = tuple(({k: v for k, v in c.items() if k != "inner_macro_f1"}, float(c["inner_macro_f1"]))
                       for c in data["candidates"])
        return cls(dict(data["chosen"]), scores, str(data.get("reason", "")))


SPREAD_POSITIVES = 64
"""From this many positives judged on, the candidates are judged side by side in forked worker processes
(:func:`kari.io.jobs.spread_over`; each candidate's score depends on the evidence alone, so the choice is that of
one process); below it forking would cost more than it saves."""
MIN_TUNED = 2
"""Affordances with enough positives the search needs before it chooses anything."""
MAX_TUNED = 24
"""The search judges at most this many affordances, those with the most positives (ties: by name): a KB with
hundreds of dense verb groups would otherwise make it the longest step of a run; 24 holds every affordance of
the bundled and the outside benchmarks."""


def choose_settings(evidence: Mapping[str, Evidence], config: InduceConfig, vocab: Vocabulary,
                    grid: Sequence[Mapping[str, Any]] = GRID, *, min_positives: int = 1) -> Tuning:
    """The grid setting chosen on ``evidence`` (the training objects) by inner cross-validation and the
    one-standard-error rule, judged on the affordances with at least ``min_positives`` positives only (a sparser
    one's inner folds hold one positive or none: it cannot separate settings, and searching over thousands of
    them would dominate a KB-scale run), at most :data:`MAX_TUNED` of them. Nothing is chosen (settings
    unchanged, ``Tuning.reason`` says why) with
    fewer than :data:`MIN_TUNED` such affordances or fewer than two objects per inner fold."""
    dense = sorted((a for a, ev in evidence.items() if len(ev.positives) >= max(1, min_positives)),
                   key=lambda a: (-len(evidence[a].positives), a))
    usable = {a: evidence[a] for a in sorted(dense[:MAX_TUNED])}
    if len(usable) < min(MIN_TUNED, len([ev for ev in evidence.values() if ev.positives])) or not usable:
        return Tuning({}, (), f"fewer than {MIN_TUNED} affordances have >= {min_positives} positives: "
                              "the evidence cannot separate settings, the given ones are kept")
    if len(evidence_objects(usable)) < 2 * INNER_FOLDS:
        return Tuning({}, (), "fewer than two objects per inner fold: the given settings are kept")
    jobs = [functools.partial(cross_validated_f1, usable, replace(config, **setting), vocab, INNER_FOLDS,
                              config.seed) for setting in grid]
    positives = sum(len(ev.positives) for ev in usable.values())
    per_setting = run_jobs(jobs, spread_over(positives, SPREAD_POSITIVES))
    return Tuning(dict(grid[one_standard_error(per_setting)]),
                  tuple((dict(setting), _mean(list(f1.values()))) for setting, f1 in zip(grid, per_setting)),
                  f"chosen on the {len(usable)} affordances with >= {min_positives} positives")


def one_standard_error(per_setting: Sequence[Mapping[str, float]]) -> int:
    """The index of the last (strictest) setting whose mean score is within one standard error of the best mean;
    the error is that of the mean paired difference to the best setting over the same keys (affordances).

    >>> one_standard_error([{"a": 0.5, "b": 0.3}, {"a": 0.45, "b": 0.3}, {"a": 0.1, "b": 0.1}])
    1
    """
    means = [_mean(list(scores.values())) for scores in per_setting]
    best = max(range(len(means)), key=lambda i: (means[i], i))
    chosen = best
    for i, scores in enumerate(per_setting):
        diffs = [per_setting[best][a] - scores[a] for a in per_setting[best]]
        n = len(diffs)
        spread = math.sqrt(sum((d - _mean(diffs)) ** 2 for d in diffs) / (n - 1)) / math.sqrt(n) if n > 1 else 0.0
        if i > chosen and _mean(diffs) <= spread:
            chosen = i
    return chosen


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
