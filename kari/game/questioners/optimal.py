"""Optimal: the target-aware upper bound (method.md 4). The only player that sees the hidden object and target.

It uses them to choose questions, nothing else: each turn it asks the next question of the solver's exact plan
(the fewest questions after which b(target) exceeds the threshold, :func:`kari.solver.optimal_target_aware`),
replanning from the answers it actually got whenever an answer was not the one the plan expected or a question
was rejected. It guesses like every other player, from the game's belief b_t: the candidate with the highest
belief once one exceeds the threshold (0.9), or at the forced guess. A success is therefore earned by the
answers, never by knowing the target.
"""

from __future__ import annotations

from typing import Any

from kari.game.questioners.base import Questioner, QuestionerOptions, argmax_belief
from kari.game.types import Action, Ask, GameSetup, GameState, Guess, structured
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_names import Player
from kari.core.game_records import QuestionerInfo
from kari.core.game_defaults import OPTIMAL_TIME_LIMIT, THRESHOLD
from kari.solver import optimal_target_aware


class OptimalQuestioner(Questioner):
    """Asks the solver's exact target-aware questions, replanning after surprises; guesses by belief."""

    name = Player.OPTIMAL
    uses_hidden_object = True

    def __init__(self, vocab: Vocabulary, threshold: float = THRESHOLD,
                 time_limit: float = OPTIMAL_TIME_LIMIT) -> None:
        self.vocab = vocab
        self.threshold = threshold
        self.time_limit = time_limit

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> OptimalQuestioner:
        return cls(options.vocab, options.threshold, options.time_limit)

    def start(self, setup: GameSetup) -> None:
        super().start(setup)
        if setup.hidden is None or setup.target is None:
            raise RuntimeError("the optimal questioner needs the hidden object and target")
        self.plan: list[tuple[Any, bool]] = []  # (question, the answer the plan expects), not asked yet
        self.plans = 0
        self.proven: list[bool] = []
        self.planned_turns: int | None = None

    def _replan(self, state: GameState) -> None:
        setup = self.setup
        pool = [q for q in setup.pool if not state.was_asked(q)]
        if setup.hidden is None or setup.target is None:
            raise ValueError("the Optimal player is given the hidden object and its target (uses_hidden_object)")
        result = optimal_target_aware(setup.hidden, setup.target, setup.reps, self.vocab, pool,
                                      threshold=self.threshold, time_limit=self.time_limit, history=state.history)
        self.plan = list(zip(result.questions, result.answers))
        self.plans += 1
        self.proven.append(bool(result.proven_optimal))
        if self.planned_turns is None:
            self.planned_turns = int(result.turns)

    def _surprised(self, state: GameState) -> bool:
        """Did the last turn not go as planned (rejected, or another answer than expected)?"""
        if not state.turns or self.plans == 0:
            return True
        last = state.turns[-1]
        return last.pair is None or last.answer != self.expected

    def act(self, state: GameState) -> Action:
        beliefs = state.beliefs
        if beliefs and max(beliefs.values()) > self.threshold:
            return Guess(argmax_belief(state))
        if self._surprised(state):
            self._replan(state)
        while self.plan and state.was_asked(self.plan[0][0]):
            self.plan.pop(0)
        if not self.plan:
            return Guess(argmax_belief(state))
        question, self.expected = self.plan.pop(0)
        return Ask(structured(question))

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        return Guess(argmax_belief(state))

    def info(self) -> QuestionerInfo:
        return QuestionerInfo.stated(proven_optimal=all(self.proven), planned_turns=self.planned_turns,
                                     plans=self.plans)
