"""Typed records of a played game: its record (one ``games.jsonl`` line) with its turns and the Checker's
verdicts, and the reader of ``games.jsonl`` (the run's summary is in :mod:`kari.game.summary`).

Each record is read from and written to its JSON object key for key (:mod:`kari.records`): a file written by
an older kari reads into these records and writes back byte for byte. The metrics, the report and the plots
read the typed fields; ``record["success"]`` still reads the JSON form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.records import JsonView, Layout, emit

GAMES_FILE = "games.jsonl"


@dataclass(frozen=True, eq=False)
class CheckRecord(JsonView):
    """The Checker's verdict on one question as recorded: the pairs it read (``DIMENSION:value``), its flag,
    whether the question was accepted, why not, and the LLM Checker's raw reply."""

    pairs: tuple[str, ...]
    flag: str | None
    accepted: bool
    reason: str | None = None
    raw: str | None = None
    layout: Layout | None = None

    KEYS = ("pairs", "flag", "accepted", "reason", "raw")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckRecord:
        return cls(tuple(data.get("pairs", ())), data.get("flag"), data.get("accepted", False), data.get("reason"),
                   data.get("raw"), Layout.of(data, cls.KEYS))

    def to_json(self) -> dict[str, Any]:
        return emit({"pairs": list(self.pairs), "flag": self.flag, "accepted": self.accepted, "reason": self.reason,
                     "raw": self.raw}, self.layout, omit=("raw",) if self.raw is None else ())


@dataclass(frozen=True, eq=False)
class TurnRecord(JsonView):
    """One question turn as recorded: its number, the question, the verdict, the answer (``yes`` / ``no``;
    None when rejected), the hard belief b_t, IG_t, the players' soft belief, a flipped answer, the LLM
    Oracle's raw reply."""

    turn: int
    question: str
    checker: CheckRecord
    answer: str | None
    b: Mapping[str, float] | None
    ig: float
    b_soft: Mapping[str, float] | None = None
    flipped: bool = False
    oracle_raw: str | None = None
    layout: Layout | None = None

    KEYS = ("turn", "question", "checker", "answer", "b", "ig", "b_soft", "flipped", "oracle_raw")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TurnRecord:
        return cls(data["turn"], data.get("question", ""), CheckRecord.from_json(data["checker"]), data.get("answer"),
                   data.get("b"), data["ig"], data.get("b_soft"), data.get("flipped", False),
                   data.get("oracle_raw"), Layout.of(data, cls.KEYS))

    def to_json(self) -> dict[str, Any]:
        omit = [k for k, absent in (("b_soft", self.b_soft is None), ("flipped", not self.flipped),
                                    ("oracle_raw", self.oracle_raw is None)) if absent]
        return emit({"turn": self.turn, "question": self.question, "checker": self.checker.to_json(),
                     "answer": self.answer, "b": self.b, "ig": self.ig, "b_soft": self.b_soft,
                     "flipped": self.flipped, "oracle_raw": self.oracle_raw}, self.layout, omit)


@dataclass(frozen=True, eq=False)
class GameRecord(JsonView):
    """One game as ``games.jsonl`` holds it (docs/formats.md): the run and player, the game, b_0, the turns,
    the guess and its belief, how the game ended, the player's own facts, the time it took and, when the
    player was given rules, the rule facts of the game (matches per candidate, the target's rule, its fold)."""

    run: int
    questioner: str
    game: str
    object: str
    target: str
    candidates: tuple[str, ...]
    b0: Mapping[str, float] | None
    b0_soft: Mapping[str, float] | None
    turns: tuple[TurnRecord, ...]
    n_turns: int
    guess: str | None
    guess_raw: str | None
    invalid_guess: bool
    guess_belief: float | None
    guess_soft_belief: float | None
    forced: str | None
    repeated_questions: int
    success: bool
    questioner_info: Mapping[str, Any]
    time_s: float
    rules: Mapping[str, Any] | None = None
    layout: Layout | None = None

    KEYS = ("run", "questioner", "game", "object", "target", "candidates", "b0", "b0_soft", "turns", "n_turns",
            "guess", "guess_raw", "invalid_guess", "guess_belief", "guess_soft_belief", "forced",
            "repeated_questions", "success", "questioner_info", "time_s", "rules")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        return cls(data.get("run", 0), data.get("questioner", ""), data["game"], data.get("object", ""),
                   data["target"], tuple(data.get("candidates", ())), data.get("b0"), data.get("b0_soft"),
                   tuple(TurnRecord.from_json(t) for t in data["turns"]), data["n_turns"], data.get("guess"),
                   data.get("guess_raw"), data.get("invalid_guess", False), data.get("guess_belief"),
                   data.get("guess_soft_belief"), data.get("forced"), data.get("repeated_questions", 0),
                   data["success"], data.get("questioner_info", {}), data.get("time_s", 0.0), data.get("rules"),
                   Layout.of(data, cls.KEYS))

    def to_json(self) -> dict[str, Any]:
        return emit({"run": self.run, "questioner": self.questioner, "game": self.game, "object": self.object,
                     "target": self.target, "candidates": list(self.candidates), "b0": self.b0,
                     "b0_soft": self.b0_soft, "turns": [t.to_json() for t in self.turns], "n_turns": self.n_turns,
                     "guess": self.guess, "guess_raw": self.guess_raw, "invalid_guess": self.invalid_guess,
                     "guess_belief": self.guess_belief, "guess_soft_belief": self.guess_soft_belief,
                     "forced": self.forced, "repeated_questions": self.repeated_questions, "success": self.success,
                     "questioner_info": self.questioner_info, "time_s": self.time_s, "rules": self.rules},
                    self.layout, omit=("rules",) if self.rules is None else ())

    @property
    def target_has_rule(self) -> bool | None:
        """Did the target have a matched rule (None: the player was given no rules)?"""
        return None if self.rules is None else self.rules.get("target_has_rule")


RECORD_FIELDS = {"game": str, "target": str, "success": bool, "n_turns": int, "turns": list}
TURN_FIELDS = {"turn": int, "ig": (int, float), "checker": dict}


def read_game(record: dict[str, Any], path: Path, line: int) -> GameRecord:
    """One ``games.jsonl`` line as a :class:`GameRecord` when it has the fields the metrics read, with their
    types; else a ``run-corrupt`` error naming the line."""
    def bad(what: str) -> KariError:
        return KariError(f"corrupt record: {what}", file=str(path), line=line, code="run-corrupt")

    for key, kind in (*RECORD_FIELDS.items(), ("run", int)):
        if not isinstance(record.get(key, 0 if key == "run" else None), kind):
            raise bad(f"field {key!r} missing or not {kind.__name__}")
    for turn in record["turns"]:
        if not isinstance(turn, dict) or not all(isinstance(turn.get(k), t) for k, t in TURN_FIELDS.items()):
            raise bad("a turn lacks turn, ig or checker")
    return GameRecord.from_json(record)


def read_games(path: Path) -> tuple[list[GameRecord], bool]:
    """The records in ``games.jsonl`` and whether the file must be rewritten (:func:`kari.io.runlog.load_log`)."""
    from kari.io.runlog import load_log

    return load_log(path, read_game)
