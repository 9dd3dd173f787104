"""``kari creativity solve``: answer a task file into a run directory (``answers.jsonl``, ``summary.json``).

Resumable like ``kari play``: a task already in ``answers.jsonl`` is skipped on rerun, a half-written last line
is dropped, each record is appended whole and flushed, ``summary.json`` and ``config.json`` are written
atomically, a rerun with other settings or over inputs whose content changed (the task file, the rules, the
affordance descriptions, the KB database's vocabulary and part tables: their fingerprints in ``config.json``)
is refused, an ``answers.jsonl`` holding a task twice or a task its task file lacks is refused at FILE:LINE, and
the directory is locked while a command writes it. ``--shard K/N`` answers only the tasks of shard K.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import read_jsonl
from kari.creativity.answering import Answerer
from kari.core.creativity_names import (DEFAULT_MAX_TOKENS, DEFAULT_TURNS, GOAL_TEXTS, GOAL_THRESHOLD, GOAL_TOP_K,
                                       LEXICAL_GOALS, RULES, GoalMethod, GoalText, Mode, SolverKind)
from kari.creativity.answers import ANSWERS_FILE, AnswerRecord, read_answer
from kari.creativity.exchange import write_benchmark_outputs
from kari.creativity.goals import GoalMapper
from kari.creativity.llm_solver import LLMSolver
from kari.creativity.model import read_tasks
from kari.creativity.prompting import check_sampling
from kari.creativity.store import open_kb
from kari.creativity.summary import SolveSummary, summarise
from kari.creativity.symbolic import SymbolicSolver
from kari.creativity.upstream import BenchmarkCode, checkout_record
from kari.domain.canon import canonical_rules
from kari.errors import KariError, choice
from kari.io.atomic import atomic_write_json
from kari.io.fingerprint import file_input, table_digest, table_input
from kari.io.outputs import Input, inputs_of
from kari.io.plan import ItemKey, Plan, Shard
from kari.io.runlog import SUMMARY_FILE, paths_as_paths, settings_json
from kari.io.runloop import (LoggedRun, ResumableRun, RunLog, RunSpec, check_run_outputs, read_checked_log, resumable,
                             usage_of)
from kari.io.shards import join_shards, write_merged
from kari.llm import optional_chat_client, require_client, session_log
from kari.llm.config import LLM
from kari.resources import asset_path
from kari.rules.rulefile import load_rule_file, rule_file_fingerprint, rule_file_inputs
from kari.vocab.vocabulary import open_vocabulary, vocabulary_digest, vocabulary_fingerprint

if TYPE_CHECKING:
    from kari.creativity.model import Task
    from kari.vocab.vocabulary import Vocabulary
    from kari.rules.ast import Rule
    from duckdb import DuckDBPyConnection
    from kari.embeddings import Embedder
    from kari.llm.client import ChatClient
    from kari.llm.config import LLMConfig


GOAL_MAX_TOKENS = 64
"""Tokens of an LLM goal mapping's reply."""


PATH_FIELDS = ("tasks", "rules", "db", "affordances", "benchmark_repo")
"""The fields of :class:`SolveConfig` that name files (``Path``; a ``str`` given is read as one)."""


@dataclass(frozen=True)
class SolveConfig:
    """One run's settings (``config.json``); all but ``limit`` must match on resume. ``mode``,
    ``temperatures`` (one sample per value) and ``max_turns`` (the interactive mode's budget) are for the LLM
    solvers (:mod:`kari.creativity.llm_solver`)."""

    tasks: Path
    solver: str = SolverKind.SYMBOLIC
    rules: Path | None = None
    db: Path | None = None
    goal: str = LEXICAL_GOALS
    affordances: Path | None = None
    seed: int = 0
    limit: int | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    model: str | None = None
    base_url: str | None = None
    mode: str = Mode.STATIC
    temperatures: tuple[float, ...] = (0.0,)
    max_turns: int = DEFAULT_TURNS
    goal_threshold: float = GOAL_THRESHOLD
    goal_top_k: int = GOAL_TOP_K
    goal_text: str = GOAL_TEXTS[0]
    benchmark_repo: Path | None = None  # a checkout of the benchmark's repository; None: kari's own prompts

    def __post_init__(self) -> None:
        paths_as_paths(self, PATH_FIELDS)

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the original, as ``config.json`` writes them
        (``benchmark_repo`` only when given, so a ``config.json`` of a kari before it reads back the same)."""
        data = settings_json(self, drop=("limit", *(("benchmark_repo",) if self.benchmark_repo is None else ())))
        data["temperatures"] = list(self.temperatures)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SolveConfig:
        """The settings a ``config.json`` records (keys that are no field, such as its ``inputs``, ignored)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**{**known, "temperatures": tuple(known.get("temperatures", (0.0,)))})


