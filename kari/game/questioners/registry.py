"""The registry of players: each Questioner by name, its module imported on demand (building one player never
imports another's dependencies), and the options every player may be configured with."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.core.game_defaults import OPTIMAL_TIME_LIMIT, THRESHOLD
from kari.core.game_names import RULE_SUFFIXES, Player
from kari.game.questioners.base import Questioner
from kari.llm.config import DEFAULT_MAX_TOKENS
from kari.core.game_settings import PlayerSettings

QUESTIONERS: dict[str, str] = {
    Player.OPTIMAL: "kari.game.questioners.optimal:OptimalQuestioner",
    Player.FIX20Q: "kari.game.questioners.fix20q:Fix20QQuestioner",
    Player.GREEDY_IG: "kari.game.questioners.greedy_ig:GreedyIGQuestioner",
    Player.RULES: "kari.game.questioners.rules:RulesQuestioner",
    Player.LLM: "kari.game.questioners.llm:LLMQuestioner",
    Player.HUMAN: "kari.game.questioners.human:HumanQuestioner",
}
"""Each player's class, by name (:class:`~kari.core.game_names.Player`)."""


@dataclass
class QuestionerOptions:
    """Everything a player may be configured with; each player reads the fields it needs (``temperature``:
    Fix20Q's softmax temperature; ``llm_temperature`` and ``llm_seed``: the LLM questioner's sampling)."""

    vocab: Vocabulary
    threshold: float = THRESHOLD
    questions: Path | None = None
    temperature: float = 1.0
    time_limit: float = OPTIMAL_TIME_LIMIT
    client: Any = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    llm_temperature: float = 0.0
    llm_seed: int | None = None  # the sampling seed of run 0 (run k: + k); None: none sent
    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    settings: PlayerSettings = field(default_factory=PlayerSettings)


def sees_rules(config: Mapping[str, Any]) -> bool:
    """Did a run's questioner see matched rules (its ``config.json``): given a rules file, and a player that uses
    them (its class says ``sees_rules``: llm, rules, greedy-ig) or a ``*+rules`` / ``*+kb`` name?"""
    name = str(config.get("questioner"))
    if not config.get("rules"):
        return False
    return questioner_class(name).sees_rules if name in QUESTIONERS else name.endswith(RULE_SUFFIXES)


def questioner_class(name: str) -> type[Questioner]:
    """The class registered as ``name`` (a clear error for unknown names)."""
    target = QUESTIONERS.get(name)
    if target is None:
        raise KariError(f"unknown questioner {name!r} (expected one of {', '.join(QUESTIONERS)})", code="game-config")
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_questioner(name: str, options: QuestionerOptions) -> Questioner:
    """Build the player ``name`` from ``options``."""
    return questioner_class(name).from_options(options)  # type: ignore[attr-defined]
