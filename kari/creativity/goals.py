"""A task's goal mapped to an affordance that has a KARI rule.

Methods (``--goal``):

- ``lexical``: the affordance whose words and description share the most content words with the task text
  (word F1 over content-word lemmas); no model needed;
- ``embedding``: the affordance whose text is nearest to the task text by all-MiniLM-L6-v2 cosine;
- ``llm``: the LLM picks one affordance id from the list (one JSON object);
- ``rules``: the rule whose verbs are most similar to the task text, by the matcher of Affordance20Q
  (:class:`kari.game.match.RuleMatcher`: all-MiniLM-L6-v2 cosine of the text with each rule verb, a KB-anchored
  rule answering to every KB verb grouped into it); a goal whose best rule is below the threshold is a
  *fallback*: the nearest rule is used all the same, and the match says so (``fallback``, the verb, the
  similarity). :meth:`GoalMapper.ranked` gives the ``top_k`` nearest rules best first (the matcher's ranking,
  each with its 1-based ``rank``): the symbolic solver answers with the first whose rule some candidate meets.
  The text matched is the request as written (``--goal-text request``) or its content words alone, in order
  (``words``: "keep plant freezing usual" for "Right now I have to keep the plants from freezing, and the usual
  things for it are not around. Is there anything here I could use?"), which drops the request's framing that
  every task shares;
- ``oracle``: the gold's affordance (the upper bound): the task's ``gold_affordance.kari_affordance`` when the
  task gives one (``null``: kari has no affordance for this goal, an open goal), else the gold affordance's text
  mapped lexically (CreativityBench's own files name no kari affordance).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kari.creativity.model import Task
from kari.vocab.morphology import singular
from kari.errors import KariError, choice
from kari.core.creativity_names import GOAL_TEXTS, GOAL_THRESHOLD, GOAL_TOP_K, RULES, GoalMethod, GoalText
from kari.game.match import RuleMatcher
from kari.llm import extract_json_object, require_client
from kari.rules.ast import Rule

if TYPE_CHECKING:
    from kari.embeddings import Embedder
    from kari.llm.client import ChatClient

_WORD = re.compile(r"[a-z]+")
_STOP = frozenset("""a an the i my me we our you your it its this that these those is are was were be been am do does
did have has had can could would should will shall may might must to of in on at by for with from into onto
over under about as and or but if so not no nor than then there here what which who whom how why when where
some any all each every other another just only very too also up down out off again still even want need
something anything thing things use using used get got make made around near now right before after while
because don t s""".split())


@dataclass(frozen=True, slots=True)
class GoalMatch:
    """The affordance a goal was mapped to (None: none), the match score and how; a ``rules`` match also names the
    rule verb that matched, whether it is a fallback (below the threshold) and its rank among the nearest rules
    (1: the nearest)."""

    affordance: str | None
    score: float
    how: str
    verb: str | None = None
    fallback: bool | None = None
    rank: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields ``answers.jsonl`` records of the match (verb, similarity, fallback, rank for a ``rules``
        match only)."""
        data: dict[str, Any] = {"affordance": self.affordance, "score": self.score, "how": self.how}
        if self.fallback is not None:
            data.update(verb=self.verb, similarity=self.score, fallback=self.fallback, rank=self.rank)
        return data


def content_words(text: str) -> list[str]:
    """Lower-case content words, plurals made singular."""
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2]
    return [singular(w) or w for w in words]


def overlap(a: Sequence[str], b: Sequence[str]) -> float:
    common = sum((Counter(a) & Counter(b)).values())
    return 0.0 if not common else 2 * common / (len(a) + len(b))


