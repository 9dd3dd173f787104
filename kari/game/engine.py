"""The turn loop of one Affordance20Q game: budget, rejections, forced guess, b_t / IG_t, the game record.

Rules (method.md 3): every question turn (accepted or rejected) uses one unit of the budget (20 by default); a
forced guess is requested when the budget is spent or after ``max_rejections`` consecutive rejected questions;
a guess that is not one of the candidates fails the game. b_t and IG_t (hard: consistent representatives) are
computed for every player from the same leave-one-out representatives (``setup.reps``), so metrics are comparable
across players; the soft belief the players use (``setup.model``) is recorded beside it (``b_soft``). With
``setup.oracle_noise`` > 0 each answer is flipped with that probability (seeded per game, recorded as
``flipped``). The record keeps the guessed candidate's belief at the guess (hard and soft) and how many questions
repeated an earlier one.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from kari.core.benchmark import Game, ObjectRecord
from kari.core import game_defaults as defaults
from kari.game.checker import Checker
from kari.game.oracle import Oracle, OracleReply
from kari.game.questioners.base import Questioner, resolve_guess
from kari.game.types import CheckResult, GameSetup, GameState, Guess, Question, Turn
from kari.solver.consistency import beliefs, consistent_counts, information_gain
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_records import GameRecord, QuestionerInfo


def belief_state(reps: Mapping[str, Sequence[ObjectRecord]], history: Sequence[tuple[Question, bool]],
                 vocab: Vocabulary) -> Mapping[str, float] | None:
    """b_t over the candidates from the representatives consistent with ``history`` (None: none consistent)."""
    return beliefs(consistent_counts(reps, history, vocab))


class GameInPlay:
    """One game, one step at a time: the turn loop of :func:`play_game` for a Questioner (or an Oracle) that
    answers when it likes (a person in a web page, :mod:`kari.serve`).

    :meth:`ask` plays one question turn (the Checker's verdict, the Oracle's answer or a ``reply`` given, b_t and
    IG_t); :attr:`forced` says when the next action must be a guess; :meth:`finish` takes the guess and returns the
    game record. The questioner's name and facts go into the record; nothing here knows who asks."""

    def __init__(self, game: Game, hidden: ObjectRecord, setup: GameSetup, checker: Checker, oracle: Oracle | None,
                 vocab: Vocabulary, *, max_rejections: int = defaults.MAX_REJECTIONS) -> None:
        self.started = time.perf_counter()
        self.game, self.hidden, self.checker, self.oracle, self.vocab = game, hidden, checker, oracle, vocab
        self.max_rejections = max_rejections
        self.b0 = belief_state(setup.reps, [], vocab)
        self.state = GameState(setup=setup, b0=self.b0)
        self.soft0 = self.state.soft_beliefs
        self.rejections = self.repeats = 0

    @property
    def setup(self) -> GameSetup:
        return self.state.setup

    @property
    def forced(self) -> str | None:
        """Why the next action must be the guess (``budget``, ``rejections``), or None while questions are left."""
        if len(self.state.turns) >= self.setup.budget:
            return "budget"
        if self.rejections >= self.max_rejections:
            return "rejections"
        return None

    def check(self, text: str) -> CheckResult:
        """The Checker's verdict on ``text`` in this game (nothing is played)."""
        return self.checker.check(text, self.setup.candidates)

    def ask(self, text: str, *, check: CheckResult | None = None, reply: OracleReply | None = None) -> Turn:
        """Play one question turn and return it: ``check`` is the Checker's verdict when already made, ``reply``
        the answer when someone other than the game's Oracle gave it (a person as Oracle)."""
        if self.forced:
            raise ValueError(f"the game is over for questions ({self.forced}): only a guess is left")
        check = self.check(text) if check is None else check
        asked_before = self.state.asked
        turn = _turn(text, check, self.state, self.hidden, self.oracle, self.vocab, reply)
        self.repeats += turn.question in asked_before or any(pair in asked_before for pair in turn.check.pairs)
        self.state.turns.append(turn)
        self.rejections = 0 if turn.check.accepted else self.rejections + 1
        return turn

    def finish(self, guess: Guess, questioner: str, info: QuestionerInfo | None = None) -> GameRecord:
        """The game record once ``guess`` ends the game (run 0; the run sets its run index and rule facts)."""
        setup, state = self.setup, self.state
        chosen = resolve_guess(guess.affordance, setup.candidates)
        final, soft = state.beliefs, state.soft_beliefs
        return GameRecord(
            run=0,
            questioner=questioner,
            game=self.game.id,
            object=self.hidden.id,
            target=self.game.target,
            candidates=tuple(setup.candidates),
            b0=None if self.b0 is None else {a: round(p, 6) for a, p in self.b0.items()},
            b0_soft=self.soft0,
            turns=tuple(t.record() for t in state.turns),
            n_turns=len(state.turns),
            guess=chosen,
            guess_raw=guess.raw or guess.affordance,
            invalid_guess=chosen is None,
            guess_belief=None if chosen is None or final is None else round(final.get(chosen, 0.0), 6),
            guess_soft_belief=None if chosen is None or soft is None else soft.get(chosen),
            forced=self.forced,
            repeated_questions=self.repeats,
            success=chosen == self.game.target,
            questioner_info=info if info is not None else QuestionerInfo(),
            time_s=round(time.perf_counter() - self.started, 6),
        )


def play_game(game: Game, hidden: ObjectRecord, setup: GameSetup, questioner: Questioner, checker: Checker,
              oracle: Oracle, vocab: Vocabulary, *, max_rejections: int = defaults.MAX_REJECTIONS) -> GameRecord:
    """Play one game and return its record (run 0; the run sets its run index and rule facts)."""
    if questioner.uses_hidden_object:
        setup = replace(setup, hidden=hidden, target=game.target)
    play = GameInPlay(game, hidden, setup, checker, oracle, vocab, max_rejections=max_rejections)
    questioner.start(setup)
    while True:
        forced = play.forced
        if forced:
            guess = questioner.forced_guess(play.state, forced)
            break
        action = questioner.act(play.state)
        if isinstance(action, Guess):
            guess = action
            break
        play.ask(action.text)
    return play.finish(guess, questioner.name, questioner.info())


def _turn(text: str, check: CheckResult, state: GameState, hidden: ObjectRecord, oracle: Oracle | None,
          vocab: Vocabulary, reply: OracleReply | None = None) -> Turn:
    setup = state.setup
    prev = state.beliefs
    if not check.accepted:
        return Turn(len(state.turns) + 1, text, check, None, prev, 0.0)
    if reply is None:
        if oracle is None:
            raise ValueError("an accepted question needs the Oracle's answer: no Oracle and no reply given")
        reply = oracle.answer(hidden, text, check.pairs[0])
    flipped = setup.oracle_noise > 0 and setup.noise_rng is not None and setup.noise_rng.random() < setup.oracle_noise
    answer = reply.value != flipped
    history = [*state.history, (check.pairs[0], answer)]
    b_t = belief_state(setup.reps, history, vocab)
    soft = None if setup.model is None else setup.model.belief(setup.model.weights(history), history)
    return Turn(len(state.turns) + 1, text, check, answer, b_t, information_gain(b_t, prev), reply.raw, soft,
                flipped)
