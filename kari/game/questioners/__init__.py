"""The players: one module per Questioner, built by name through :func:`make_questioner`.

``optimal`` (target-aware upper bound, the only player that sees the hidden object), ``fix20q``, ``greedy-ig``
(information gain on the soft belief; with ``--rules`` the "+rules" variant), ``rules`` (symbolic, asks matched
rules' atoms), ``llm`` and ``human``.
Modules are imported on demand so that building one player never imports another's dependencies.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.game.questioners.base import Questioner
from kari.domain.vocabulary import Vocabulary

QUESTIONERS: dict[str, str] = {
    "optimal": "kari.game.questioners.optimal:OptimalQuestioner",
    "fix20q": "kari.game.questioners.fix20q:Fix20QQuestioner",
    "greedy-ig": "kari.game.questioners.greedy_ig:GreedyIGQuestioner",
    "rules": "kari.game.questioners.rules:RulesQuestioner",
    "llm": "kari.game.questioners.llm:LLMQuestioner",
    "human": "kari.game.questioners.human:HumanQuestioner",
}


@dataclass
class QuestionerOptions:
    """Everything a player may be configured with; each player reads the fields it needs."""

    vocab: Vocabulary
    threshold: float = 0.9
    questions: Path | None = None
    temperature: float = 1.0
    time_limit: float = 30.0
    client: Any = None
    max_tokens: int = 512
    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    extra: dict[str, Any] = field(default_factory=dict)


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
