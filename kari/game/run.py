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

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import bench_inputs, read_benchmark
from kari.core.benchmark import BENCH_FILES
from kari.errors import KariError
from kari.core.game_names import RUN_PLOTS, Player
from kari.core.game_records import GAMES_FILE, GameRecord, game_content, read_game, read_games, record_problem
from kari.core.game_settings import LLM_PARTS, PlayConfig, PlayerSettings, check_settings_values, uses_llm
from kari.core.run_model import RunModel, url_host
from kari.llm.config import LLM
from kari.game.checker import make_checker
from kari.game.engine import play_game
from kari.game.match import RuleSource
from kari.game.metrics import summarise
from kari.game.oracle import make_oracle
from kari.game.parallel import PerThread, ordered_map
from kari.game.plots import plot_run
from kari.game.questioners import QuestionerOptions, make_questioner, questioner_class
from kari.game.summary import RunData, RunSummary
from kari.induce.folds import FOLDS_FILE
from kari.io.atomic import atomic_write_json
from kari.io.text import load_json, read_text
from kari.io.fingerprint import file_input, folder_input
from kari.io.outputs import Input, inputs_of
from kari.io.plan import ItemKey, Plan, Shard
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE
from kari.io.runloop import (LoggedRun, ResumableRun, RunLog, RunSpec, check_run_outputs, read_checked_log, resumable,
                             usage_of)
from kari.io.shards import join_shards, write_merged
from kari.llm import optional_chat_client, session_log
from kari.rules.rulefile import rule_file_fingerprint, rule_file_inputs
from kari.vocab.vocabulary import open_vocabulary, vocabulary_fingerprint

if TYPE_CHECKING:
    from kari.core.benchmark import Benchmark, Game
    from kari.game.questioners.base import Questioner
    from kari.llm.config import LLMConfig
    from kari.vocab.vocabulary import Vocabulary

Reader = Callable[[str], str]
"""How a human player's answers are read (``input``)."""
Writer = Callable[[str], None]
"""How a human player's game is shown (``print``)."""

__all__ = ["CONFIG_FILE", "GAMES_FILE", "GAME_LOG", "LLM_PARTS", "SUMMARY_FILE", "PlayConfig", "PlayerSettings",
           "check_settings_values", "checked_records", "finish_run", "input_files", "input_fingerprints", "load_records",
           "merge_runs",
           "play",
           "play_loaded", "read_inputs", "record_key", "select_games", "uses_llm"]


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


def _endpoint(config: PlayConfig, llm_config: LLMConfig | None) -> LLMConfig | None:
    """The endpoint of the run's LLM players (None when no LLM plays a part; an error when one does and there
    is none)."""
    if not uses_llm(config):
        return None
    if llm_config is None:
        raise KariError("an llm player needs an endpoint: pass --model (and --base-url)", code="game-config")
    return llm_config


def _player_class(config: PlayConfig, concurrency: int, has_rules: bool) -> Any:
    """The questioner's class, once the run's players and their inputs fit together."""
    cls = questioner_class(config.questioner)
    if concurrency < 1 or (concurrency > 1 and cls.name == Player.HUMAN):
        raise KariError("--concurrency must be >= 1 (and 1 for a human player)", code="game-config")
    if cls.name == Player.RULES and not has_rules:
        raise KariError("the rules questioner needs a rules file (--rules FILE)", code="game-config")
    return cls


def read_inputs(config: PlayConfig, concurrency: int = 1) -> tuple[Benchmark, Vocabulary, RuleSource | None]:
    """What the config names, each read once and checked in the order a user meets it: the vocabulary, the
    benchmark (its words read into the vocabulary), the games and players asked for, the rules matched."""
    check_settings_values(config)
    vocab = open_vocabulary(config.vocab, config.db)
    bench = read_benchmark(config.bench, vocab).checked()
    select_games(bench.games, config.games, config.game_ids)
    _player_class(config, concurrency, config.rules is not None)
    rules = None
    if config.rules is not None:  # a rules file, or the cross-fitted RULES.cv folder of kari induce --cv
        rules = RuleSource.load(config.rules, vocab, config.rule_threshold, config.rule_top_k, config.rule_match,
                                flagged=config.flagged)
    return bench, vocab, rules


