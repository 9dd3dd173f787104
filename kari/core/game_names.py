"""The fixed names of the game: players, Oracles, Checkers, rule matching modes, rule weightings and rule
sources (each ``str``-valued, so a name read from ``config.json`` or the command line compares equal to its
member).

Cheap to import, like :mod:`kari.core.game_defaults`: the CLI's help texts are written from these.
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
    """Who answers the questions: the KB's facts, an LLM, or a person (only in a study served by ``kari serve
    --mode oracle``)."""

    KB = "kb"
    LLM = LLM
    HUMAN = "human"


class CheckerKind(StrEnum):
    """Who reads a question into ``(PREDICATE, value)`` pairs: the symbolic Checker or an LLM."""

    SYMBOLIC = "symbolic"
    LLM = LLM


class MatchMode(StrEnum):
    """How rules are matched to candidate affordances: verb embedding similarity or identical verb ids."""

    EMBEDDING = "embedding"
    EXACT = "exact"


class RuleWeighting(StrEnum):
    """How far a matched rule moves a candidate's soft belief (:mod:`kari.game.rule_weights`): by the rule's own
    evidence, or by the fixed factors for every rule."""

    EVIDENCE = "evidence"
    FIXED = "fixed"


class FlaggedRules(StrEnum):
    """What a player does with a KB rule ``kari induce --db`` flagged (its precision held out within the KB is no
    better than the base rate, or cannot be estimated: :mod:`kari.induce.kbweights`): skip it or use it."""

    SKIP = "skip"
    USE = "use"


class RuleOrigin(StrEnum):
    """Where the rules a player was given come from (a game record's ``rules.source``): induced from a KB,
    induced from a benchmark's labels, the cross-fitted sets of ``kari induce --cv``, or any other file."""

    KB = "kb"
    BENCH = "bench"
    CROSS_FITTED = "cross-fitted"
    FILE = "file"


class RuleColumn(StrEnum):
    """Table 1's rule sources: the KB-anchored rules (the paper's KARI) and the benchmark-supervised ones (the
    cross-fitted ``RULES.cv``, or any other rules file)."""

    KB = "kb"
    RULES = "rules"


FLAGS = ("FUNCTION", "CATEGORY")
"""The Checker's flags on a forbidden question: it asks about the function, or about the kind of thing."""

ONLINE_PLAYERS: tuple[Player, ...] = (Player.LLM, Player.HUMAN)
"""Players that need a person or an LLM endpoint (the offline pipeline refuses them)."""

RULES_SUFFIX = "+rules"
"""``NAME+rules``: the player ``NAME`` given the benchmark-supervised (cross-fitted) rules (a run directory's
name in the pipeline)."""

KB_SUFFIX = "+kb"
"""``NAME+kb``: the player ``NAME`` given the KB-anchored rules (the paper's KARI)."""

RULE_SUFFIXES = (RULES_SUFFIX, KB_SUFFIX)
"""The suffixes of a player given rules."""


RUN_PLOTS = ("ig_by_turn.png", "dimensions_by_turn.png", "success_by_affordance.png")
"""The figures a play run writes into its run directory (:func:`kari.game.plots.plot_run`)."""
