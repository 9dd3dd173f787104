"""Greedy-IG: the target-blind information-gain player on the soft belief (:mod:`kari.game.belief`).

Each turn it asks the unasked question of the pool (the representatives' facts) with the highest expected
information gain about the candidate, looking two questions ahead for the most promising ones (``lookahead=2``),
under the noise model of the soft belief: a contradicted representative is down-weighted by ``eps``, not removed,
so one unlucky answer does not empty the target's class.

Stop rule: it guesses the soft belief's argmax as soon as that belief reaches ``stop_belief`` (more likely than
all other candidates together, by default), or when no question is expected to gain ``min_gain`` bits any more
(asking could no longer change the guess much); the engine forces the guess when the budget is spent.

With matched rules (``kari play --rules``: the "+rules" variant), the rules are evidence in the soft belief
(:class:`kari.game.belief.RuleEvidence`): a candidate whose rule the answers satisfy is up-weighted, so the
questions that decide the candidates' rules gain more and are asked first.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from kari.game.questioners.base import Questioner, QuestionerOptions, argmax_belief
from kari.game.types import Action, Ask, GameState, Guess, structured
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_defaults import LOOKAHEAD, MIN_GAIN, STOP_BELIEF
from kari.core.game_names import Player

class GreedyIGQuestioner(Questioner):
    name = Player.GREEDY_IG
    sees_rules: ClassVar[bool] = True

    def __init__(self, vocab: Vocabulary, stop_belief: float = STOP_BELIEF, min_gain: float = MIN_GAIN,
                 lookahead: int = LOOKAHEAD) -> None:
        self.vocab = vocab
        self.stop_belief = stop_belief
        self.min_gain = min_gain
        self.lookahead = lookahead

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> GreedyIGQuestioner:
        return cls(options.vocab, *options.settings.greedy)

    def act(self, state: GameState) -> Action:
        model = self.setup.belief_model
        history = state.history
        weights = model.weights(history)
        belief = model.belief(weights, history)
        if max(belief.values()) >= self.stop_belief:
            return Guess(argmax_belief(state, belief))
        allowed = model.unasked(state.asked)
        if not allowed.any():
            return Guess(argmax_belief(state, belief))
        if self.lookahead >= 2:
            values = model.lookahead_gains(weights, history, allowed)
        else:
            values = np.where(allowed, model.gains(weights, history), -1.0)
        best = int(np.argmax(values))
        if values[best] < self.min_gain:
            return Guess(argmax_belief(state, belief))
        return Ask(structured(model.pool[best]))

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        return Guess(argmax_belief(state, state.soft_beliefs))
