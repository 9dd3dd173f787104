"""The settings of a study served by ``kari serve`` (:class:`StudySettings`, the ``study`` entry of the run's
``config.json``) and its fixed names: who the participants play (:class:`Mode`) and the bounds of what they may
send (:data:`MAX_BODY`, :data:`MAX_QUESTION`). A leaf: records and their checks only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from kari.errors import KariError, one_of
from kari.core.game_names import Player

STUDY_KEY = "study"
"""The ``config.json`` key of the study's settings."""

MAX_BODY = 4096
"""The most bytes a request body may hold (a question, an answer, a guess): a larger one is refused (413)."""

MAX_QUESTION = 300
"""The most characters of one question."""

MAX_PARTICIPANTS = 10_000
"""The most participants one study may have."""

ORACLE_PLAYERS = (Player.GREEDY_IG, Player.FIX20Q)
"""The Questioners that may ask a person acting as Oracle: offline players that never see the hidden object."""

DEFAULT_ORACLE_PLAYER = Player.GREEDY_IG


class Mode(StrEnum):
    """What the participants play: the Questioner (they ask, the benchmark's facts answer) or the Oracle (they
    answer a kari player's questions about an object they are shown)."""

    QUESTIONER = "questioner"
    ORACLE = "oracle"


@dataclass(frozen=True)
class StudySettings:
    """A study: its mode, how many participants it has, how many participants play each game (``per_game``),
    the benchmark's games it plays (the first ``games``; None: all), the seed of its assignment and order, and,
    in Oracle mode, the player who asks."""

    mode: str = Mode.QUESTIONER
    participants: int = 20
    per_game: int = 1
    games: int | None = None
    seed: int = 0
    questioner: str = Player.HUMAN

    def __post_init__(self) -> None:
        if self.mode not in tuple(Mode):
            raise KariError(f"unknown mode {self.mode!r} (expected {one_of(Mode)})", code="bad-option")
        if not 1 <= self.participants <= MAX_PARTICIPANTS:
            raise KariError(f"--participants must be in 1..{MAX_PARTICIPANTS}", code="bad-option")
        if self.games is not None and self.games < 1:
            raise KariError("--games must be >= 1", code="bad-option")
        if not 1 <= self.per_game <= self.participants:
            raise KariError(f"--per-game must be in 1..{self.participants} (the participants): no participant "
                            "plays a game twice", code="bad-option")
        if self.mode == Mode.QUESTIONER and self.questioner != Player.HUMAN:
            raise KariError("in questioner mode the participants are the Questioner (no --questioner)",
                            code="bad-option")
        if self.mode == Mode.ORACLE and self.questioner not in ORACLE_PLAYERS:
            raise KariError(f"in oracle mode the Questioner is one of {one_of(ORACLE_PLAYERS)} (got "
                            f"{self.questioner!r})", code="bad-option")

    def to_json(self) -> dict[str, Any]:
        return {key: str(value) if isinstance(value, StrEnum) else value for key, value in asdict(self).items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StudySettings:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


__all__ = ["DEFAULT_ORACLE_PLAYER", "MAX_BODY", "MAX_PARTICIPANTS", "MAX_QUESTION", "Mode", "ORACLE_PLAYERS",
           "STUDY_KEY", "StudySettings"]
