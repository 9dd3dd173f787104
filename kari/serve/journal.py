"""The study's journal (``serve/journal.jsonl``): every step a participant takes, one line each, appended and
flushed before the step is answered, so a server that stops (a crash, a kill, a power cut) loses no answered turn:
the next ``kari serve`` replays the journal through the same game engine and every game resumes where it stood.

An :class:`Event` is one of :class:`Kind`: a participant's link ``claim`` ed (through the study's join link),
``consent`` given (with the SHA-256 of the text agreed to), a game ``start`` ed (shown), a ``turn`` (the question
asked, or in Oracle mode the answer given), a ``guess``, a ``withdraw`` al. Times are seconds since the epoch
(the journal is private to the study; the records hold durations only). A withdrawal rewrites the journal
without the participant's steps, keeping only the withdrawal itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Any

from kari.errors import KariError
from kari.io.atomic import atomic_write_jsonl
from kari.io.runlog import append, load_log

JOURNAL_FILE = "journal.jsonl"


class Kind(StrEnum):
    CLAIM = "claim"
    CONSENT = "consent"
    START = "start"
    TURN = "turn"
    GUESS = "guess"
    WITHDRAW = "withdraw"


@dataclass(frozen=True)
class Event:
    """One step of one participant (``participant``: their index); ``game`` the benchmark's game id; ``text``
    the question (Questioner mode), the answer ``yes`` / ``no`` (Oracle mode), the candidate guessed or the
    consent text's SHA-256; ``turn`` the turn number a turn event answers; ``t`` when it happened."""

    kind: str
    participant: int
    t: float
    game: str | None = None
    text: str | None = None
    turn: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": str(self.kind), "participant": self.participant, "t": round(self.t, 6)}
        for key in ("game", "text", "turn"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


def read_event(data: Mapping[str, Any], path: Path, line: int) -> Event:
    """A journal line as an :class:`Event`, or a ``run-corrupt`` error naming the line."""
    kind, who, when = data.get("kind"), data.get("participant"), data.get("t")
    ok = kind in tuple(Kind) and all(data.get(k) is None or isinstance(data[k], str) for k in ("game", "text")) \
        and (data.get("turn") is None or type(data["turn"]) is int)
    if not ok or type(who) is not int or who < 0 or not isinstance(when, (int, float)) or isinstance(when, bool):
        raise KariError("corrupt journal entry: expected {kind, participant, t[, game, text, turn]}", file=str(path),
                        line=line, code="run-corrupt")
    return Event(str(kind), who, float(when), data.get("game"), data.get("text"), data.get("turn"))


class Journal:
    """The journal file: read back once (a half-written last line dropped), then appended to, one flushed line
    per event."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.events, dirty = load_log(path, read_event)
        if dirty:
            atomic_write_jsonl(path, [e.to_json() for e in self.events])
        self._handle: IO[str] | None = None

    def add(self, kind: Kind, participant: int, *, game: str | None = None, text: str | None = None,
            turn: int | None = None, now: Callable[[], float] = time.time) -> Event:
        """Append one event (written and flushed before this returns)."""
        event = Event(str(kind), participant, now(), game, text, turn)
        if self._handle is None:
            self._handle = self.path.open("a", encoding="utf-8")
        append(self._handle, event.to_json())
        self.events.append(event)
        return event

    def keep(self, wanted: Callable[[Event], bool], extra: Iterable[Event] = ()) -> None:
        """Rewrite the journal with the events ``wanted`` keeps, then ``extra`` (atomically)."""
        self.close()
        self.events = [e for e in self.events if wanted(e)] + list(extra)
        atomic_write_jsonl(self.path, [e.to_json() for e in self.events])

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


__all__ = ["Event", "JOURNAL_FILE", "Journal", "Kind", "read_event"]