def play(config: PlayConfig, out: str | Path, *, llm_config: LLMConfig | None = None, progress: bool = True,
         read: Reader = input, write: Writer = print, concurrency: int = 1, shard: Shard | None = None) -> RunSummary:
    """Play the configured games into ``out`` (resuming) and return the run summary: the inputs the config
    names are read (:func:`read_inputs`), then :func:`play_loaded` plays. A run file that would replace one
    of those inputs is refused first."""
    check_run_outputs(Path(out), GAME_LOG, input_files(config), RUN_PLOTS)
    bench, vocab, rules = read_inputs(config, concurrency)
    return play_loaded(config, out, bench=bench, vocab=vocab, rules=rules, llm_config=llm_config, progress=progress,
                       read=read, write=write, concurrency=concurrency, shard=shard).summary


def play_loaded(config: PlayConfig, out: str | Path, *, bench: Benchmark, vocab: Vocabulary,
                rules: RuleSource | None = None, llm_config: LLMConfig | None = None, progress: bool = True,
                read: Reader = input, write: Writer = print, concurrency: int = 1,
                shard: Shard | None = None) -> RunData:
    """:func:`play` on loaded inputs: ``bench`` read into ``vocab`` (which the run may grow), ``rules`` matched
    over the same vocabulary (None: no rules). ``config`` still names the inputs: it is the run's record, and
    the content of every input it names is fingerprinted into ``config.json`` (a resume over changed inputs
    is refused). Returns the played run as ``kari report`` reads it (its summary, every record of the
    directory).

    ``concurrency``: games in flight at once (each thread with its own players, sharing the LLM client); the
    records, and their order in ``games.jsonl``, are those of a sequential run (:mod:`kari.game.parallel`).
    ``shard``: play only the games of shard K of N (:mod:`kari.io.plan`), into a run directory of its own that
    ``kari merge`` joins with the other shards.
    """
    check_settings_values(config)
    games = select_games(bench.games, config.games, config.game_ids)
    cls = _player_class(config, concurrency, rules is not None)
    runs = config.runs if config.runs is not None else cls.default_runs
    if runs < 1:
        raise KariError("--runs must be >= 1", code="game-config")
    plan = Plan("game", tuple(g.id for g in bench.games), runs, tuple(g.id for g in games))
    spec = RunSpec(Path(out), GAME_LOG, config.identity(), config.counts(),
                   inputs=input_fingerprints(config), reads=input_files(config), writes=RUN_PLOTS, plan=plan,
                   shard=shard)
    with resumable(spec) as run:
        return _play_locked(run, config, bench, vocab, games, cls, rules, llm_config, progress, read, write,
                            concurrency, runs)


def check_against_games(records: Sequence[GameRecord], games: Sequence[Game], log: Path) -> None:
    """Refuse a resume whose log holds a record that is not the benchmark's game of its id (another hidden
    object, target or candidates): the log was edited, and its figures would count games nobody played."""
    by_id = {g.id: g for g in games}
    for record in records:
        game = by_id.get(record.game)
        if game is None:       # not a game of the benchmark: the plan check names it
            continue
        if game_content(record.object, record.target, record.candidates) != game_content(game.object, game.target,
                                                                                        game.candidates):
            raise KariError(f"the record of game {record.game} (run {record.run}) hides {record.object!r} with the "
                            f"target {record.target!r}, where the benchmark's game hides {game.object!r} with the "
                            f"target {game.target!r} (or other candidates): the log was changed since it was played; "
                            "start afresh with a new --out", file=str(log), code="run-record")


def record_key(record: GameRecord) -> ItemKey:
    """A game record's key in its run: (game id, run index)."""
    return record.game, record.run


GAME_LOG = RunLog(GAMES_FILE, read_game, record_key, "game", record_problem)
"""``games.jsonl`` as the run loop, ``kari report`` and ``kari merge`` read it."""