class GoalMapper:
    """Maps tasks to affordance ids, given each id's description (may be empty)."""

    def __init__(self, affordances: Mapping[str, str], method: str = "lexical", *, embedder: Embedder | None = None,
                 client: ChatClient | None = None, max_tokens: int = 64, rules: Sequence[Rule] = (),
                 threshold: float = GOAL_THRESHOLD, top_k: int = GOAL_TOP_K, text: str = GOAL_TEXTS[0]) -> None:
        choice(method, GoalMethod, "goal mapping", code="creativity-config")
        if not affordances:
            raise KariError("no affordance to map goals to (the rules file holds no rule)", code="creativity-config")
        if method == GoalMethod.LLM and client is None:
            raise KariError("--goal llm needs an LLM endpoint (--model / --base-url)", code="creativity-config")
        if method == RULES and not rules:
            raise KariError("--goal rules needs a rules file with at least one rule", code="creativity-config")
        if not 0.0 <= threshold <= 1.0:
            raise KariError("the goal threshold must be in [0, 1]", code="creativity-config")
        if top_k < 1:
            raise KariError("the goal top-k must be >= 1", code="creativity-config")
        choice(text, GoalText, "goal text", code="creativity-config")
        self.affordances = dict(affordances)
        self.method = method
        self.rules = list(rules)
        self.threshold = threshold
        self.top_k = top_k
        self.text = text
        self._matcher: Any = None
        self._embedder = embedder
        self.client = client
        self.max_tokens = max_tokens
        self._texts = {a: f"{a.replace('_', ' ')}. {d}".strip() for a, d in self.affordances.items()}
        self._words = {a: content_words(t) for a, t in self._texts.items()}

    def lexical(self, text: str) -> GoalMatch:
        words = content_words(text)
        best = max(self.affordances, key=lambda a: (overlap(words, self._words[a]), -list(self.affordances).index(a)))
        value = overlap(words, self._words[best])
        return GoalMatch(best if value > 0 else None, round(value, 4), "lexical")

    def embedding(self, text: str) -> GoalMatch:
        if self._embedder is None:
            from kari.embeddings import Embedder

            self._embedder = Embedder()
        keys = list(self._texts.values())
        hit = self._embedder.best_matches([text], keys, -1.0, 1)[0][0]
        by_text = {t: a for a, t in self._texts.items()}
        return GoalMatch(by_text[hit[0]], round(hit[1], 4), "embedding")

    def by_rules(self, text: str) -> GoalMatch:
        """The rule nearest to ``text`` (Affordance20Q's matcher); below the threshold a recorded fallback."""
        return self.rules_ranked(text)[0]

    def rules_ranked(self, text: str) -> list[GoalMatch]:
        """The ``top_k`` rules nearest to ``text``, best first (Affordance20Q's matcher, its ranking), each with
        its rank; a rule below the threshold is a fallback. No rule at all: one empty fallback match."""
        if self._matcher is None:
            self._matcher = RuleMatcher(self.rules, 0.0, self.top_k, embedder=self._embedder)
        found = self._matcher.match_text(text)
        if not found:
            return [GoalMatch(None, 0.0, RULES, None, True)]
        return [GoalMatch(m.rule.affordance, round(m.similarity, 4), RULES, m.verb,
                          round(m.similarity, 4) < self.threshold, rank)
                for rank, m in enumerate(found, start=1)]

    def ranked(self, task: Task) -> list[GoalMatch]:
        """The affordances to try for ``task``, best first: the ``top_k`` nearest rules for ``rules``, else the
        one match of :meth:`map`."""
        return self.rules_ranked(self.goal_text(task)) if self.method == RULES else [self.map(task)]

    def goal_text(self, task: Task) -> str:
        """The text ``--goal rules`` matches for ``task``: the request, or its content words (the request when it
        has none)."""
        return task.task if self.text == "request" else " ".join(content_words(task.task)) or task.task

    def llm(self, task: Task) -> GoalMatch:
        listing = "\n".join(f"- {a}: {d}" if d else f"- {a}" for a, d in self.affordances.items())
        messages = [{"role": "system", "content": "You map a request for help to the one affordance it needs."},
                    {"role": "user", "content": f"REQUEST:\n{task.task}\n\nAFFORDANCES:\n{listing}\n\nReply with one "
                                                'JSON object: {"affordance": "<one id from the list>"}'}]
        reply = require_client(self.client, "--goal llm").chat(messages, max_tokens=self.max_tokens,
                                                                role="creativity-goal")
        try:
            chosen = str(extract_json_object(reply.text).get("affordance", ""))
        except KariError:
            return GoalMatch(None, 0.0, "llm")
        return GoalMatch(chosen if chosen in self.affordances else None, 1.0, "llm")

    def oracle(self, task: Task) -> GoalMatch:
        named = task.gold.affordance.get("kari_affordance")
        if isinstance(named, str) and named in self.affordances:
            return GoalMatch(named, 1.0, "oracle")
        if "kari_affordance" in task.gold.affordance and named is None:
            return GoalMatch(None, 0.0, "oracle-open")     # an open goal: no affordance of kari's fits
        found = self.lexical(task.gold.action)
        return GoalMatch(found.affordance, found.score, "oracle")

    def map(self, task: Task, method: str | None = None) -> GoalMatch:
        """The affordance of ``task``'s goal by ``method`` (default: the mapper's)."""
        method = method or self.method
        if method == "oracle":
            return self.oracle(task)
        if method == "llm":
            return self.llm(task)
        if method == RULES:
            return self.by_rules(self.goal_text(task))
        return self.embedding(task.task) if method == "embedding" else self.lexical(task.task)
