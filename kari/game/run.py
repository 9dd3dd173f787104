"""``kari play``: play a benchmark's games with one Questioner and write ``games.jsonl``, ``summary.json`` and
plots into a run directory.

The summary covers every record of the directory. Resumable: a game already in ``games.jsonl`` (same game id
and run index) is skipped on rerun; a partial last line left by a crash is dropped (or, when it is a whole
record without its newline, kept) before anything is appended. Each record is appended as one whole line and
flushed; ``summary.json``, ``config.json`` and the plots are written atomically. A rerun with a different
configuration in the same directory is refused, and a second command on a directory another one is writing
fails at once (the directory is locked).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.errors import KariError
from kari.game import defaults
from kari.io.atomic import atomic_write_json, atomic_write_jsonl
from kari.io.lock import output_folder
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE, append, check_settings, load_log, paths_as_paths, settings_json
from kari.game.names import CheckerKind, MatchMode, OracleKind, Player
from kari.llm.config import DEFAULT_MAX_TOKENS, LLM
from kari.game.records import RunData

if TYPE_CHECKING:
    from kari.bench.model import Benchmark
    from kari.domain.vocabulary import Vocabulary
    from kari.game.match import RuleSource

GAMES_FILE = "games.jsonl"
LLM_PARTS = ("questioner", "oracle", "checker")
"""The fields of :class:`PlayConfig` an LLM may play (the value ``llm``)."""


PATH_FIELDS = ("bench", "rules", "questions", "vocab", "db")
"""The fields of :class:`PlayConfig` that name files or folders (``Path``; a ``str`` given is read as one)."""


@dataclass(frozen=True)
class PlayConfig:
    """One run's settings (``config.json``); every field but ``games`` and ``game_ids`` must match on resume."""

    bench: Path
    questioner: str
    oracle: str = OracleKind.KB
    checker: str = CheckerKind.SYMBOLIC
    seed: int = 0
    runs: int | None = None
    games: int | None = None
    game_ids: tuple[str, ...] = ()
    rules: Path | None = None
    rule_threshold: float = defaults.MATCH_THRESHOLD
    rule_top_k: int = defaults.TOP_K
    rule_match: str = MatchMode.EMBEDDING
    questions: Path | None = None
    temperature: float = 1.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    threshold: float = defaults.THRESHOLD
    budget: int = defaults.BUDGET
    max_rejections: int = defaults.MAX_REJECTIONS
    reps_k: int = defaults.REPRESENTATIVES
    leave_one_out: bool = True
    vocab: Path | None = None
    db: Path | None = None
    eps: float = defaults.EPS
    smoothing: float = defaults.SMOOTHING
    oracle_noise: float = 0.0
    model_reps: int | None = None
    model: str | None = None
    base_url: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        paths_as_paths(self, PATH_FIELDS)

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the original, as ``config.json`` writes them."""
        return settings_json(self, drop=("games", "game_ids"))

    def to_json(self) -> dict[str, Any]:
        """The ``config.json`` record: :meth:`identity` and how many games were asked for."""
        return {**self.identity(), "games": self.games, "game_ids": list(self.game_ids)}


def load_records(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Records already in ``games.jsonl`` and whether the file must be rewritten (:func:`kari.io.runlog.load_log`)."""
    return load_log(path, _checked)


RECORD_FIELDS = {"game": str, "target": str, "success": bool, "n_turns": int, "turns": list}
TURN_FIELDS = {"turn": int, "ig": (int, float), "checker": dict}


def _checked(record: dict[str, Any], path: Path, line: int) -> dict[str, Any]:
    """``record`` if it has the fields the metrics read, with their types; else a ``run-corrupt`` error."""
    def bad(what: str) -> KariError:
        return KariError(f"corrupt record: {what}", file=str(path), line=line, code="run-corrupt")

    for key, kind in (*RECORD_FIELDS.items(), ("run", int)):
        if not isinstance(record.get(key, 0 if key == "run" else None), kind):
            raise bad(f"field {key!r} missing or not {kind.__name__}")
    for turn in record["turns"]:
        if not isinstance(turn, dict) or not all(isinstance(turn.get(k), t) for k, t in TURN_FIELDS.items()):
            raise bad("a turn lacks turn, ig or checker")
    return record


def _check_resume(out: Path, config: PlayConfig) -> None:
    check_settings(out / CONFIG_FILE, config.identity(), ignore=("games", "game_ids"))


def uses_llm(config: PlayConfig) -> bool:
    """Does an LLM play a part (questioner, Oracle or Checker) of this run?"""
    return any(getattr(config, part) == LLM for part in LLM_PARTS)


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


