"""``kari creativity solve``: answer a task file into a run directory (``answers.jsonl``, ``summary.json``).

Resumable like ``kari play``: a task already in ``answers.jsonl`` is skipped on rerun, a half-written last line
is dropped, each record is appended whole and flushed, ``summary.json`` and ``config.json`` are written
atomically, a rerun with other settings is refused and the directory is locked while a command writes it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.io.atomic import atomic_write_json, atomic_write_jsonl
from kari.io.lock import output_folder
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE, append, check_settings, load_log

ANSWERS_FILE = "answers.jsonl"
SOLVERS = ("symbolic", "llm", "llm+rules")


@dataclass(frozen=True)
class SolveConfig:
    """One run's settings (``config.json``); all but ``limit`` must match on resume."""

    tasks: str
    solver: str = "symbolic"
    rules: str | None = None
    db: str | None = None
    goal: str = "lexical"
    affordances: str | None = None
    seed: int = 0
    limit: int | None = None
    max_tokens: int = 2048
    model: str | None = None
    base_url: str | None = None
    mode: str = "static"
    temperatures: tuple[float, ...] = (0.0,)
    max_turns: int = 15

    def identity(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("limit")
        data["temperatures"] = list(self.temperatures)
        return data


def read_affordances(path: str | None) -> dict[str, str]:
    """``id -> description`` from an ``affordances.jsonl`` (default: the bundled benchmark's)."""
    from kari.bench.model import read_jsonl
    from kari.resources import asset_path

    file = Path(path) if path else asset_path("data", "bench", "affordances.jsonl")
    out = {}
    for line, rec in read_jsonl(file):
        if not isinstance(rec.get("id"), str):
            raise KariError("field 'id' must be a string", file=str(file), line=line, code="schema")
        out[rec["id"]] = str(rec.get("description") or "")
    return out


def load_records(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """Records already in ``answers.jsonl``, and whether the file must be rewritten (:func:`kari.io.runlog.load_log`)."""
    from kari.creativity.answering import check_record

    return load_log(path, check_record)


def _check_resume(out: Path, config: SolveConfig) -> None:
    check_settings(out / CONFIG_FILE, config.identity(), ignore=("limit",))


def solve_tasks(config: SolveConfig, out: str | Path, *, llm_config: Any = None, progress: bool = True,
                embedder: Any = None) -> dict[str, Any]:
    """Answer the configured tasks into ``out`` (resuming) and return the run summary."""
    from kari.creativity.goals import METHODS, GoalMapper
    from kari.creativity.model import read_tasks
    from kari.domain.canon import canonical_rules
    from kari.domain.vocabulary import open_vocabulary

    out = Path(out)
    if config.solver not in SOLVERS:
        raise KariError(f"unknown solver {config.solver!r} (expected one of {', '.join(SOLVERS)})",
                        code="creativity-config")
    if config.limit is not None and config.limit < 1 or config.max_tokens < 1 or config.max_turns < 1:
        raise KariError("--limit, --max-tokens and --max-turns must be >= 1", code="creativity-config")
    from kari.creativity.llm_solver import check_sampling

    check_sampling(config.solver, config.mode, config.temperatures)
    if config.rules is None and config.solver != "llm":
        raise KariError(f"the {config.solver} solver needs a rules file (--rules FILE)", code="creativity-config")
    vocab = open_vocabulary(None, config.db)
    tasks = read_tasks(config.tasks)[: config.limit]
    rules = []
    if config.rules is not None:
        from kari.rules import load_rules

        rules = canonical_rules(load_rules(config.rules), vocab)
    descriptions = read_affordances(config.affordances)
    affordances = {r.affordance: descriptions.get(r.affordance, "") for r in rules} or descriptions
    if config.goal not in METHODS:
        raise KariError(f"unknown goal mapping {config.goal!r} (expected one of {', '.join(METHODS)})",
                        code="creativity-config")
    uses_llm = config.solver != "symbolic" or config.goal == "llm"
    if uses_llm and llm_config is None:
        raise KariError("an LLM solver or --goal llm needs an endpoint: pass --model (and --base-url)",
                        code="creativity-config")
    GoalMapper(affordances, "lexical")  # no affordance to map to fails here, before the run directory exists
    kb_con = None
    if config.db is not None:
        from kari.creativity.store import open_kb

        kb_con = open_kb(config.db)
    try:
        inputs = [p for p in (config.tasks, config.rules, config.affordances, config.db) if p]
        with output_folder(out, writes=(ANSWERS_FILE, CONFIG_FILE, SUMMARY_FILE), inputs=inputs):
            client = None
            if uses_llm:
                from kari.llm import CallLog, make_chat_client

                _check_resume(out, config)
                client = make_chat_client(llm_config,
                                          CallLog(out / f"llm_calls-{time.strftime('%Y%m%dT%H%M%S')}.jsonl"))
            mapper = GoalMapper(affordances, config.goal, embedder=embedder, client=client, max_tokens=64)
            return _solve_locked(config, out, tasks, rules, vocab, mapper, client, kb_con, progress)
    finally:
        if kb_con is not None:
            kb_con.close()


def _solve_locked(config: SolveConfig, out: Path, tasks: list[Any], rules: list[Any], vocab: Any, mapper: Any,
                  client: Any, kb_con: Any, progress: bool) -> dict[str, Any]:
    from tqdm import tqdm

    from kari.creativity.answering import Answerer
    from kari.creativity.exchange import write_benchmark_outputs
    from kari.creativity.llm_solver import LLMSolver
    from kari.creativity.summary import summarise
    from kari.creativity.symbolic import SymbolicSolver

    _check_resume(out, config)
    symbolic = SymbolicSolver(rules, vocab) if rules else None
    solver = symbolic if config.solver == "symbolic" else LLMSolver(
        client, vocab, rules, with_rules=config.solver == "llm+rules", mode=config.mode,
        max_tokens=config.max_tokens, max_turns=config.max_turns, seed=config.seed)
    answerer = Answerer(solver, config.solver, mapper, vocab, config.temperatures, kb_con, config.seed,
                        None if config.solver == "symbolic" else config.mode,
                        symbolic if config.solver == "symbolic" else None)
    atomic_write_json(out / CONFIG_FILE, {**config.identity(), "limit": config.limit})
    path = out / ANSWERS_FILE
    records, dirty = load_records(path)
    if dirty:
        atomic_write_jsonl(path, records)
    done = {r["task_id"] for r in records}
    todo = [t for t in tasks if t.id not in done]
    bar = tqdm(total=len(todo), desc=f"creativity {config.solver}", unit="task", disable=not progress, leave=False)
    try:
        with path.open("a", encoding="utf-8") as handle:
            for task in todo:
                record = answerer.record(task)
                append(handle, record)
                records.append(record)
                bar.update(1)
    finally:
        bar.close()
    summary = summarise(records)
    summary["config"] = config.identity()
    if client is not None:
        summary["llm_usage"] = client.usage.as_dict()
    summary["benchmark_outputs"] = write_benchmark_outputs(out, config, records)
    atomic_write_json(out / SUMMARY_FILE, summary)
    return summary
