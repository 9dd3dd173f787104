"""A study's run directory: a ``kari play`` run directory (``config.json``, ``plan.json``, ``games.jsonl``,
``summary.json``, plots) that ``kari report`` reads like any other, plus the study's private folder
``serve/`` (mode 0700: the links, the journal, the coordinator's report), which no export carries.

:func:`open_study` opens it through the one resumable run loop (:mod:`kari.io.runloop`): the folder is locked
while the study is served (a second ``kari serve`` on it fails at once), a restart with other settings or over
changed inputs is refused, the log is read back and checked against the plan, in which each participant is a run
index and the plan lists the games each one plays (:attr:`kari.io.plan.Plan.items`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kari.core.benchmark import Game
from kari.core.game_names import OracleKind, Player
from kari.game.run import GAME_LOG, input_files, input_fingerprints, read_inputs, select_games
from kari.core.game_settings import PlayConfig
from kari.io.plan import Plan
from kari.io.runloop import RunSpec, resumable
from kari.serve.assignment import assign
from kari.serve.journal import JOURNAL_FILE, Journal
from kari.serve.links import open_links
from kari.serve.settings import STUDY_KEY, Mode, StudySettings
from kari.serve.study import Study, consent_digest, read_consent

PRIVATE_DIR = "serve"
"""The study's private folder inside its run directory."""


def study_config(bench: Path, settings: StudySettings, *, budget: int, vocab: Path | None = None,
                 db: Path | None = None) -> PlayConfig:
    """The ``kari play`` settings of a study: the participants as Questioner (``human``, the benchmark's facts
    answering) or as Oracle (``human``, a kari player asking); one run index per participant."""
    human_oracle = settings.mode == Mode.ORACLE
    return PlayConfig(bench=bench, questioner=settings.questioner if human_oracle else Player.HUMAN,
                      oracle=OracleKind.HUMAN if human_oracle else OracleKind.KB, seed=settings.seed,
                      runs=settings.participants, budget=budget, vocab=vocab, db=db)


def study_plan(settings: StudySettings, bench_games: Sequence[Game]) -> tuple[Plan, tuple[tuple[str, ...], ...]]:
    """The study's plan (every participant's games, in their order) and its assignment."""
    chosen = select_games(bench_games, settings.games, ())
    assignment = assign([g.id for g in chosen], {g.id: g.object for g in chosen},
                        participants=settings.participants, per_game=settings.per_game, seed=settings.seed)
    items = tuple((game, index) for index, session in enumerate(assignment) for game in session)
    plan = Plan("game", tuple(g.id for g in bench_games), settings.participants, tuple(g.id for g in chosen), items)
    return plan, assignment


@contextmanager
def open_study(config: PlayConfig, settings: StudySettings, out: Path, *, consent: Path | None = None,
               clock: Callable[[], float] = time.time) -> Iterator[Study]:
    """The study in ``out`` (made on the first start, resumed after), locked for the block; its summary and
    plots are written when the block ends. ``clock`` gives each step its time (seconds since the epoch)."""
    consent_text = read_consent(consent)
    bench, vocab, _ = read_inputs(config)
    plan, assignment = study_plan(settings, bench.games)
    spec = RunSpec(out, GAME_LOG, {**config.identity(), STUDY_KEY: settings.to_json()}, {"games": None, "game_ids": []},
                   inputs=input_fingerprints(config), reads=input_files(config), plan=plan)
    with resumable(spec) as run:
        run.start()
        private = out / PRIVATE_DIR
        private.mkdir(mode=0o700, exist_ok=True)
        os.chmod(private, 0o700)
        links = open_links(private, settings.participants)
        journal = Journal(private / JOURNAL_FILE)
        study = Study(bench=bench, vocab=vocab, config=config, settings=settings, assignment=assignment,
                      links=links, journal=journal, run=run, consent=consent_text,
                      consent_sha=consent_digest(consent_text), clock=clock)
        try:
            yield study
        finally:
            study.close()


__all__ = ["PRIVATE_DIR", "open_study", "study_config", "study_plan"]
