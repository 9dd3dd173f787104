"""The fixed names of the game: players, Oracles, Checkers, rule matching modes (each ``str``-valued, so a
name read from ``config.json`` or the command line compares equal to its member).

Cheap to import, like :mod:`kari.game.defaults`: the CLI's help texts are written from these.
"""

from __future__ import annotations

from enum import StrEnum

from kari.llm.config import LLM


class Player(StrEnum):
    """The Questioners (:mod:`kari.game.questioners`)."""

    OPTIMAL = "optimal"
    FIX20Q = "fix20q"
    GREEDY_IG = "greedy-ig"
    RULES = "rules"
    LLM = LLM
    HUMAN = "human"


class OracleKind(StrEnum):
    """Who answers the questions: the KB's facts or an LLM."""

    KB = "kb"
    LLM = LLM


class CheckerKind(StrEnum):
    """Who reads a question into ``(PREDICATE, value)`` pairs: the symbolic Checker or an LLM."""

    SYMBOLIC = "symbolic"
    LLM = LLM


class MatchMode(StrEnum):
    """How rules are matched to candidate affordances: verb embedding similarity or identical verb ids."""

    EMBEDDING = "embedding"
    EXACT = "exact"


FLAGS = ("FUNCTION", "CATEGORY")
"""The Checker's flags on a forbidden question: it asks about the function, or about the kind of thing."""

ONLINE_PLAYERS: tuple[Player, ...] = (Player.LLM, Player.HUMAN)
"""Players that need a person or an LLM endpoint (the offline pipeline refuses them)."""

RULES_SUFFIX = "+rules"
"""``NAME+rules``: the player ``NAME`` given the matched rules (a run directory's name in the pipeline)."""

