"""Typed records of a played game: its record (one ``games.jsonl`` line) with its turns and the Checker's
verdicts, and the reader of ``games.jsonl`` (the run's summary is in :mod:`kari.game.summary`).

Each record is read from and written to its JSON object key for key (:mod:`kari.core.records`): a file written by
an older kari reads into these records and writes back byte for byte. The metrics, the report and the plots
read the typed fields; ``record["success"]`` still reads the JSON form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from kari.core.terms import normalise_term
from kari.errors import KariError
from kari.core.records import JsonRecord, Layout
from kari.io.runlog import load_log

GAMES_FILE = "games.jsonl"


@dataclass(frozen=True, eq=False)
class CheckRecord(JsonRecord):
    """The Checker's verdict on one question as recorded: the pairs it read (``DIMENSION:value``), its flag,
    whether the question was accepted, why not, and the LLM Checker's raw reply."""

    pairs: tuple[str, ...]
    flag: str | None
    accepted: bool
    reason: str | None = None
    raw: str | None = None
    layout: Layout | None = None

    KEYS = ("pairs", "flag", "accepted", "reason", "raw")
    OPTIONAL = ("raw",)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckRecord:
        return replace(super().from_json(data), pairs=tuple(data.get("pairs", ())),
                       accepted=data.get("accepted", False))

    def json_values(self) -> dict[str, Any]:
        return {**super().json_values(), "pairs": list(self.pairs)}


@dataclass(frozen=True, eq=False)
class TurnRecord(JsonRecord):
    """One question turn as recorded: its number, the question, the verdict, the answer (``yes`` / ``no``;
    None when rejected), the hard belief b_t, IG_t, the players' soft belief, a flipped answer, the LLM
    Oracle's raw reply; for a game a person played in ``kari serve``, the seconds the turn took (``time_s``)
    and, when a person answered as Oracle, the benchmark's own answer (``kb_answer``)."""

    turn: int
    question: str
    checker: CheckRecord
    answer: str | None
    b: Mapping[str, float] | None
    ig: float
    b_soft: Mapping[str, float] | None = None
    flipped: bool = False
    oracle_raw: str | None = None
    time_s: float | None = None
    kb_answer: str | None = None
    layout: Layout | None = None

    KEYS = ("turn", "question", "checker", "answer", "b", "ig", "b_soft", "flipped", "oracle_raw", "time_s",
            "kb_answer")
    OPTIONAL = ("b_soft", "oracle_raw", "time_s", "kb_answer")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TurnRecord:
        return replace(super().from_json(data), checker=CheckRecord.from_json(data["checker"]),
                       question=data.get("question", ""), flipped=data.get("flipped", False))

    def json_values(self) -> dict[str, Any]:
        return {**super().json_values(), "checker": self.checker.to_json()}

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.layout is None and not self.flipped:  # written only when an answer was flipped
            data.pop("flipped")
        return data


@dataclass(frozen=True, eq=False)
class GameRecord(JsonRecord):
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
    participant: str | None = None
    layout: Layout | None = None

    KEYS = ("run", "questioner", "game", "object", "target", "candidates", "b0", "b0_soft", "turns", "n_turns",
            "guess", "guess_raw", "invalid_guess", "guess_belief", "guess_soft_belief", "forced",
            "repeated_questions", "success", "questioner_info", "time_s", "rules", "participant")
    OPTIONAL = ("rules", "participant")
    DEFAULTS: ClassVar[dict[str, Any]] = {"run": 0, "questioner": "", "object": "", "candidates": (),
                                          "invalid_guess": False, "repeated_questions": 0, "questioner_info": {},
                                          "time_s": 0.0}
    """The values of keys an older record may lack."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        record = super().from_json({**cls.DEFAULTS, **data})
        return replace(record, candidates=tuple(record.candidates), layout=Layout.of(data, cls.KEYS),
                       turns=tuple(TurnRecord.from_json(t) for t in data["turns"]))

    def json_values(self) -> dict[str, Any]:
        return {**super().json_values(), "candidates": list(self.candidates),
                "turns": [t.to_json() for t in self.turns]}

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


def resolve_guess(raw: str | None, candidates: Sequence[str]) -> str | None:
    """The candidate ``raw`` names (exact, or after spelling normalisation), else None (an invalid guess): how
    a game resolves its questioner's guess."""
    if raw is None:
        return None
    if raw in candidates:
        return raw
    wanted = normalise_term(raw.strip().strip("\"'`.*<>[]()"))
    for cand in candidates:
        if normalise_term(cand) == wanted:
            return cand
    return None


def record_problem(record: GameRecord, config: Mapping[str, Any]) -> str | None:
    """Why a game record cannot be one of its run's, or None: a questioner other than the one the run's
    ``config.json`` names, a target that is not one of its candidates, or a ``success`` that is not what its
    guess, resolved against its candidates as the game resolves it, says."""
    named = config.get("questioner")
    if record.questioner and isinstance(named, str) and named and record.questioner != named:
        return f"its questioner {record.questioner!r} is not the run's ({named!r} in config.json)"
    if record.candidates and record.target not in record.candidates:
        return f"its target {record.target!r} is not one of its candidates"
    given = record.guess if record.guess is not None else record.guess_raw
    chosen = resolve_guess(given, record.candidates) if record.candidates else record.guess
    if record.success != (chosen is not None and chosen == record.target):
        return (f"success is {str(record.success).lower()} but its guess {given!r} resolves to {chosen!r} and its "
                f"target is {record.target!r}")
    return None


def read_games(path: Path) -> tuple[list[GameRecord], bool]:
    """The records in ``games.jsonl`` and whether the file must be rewritten (:func:`kari.io.runlog.load_log`)."""
    return load_log(path, read_game)
