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
from kari.game.oracle import Oracle
from kari.game.questioners.base import Questioner, resolve_guess
from kari.game.types import Ask, GameSetup, GameState, Guess, Question, Turn
from kari.solver.consistency import beliefs, consistent_counts, information_gain
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_records import GameRecord


def belief_state(reps: Mapping[str, Sequence[ObjectRecord]], history: Sequence[tuple[Question, bool]],
                 vocab: Vocabulary) -> Mapping[str, float] | None:
    """b_t over the candidates from the representatives consistent with ``history`` (None: none consistent)."""
    return beliefs(consistent_counts(reps, history, vocab))


def play_game(game: Game, hidden: ObjectRecord, setup: GameSetup, questioner: Questioner, checker: Checker,
              oracle: Oracle, vocab: Vocabulary, *, max_rejections: int = defaults.MAX_REJECTIONS) -> GameRecord:
    """Play one game and return its record (run 0; the run sets its run index and rule facts)."""
    started = time.perf_counter()
    if questioner.uses_hidden_object:
        setup = replace(setup, hidden=hidden, target=game.target)
    b0 = belief_state(setup.reps, [], vocab)
    state = GameState(setup=setup, b0=b0)
    soft0 = state.soft_beliefs
    questioner.start(setup)
    guess: Guess | None = None
    forced: str | None = None
    rejections = repeats = 0
    while guess is None:
        if len(state.turns) >= setup.budget:
            forced = "budget"
        elif rejections >= max_rejections:
            forced = "rejections"
        if forced:
            guess = questioner.forced_guess(state, forced)
            break
        action = questioner.act(state)
        if isinstance(action, Guess):
            guess = action
            break
        asked_before = state.asked
        turn = _turn(action, state, hidden, checker, oracle, vocab)
        repeats += turn.question in asked_before or any(pair in asked_before for pair in turn.check.pairs)
        state.turns.append(turn)
        rejections = 0 if state.turns[-1].check.accepted else rejections + 1
    chosen = resolve_guess(guess.affordance, setup.candidates)
    final, soft = state.beliefs, state.soft_beliefs
    return GameRecord(
        run=0,
        questioner=questioner.name,
        game=game.id,
        object=hidden.id,
        target=game.target,
        candidates=tuple(setup.candidates),
        b0=None if b0 is None else {a: round(p, 6) for a, p in b0.items()},
        b0_soft=soft0,
        turns=tuple(t.record() for t in state.turns),
        n_turns=len(state.turns),
        guess=chosen,
        guess_raw=guess.raw or guess.affordance,
        invalid_guess=chosen is None,
        guess_belief=None if chosen is None or final is None else round(final.get(chosen, 0.0), 6),
        guess_soft_belief=None if chosen is None or soft is None else soft.get(chosen),
        forced=forced,
        repeated_questions=repeats,
        success=chosen == game.target,
        questioner_info=questioner.info(),
        time_s=round(time.perf_counter() - started, 6),
    )


def _turn(action: Ask, state: GameState, hidden: ObjectRecord, checker: Checker, oracle: Oracle,
          vocab: Vocabulary) -> Turn:
    setup = state.setup
    check = checker.check(action.text, setup.candidates)
    prev = state.beliefs
    if not check.accepted:
        return Turn(len(state.turns) + 1, action.text, check, None, prev, 0.0)
    reply = oracle.answer(hidden, action.text, check.pairs[0])
    flipped = setup.oracle_noise > 0 and setup.noise_rng is not None and setup.noise_rng.random() < setup.oracle_noise
    answer = reply.value != flipped
    history = [*state.history, (check.pairs[0], answer)]
    b_t = belief_state(setup.reps, history, vocab)
    soft = None if setup.model is None else setup.model.belief(setup.model.weights(history), history)
    return Turn(len(state.turns) + 1, action.text, check, answer, b_t, information_gain(b_t, prev), reply.raw, soft,
                flipped)
