"""The Questioner interface every player implements, and helpers they share (the engine reads guesses with
:func:`resolve_guess` too)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

from kari.core.game_defaults import OPTIMAL_TIME_LIMIT, THRESHOLD
from kari.core.game_records import QuestionerInfo, resolve_guess
from kari.core.game_settings import PlayerSettings
from kari.core.terms import normalise_term
from kari.game.types import Action, GameSetup, GameState, Guess
from kari.llm.config import DEFAULT_MAX_TOKENS
from kari.vocab.vocabulary import Vocabulary

if TYPE_CHECKING:
    from kari.llm.client import ChatClient


@dataclass
class QuestionerOptions:
    """Everything a player may be configured with; each player reads the fields it needs (``temperature``:
    Fix20Q's softmax temperature; ``llm_temperature`` and ``llm_seed``: the LLM questioner's sampling)."""

    vocab: Vocabulary
    threshold: float = THRESHOLD
    questions: Path | None = None
    temperature: float = 1.0
    time_limit: float = OPTIMAL_TIME_LIMIT
    client: ChatClient | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    llm_temperature: float = 0.0
    llm_seed: int | None = None  # the sampling seed of run 0 (run k: + k); None: none sent
    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    settings: PlayerSettings = field(default_factory=PlayerSettings)


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

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> Self:
        """The player configured from the run's options (each player reads the fields it needs)."""
        raise NotImplementedError(f"{cls.__name__} cannot be built from options")

    @abstractmethod
    def act(self, state: GameState) -> Action:
        """Ask a question or make the final guess."""

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        """The guess requested after the budget is spent or after repeated rejections (default: top belief)."""
        return Guess(argmax_belief(state))

    def info(self) -> QuestionerInfo:
        """Extra per-game facts for the record (e.g. whether a plan was proven optimal)."""
        return QuestionerInfo()


def argmax_belief(state: GameState, beliefs: Mapping[str, float] | None = None) -> str:
    """The candidate with the highest belief; ties (and no beliefs at all) broken by the game's random stream."""
    b = state.beliefs if beliefs is None else beliefs
    candidates = state.setup.candidates
    if not b:
        return state.setup.rng.choice(candidates)
    best = max(b.get(c, 0.0) for c in candidates)
    tied = [c for c in candidates if b.get(c, 0.0) >= best - 1e-12]
    return tied[0] if len(tied) == 1 else state.setup.rng.choice(tied)
