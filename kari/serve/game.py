"""One participant's game in progress, on kari's own engine (:class:`kari.game.engine.GameInPlay`): the Checker,
the Oracle, b_t and IG_t, budget and forced guess are those of ``kari play``, and the record it ends with is a
``games.jsonl`` record like any other player's, with the participant's id and each turn's time added.

Questioner mode: the participant's question is checked and answered by the benchmark's facts (the KB Oracle).
Oracle mode: a kari player asks (:data:`kari.serve.settings.ORACLE_PLAYERS`), the participant answers each
accepted question about the object they are shown; the benchmark's own answer is kept beside theirs
(``kb_answer``, for the agreement), and the game goes on with the participant's answers.

Each step takes the time it happened (seconds since the epoch, from the journal), so a game replayed after a
restart gets the same turn times as it had.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kari.core.benchmark import Game, ObjectRecord
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.game.checker import Checker
from kari.game.engine import GameInPlay
from kari.game.oracle import KBOracle, OracleReply, question_text
from kari.game.questioners.base import Questioner
from kari.core.game_records import GameRecord
from kari.game.types import CheckResult, GameSetup, Guess, Turn

ANSWERS = {"yes": True, "no": False}


@dataclass
class Pending:
    """The question a person acting as Oracle is to answer: its text, the Checker's verdict, its number."""

    text: str
    check: CheckResult
    turn: int

    @property
    def shown(self) -> str:
        """The question as the person reads it (``MATERIAL:metal`` -> ``Is it (or any part of it) made of metal?``)."""
        return question_text(self.text, self.check.pairs[0])


@dataclass
class ActiveGame:
    """Game ``number`` (1-based, in the participant's order) of participant ``run`` in progress."""

    number: int
    run: int
    participant: str
    game: Game
    hidden: ObjectRecord
    play: GameInPlay
    started: float
    last: float
    questioner: Questioner | None = None
    kb: KBOracle | None = None
    times: list[float] = field(default_factory=list)
    kb_answers: list[bool | None] = field(default_factory=list)
    pending: Pending | None = None
    guess: Guess | None = None

    @classmethod
    def open(cls, number: int, run: int, participant: str, game: Game, hidden: ObjectRecord, setup: GameSetup,
             checker: Checker, vocab: Vocabulary, *, max_rejections: int, now: float,
             questioner: Questioner | None = None) -> ActiveGame:
        """Start the game at ``now``: in Oracle mode (``questioner`` given) the player asks its first question."""
        oracle = KBOracle(vocab)
        play = GameInPlay(game, hidden, setup, checker, oracle if questioner is None else None, vocab,
                          max_rejections=max_rejections)
        active = cls(number, run, participant, game, hidden, play, now, now, questioner,
                     oracle if questioner is not None else None)
        if questioner is not None:
            questioner.start(setup)
            active._advance()
        return active

    @property
    def setup(self) -> GameSetup:
        return self.play.setup

    @property
    def turns(self) -> Sequence[Turn]:
        return self.play.state.turns

    @property
    def over(self) -> bool:
        """Has the game ended (a guess made)?"""
        return self.guess is not None

    def ask(self, text: str, now: float) -> Turn:
        """Questioner mode: the participant asks ``text`` at ``now``."""
        if self.questioner is not None or self.over:
            raise KariError("this game takes no question now", code="serve-state")
        turn = self.play.ask(text)
        self._timed(turn, now, None)
        return turn

    def answer(self, value: bool, now: float) -> Turn:
        """Oracle mode: the participant answers the pending question at ``now``; the player goes on."""
        if self.pending is None or self.kb is None:
            raise KariError("this game has no question waiting for an answer", code="serve-state")
        pending, self.pending = self.pending, None
        kb = self.kb.answer(self.hidden, pending.text, pending.check.pairs[0]).value
        turn = self.play.ask(pending.text, check=pending.check, reply=OracleReply(value, "yes" if value else "no"))
        self._timed(turn, now, kb)
        self._advance()
        return turn

    def make_guess(self, candidate: str, now: float) -> None:
        """Questioner mode: the participant's final guess (one of the candidates) at ``now``."""
        if self.questioner is not None or self.over:
            raise KariError("this game takes no guess now", code="serve-state")
        if candidate not in self.setup.candidates:
            raise KariError("the guess is not one of the candidates", code="serve-input")
        self.guess = Guess(candidate, raw=candidate)
        self.last = now

    def record(self) -> GameRecord:
        """The game's record, once it is over: ``kari play``'s record with the run index, the participant's id,
        each turn's time (and in Oracle mode the benchmark's answer) and the game's wall time from its start."""
        if self.guess is None:
            raise KariError("the game is not over", code="serve-state")
        name = self.questioner.name if self.questioner is not None else "human"
        info = self.questioner.info() if self.questioner is not None else None
        record = self.play.finish(self.guess, name, info)
        turns = tuple(replace(t, time_s=round(seconds, 3),
                              kb_answer=None if kb is None else ("yes" if kb else "no"))
                      for t, seconds, kb in zip(record.turns, self.times, self.kb_answers, strict=True))
        return replace(record, run=self.run, participant=self.participant, turns=turns,
                       time_s=round(max(0.0, self.last - self.started), 3))

    def _timed(self, turn: Turn, now: float, kb: bool | None) -> None:
        self.times.append(max(0.0, now - self.last))
        self.kb_answers.append(kb)
        self.last = now

    def _advance(self) -> None:
        """Oracle mode: let the player act until it asks an accepted question (then wait for the person) or
        guesses (the game is over). A question the Checker rejects is a turn of its own, taking no time."""
        assert self.questioner is not None
        while self.guess is None and self.pending is None:
            forced = self.play.forced
            if forced:
                self.guess = self.questioner.forced_guess(self.play.state, forced)
                break
            action = self.questioner.act(self.play.state)
            if isinstance(action, Guess):
                self.guess = action
                break
            check = self.play.check(action.text)
            if check.accepted:
                self.pending = Pending(action.text, check, len(self.turns) + 1)
            else:
                self._timed(self.play.ask(action.text, check=check), self.last, None)


def answer_value(text: str) -> bool:
    """``yes`` / ``no`` -> True / False; anything else is a ``serve-input`` error."""
    value = ANSWERS.get(text)
    if value is None:
        raise KariError("an answer is yes or no", code="serve-input")
    return value


def game_view_object(hidden: ObjectRecord) -> Mapping[str, Any]:
    """What a person acting as Oracle is shown of the object: its name and description."""
    return {"name": hidden.id.replace("_", " "), "description": hidden.description or ""}


__all__ = ["ANSWERS", "ActiveGame", "Pending", "answer_value", "game_view_object"]
