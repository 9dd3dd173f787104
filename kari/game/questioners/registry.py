"""The registry of players: each Questioner by name, its module imported on demand (building one player never
imports another's dependencies)."""

from __future__ import annotations

import importlib

from kari.errors import unknown
from kari.core.game_names import RULE_SUFFIXES, Player
from kari.core.game_settings import PlayConfig
from kari.game.questioners.base import Questioner, QuestionerOptions

QUESTIONERS: dict[str, str] = {
    Player.OPTIMAL: "kari.game.questioners.optimal:OptimalQuestioner",
    Player.FIX20Q: "kari.game.questioners.fix20q:Fix20QQuestioner",
    Player.GREEDY_IG: "kari.game.questioners.greedy_ig:GreedyIGQuestioner",
    Player.RULES: "kari.game.questioners.rules:RulesQuestioner",
    Player.LLM: "kari.game.questioners.llm:LLMQuestioner",
    Player.HUMAN: "kari.game.questioners.human:HumanQuestioner",
}
"""Each player's class, by name (:class:`~kari.core.game_names.Player`)."""


def sees_rules(config: PlayConfig) -> bool:
    """Did a run's questioner see matched rules: given a rules file, and a player that uses them (its class says
    ``sees_rules``: llm, rules, greedy-ig) or a ``*+rules`` / ``*+kb`` name?"""
    name = str(config.questioner)
    if not config.rules:
        return False
    return questioner_class(name).sees_rules if name in QUESTIONERS else name.endswith(RULE_SUFFIXES)


def questioner_class(name: str) -> type[Questioner]:
    """The class registered as ``name`` (a clear error for unknown names)."""
    target = QUESTIONERS.get(name)
    if target is None:
        raise unknown("questioner", name, QUESTIONERS, code="game-config")
    module, _, attr = target.partition(":")
    cls: type[Questioner] = getattr(importlib.import_module(module), attr)
    return cls


def make_questioner(name: str, options: QuestionerOptions) -> Questioner:
    """Build the player ``name`` from ``options``."""
    return questioner_class(name).from_options(options)
