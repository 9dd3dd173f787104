"""Optimal: the target-aware upper bound (method.md 4). It sees the hidden object and replays the solver's plan.

Only this player may use the hidden object; it still reasons over the game's leave-one-out representatives.
"""

from __future__ import annotations

from typing import Any

from kari.game.questioners.base import Questioner
from kari.game.types import Action, Ask, GameSetup, GameState, Guess, structured
from kari.vocabulary import Vocabulary


class OptimalQuestioner(Questioner):
    """Asks the solver's exact target-aware question sequence, then guesses its answer."""

    name = "optimal"
    uses_hidden_object = True

    def __init__(self, vocab: Vocabulary, threshold: float = 0.9, time_limit: float = 30.0) -> None:
        self.vocab = vocab
        self.threshold = threshold
        self.time_limit = time_limit

    @classmethod
    def from_options(cls, options: Any) -> OptimalQuestioner:
        return cls(options.vocab, options.threshold, options.time_limit)

    def start(self, setup: GameSetup) -> None:
        from kari.solver import optimal_target_aware

        super().start(setup)
        if setup.hidden is None or setup.target is None:
            raise RuntimeError("the optimal questioner needs the hidden object and target")
        self.result = optimal_target_aware(setup.hidden, setup.target, setup.reps, self.vocab, list(setup.pool),
                                           threshold=self.threshold, time_limit=self.time_limit)
        self.plan = list(self.result.questions)[: setup.budget]

    def act(self, state: GameState) -> Action:
        asked = len(state.turns)
        if asked < len(self.plan):
            return Ask(structured(self.plan[asked]))
        return Guess(self.result.guess)

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        return Guess(self.result.guess)

    def info(self) -> dict[str, Any]:
        return {"proven_optimal": bool(self.result.proven_optimal), "planned_turns": int(self.result.turns)}
