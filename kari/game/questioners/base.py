"""The Questioner interface every player implements, and helpers they share (the engine reads guesses with
:func:`resolve_guess` too)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from kari.core.game_records import resolve_guess
from kari.game.types import Action, GameSetup, GameState, Guess


class Questioner(ABC):
    """A player: :meth:`start` once per game, then :meth:`act` each turn until it guesses.

    ``uses_hidden_object`` marks the one upper bound (Optimal) allowed to see the hidden object; every other
    player gets a :class:`GameSetup` without it and with leave-one-out representatives. ``sees_rules`` marks the
    players that use matched rules when a run gives them.
    """

    name: ClassVar[str] = ""
    uses_hidden_object: ClassVar[bool] = False
    sees_rules: ClassVar[bool] = False  # plays differently when the run gives matched rules (the "+rules" variant)
    default_runs: ClassVar[int] = 1

    def start(self, setup: GameSetup) -> None:
        """Reset for a new game."""
        self.setup = setup

    @abstractmethod
    def act(self, state: GameState) -> Action:
        """Ask a question or make the final guess."""

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        """The guess requested after the budget is spent or after repeated rejections (default: top belief)."""
        return Guess(argmax_belief(state))

    def info(self) -> dict[str, Any]:
        """Extra per-game facts for the record (e.g. whether a plan was proven optimal)."""
        return {}


def argmax_belief(state: GameState, beliefs: Mapping[str, float] | None = None) -> str:
    """The candidate with the highest belief; ties (and no beliefs at all) broken by the game's random stream."""
    b = state.beliefs if beliefs is None else beliefs
    candidates = state.setup.candidates
    if not b:
        return state.setup.rng.choice(candidates)
    best = max(b.get(c, 0.0) for c in candidates)
    tied = [c for c in candidates if b.get(c, 0.0) >= best - 1e-12]
    return tied[0] if len(tied) == 1 else state.setup.rng.choice(tied)
