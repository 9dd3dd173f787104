"""Match each candidate affordance to the rule(s) whose verb is most similar (method.md 2, inference).

Similarity is the cosine of all-MiniLM-L6-v2 sentence embeddings of the verbs written as words
(``pierce_through`` -> "pierce through"); a match needs similarity >= ``threshold`` (0.7 as in the paper).
``top_k`` > 1 keeps up to k rules per candidate. A candidate whose id equals a rule's verb matches it with
similarity 1.0 without loading the model (the embedding would say the same). ``mode="exact"`` matches by
verb identity only (no embedding model needed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.model import ObjectRecord
from kari.errors import KariError, one_of
from kari.game.types import RuleMatch
from kari.domain.objects import rule_holds
from kari.rules.ast import Node, Rule, any_of
from kari.domain.terms import normalise_term
from kari.domain.vocabulary import Vocabulary
from kari.game.defaults import MATCH_THRESHOLD, TOP_K
from kari.game.names import MatchMode

if TYPE_CHECKING:
    from kari.induce.folds import RuleSets

DEFAULT_THRESHOLD = MATCH_THRESHOLD
MATCH_MODES: tuple[str, ...] = tuple(MatchMode)


def _words(verb: str) -> str:
    return normalise_term(verb).replace("_", " ")


class RuleMatcher:
    """Matches candidates to a rule set; embeddings of rule verbs are computed once and cached."""

    def __init__(self, rules: Sequence[Rule], threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K,
                 embedder: Any = None, mode: str = MatchMode.EMBEDDING) -> None:
        if not 0.0 <= threshold <= 1.0 or top_k < 1:
            raise KariError("the match threshold must be in [0, 1] and top-k >= 1", code="game-config")
        if mode not in MATCH_MODES:
            raise KariError(f"unknown rule match mode {mode!r} (expected {one_of(MatchMode)})", code="game-config")
        self.mode = mode
        self.threshold = threshold
        self.top_k = top_k
        self._embedder = embedder
        self._shared: RuleMatcher | None = None
        self.by_verb: dict[str, Rule] = {}
        for rule in rules:  # the first rule of a verb wins; later duplicates are ignored
            self.by_verb.setdefault(normalise_term(rule.affordance), rule)
        self._cache: dict[str, tuple[RuleMatch, ...]] = {}

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            if self._shared is not None:
                self._embedder = self._shared.embedder
            else:
                from kari.embeddings import Embedder

                self._embedder = Embedder()
        return self._embedder

    def share_embedder(self, other: RuleMatcher) -> None:
        """Load the embedding model at most once for several matchers (cross-fitted rule sets)."""
        self._shared = other

    def match(self, candidates: Iterable[str]) -> dict[str, tuple[RuleMatch, ...]]:
        """``candidate -> matched rules`` (best first; empty when no rule is similar enough)."""
        wanted = list(dict.fromkeys(candidates))
        todo = [c for c in wanted if c not in self._cache]
        fuzzy = []
        for cand in todo:
            exact = self.by_verb.get(normalise_term(cand))
            if exact is not None and (self.top_k == 1 or self.mode == MatchMode.EXACT):
                self._cache[cand] = (RuleMatch(cand, exact, 1.0),)
            else:
                fuzzy.append(cand)
        if fuzzy and self.by_verb and self.mode == MatchMode.EMBEDDING:
            verbs = list(self.by_verb)
            keys = [_words(v) for v in verbs]
            by_text = dict(zip(keys, verbs, strict=True))
            found = self.embedder.best_matches([_words(c) for c in fuzzy], keys, self.threshold, self.top_k)
            for cand, hits in zip(fuzzy, found, strict=True):
                self._cache[cand] = tuple(RuleMatch(cand, self.by_verb[by_text[key]], float(score)) for key, score in hits)
        for cand in fuzzy:
            self._cache.setdefault(cand, ())
        return {c: self._cache[c] for c in wanted}


class RuleSource:
    """Which rules a game is matched to: one rule set for every game, or the cross-fitted rule sets of
    ``kari induce --cv K`` (the ``RULES.cv`` folder), where a game gets the rules induced WITHOUT the fold of its
    hidden object, so that no rule a player sees was induced from the object it is scored on. An object that
    was in no fold (not in the induction input at all) gets fold 0's rules: none of them saw it either."""

    def __init__(self, matchers: dict[int, RuleMatcher], fold_of: dict[str, int] | None = None) -> None:
        self.matchers = matchers
        self.fold_of = fold_of

    def for_object(self, object_id: str) -> tuple[RuleMatcher, int | None]:
        """The matcher for games hiding ``object_id``, and its fold (None for a single rule set)."""
        if self.fold_of is None:
            return self.matchers[0], None
        fold = self.fold_of.get(object_id, 0)
        return self.matchers[fold], fold

    @classmethod
    def load(cls, path: str | Path, vocab: Vocabulary, threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K,
             mode: str = MatchMode.EMBEDDING) -> RuleSource:
        """A rules file (``.kari`` / ``.jsonl``) or a ``RULES.cv`` folder of cross-fitted rule sets, read and
        matched (:meth:`of`)."""
        from kari.induce.folds import read_rule_sets

        return cls.of(read_rule_sets(path), vocab, threshold, top_k, mode)

    @classmethod
    def of(cls, rule_sets: RuleSets, vocab: Vocabulary, threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K,
           mode: str = MatchMode.EMBEDDING, embedder: Any = None) -> RuleSource:
        """Matchers over rule sets read once: every rule is read into ``vocab``
        (:func:`kari.domain.canon.canonical_rules`); the folds share one embedder (``embedder``, else the first
        fold's, loaded on first use)."""
        from kari.domain.canon import canonical_rules

        matchers = {fold: RuleMatcher(canonical_rules(rules, vocab), threshold, top_k, embedder, mode=mode)
                    for fold, rules in sorted(rule_sets.folds.items())}
        first = matchers[min(matchers)]
        for matcher in matchers.values():
            if matcher is not first:
                matcher.share_embedder(first)
        return cls(matchers, dict(rule_sets.fold_of) if rule_sets.fold_of is not None else None)


def combined_body(matches: Sequence[RuleMatch]) -> Node:
    """One body per candidate: the matched rule, or the OR of several (top-k matching)."""
    bodies = [m.rule.body for m in matches]
    return any_of(bodies)


def coverage_record(matches: dict[str, tuple[RuleMatch, ...]], target: str, hidden: ObjectRecord,
                    vocab: Vocabulary) -> dict[str, Any]:
    """The per-game rule facts: matches per candidate, whether the target has a rule and whether it covers o*."""
    target_rules = matches.get(target, ())
    return {
        "matched": {c: [m.to_json() for m in ms] for c, ms in matches.items()},
        "target_has_rule": bool(target_rules),
        "target_rule_covers_object": any(rule_holds(m.rule, hidden, vocab) for m in target_rules),
    }
