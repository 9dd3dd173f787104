"""Greedy-IG: each turn asks the solver's most informative question over the leave-one-out representatives and
guesses once one candidate's belief exceeds the threshold (or no question splits them any more)."""

from __future__ import annotations

from typing import Any

from kari.game.questioners.base import Questioner, argmax_belief
from kari.game.types import Action, Ask, GameState, Guess, structured
from kari.domain.vocabulary import Vocabulary


class GreedyIGQuestioner(Questioner):
    name = "greedy-ig"

    def __init__(self, vocab: Vocabulary, threshold: float = 0.9) -> None:
        self.vocab = vocab
        self.threshold = threshold

    @classmethod
    def from_options(cls, options: Any) -> GreedyIGQuestioner:
        return cls(options.vocab, options.threshold)

    def act(self, state: GameState) -> Action:
        from kari.solver import greedy_ig_question

        b = state.beliefs
        if not b or max(b.values()) > self.threshold:
            return Guess(argmax_belief(state))
        pool = [q for q in self.setup.pool if not state.was_asked(q)]
        question = greedy_ig_question(self.setup.reps, state.history, self.vocab, pool)
        return Guess(argmax_belief(state)) if question is None else Ask(structured(question))
