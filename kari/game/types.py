"""Typed records of one Affordance20Q game: questions, checker verdicts, turns, setups and the game record.

A *question* reaches the engine as text: free text (``"Is it made of metal?"``) from LLM and human players, or the
structured form ``DIMENSION:value`` (``"MATERIAL:metal"``) from symbolic players. The Checker maps either to
``(PREDICATE, value)`` pairs (:data:`Question`); metrics and the KB Oracle work on those pairs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kari.core.benchmark import ObjectRecord
from kari.core.terms import History, Question, structured
from kari.rules.ast import Rule
from kari.core.game_records import CheckRecord, MatchFact, TurnRecord

if TYPE_CHECKING:
    from kari.game.belief import BeliefModel

__all__ = ["Action", "Ask", "CheckResult", "GameSetup", "GameState", "Guess", "History", "Question", "RuleMatch",
           "Turn", "structured"]


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A rule matched to a candidate affordance: the rule, the rule verb that matched (the rule's own or one of
    the KB verbs grouped into it), the similarity, and how it was matched (``embedding`` or ``exact``)."""

    candidate: str
    rule: Rule
    similarity: float
    verb: str | None = None
    mode: str = "embedding"

    def fact(self) -> MatchFact:
        """The match as a game record keeps it."""
        return MatchFact(self.rule.affordance, self.verb or self.rule.affordance, round(self.similarity, 4),
                         self.mode)

    def to_json(self) -> dict[str, Any]:
        return self.fact().to_json()


@dataclass(frozen=True, slots=True)
class Ask:
    """The Questioner asks ``text`` (free text or ``DIMENSION:value``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Guess:
    """The Questioner's final guess; ``raw`` is what it literally said (for LLM and human players)."""

    affordance: str | None
    raw: str = ""


Action = Ask | Guess


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The Checker's verdict on one question.

    ``pairs`` holds one ``(PREDICATE, value)`` per probed property; ``flag`` is ``"FUNCTION"`` or ``"CATEGORY"``
    for forbidden questions. A question is accepted only when it is unflagged and probes exactly one property.
    """

    pairs: tuple[Question, ...]
    flag: str | None = None
    reason: str | None = None
    raw: str | None = None

    @property
    def accepted(self) -> bool:
        return self.flag is None and self.reason is None and len(self.pairs) == 1

    def record(self) -> CheckRecord:
        """The verdict as the game record keeps it."""
        return CheckRecord(tuple(structured(p) for p in self.pairs), self.flag, self.accepted, self.reason, self.raw)

    def to_json(self) -> dict[str, Any]:
        return self.record().to_json()


@dataclass(frozen=True, slots=True)
class Turn:
    """One question turn: the question, the Checker's verdict, the answer (None when rejected), b_t and IG_t."""

    index: int
    question: str
    check: CheckResult
    answer: bool | None
    beliefs: Mapping[str, float] | None
    ig: float
    oracle_raw: str | None = None
    soft_beliefs: Mapping[str, float] | None = None
    flipped: bool = False

    @property
    def pair(self) -> Question | None:
        return self.check.pairs[0] if self.check.accepted else None

    def record(self) -> TurnRecord:
        """The turn as the game record keeps it (beliefs and IG rounded to 6 decimals)."""
        return TurnRecord(self.index, self.question, self.check.record(),
                          None if self.answer is None else ("yes" if self.answer else "no"),
                          None if self.beliefs is None else {a: round(p, 6) for a, p in self.beliefs.items()},
                          round(self.ig, 6), None if self.soft_beliefs is None else dict(self.soft_beliefs),
                          self.flipped, self.oracle_raw)

    def to_json(self) -> dict[str, Any]:
        return self.record().to_json()


@dataclass(frozen=True)
class GameSetup:
    """What a Questioner may know at the start of a game.

    ``reps`` are the candidates' representative objects *without* the hidden object (leave-one-out) and ``pool``
    the questions over them. ``model`` is the soft belief over those representatives that players use (and the
    game record keeps beside the hard b_t), with the matched rules as evidence when the player sees rules.
    ``hidden`` and ``target`` are set only for a Questioner that declares ``uses_hidden_object`` (the Optimal
    upper bound). ``oracle_noise`` is the probability that the Oracle's answer is flipped, drawn from
    ``noise_rng`` (seeded per game; never seen by the player). ``run`` is the game's repeat index.
    """

    game_id: str
    candidates: tuple[str, ...]
    descriptions: Mapping[str, str]
    reps: Mapping[str, Sequence[ObjectRecord]]
    pool: Sequence[Question]
    budget: int
    rng: random.Random
    rules: Mapping[str, Sequence[RuleMatch]] = field(default_factory=dict)
    model: BeliefModel | None = None
    hidden: ObjectRecord | None = None
    target: str | None = None
    oracle_noise: float = 0.0
    noise_rng: random.Random | None = field(default=None, repr=False)
    run: int = 0  # the repeat index (--runs): an LLM player's sampling seed depends on it

    @property
    def belief_model(self) -> BeliefModel:
        """:attr:`model`, for the players that play on the soft belief (a setup built by
        :class:`kari.game.setup.SetupBuilder` always has one)."""
        if self.model is None:
            raise ValueError(f"the setup of game {self.game_id} has no soft-belief model")
        return self.model


@dataclass
class GameState:
    """The game so far, as the Questioner sees it."""

    setup: GameSetup
    b0: Mapping[str, float] | None = None
    turns: list[Turn] = field(default_factory=list)
    _asked: tuple[int, frozenset[Any]] = field(default=(0, frozenset()), repr=False)

    @property
    def history(self) -> list[tuple[Question, bool]]:
        """Accepted questions with their answers."""
        return [(t.pair, bool(t.answer)) for t in self.turns if t.pair is not None and t.answer is not None]

    @property
    def asked(self) -> frozenset[str | Question]:
        """Every question asked so far, accepted or rejected: its text and the pairs the Checker read from it
        (a player never asks any of them again)."""
        if self._asked[0] != len(self.turns):  # turns are only ever appended
            self._asked = (len(self.turns), frozenset([t.question for t in self.turns]
                                                      + [p for t in self.turns for p in t.check.pairs]))
        return self._asked[1]

    def was_asked(self, question: Question) -> bool:
        """Has ``question`` (or its structured text) been asked in this game?"""
        asked = self.asked
        return question in asked or structured(question) in asked

    @property
    def beliefs(self) -> Mapping[str, float] | None:
        """b_t after the last turn (b_0 before any)."""
        return self.turns[-1].beliefs if self.turns else self.b0

    @property
    def turns_left(self) -> int:
        return self.setup.budget - len(self.turns)

    @property
    def soft_beliefs(self) -> Mapping[str, float] | None:
        """The players' soft belief after the last turn (before any: from no answers)."""
        model = self.setup.model
        if model is None:
            return None
        history = self.history
        return model.belief(model.weights(history), history)
