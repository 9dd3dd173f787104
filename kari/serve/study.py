"""A study in one process: its participants, their games in progress, the journal and the run directory, behind
one lock (every request is a few milliseconds of engine work; one lock keeps the journal, the records and the
games in one order).

Each participant plays the games the assignment gave them (:mod:`kari.serve.assignment`) in that order: consent
first, then each game is started (shown), played turn by turn and guessed; its record goes into ``games.jsonl``
(the run index is the participant's index, the plan lists which participant plays which game) and
``summary.json`` is rewritten. Every step is journaled before it is answered (:mod:`kari.serve.journal`); on
start the journal is replayed through the same engine, so games resume where they stood, with the same turn
times. A participant who withdraws takes their records with them: the journal keeps only the withdrawal, their
records leave ``games.jsonl``, the summary is rewritten.

What a participant may see is built by :mod:`kari.serve.views` from this module's state, never from the hidden
object before the game's guess (Questioner mode).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from kari.core.benchmark import Benchmark
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.game.checker import make_checker
from kari.game.questioners import QuestionerOptions, make_questioner
from kari.core.game_records import GameRecord
from kari.game.run import finish_run
from kari.core.game_settings import PlayConfig
from kari.game.setup import SetupBuilder
from kari.io.atomic import atomic_write_json
from kari.io.runloop import ResumableRun
from kari.io.text import read_text
from kari.serve.agreement import AGREEMENT_FILE, oracle_agreement
from kari.serve.game import ActiveGame, answer_value
from kari.serve.journal import Event, Journal, Kind
from kari.serve.links import Links, participant_id
from kari.serve.settings import MAX_QUESTION, Mode, StudySettings


@dataclass
class Participant:
    """One participant: their games in order, what they have done, their game in progress."""

    index: int
    id: str
    games: tuple[str, ...]
    claimed: bool = False
    consented: bool = False
    withdrawn: bool = False
    done: dict[str, GameRecord] = field(default_factory=dict)
    active: ActiveGame | None = None

    @property
    def next_game(self) -> str | None:
        """The first of their games not played yet (None: all played)."""
        return next((g for g in self.games if g not in self.done), None)

    @property
    def last(self) -> GameRecord | None:
        """The record of the game they finished last (in their order)."""
        finished = [self.done[g] for g in self.games if g in self.done]
        return finished[-1] if finished else None


class Study:
    """The study's state and the steps participants take (each under the lock, journaled first)."""

    def __init__(self, *, bench: Benchmark, vocab: Vocabulary, config: PlayConfig, settings: StudySettings,
                 assignment: tuple[tuple[str, ...], ...], links: Links, journal: Journal,
                 run: ResumableRun[GameRecord], consent: str, consent_sha: str,
                 clock: Callable[[], float] = time.time) -> None:
        self.bench, self.vocab, self.config, self.settings = bench, vocab, config, settings
        self.links, self.journal, self.run, self.clock = links, journal, run, clock
        self.consent, self.consent_sha = consent, consent_sha
        self.lock = threading.RLock()
        self.games = {g.id: g for g in bench.games}
        self.checker = make_checker(config.checker, vocab)
        self.builder = SetupBuilder(bench, vocab, k=config.reps_k, seed=config.seed, budget=config.budget,
                                    leave_one_out=config.leave_one_out, eps=config.eps, smoothing=config.smoothing,
                                    model_reps=config.model_reps)
        self.options = QuestionerOptions(vocab=vocab, threshold=config.threshold, settings=config.extra)
        count = settings.participants
        self.participants = [Participant(i, participant_id(i, count), games) for i, games in enumerate(assignment)]
        for record in run.records:
            self.participants[record.run].done[record.game] = record
        self._replay()

    @property
    def mode(self) -> str:
        return self.settings.mode

    # -- steps ------------------------------------------------------------------------------------------------

    def claim(self) -> int | None:
        """The join link: the first participant whose link nobody opened yet (None: the study is full)."""
        with self.lock:
            free = next((p for p in self.participants if not p.claimed and not p.withdrawn), None)
            if free is None:
                return None
            self.journal.add(Kind.CLAIM, free.index, now=self.clock)
            free.claimed = True
            return free.index

    def agree(self, index: int) -> Participant:
        """Consent given: the first game starts."""
        with self.lock:
            person = self._open(index)
            if not person.consented:
                self.journal.add(Kind.CONSENT, index, text=self.consent_sha, now=self.clock)
                person.consented = person.claimed = True
                self._start_next(person, None)
            return person

    def start(self, index: int, number: int) -> Participant:
        """Start the participant's game ``number`` (1-based; a repeated request changes nothing)."""
        with self.lock:
            person = self._open(index, consented=True)
            self._start_next(person, number)
            return person

    def ask(self, index: int, number: int, turn: int, text: str) -> Participant:
        """Questioner mode: question ``turn`` of game ``number`` (a repeated request changes nothing)."""
        text = text.strip()
        if not text or len(text) > MAX_QUESTION or any(ord(c) < 32 for c in text):
            raise KariError(f"a question is one line of 1 to {MAX_QUESTION} characters", code="serve-input")
        with self.lock:
            person = self._open(index, consented=True)
            game = self._playing(person, number, Mode.QUESTIONER)
            if self._repeated(game, turn):
                return person
            if game.play.forced:
                raise KariError("no questions are left in this game: make your guess", code="serve-state")
            event = self.journal.add(Kind.TURN, index, game=game.game.id, text=text, turn=turn, now=self.clock)
            game.ask(text, event.t)
            return person

    def answer(self, index: int, number: int, turn: int, value: str) -> Participant:
        """Oracle mode: the answer to question ``turn`` of game ``number``; the player goes on (and may guess)."""
        answer = answer_value(value)
        with self.lock:
            person = self._open(index, consented=True)
            game = self._playing(person, number, Mode.ORACLE)
            if self._repeated(game, turn):
                return person
            event = self.journal.add(Kind.TURN, index, game=game.game.id, text=value, turn=turn, now=self.clock)
            game.answer(answer, event.t)
            self._finish_if_over(person)
            return person

    def guess(self, index: int, number: int, candidate: str) -> Participant:
        """Questioner mode: the final guess of game ``number``; the game's record is written."""
        with self.lock:
            person = self._open(index, consented=True)
            if self._number_done(person, number):
                return person
            game = self._playing(person, number, Mode.QUESTIONER)
            if candidate not in game.setup.candidates:
                raise KariError("the guess is not one of the candidates", code="serve-input")
            event = self.journal.add(Kind.GUESS, index, game=game.game.id, text=candidate, now=self.clock)
            game.make_guess(candidate, event.t)
            self._finish_if_over(person)
            return person

    def withdraw(self, index: int) -> Participant:
        """The participant leaves the study: their steps leave the journal (the withdrawal stays), their records
        leave ``games.jsonl``, and the summary is rewritten."""
        with self.lock:
            person = self.participants[index]
            if person.withdrawn:
                return person
            marker = Event(str(Kind.WITHDRAW), index, self.clock())
            self.journal.keep(lambda e: e.participant != index, [marker])
            self.run.drop(lambda r: r.run == index)
            person.withdrawn, person.active, person.done = True, None, {}
            self._write_summary()
            return person

    def visit(self, index: int) -> Participant:
        """The participant opens their link (the link counts as taken: the join link gives it to nobody else)."""
        with self.lock:
            person = self.participants[index]
            if not person.claimed and not person.withdrawn:
                self._open(index)
            return person

    def close(self) -> None:
        """Write the summary with its plots and close the journal (the server stops)."""
        with self.lock:
            self._write_summary(plots=True)
            self.journal.close()

    # -- helpers ----------------------------------------------------------------------------------------------

    def _open(self, index: int, consented: bool = False) -> Participant:
        person = self.participants[index]
        if person.withdrawn:
            raise KariError("you have withdrawn from this study", code="serve-withdrawn")
        if consented and not person.consented:
            raise KariError("consent first", code="serve-state")
        if not person.claimed:
            self.journal.add(Kind.CLAIM, index, now=self.clock)
            person.claimed = True
        return person

    def _number(self, person: Participant, game_id: str) -> int:
        return person.games.index(game_id) + 1

    def _number_done(self, person: Participant, number: int) -> bool:
        return 1 <= number <= len(person.games) and person.games[number - 1] in person.done

    def _playing(self, person: Participant, number: int, mode: Mode) -> ActiveGame:
        if self.mode != mode:
            raise KariError(f"this study's participants play the {self.mode}, not the {mode}", code="serve-state")
        game = person.active
        if game is None or game.number != number:
            raise KariError(f"game {number} is not the game in play", code="serve-state")
        return game

    @staticmethod
    def _repeated(game: ActiveGame, turn: int) -> bool:
        """Is ``turn`` one already played (a request sent twice)? A turn other than the next one is an error."""
        played = len(game.turns)
        expected = game.pending.turn if game.pending is not None else played + 1
        if turn <= played:
            return True
        if turn != expected:
            raise KariError(f"turn {turn} is not the next turn ({expected})", code="serve-state")
        return False

    def _start_next(self, person: Participant, number: int | None) -> None:
        if person.active is not None:
            if number is not None and number != person.active.number:
                raise KariError(f"game {person.active.number} is in play, not game {number}", code="serve-state")
            return
        game_id = person.next_game
        if game_id is None:
            return
        wanted = self._number(person, game_id)
        if number is not None and number != wanted:
            if number < wanted:
                return  # started and finished already: a repeated request
            raise KariError(f"the next game is game {wanted}, not game {number}", code="serve-state")
        event = self.journal.add(Kind.START, person.index, game=game_id, now=self.clock)
        person.active = self._open_game(person, game_id, event.t)
        self._finish_if_over(person)

    def _open_game(self, person: Participant, game_id: str, now: float) -> ActiveGame:
        game = self.games[game_id]
        setup, hidden, _ = self.builder.build(game, person.index)
        questioner = make_questioner(self.config.questioner, self.options) if self.mode == Mode.ORACLE else None
        return ActiveGame.open(self._number(person, game_id), person.index, person.id, game, hidden, setup,
                               self.checker, self.vocab, max_rejections=self.config.max_rejections, now=now,
                               questioner=questioner)

    def _finish_if_over(self, person: Participant, *, summary: bool = True) -> bool:
        """Once the game in play is over: its record appended to the run and the summary rewritten (``summary``);
        True when a record was written."""
        game = person.active
        if game is None or not game.over:
            return False
        record = game.record()
        person.active = None
        if game.game.id in person.done:
            return False
        self.run.append(record)
        person.done[game.game.id] = record
        if summary:
            self._write_summary()
        return True

    def _write_summary(self, plots: bool = False) -> None:
        folder = self.run.spec.folder
        finish_run(folder, self.config, self.run.records, self.settings.participants, plots=plots and
                   bool(self.run.records))
        if self.mode == Mode.ORACLE:
            atomic_write_json(folder / AGREEMENT_FILE, oracle_agreement(self.run.records, resamples=2000))

    def _replay(self) -> None:
        """Bring every participant back to where the journal says they stood (the records are the truth for
        finished games; a game the journal finished but whose record a crash lost is finished and written)."""
        for event in self.journal.events:
            person = self.participants[event.participant] if event.participant < len(self.participants) else None
            if person is None:
                raise KariError(f"the journal names participant {event.participant}, the study has "
                                f"{len(self.participants)}", file=str(self.journal.path), code="run-corrupt")
            kind = event.kind
            if kind == Kind.WITHDRAW:
                person.withdrawn, person.active = True, None
            elif kind == Kind.CLAIM:
                person.claimed = True
            elif kind == Kind.CONSENT:
                person.claimed = person.consented = True
            elif kind == Kind.START and event.game not in person.done:
                if event.game not in person.games:
                    raise KariError(f"the journal starts game {event.game!r} for {person.id}, who was not given it",
                                    file=str(self.journal.path), code="run-corrupt")
                person.active = self._open_game(person, str(event.game), event.t)
            elif kind in (Kind.TURN, Kind.GUESS) and person.active is not None and person.active.game.id == event.game:
                self._replay_step(person.active, event)
            self._finish_if_over(person, summary=False)
        gone = {p.index for p in self.participants if p.withdrawn}
        self.run.drop(lambda r: r.run in gone)  # a withdrawal a crash interrupted
        self._write_summary()

    def _replay_step(self, game: ActiveGame, event: Event) -> None:
        try:
            if event.kind == Kind.GUESS:
                game.make_guess(str(event.text), event.t)
            elif self.mode == Mode.ORACLE:
                if game.pending is None or game.pending.turn != event.turn:
                    raise KariError("no such question waiting", code="serve-state")
                game.answer(answer_value(str(event.text)), event.t)
            else:
                if event.turn != len(game.turns) + 1:
                    raise KariError("turn out of order", code="serve-state")
                game.ask(str(event.text), event.t)
        except KariError as exc:
            raise KariError(f"the journal does not replay ({exc.message}: {game.participant}, game "
                            f"{game.game.id!r}, turn {event.turn})", file=str(self.journal.path),
                            code="run-corrupt") from None

    # -- the coordinator's figures ----------------------------------------------------------------------------

    def progress(self) -> Mapping[str, Any]:
        """Plays planned and finished, games with all their participants, participants by state."""
        with self.lock:
            active = [p for p in self.participants if not p.withdrawn]
            plays = sum(len(p.games) for p in active)
            finished = sum(len(p.done) for p in active)
            per_game: dict[str, int] = {}
            for p in active:
                for g in p.done:
                    per_game[g] = per_game.get(g, 0) + 1
            return {"participants": len(self.participants), "claimed": sum(p.claimed for p in self.participants),
                    "consented": sum(p.consented for p in active), "withdrawn": sum(p.withdrawn for p in
                                                                                     self.participants),
                    "finished_all": sum(p.consented and p.next_game is None for p in active),
                    "plays": plays, "plays_finished": finished,
                    "games": len({g for p in self.participants for g in p.games}),
                    "games_complete": sum(n >= self.settings.per_game for n in per_game.values())}


def consent_digest(text: str) -> str:
    """The SHA-256 of a consent text (journaled with each consent)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_consent(path: Path | None) -> str:
    """The consent text: the file given, else the shipped one (``kari/serve/consent.txt``)."""
    if path is not None:
        text = read_text(path, "consent text")
    else:
        text = resources.files("kari.serve").joinpath("consent.txt").read_text(encoding="utf-8")
    if not text.strip():
        raise KariError("the consent text is empty", file=None if path is None else str(path), code="bad-input")
    return text


__all__ = ["Participant", "Study", "consent_digest", "read_consent"]
