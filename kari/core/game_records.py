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
from kari.core.game_names import MatchMode
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
class MatchFact(JsonRecord):
    """A rule matched to a candidate as a game records it: the rule (its affordance), the rule verb that matched
    (its own or a KB verb grouped into it), the similarity and how it was matched (``embedding`` or ``exact``;
    None in a record of a kari before match modes)."""

    rule: str
    verb: str
    similarity: float
    match: str | None = None
    layout: Layout | None = None

    KEYS = ("rule", "verb", "similarity", "match")


def _matches(data: Any) -> tuple[MatchFact, ...]:
    return tuple(MatchFact.from_json(m) for m in data or ())


@dataclass(frozen=True, eq=False)
class RuleFacts(JsonRecord):
    """A game's rule facts (the ``rules`` of a ``games.jsonl`` record played with ``--rules``): where the rules
    came from (:class:`~kari.core.game_names.RuleOrigin`), the matches per candidate, whether the target has a
    rule, its first match, whether that rule covers the hidden object, whether the hidden object is a KB positive
    of it and which candidates' rules name it so, the weights of players that use rules as evidence, and the fold
    of cross-fitted rules. A fact an older record lacks reads as False (or empty)."""

    source: str | None
    matched: Mapping[str, tuple[MatchFact, ...]]
    target_has_rule: bool
    target_match: MatchFact | None
    target_rule_covers_object: bool
    target_rule_kb_positive: bool = False
    kb_positive_candidates: tuple[str, ...] = ()
    weights: Mapping[str, Mapping[str, Any]] | None = None
    fold: int | None = None
    layout: Layout | None = None

    KEYS = ("source", "matched", "target_has_rule", "target_match", "target_rule_covers_object",
            "target_rule_kb_positive", "kb_positive_candidates", "weights", "fold")
    OPTIONAL = ("source", "weights", "fold")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RuleFacts:
        target = data.get("target_match")
        return replace(super().from_json(data),
                       matched={c: _matches(ms) for c, ms in (data.get("matched") or {}).items()},
                       target_has_rule=bool(data.get("target_has_rule")),
                       target_match=MatchFact.from_json(target) if isinstance(target, Mapping) else None,
                       target_rule_covers_object=bool(data.get("target_rule_covers_object")),
                       target_rule_kb_positive=bool(data.get("target_rule_kb_positive")),
                       kb_positive_candidates=tuple(data.get("kb_positive_candidates") or ()))

    def json_values(self) -> dict[str, Any]:
        return {**super().json_values(),
                "matched": {c: [m.to_json() for m in ms] for c, ms in self.matched.items()},
                "target_match": self.target_match.to_json() if self.target_match is not None else None,
                "kb_positive_candidates": list(self.kb_positive_candidates)}

    def matched_rules(self, candidate: str) -> list[str]:
        """The rules matched to ``candidate``, best first."""
        return [m.rule for m in self.matched.get(candidate, ())]

    def match_mode(self) -> str | None:
        """How the first recorded match was made (``embedding`` for an older record that does not say; None:
        no match at all)."""
        return next((m.match or MatchMode.EMBEDDING for ms in self.matched.values() for m in ms), None)


@dataclass(frozen=True, eq=False)
class QuestionerInfo(JsonRecord):
    """A player's own facts about one game (the ``questioner_info`` of a record): Optimal's ``proven_optimal``
    (every plan proven), ``planned_turns`` and ``plans``; the rules player's ``candidates_with_rules``. Unset
    facts are left out (most players have none)."""

    proven_optimal: bool | None = None
    planned_turns: int | None = None
    plans: int | None = None
    candidates_with_rules: int | None = None
    layout: Layout | None = None

    KEYS = ("proven_optimal", "planned_turns", "plans", "candidates_with_rules")
    OPTIONAL = KEYS

    @classmethod
    def stated(cls, **facts: Any) -> QuestionerInfo:
        """The facts a player states, each written even when None (in the order given)."""
        unknown = sorted(set(facts) - set(cls.KEYS))
        if unknown:
            raise TypeError(f"unknown questioner facts: {', '.join(unknown)}")
        return cls.from_json(facts)


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
    questioner_info: QuestionerInfo
    time_s: float
    rules: RuleFacts | None = None
    participant: str | None = None
    layout: Layout | None = None

    KEYS = ("run", "questioner", "game", "object", "target", "candidates", "b0", "b0_soft", "turns", "n_turns",
            "guess", "guess_raw", "invalid_guess", "guess_belief", "guess_soft_belief", "forced",
            "repeated_questions", "success", "questioner_info", "time_s", "rules", "participant")
    OPTIONAL = ("rules", "participant")
    DEFAULTS: ClassVar[dict[str, Any]] = {"run": 0, "questioner": "", "object": "", "candidates": (),
                                          "invalid_guess": False, "repeated_questions": 0, "time_s": 0.0}
    """The values of keys an older record may lack."""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        record = super().from_json({**cls.DEFAULTS, **data})
        rules = data.get("rules")
        return replace(record, candidates=tuple(record.candidates), layout=Layout.of(data, cls.KEYS),
                       turns=tuple(TurnRecord.from_json(t) for t in data["turns"]),
                       questioner_info=QuestionerInfo.from_json(data.get("questioner_info") or {}),
                       rules=RuleFacts.from_json(rules) if isinstance(rules, Mapping) else None)

    def json_values(self) -> dict[str, Any]:
        return {**super().json_values(), "candidates": list(self.candidates),
                "turns": [t.to_json() for t in self.turns], "questioner_info": self.questioner_info.to_json(),
                "rules": self.rules.to_json() if self.rules is not None else None}

    @property
    def target_has_rule(self) -> bool | None:
        """Did the target have a matched rule (None: the player was given no rules)?"""
        return None if self.rules is None else self.rules.target_has_rule


RECORD_FIELDS: dict[str, type] = {"game": str, "target": str, "success": bool, "n_turns": int, "turns": list}
TURN_FIELDS: dict[str, type | tuple[type, ...]] = {"turn": int, "ig": (int, float), "checker": dict}


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


def game_content(obj: Any, target: Any, candidates: Sequence[Any]) -> tuple[Any, Any, list[Any]]:
    """What makes two games of one id the same game: the hidden object, the target and the candidates (in any
    order). A record and its benchmark game, or two runs' records, are compared by it."""
    return obj, target, sorted(candidates)


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
    ``config.json`` names, a ``n_turns`` other than its turns, a target that is not one of its candidates, or a
    ``success`` that is not what its guess, resolved against its candidates as the game resolves it, says."""
    named = config.get("questioner")
    if record.questioner and isinstance(named, str) and named and record.questioner != named:
        return f"its questioner {record.questioner!r} is not the run's ({named!r} in config.json)"
    if record.n_turns != len(record.turns):
        return f"n_turns is {record.n_turns} but it holds {len(record.turns)} turns"
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
