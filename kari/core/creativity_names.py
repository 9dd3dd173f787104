"""The fixed names and defaults of ``kari creativity solve``: the solvers, the LLM solver's modes and budgets,
the goal mappings and the defaults of ``--goal rules`` (each ``str``-valued, so a name read from ``config.json``
or the command line compares equal to its member).

Cheap to import, like :mod:`kari.core.game_names`: the CLI's help texts are written from these.
"""

from __future__ import annotations

from enum import StrEnum

from kari.core.game_defaults import MATCH_THRESHOLD
from kari.llm.config import LLM


class SolverKind(StrEnum):
    """Who chooses the tool: the clingo query, an LLM, or an LLM shown the matched rule."""

    SYMBOLIC = "symbolic"
    LLM = LLM
    LLM_RULES = "llm+rules"


SOLVERS: tuple[str, ...] = tuple(SolverKind)


class Mode(StrEnum):
    """How the LLM meets a task: every description up front, a structured reasoning object first, or one
    exploration per turn."""

    STATIC = "static"
    COT = "cot"
    INTERACTIVE = "interactive"


MODES: tuple[str, ...] = tuple(Mode)
"""Every mode, in --help order."""
DEFAULT_MAX_TOKENS = 2048
"""Output tokens per reply, as the benchmark's runner allows."""
JUDGE_MAX_TOKENS = 2048
"""Tokens per judge reply, as the benchmark's judge allows (its ``call_model`` default)."""
DEFAULT_TURNS = 15
"""The interactive mode's turn budget, as the benchmark's."""

class GoalMethod(StrEnum):
    """How a task's request is mapped to an affordance (:mod:`kari.creativity.goals`): its words, their sentence
    embedding, an LLM, the gold affordance (the upper bound), or the nearest rule verbs."""

    LEXICAL = "lexical"
    EMBEDDING = "embedding"
    LLM = LLM
    ORACLE = "oracle"
    RULES = "rules"


METHODS: tuple[str, ...] = tuple(GoalMethod)
"""The goal mappings, in --help order."""
RULES = GoalMethod.RULES
LEXICAL_GOALS = GoalMethod.LEXICAL
"""The goal mapping of a ``SolveConfig`` that names none (:data:`METHODS`)."""
GOAL_THRESHOLD = MATCH_THRESHOLD
"""The similarity a goal text needs to its best rule verb for a match that is not a fallback (Affordance20Q's)."""


class GoalText(StrEnum):
    """What ``--goal rules`` matches: the request as written, or its content words
    (:func:`kari.creativity.goals.content_words`)."""

    REQUEST = "request"
    WORDS = "words"


GOAL_TEXTS: tuple[str, ...] = tuple(GoalText)


class JudgeMethod(StrEnum):
    """``kari creativity judge --judge``: the benchmark's LLM judge (the symbolic scorer where its reply is
    unreadable), or the symbolic scorer alone."""

    LLM = LLM
    SYMBOLIC = "symbolic"
GOAL_TOP_K = 5
"""``--goal rules``: how many of the nearest rules a task's candidates are tried against, nearest first."""
