"""``kari play``: play a benchmark's games with one Questioner and write ``games.jsonl``, ``summary.json`` and
plots into a run directory.

The summary covers every record of the directory. Resumable (:mod:`kari.io.runloop`, the loop ``kari creativity
solve`` runs too): a game already in ``games.jsonl`` (same game id and run index) is skipped on rerun; a partial
last line left by a crash is dropped (or, when it is a whole record without its newline, kept) before anything is
appended. Each record is appended as one whole line and flushed; ``summary.json``, ``config.json`` and the plots
are written atomically. A rerun with a different configuration in the same directory is refused, and a second
command on a directory another one is writing fails at once (the directory is locked).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.errors import KariError
from kari.game.names import Player
from kari.game.records import GAMES_FILE, GameRecord, read_game, read_games
from kari.game.settings import LLM_PARTS, PlayConfig, PlayerSettings, check_settings_values, uses_llm
from kari.game.summary import RunData
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE
from kari.io.runloop import ResumableRun, RunSpec, resumable, usage_of

if TYPE_CHECKING:
    from kari.bench.model import Benchmark
    from kari.domain.vocabulary import Vocabulary
    from kari.game.match import RuleSource

__all__ = ["CONFIG_FILE", "GAMES_FILE", "LLM_PARTS", "SUMMARY_FILE", "PlayConfig", "PlayerSettings",
           "check_settings_values", "load_records", "play", "play_loaded", "read_inputs", "select_games", "uses_llm"]


def load_records(path: Path) -> tuple[list[GameRecord], bool]:
    """Records already in ``games.jsonl`` and whether the file must be rewritten (:func:`kari.io.runlog.load_log`)."""
    return read_games(path)


def select_games(games: Sequence[Any], count: int | None, ids: Sequence[str]) -> list[Any]:
    """The games to play: those named in ``ids`` (in that order) or the first ``count`` (all when None)."""
    if ids:
        by_id = {g.id: g for g in games}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise KariError(f"no game {missing[0]!r} in the benchmark", code="game-config")
        return [by_id[i] for i in ids]
    if count is not None and count < 1:
        raise KariError("--games must be >= 1", code="game-config")
    if not games:
        raise KariError("the benchmark has no games (games.jsonl is missing or empty)", code="game-config")
    return list(games[:count] if count is not None else games)


def _client(config: PlayConfig, out: Path, llm_config: Any) -> Any:
    if not uses_llm(config):
        return None
    from kari.llm import CallLog, make_chat_client

    if llm_config is None:
        raise KariError("an llm player needs an endpoint: pass --model (and --base-url)", code="game-config")
    stamp = time.strftime("%Y%m%dT%H%M%S")
    return make_chat_client(llm_config, CallLog(out / f"llm_calls-{stamp}.jsonl"))


def _player_class(config: PlayConfig, concurrency: int, has_rules: bool) -> Any:
    """The questioner's class, once the run's players and their inputs fit together."""
    from kari.game.questioners import questioner_class

    cls = questioner_class(config.questioner)
    if concurrency < 1 or (concurrency > 1 and cls.name == Player.HUMAN):
        raise KariError("--concurrency must be >= 1 (and 1 for a human player)", code="game-config")
    if cls.name == Player.RULES and not has_rules:
        raise KariError("the rules questioner needs a rules file (--rules FILE)", code="game-config")
    return cls


def read_inputs(config: PlayConfig, concurrency: int = 1) -> tuple[Benchmark, Vocabulary, RuleSource | None]:
    """What the config names, each read once and checked in the order a user meets it: the vocabulary, the
    benchmark (its words read into the vocabulary), the games and players asked for, the rules matched."""
    from kari.bench.reader import read_benchmark
    from kari.domain.vocabulary import open_vocabulary
    from kari.game.match import RuleSource

    check_settings_values(config)
    vocab = open_vocabulary(config.vocab, config.db)
    bench = read_benchmark(config.bench, vocab).checked()
    select_games(bench.games, config.games, config.game_ids)
    _player_class(config, concurrency, config.rules is not None)
    rules = None
    if config.rules is not None:  # a rules file, or the cross-fitted RULES.cv folder of kari induce --cv
        rules = RuleSource.load(config.rules, vocab, config.rule_threshold, config.rule_top_k, config.rule_match)
    return bench, vocab, rules


def play(config: PlayConfig, out: str | Path, *, llm_config: Any = None, progress: bool = True,
         read: Any = input, write: Any = print, concurrency: int = 1) -> dict[str, Any]:
    """Play the configured games into ``out`` (resuming) and return the run summary: the inputs the config
    names are read (:func:`read_inputs`), then :func:`play_loaded` plays."""
    bench, vocab, rules = read_inputs(config, concurrency)
    return play_loaded(config, out, bench=bench, vocab=vocab, rules=rules, llm_config=llm_config, progress=progress,
                       read=read, write=write, concurrency=concurrency).summary


def play_loaded(config: PlayConfig, out: str | Path, *, bench: Benchmark, vocab: Vocabulary,
                rules: RuleSource | None = None, llm_config: Any = None, progress: bool = True, read: Any = input,
                write: Any = print, concurrency: int = 1) -> RunData:
    """:func:`play` on loaded inputs: ``bench`` read into ``vocab`` (which the run may grow), ``rules`` matched
    over the same vocabulary (None: no rules). ``config`` still names the inputs: it is the run's record.
    Returns the played run as ``kari report`` reads it (its summary, every record of the directory).

    ``concurrency``: games in flight at once (each thread with its own players, sharing the LLM client); the
    records, and their order in ``games.jsonl``, are those of a sequential run (:mod:`kari.game.parallel`).
    """
    check_settings_values(config)
    games = select_games(bench.games, config.games, config.game_ids)
    cls = _player_class(config, concurrency, rules is not None)
    spec = RunSpec(Path(out), GAMES_FILE, config.identity(), {"games": config.games, "game_ids": list(config.game_ids)},
                   read_game, key=lambda r: (r.game, r.run), reads=_input_files(config))
    with resumable(spec) as run:
        return _play_locked(run, config, bench, vocab, games, cls, rules, llm_config, progress, read, write,
                            concurrency)


def _play_locked(run: ResumableRun[GameRecord], config: PlayConfig, bench: Any, vocab: Any, games: list[Any],
                 cls: Any, matcher: Any, llm_config: Any, progress: bool, read: Any, write: Any,
                 concurrency: int) -> RunData:
    """:func:`play` once its inputs are read and its run directory is locked (no other command writes it)."""
    from kari.game.checker import make_checker
    from kari.game.engine import play_game
    from kari.game.metrics import summarise
    from kari.game.oracle import make_oracle
    from kari.game.parallel import PerThread, ordered_map
    from kari.game.plots import plot_run
    from kari.game.questioners import QuestionerOptions, make_questioner
    from kari.game.setup import SetupBuilder

    out = run.spec.folder
    run.check_resume()
    client = _client(config, out, llm_config)
    options = QuestionerOptions(vocab=vocab, threshold=config.threshold, questions=config.questions,
                                temperature=config.temperature, client=client, max_tokens=config.max_tokens,
                                read=read, write=write, settings=config.extra)

    def make_players() -> tuple[Any, Any, Any]:
        return (make_questioner(config.questioner, options), make_checker(config.checker, vocab, client),
                make_oracle(config.oracle, vocab, client))

    players = PerThread(make_players, first=make_players())  # built once here: bad settings fail before any game
    builder = SetupBuilder(bench, vocab, k=config.reps_k, seed=config.seed, budget=config.budget,
                           leave_one_out=config.leave_one_out, rules=matcher, eps=config.eps, smoothing=config.smoothing,
                           rule_evidence=cls.sees_rules and matcher is not None, oracle_noise=config.oracle_noise,
                           model_reps=config.model_reps, rule_factors=config.extra.rule_factors,
                           rules_in_belief=config.extra.rules_enter_belief, rule_weighting=config.weighting)
    runs = config.runs if config.runs is not None else cls.default_runs
    if runs < 1:
        raise KariError("--runs must be >= 1", code="game-config")
    run.start()
    todo = run.todo(((index, g) for index in range(runs) for g in games), key=lambda job: (job[1].id, job[0]))

    def play_one(job: tuple[int, Any, Any]) -> GameRecord:
        index, game, (setup, hidden, rules) = job
        questioner, checker, oracle = players.get()
        record = play_game(game, hidden, setup, questioner, checker, oracle, vocab,
                           max_rejections=config.max_rejections)
        return replace(record, run=index, questioner=config.questioner, rules=rules)

    def played() -> Iterator[GameRecord]:
        jobs = ((index, game, builder.build(game, index)) for index, game in todo)  # setups built in this thread
        for _, record in ordered_map(play_one, jobs, concurrency):
            yield record

    records = run.record(played(), len(todo), desc=f"{config.questioner}", unit="game", progress=progress)
    summary = summarise(records).with_run({**config.identity(), "runs": runs}, usage_of(client).get("llm_usage"))
    run.finish(summary.to_json())
    plot_run(summary, out)
    return RunData(out, json.loads(json.dumps(config.to_json())), summary, records)


def _input_files(config: PlayConfig) -> tuple[Path, ...]:
    """The files a run reads (the benchmark's files, the rules, the question list): no run file may be one."""
    bench = [p for p in config.bench.iterdir() if p.is_file()] if config.bench.is_dir() else []
    return (*bench, *(p for p in (config.rules, config.questions) if p is not None))