def _jobs(games: Sequence[Any], runs: int) -> list[tuple[int, Any]]:
    """(run index, game) of every game to play, in the order a run plays them (:attr:`kari.io.plan.Plan.order`)."""
    return [(index, g) for index in range(runs) for g in games]


def _job_key(job: tuple[int, Any]) -> ItemKey:
    return job[1].id, job[0]


def _play_locked(run: ResumableRun[GameRecord], config: PlayConfig, bench: Benchmark, vocab: Vocabulary,
                 games: list[Game], cls: type[Questioner], matcher: RuleSource | None, llm_config: LLMConfig | None,
                 progress: bool, read: Reader, write: Writer, concurrency: int, runs: int) -> RunData:
    """:func:`play` once its inputs are read and its run directory is locked (no other command writes it)."""
    from kari.game.setup import SetupBuilder

    out = run.spec.folder
    run.check_resume()  # a refused resume stops before any client or call log is made
    with optional_chat_client(_endpoint(config, llm_config), session_log(out)) as client:
        options = QuestionerOptions(vocab=vocab, threshold=config.threshold, questions=config.questions,
                                    temperature=config.temperature, client=client, max_tokens=config.max_tokens,
                                    llm_temperature=config.sampling_temperature, llm_seed=config.sampling_seed,
                                    read=read, write=write, settings=config.extra)

        def make_players() -> tuple[Any, Any, Any]:
            return (make_questioner(config.questioner, options), make_checker(config.checker, vocab, client),
                    make_oracle(config.oracle, vocab, client))

        players = PerThread(make_players, first=make_players())  # built once: bad settings fail before any game
        builder = SetupBuilder(bench, vocab, k=config.reps_k, seed=config.seed, budget=config.budget,
                               leave_one_out=config.leave_one_out, rules=matcher, eps=config.eps,
                               smoothing=config.smoothing, rule_evidence=cls.sees_rules and matcher is not None,
                               oracle_noise=config.oracle_noise, model_reps=config.model_reps,
                               rule_factors=config.extra.rule_factors, rules_in_belief=config.extra.rules_enter_belief,
                               rule_weighting=config.weighting)
        check_against_games(run.start(), bench.games, run.log_path)
        todo = run.todo(_jobs(games, runs), key=_job_key)

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
        usage = usage_of(client).get("llm_usage")
        summary = finish_run(out, config, records, runs, usage, run_model(config, llm_config).with_served(usage),
                             rules_given=matcher.given() if matcher is not None else None)
        return RunData(out, config, summary, records)


def run_model(config: PlayConfig, llm_config: Any = None) -> RunModel:
    """The model record of a run (:class:`~kari.core.run_model.RunModel`): which parts an LLM plays, the model
    name resolved (the endpoint's, else the configured one), its server's host, the questioner's sampling
    temperature and seed."""
    parts = tuple(p for p in LLM_PARTS if getattr(config, p) == LLM)
    if not parts:
        return RunModel(llm=False)
    name = getattr(llm_config, "model", None) or config.model
    sampled = config.questioner == LLM
    return RunModel(llm=True, name=name, host=url_host(getattr(llm_config, "base_url", None) or config.base_url),
                    temperature=config.sampling_temperature if sampled else None,
                    seed=config.sampling_seed if sampled else None, parts=parts)


def finish_run(folder: Path, config: PlayConfig, records: Sequence[GameRecord], runs: int,
               llm_usage: Any = None, model: RunModel | None = None, *, plots: bool = True,
               rules_given: Mapping[str, int] | None = None) -> RunSummary:
    """Write a run directory's ``summary.json`` and plots from its records (a played run, or shards merged);
    ``plots=False``: the summary only (a study served rewrites it after every game, its plots when it stops);
    ``rules_given``: :meth:`~kari.game.match.RuleSource.given` of the player's rules."""
    summary = summarise(records).with_run({**config.identity(), "runs": runs}, llm_usage,
                                          model if model is not None else run_model(config), rules_given)
    atomic_write_json(folder / SUMMARY_FILE, summary.to_json())
    if plots:
        plot_run(summary, config, folder)
    return summary