def shipped_rules() -> Path:
    """The rules kari ships for CreativityBench tasks (``data/creativity/rules.kari``: induced from the bundled
    part-level KB without the bundled tasks' gold entities, data/README.md)."""
    return asset_path("data", "creativity", "rules.kari")


def read_affordances(path: str | Path | None) -> dict[str, str]:
    """``id -> description`` from an ``affordances.jsonl`` (default: the bundled benchmark's)."""
    file = Path(path) if path else asset_path("data", "bench", "affordances.jsonl")
    out = {}
    for line, rec in read_jsonl(file):
        if not isinstance(rec.get("id"), str):
            raise KariError("field 'id' must be a string", file=str(file), line=line, code="schema")
        out[rec["id"]] = str(rec.get("description") or "")
    return out


def record_key(record: AnswerRecord) -> ItemKey:
    """An answer record's key in its run: (task id, 0)."""
    return record.task_id, 0


ANSWER_LOG = RunLog(ANSWERS_FILE, read_answer, record_key, "task")
"""``answers.jsonl`` as the run loop, ``kari creativity judge`` and ``kari merge`` read it."""


def checked_records(folder: Path) -> LoggedRun[AnswerRecord]:
    """A run directory's ``answers.jsonl`` read back and checked as a resume checks it: a task twice, a task
    that is not in the run's task file or one of another shard is an error at FILE:LINE (a directory of an
    older kari, which recorded no plan, is checked for repeats only)."""
    return read_checked_log(folder, ANSWER_LOG)


def solve_tasks(config: SolveConfig, out: str | Path, *, llm_config: LLMConfig | None = None, progress: bool = True,
                embedder: Embedder | None = None, shard: Shard | None = None) -> SolveSummary:
    """Answer the configured tasks into ``out`` (resuming) and return the run summary: the files the config
    names are read here, each once, then :func:`solve_loaded` answers."""
    _check_settings(config)
    check_run_outputs(Path(out), ANSWER_LOG, _reads(config))  # no run file over an input, before any is read
    vocab = open_vocabulary(None, config.db)
    tasks = read_tasks(config.tasks)
    rules = []
    if config.rules is not None:  # a .kari file of kari induce with the metadata of its .jsonl (KB verbs)
        rules = canonical_rules(load_rule_file(config.rules), vocab)
    descriptions = read_affordances(config.affordances)
    _check_inputs(config, rules, descriptions, llm_config)
    kb_con = None
    if config.db is not None:
        kb_con = open_kb(config.db)
    try:
        return solve_loaded(config, out, tasks=tasks, rules=rules, vocab=vocab, descriptions=descriptions,
                            kb_con=kb_con, llm_config=llm_config, progress=progress, embedder=embedder, shard=shard)
    finally:
        if kb_con is not None:
            kb_con.close()


def solve_loaded(config: SolveConfig, out: str | Path, *, tasks: Sequence[Task], rules: Sequence[Rule],
                 vocab: Vocabulary, descriptions: Mapping[str, str], kb_con: DuckDBPyConnection | None = None,
                 llm_config: LLMConfig | None = None,
                 progress: bool = True, embedder: Embedder | None = None, shard: Shard | None = None) -> SolveSummary:
    """:func:`solve_tasks` on loaded inputs: the task file's tasks (the first ``config.limit`` are answered;
    the others may have answers from an earlier session with a larger limit), the rules read into ``vocab``,
    the affordance descriptions and an open KB connection (None: parts from the tasks' descriptions).
    ``shard``: answer only the tasks of shard K of N, into a run directory of its own."""
    _check_settings(config)
    affordances = _check_inputs(config, rules, descriptions, llm_config)
    reads = _reads(config)
    chosen = list(tasks)[: config.limit]
    plan = Plan("task", tuple(t.id for t in tasks), 1, tuple(t.id for t in chosen))
    spec = RunSpec(Path(out), ANSWER_LOG, config.identity(), {"limit": config.limit},
                   inputs=input_fingerprints(config, kb_con), reads=reads, plan=plan, shard=shard)
    with resumable(spec) as run:
        run.check_resume()  # a refused resume stops before any client, call log or solver is made
        endpoint = llm_config if _uses_llm(config) else None
        with optional_chat_client(endpoint, session_log(run.spec.folder)) as client:
            mapper = GoalMapper(affordances, config.goal, embedder=embedder, client=client,
                                max_tokens=GOAL_MAX_TOKENS, rules=rules, threshold=config.goal_threshold,
                                top_k=config.goal_top_k, text=config.goal_text)
            return _solve_locked(run, config, list(rules), vocab, mapper, client, kb_con, chosen, progress)


