"""``kari creativity load`` / ``kari creativity solve``: the CreativityBench part-level KB and tool-choice tasks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from kari.creativity.run import LEXICAL_GOALS, SolverKind
from kari.llm.config import DEFAULT_ATTEMPTS, DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT, LLM

creativity_app = typer.Typer(help="CreativityBench: part-level affordance KB, tool-choice tasks, symbolic and LLM "
                                  "solvers (docs/creativity.md).", no_args_is_help=True)


@creativity_app.command("load")
def load(
    files: list[Path] = typer.Argument(..., help="CreativityBench entity and/or task files (JSON array or JSON Lines)."),
    db: Path = typer.Option(..., "--db", help="KB database (created when missing)."),
    embed: bool = typer.Option(False, "--embed/--no-embed", help="Match attributes the lexicon cannot read to the "
                               "nearest vocabulary value with MiniLM embeddings."),
) -> None:
    """Load entities (parts, attributes, affordances) and tasks into the KB's cb_* tables, attributes also as
    KARI atoms; every file is checked before the database is touched."""
    from kari.creativity.store import load_creativity

    embedder = None
    if embed:
        from kari.embeddings import Embedder

        embedder = Embedder()
    typer.echo(load_creativity(db, files, embedder=embedder).text())


@creativity_app.command("solve")
def solve(
    tasks: Path = typer.Option(..., "--tasks", help="Task file in CreativityBench's format."),
    out: Path = typer.Option(..., "--out", "-o", help="Run directory (answers.jsonl, summary.json); resumed."),
    solver: str = typer.Option(SolverKind.SYMBOLIC.value, "--solver",
                               help="symbolic, llm, or llm+rules (the matched rule in the prompt)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="KARI rules file (.kari or .jsonl), one rule per "
                                                              "affordance (symbolic and llm+rules)."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database loaded by 'kari creativity load' (part "
                                                         "attributes and its vocabulary); without it parts are "
                                                         "read from the task's descriptions."),
    goal: str = typer.Option(LEXICAL_GOALS, "--goal", help="Goal -> affordance: lexical, embedding, llm, or oracle "
                                                       "(the gold affordance: the upper bound)."),
    affordances: Optional[Path] = typer.Option(None, "--affordances", help="affordances.jsonl with id and "
                                               "description (default: the bundled benchmark's)."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help="Only the first N tasks."),
    seed: int = typer.Option(0, "--seed", help="Seed of the tie-break between equally good candidates."),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, "--max-tokens", help="llm: max tokens per reply."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="LLM server URL (default $KARI_LLM_BASE_URL)."),
    model: Optional[str] = typer.Option(None, "--model", help="LLM model name (default $KARI_LLM_MODEL)."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the key."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the LLM reply cache."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="LLM reply cache folder."),
    llm_timeout: float = typer.Option(DEFAULT_TIMEOUT, "--llm-timeout", help="Seconds to wait for one LLM reply."),
    llm_attempts: int = typer.Option(DEFAULT_ATTEMPTS, "--llm-attempts", help="Attempts per LLM call."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Answer tool-choice tasks and write answers.jsonl and summary.json (tasks, entity_correct_rate,
    gold_correct_rate, the random-choice rates, and for the symbolic solver the oracle-affordance bound)."""
    from kari.creativity.run import SolveConfig, solve_tasks
    from kari.llm.config import call_limits

    limits = call_limits(llm_timeout, llm_attempts)
    uses_llm = solver != SolverKind.SYMBOLIC or goal == LLM
    config = SolveConfig(tasks=tasks.resolve(), solver=solver, rules=rules.resolve() if rules else None,
                         db=db.resolve() if db else None, goal=goal,
                         affordances=affordances.resolve() if affordances else None, seed=seed, limit=limit,
                         max_tokens=max_tokens, model=model if uses_llm else None,
                         base_url=base_url if uses_llm else None)
    llm_config = None
    if uses_llm:
        from kari.llm import LLMConfig

        llm_config = LLMConfig.from_env(base_url=base_url, model=model, api_key_env=api_key_env,
                                        use_cache=not no_cache, cache_dir=cache_dir, **limits)
    summary = solve_tasks(config, out, llm_config=llm_config, progress=not quiet and sys.stderr.isatty())
    rate = summary["gold_correct_rate"]
    entity = summary["entity_correct_rate"]
    text = (f"{summary['tasks']} tasks ({summary['answered']} answered): entity correct "
            f"{100 * (entity or 0):.1f}%, gold correct {100 * (rate or 0):.1f}% (random: "
            f"{100 * (summary['random_entity_rate'] or 0):.1f}% / {100 * (summary['random_gold_rate'] or 0):.1f}%)")
    oracle = summary.get("oracle_affordance")
    if oracle:
        text += f"; oracle affordance: gold correct {100 * (oracle['gold_correct_rate'] or 0):.1f}%"
    typer.echo(f"{text} -> {out}")


def register(app: typer.Typer) -> None:
    """Add the ``creativity`` group to the root app."""
    app.add_typer(creativity_app, name="creativity")