def merge_runs(shards: Sequence[str | Path], out: str | Path) -> RunSummary:
    """``kari merge``: join the run directories of the shards of one ``kari play`` run into the run directory
    ``out``, whose ``games.jsonl`` and ``summary.json`` are those of the run played unsharded (timings aside;
    :mod:`kari.io.shards` refuses shards that do not form one whole run)."""
    joined = join_shards(shards, GAME_LOG)
    config = PlayConfig.from_json(joined.config)
    found = _shard_summary_entry(shards, "model")
    model = (RunModel.from_json(found) if found is not None else run_model(config)).with_served(joined.llm_usage)
    rules_given = _shard_summary_entry(shards, "rules_given")
    return write_merged(out, joined, GAME_LOG, shards,
                        lambda folder: finish_run(folder, config, joined.records, joined.plan.runs, joined.llm_usage,
                                                  model, rules_given=rules_given))


def _shard_summary_entry(shards: Sequence[str | Path], key: str) -> dict[str, Any] | None:
    """The ``key`` object of the first shard summary that has one (the shards of one run played with one model and
    one rule set: :mod:`kari.io.shards`); None when none has."""
    for folder in shards:
        try:
            summary = load_json(read_text(Path(folder) / SUMMARY_FILE), file=str(Path(folder) / SUMMARY_FILE))
        except KariError:
            continue
        entry = summary.get(key) if isinstance(summary, dict) else None
        if isinstance(entry, dict):
            return entry
    return None


def checked_records(folder: Path) -> LoggedRun[GameRecord]:
    """A run directory's ``games.jsonl`` read back and checked as a resume checks it: a record twice, a game
    that is not in the run's inputs, a run index past its runs or a game of another shard is an error at
    FILE:LINE (a directory of an older kari, which recorded no plan, is checked for repeats only)."""
    return read_checked_log(folder, GAME_LOG)


def input_fingerprints(config: PlayConfig) -> dict[str, Any]:
    """The content fingerprints of what a run reads (:mod:`kari.io.fingerprint`): the benchmark's files, the
    rules file or the fold files of a ``RULES.cv`` folder, the question list, and the vocabulary (the KB
    database's, a vocabulary folder's or the shipped one)."""
    inputs = {"bench": folder_input("the benchmark", config.bench, BENCH_FILES)}
    if config.rules is not None:
        inputs["rules"] = rules_fingerprint(config.rules)
    if config.questions is not None:
        inputs["questions"] = file_input("the question list", config.questions)
    inputs["vocabulary"] = vocabulary_fingerprint(config.vocab, config.db)
    return inputs


def rules_fingerprint(path: Path) -> dict[str, Any]:
    """A rules file's fingerprint, or that of the files the cross-fitted sets of a ``RULES.cv`` folder are read
    from (``folds.json`` and every ``fold<k>.jsonl``)."""

    if not (path.is_dir() or path.suffix == ".cv"):  # as kari.induce.folds.read_rule_sets tells them apart
        return rule_file_fingerprint(path)
    names = [p.name for p in path.iterdir() if re.fullmatch(r"fold\d+\.jsonl", p.name)] if path.is_dir() else []
    return folder_input("the cross-fitted rules", path, [FOLDS_FILE, *names])


def input_files(config: PlayConfig) -> tuple[Input, ...]:
    """The files a run reads (the benchmark's files, the rules with their metadata twin or the files of a
    ``RULES.cv`` folder, the question list, a vocabulary folder's files): no run file may be one."""
    vocab = [p for p in Path(config.vocab).iterdir() if p.is_file()] if config.vocab and Path(config.vocab).is_dir() \
        else []
    return (*bench_inputs(config.bench), *(rule_file_inputs(config.rules) if config.rules is not None else ()),
            *inputs_of("--questions", [config.questions]), *inputs_of("a file of --vocab", vocab))