def _reads(config: SolveConfig) -> tuple[Input, ...]:
    """The files a run reads: the tasks, the rules (with their metadata twin), the affordances, the KB."""
    return (*inputs_of("--tasks", [config.tasks]), *(rule_file_inputs(config.rules) if config.rules else ()),
            *inputs_of("--affordances", [config.affordances]), *inputs_of("--db", [config.db]))


def _uses_llm(config: SolveConfig) -> bool:
    return config.solver != SolverKind.SYMBOLIC or config.goal == LLM


def _check_settings(config: SolveConfig) -> None:
    """A :class:`KariError` for settings that do not fit together (before anything is read)."""
    choice(config.solver, SolverKind, "solver", code="creativity-config")
    if config.limit is not None and config.limit < 1 or config.max_tokens < 1 or config.max_turns < 1:
        raise KariError("--limit, --max-tokens and --max-turns must be >= 1", code="creativity-config")
    check_sampling(config.solver, config.mode, config.temperatures)
    choice(config.goal_text, GoalText, "goal text", code="creativity-config")
    if config.goal_top_k < 1:
        raise KariError("--goal-top-k must be >= 1", code="creativity-config")
    if config.rules is None and config.solver != SolverKind.LLM:
        raise KariError(f"the {config.solver} solver needs a rules file (--rules FILE)", code="creativity-config")
    if config.benchmark_repo is not None:
        if config.solver != SolverKind.LLM:
            raise KariError("--benchmark-repo sends the benchmark's own requests: it is for --solver llm (the symbolic "
                            "solver has no prompt; llm+rules adds rules to kari's own prompts)",
                            code="creativity-config")
        checkout_record(config.benchmark_repo)  # not a checkout: one line now, before any work


def _check_inputs(config: SolveConfig, rules: Sequence[Rule], descriptions: Mapping[str, str],
                  llm_config: LLMConfig | None) -> dict[str, str]:
    """The affordances goals are mapped to (those with a rule, else every described one), once the goal
    mapping and the endpoint fit them; before the run directory exists."""
    affordances = {r.affordance: descriptions.get(r.affordance, "") for r in rules} or dict(descriptions)
    choice(config.goal, GoalMethod, "goal mapping", code="creativity-config")
    if _uses_llm(config) and llm_config is None:
        raise KariError("an LLM solver or --goal llm needs an endpoint: pass --model (and --base-url)",
                        code="creativity-config")
    GoalMapper(affordances, LEXICAL_GOALS)  # no affordance to map to fails here
    return affordances


def _solve_locked(run: ResumableRun[AnswerRecord], config: SolveConfig, rules: list[Any], vocab: Vocabulary,
                  mapper: GoalMapper, client: ChatClient | None, kb_con: DuckDBPyConnection | None, tasks: list[Any],
                  progress: bool) -> SolveSummary:
    symbolic = SymbolicSolver(rules, vocab) if rules else None
    is_symbolic = config.solver == SolverKind.SYMBOLIC
    code = None
    if config.benchmark_repo is not None and not is_symbolic:
        asking = require_client(client, f"the {config.solver} solver")
        code = BenchmarkCode(config.benchmark_repo, asking, model=asking.config.model, mode=config.mode,
                             max_turns=config.max_turns, role=f"creativity-{config.mode}")
    solver = symbolic if is_symbolic else LLMSolver(
        require_client(client, f"the {config.solver} solver"), vocab, rules,
        with_rules=config.solver == SolverKind.LLM_RULES, mode=config.mode,
        max_tokens=config.max_tokens, max_turns=config.max_turns, seed=config.seed,
        threshold=config.goal_threshold if config.goal == RULES else None, code=code)
    answerer = Answerer(solver, config.solver, mapper, vocab, config.temperatures, kb_con, config.seed,
                        None if is_symbolic else config.mode, symbolic if is_symbolic else None)
    run.start()
    todo = run.todo(tasks, key=lambda task: (task.id, 0))
    records = run.record(map(answerer.record, todo), len(todo), desc=f"creativity {config.solver}", unit="task",
                         progress=progress)
    return finish_run(run.spec.folder, config, records, usage_of(client).get("llm_usage"), tasks)