def check_settings_values(config: PlayConfig) -> None:
    """A :class:`KariError` for a setting out of its range (before anything is read)."""
    if config.budget < 1 or config.max_rejections < 1 or config.reps_k < 1 or config.max_tokens < 1:
        raise KariError("budget, max rejections, representatives per affordance and max tokens must be >= 1",
                        code="game-config")
    if not 0.0 <= config.eps < 1.0 or not 0.0 <= config.smoothing <= 1.0 or not 0.0 <= config.oracle_noise <= 0.5:
        raise KariError("--eps must be in [0, 1), --smoothing in [0, 1] and --oracle-noise in [0, 0.5]",
                        code="game-config")


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
    out = Path(out)
    check_settings_values(config)
    games = select_games(bench.games, config.games, config.game_ids)
    cls = _player_class(config, concurrency, rules is not None)
    with output_folder(out):
        return _play_locked(config, out, bench, vocab, games, cls, rules, llm_config, progress, read, write,
                            concurrency)


def _play_locked(config: PlayConfig, out: Path, bench: Any, vocab: Any, games: list[Any], cls: Any, matcher: Any,
                 llm_config: Any, progress: bool, read: Any, write: Any, concurrency: int) -> RunData:
    """:func:`play` once its inputs are read and its run directory is locked (no other command writes it)."""
    from kari.game.checker import make_checker
    from kari.game.engine import play_game
    from kari.game.metrics import summarise
    from kari.game.oracle import make_oracle
    from kari.game.parallel import PerThread, ordered_map
    from kari.game.plots import plot_run
    from kari.game.questioners import QuestionerOptions, make_questioner
    from kari.game.setup import SetupBuilder

    _check_resume(out, config)
    client = _client(config, out, llm_config)
    options = QuestionerOptions(vocab=vocab, threshold=config.threshold,
                                questions=config.questions,
                                temperature=config.temperature, client=client, max_tokens=config.max_tokens,
                                read=read, write=write, extra=dict(config.extra))

    def make_players() -> tuple[Any, Any, Any]:
        return (make_questioner(config.questioner, options), make_checker(config.checker, vocab, client),
                make_oracle(config.oracle, vocab, client))

    players = PerThread(make_players, first=make_players())  # built once here: bad settings fail before any game
    builder = SetupBuilder(bench, vocab, k=config.reps_k, seed=config.seed, budget=config.budget,
                           leave_one_out=config.leave_one_out, rules=matcher, eps=config.eps, smoothing=config.smoothing,
                           rule_evidence=cls.sees_rules and matcher is not None, oracle_noise=config.oracle_noise,
                           model_reps=config.model_reps,
                           rule_factors=(config.extra.get("rule_satisfied", defaults.RULE_SATISFIED),
                                         config.extra.get("rule_falsified", defaults.RULE_FALSIFIED)),
                           rules_in_belief=config.extra.get("rules_in_belief", True))
    runs = config.runs if config.runs is not None else cls.default_runs
    if runs < 1:
        raise KariError("--runs must be >= 1", code="game-config")
    atomic_write_json(out / CONFIG_FILE, config.to_json())

    path = out / GAMES_FILE
    records, dirty = load_records(path)
    if dirty:
        atomic_write_jsonl(path, records)
    done = {(r.get("game"), r.get("run", 0)) for r in records}
    todo = [(run, g) for run in range(runs) for g in games if (g.id, run) not in done]
    from tqdm import tqdm

    bar = tqdm(total=len(todo), desc=f"{config.questioner}", unit="game", disable=not progress, leave=False)

    def play_one(job: tuple[int, Any, Any]) -> dict[str, Any]:
        run, game, (setup, hidden, rules) = job
        questioner, checker, oracle = players.get()
        record = {"run": run, "questioner": config.questioner,
                  **play_game(game, hidden, setup, questioner, checker, oracle, vocab,
                              max_rejections=config.max_rejections)}
        if rules is not None:
            record["rules"] = rules
        return record

    jobs = ((run, game, builder.build(game, run)) for run, game in todo)  # setups are built in this thread
    try:
        with path.open("a", encoding="utf-8") as handle:
            for _, record in ordered_map(play_one, jobs, concurrency):
                append(handle, record)
                records.append(record)
                bar.update(1)
    finally:
        bar.close()
    summary = summarise(records)
    summary["config"] = {**config.identity(), "runs": runs}
    if client is not None:
        summary["llm_usage"] = client.usage.as_dict()
    atomic_write_json(out / SUMMARY_FILE, summary)
    plot_run(summary, out)
    return RunData(out, _as_json(config.to_json()), _as_json(summary), records)


def _as_json(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` as its file holds it (enum members and paths as strings)."""
    return json.loads(json.dumps(data))
