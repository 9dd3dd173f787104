"""Policy: the solver's target-blind question tree (anytime: optimal when proven, else the best found) on
the leave-one-out representatives."""

from __future__ import annotations

from typing import Any

from kari.game.questioners.base import Questioner
from kari.game.types import Action, Ask, GameSetup, GameState, Guess, structured
from kari.domain.vocabulary import Vocabulary


class PolicyQuestioner(Questioner):
    name = "policy"

    def __init__(self, vocab: Vocabulary, threshold: float = 0.9) -> None:
        self.vocab = vocab
        self.threshold = threshold

    @classmethod
    def from_options(cls, options: Any) -> PolicyQuestioner:
        return cls(options.vocab, options.threshold)

    def start(self, setup: GameSetup) -> None:
        from kari.solver import build_policy

        super().start(setup)
        self.tree = build_policy(setup.reps, self.vocab, list(setup.pool), threshold=self.threshold)

    def act(self, state: GameState) -> Action:
        question = self.tree.next_question(state.history)
        return Guess(self.tree.guess(state.history)) if question is None else Ask(structured(question))

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        return Guess(self.tree.guess(state.history))

    def info(self) -> dict[str, Any]:
        """Whether the tree played is proven optimal, its expected questions and the lower bound."""
        return self.tree.info()