def finish_run(folder: Path, config: SolveConfig, records: Sequence[AnswerRecord],
               llm_usage: Mapping[str, Any] | None = None, tasks: Sequence[Task] | None = None) -> SolveSummary:
    """Write a run directory's ``summary.json`` and its answers in the benchmark runner's format from its
    records (a solved run, or shards merged); returns the summary. ``tasks``: the run's tasks (their settings
    break the rates down; default: read from the task file)."""
    answers = [r.to_json() for r in records]
    if tasks is None:
        tasks = read_tasks(config.tasks) if Path(config.tasks).is_file() else []
    by_id = {t.id: t for t in tasks}
    wording = ("none: the symbolic solver has no prompt" if config.solver == SolverKind.SYMBOLIC else
               "benchmark: built by the checkout's own code" if config.benchmark_repo is not None else
               "kari: kari's own prompts (not the benchmark's text; --benchmark-repo DIR sends the benchmark's own)")
    summary = replace(summarise(answers, by_id), prompts=wording, config=config.identity(), llm_usage=llm_usage,
                      benchmark_outputs=write_benchmark_outputs(folder, config, answers))
    atomic_write_json(folder / SUMMARY_FILE, summary.to_json())
    return summary


def merge_runs(shards: Sequence[str | Path], out: str | Path) -> SolveSummary:
    """``kari merge``: join the run directories of the shards of one ``kari creativity solve`` run into the run
    directory ``out``, whose ``answers.jsonl`` and ``summary.json`` are those of the run made unsharded
    (:mod:`kari.io.shards` refuses shards that do not form one whole run)."""
    joined = join_shards(shards, ANSWER_LOG)
    config = SolveConfig.from_json(joined.config)
    return write_merged(out, joined, ANSWER_LOG, shards,
                        lambda folder: finish_run(folder, config, joined.records, joined.llm_usage))


def input_fingerprints(config: SolveConfig, kb_con: DuckDBPyConnection | None = None) -> dict[str, Any]:
    """The content fingerprints of what a run reads (:mod:`kari.io.fingerprint`): the task file, the rules,
    the affordance descriptions (the bundled ones by default) and the vocabulary, with the KB database's part
    tables when it is given (read through ``kb_con`` when open)."""
    inputs = {"tasks": file_input("the task file", config.tasks)}
    if config.rules is not None:
        inputs["rules"] = rule_file_fingerprint(config.rules)
    inputs["affordances"] = file_input("the affordance descriptions",
                                       config.affordances or asset_path("data", "bench", "affordances.jsonl"))
    if config.db is None:
        inputs["vocabulary"] = vocabulary_fingerprint()
    else:
        inputs["db"] = _kb_fingerprint(config.db, kb_con)
    if config.benchmark_repo is not None:
        inputs["benchmark_repo"] = checkout_record(config.benchmark_repo)
    return inputs


KB_TABLES = ("cb_parts", "cb_part_atoms", "cb_part_attributes", "cb_part_affordances", "cb_affordance_attributes")
"""The tables of the KB database a run reads the scenes' parts from (:func:`kari.creativity.store.kb_parts`)."""


def _kb_fingerprint(db: Path, kb_con: DuckDBPyConnection | None) -> dict[str, Any]:
    opened = kb_con is None
    con = open_kb(db) if kb_con is None else kb_con
    try:
        present = {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        digests = {name: table_digest(con, name) if name in present else "none" for name in KB_TABLES}
        return table_input("the KB database", db, {**digests, "vocabulary": vocabulary_digest(con)})
    finally:
        if opened:
            con.close()
