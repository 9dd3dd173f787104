"""``kari creativity load / solve / judge / score``: the CreativityBench part-level KB, tool-choice tasks, the
benchmark's judge and its output formats."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kari.cli.options import (LLM_DEFAULTS, MAX_BUDGET, MAX_GAMES, MAX_RESAMPLES, MAX_TOKENS, ApiKeyEnv, BaseUrl,
                               CacheDir, LLMAttempts, LLMMaxBytes, LLMTimeout, Model, NoCache, count, llm_options,
                               number, output, output_argument)
from kari.cli.options import seed as seed_option
from kari.cli.options import shard as shard_option
from kari.core.creativity_names import (DEFAULT_MAX_TOKENS, DEFAULT_TURNS, GOAL_THRESHOLD, GOAL_TOP_K,
                                       JUDGE_MAX_TOKENS, LEXICAL_GOALS, RULES, GoalMethod, GoalText, JudgeMethod,
                                       Mode, SolverKind)
from kari.errors import one_of
from kari.io.plan import Shard
from kari.llm.config import LLM

if TYPE_CHECKING:
    from kari.creativity.summary import SolveSummary

creativity_app = typer.Typer(help="CreativityBench: part-level affordance KB, tool-choice tasks, symbolic and LLM "
                                  "solvers (docs/creativity.md).", no_args_is_help=True)


BENCHMARK_REPO_SOLVE = ("A checkout of CreativityBench's repository: the checkout's own code runs (its evaluation/"
                        "evaluate.py, utils.py and models.py build every request: system and user text, temperature, "
                        "max_tokens, as its evaluate.py sends them), so the figures are comparable with the paper's; "
                        "--solver llm only. Without it kari's own prompts are used (labelled as kari's).")
BENCHMARK_REPO_JUDGE = ("A checkout of CreativityBench's repository: the checkout's own evaluation/judge.py runs (its "
                        "snapping, rubric prompts and reading of replies, through its models.py), so kari's judge "
                        "requests are the benchmark's.")


@creativity_app.command("load")
def load(
    files: list[Path] = typer.Argument(..., help="CreativityBench entity and/or task files (JSON array or JSON Lines)."),
    db: Path = output(..., "--db", kind="database", help="KB database (created when missing)."),
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
    out: Optional[Path] = output(None, "--out", "-o", kind="folder", help="Run directory (answers.jsonl, summary.json); "
                                       "resumed (default: runs/creativity-TASKS-SOLVER-GOAL)."),
    solver: str = typer.Option(SolverKind.SYMBOLIC.value, "--solver",
                               help=f"{one_of(SolverKind)} (llm+rules: the matched rule in the prompt)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="KARI rules file (.kari or .jsonl), one rule per "
                                         "affordance (symbolic and llm+rules; default: the shipped "
                                         "data/creativity/rules.kari, induced from the bundled part-level KB)."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database loaded by 'kari creativity load' (part "
                                                         "attributes and its vocabulary); without it parts are "
                                                         "read from the task's descriptions."),
    goal: Optional[str] = typer.Option(None, "--goal", help=f"Goal -> rule, {one_of(GoalMethod)}: rules the rule "
                                       "verbs nearest to the request (Affordance20Q's matcher), oracle the gold "
                                       "affordance (the upper bound); default: rules for the symbolic and "
                                       "llm+rules solvers (llm+rules then always sends the nearest rule, marked as "
                                       "a weak match below --goal-threshold), lexical for the llm solver."),
    goal_threshold: float = number(GOAL_THRESHOLD, "--goal-threshold", low=0.0, high=1.0,
                                   help="--goal rules: the similarity below which a goal's nearest rule is a "
                                        "recorded fallback."),
    goal_top_k: int = count(GOAL_TOP_K, "--goal-top-k", high=1000,
                            help="--goal rules, symbolic solver: try the N nearest rules in order and answer with "
                                 "the first some candidate meets (answers.jsonl records its rank)."),
    goal_text: str = typer.Option(GoalText.REQUEST.value, "--goal-text", help=f"--goal rules, {one_of(GoalText)}: "
                                  "match the request as written or its content words alone."),
    affordances: Optional[Path] = typer.Option(None, "--affordances", help="affordances.jsonl with id and "
                                               "description (default: the bundled benchmark's)."),
    limit: Optional[int] = count(None, "--limit", "-n", high=MAX_GAMES, help="Only the first N tasks."),
    seed: int = seed_option(0, "--seed", help="Seed of the tie-break between equally good candidates and of the "
                                              "interactive mode's listing order."),
    mode: str = typer.Option(Mode.STATIC.value, "--mode", help=f"llm solvers, {one_of(Mode)}: every "
                             "description up front, a structured reasoning object, or one thing inspected per turn."),
    temperature: list[float] = number([0.0], "--temperature", low=0.0, high=2.0,
                                      help="llm solvers: sampling temperature; repeat it for several samples per "
                                           "task (e.g. 0 0.3 0.7 as the benchmark: --temperature 0 --temperature "
                                           "0.3 --temperature 0.7)."),
    max_tokens: int = count(DEFAULT_MAX_TOKENS, "--max-tokens", high=MAX_TOKENS,
                            help="llm solvers: max output tokens per reply."),
    max_turns: int = count(DEFAULT_TURNS, "--max-turns", high=MAX_BUDGET,
                           help="interactive mode: the turn budget, final answer included."),
    base_url: BaseUrl = LLM_DEFAULTS.base_url,
    model: Model = LLM_DEFAULTS.model,
    api_key_env: ApiKeyEnv = LLM_DEFAULTS.api_key_env,
    no_cache: NoCache = LLM_DEFAULTS.no_cache,
    cache_dir: CacheDir = LLM_DEFAULTS.cache_dir,
    llm_timeout: LLMTimeout = LLM_DEFAULTS.timeout,
    llm_attempts: LLMAttempts = LLM_DEFAULTS.attempts,
    llm_max_bytes: LLMMaxBytes = LLM_DEFAULTS.max_bytes,
    shard: Optional[Shard] = shard_option("--shard", help="Answer only shard K of N of the tasks (a fixed split by "
                                          "task id) into OUT, a run directory of its own; 'kari merge' joins the N "
                                          "shards into one run (docs/cluster.md)."),
    benchmark_repo: Optional[Path] = typer.Option(None, "--benchmark-repo", help=BENCHMARK_REPO_SOLVE),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Answer tool-choice tasks and write answers.jsonl and summary.json (tasks, entity_correct_rate,
    gold_correct_rate, the random-choice rates, and for the symbolic solver the oracle-affordance bound)."""
    from kari.creativity.run import SolveConfig, shipped_rules, solve_tasks

    goal = goal or (LEXICAL_GOALS if solver == SolverKind.LLM else RULES)
    if rules is None and solver != SolverKind.LLM:
        rules = shipped_rules()
    out = out or Path("runs") / f"creativity-{tasks.stem}-{solver.replace('+', '-')}-{goal}"
    uses_llm = solver != SolverKind.SYMBOLIC or goal == LLM
    config = SolveConfig(tasks=tasks.resolve(), solver=solver, rules=rules.resolve() if rules else None,
                         db=db.resolve() if db else None, goal=goal,
                         affordances=affordances.resolve() if affordances else None, seed=seed, limit=limit,
                         max_tokens=max_tokens, model=model if uses_llm else None,
                         base_url=base_url if uses_llm else None, mode=mode, temperatures=tuple(temperature),
                         max_turns=max_turns, goal_threshold=goal_threshold, goal_top_k=goal_top_k,
                         goal_text=goal_text, benchmark_repo=benchmark_repo.resolve() if benchmark_repo else None)
    llm = llm_options(base_url, model, api_key_env, no_cache, cache_dir, llm_timeout, llm_attempts, llm_max_bytes)
    summary = solve_tasks(config, out, llm_config=llm.config() if uses_llm else None,
                          progress=not quiet and sys.stderr.isatty(),
                          shard=shard)
    rate = summary.gold_correct_rate
    entity = summary.entity_correct_rate
    text = (f"{summary.tasks} tasks ({summary.answered} answered): entity correct "
            f"{100 * (entity or 0):.1f}%, gold correct {100 * (rate or 0):.1f}% (random: "
            f"{100 * (summary.random_entity_rate or 0):.1f}% / {100 * (summary.random_gold_rate or 0):.1f}%); "
            f"relations {_counts(summary.relations)}")
    matched = summary.goal_rules
    if matched:
        text += f"; goals above the rule threshold {matched['above_threshold']}, fallbacks {matched['fallback']}"
    sent = summary.rules_sent
    if sent:
        text += (f"; rules in the prompt {sent['with_rule']} ({sent['below_threshold']} marked below the threshold), "
                 f"none {sent['without_rule']}")
    if solver != SolverKind.SYMBOLIC:
        text += f"; prompts {(summary.prompts or '').split(':')[0]}"
    _warn_blind_snaps(summary)
    oracle = summary.oracle_affordance
    if oracle:
        text += f"; oracle affordance: gold correct {100 * (oracle['gold_correct_rate'] or 0):.1f}%"
    typer.echo(f"{text} -> {out}" + (f" (shard {shard})" if shard is not None else ""))


def _warn_blind_snaps(summary: SolveSummary) -> None:
    """A warning on stderr when answers named an entity no task entity shares a word with: the benchmark's
    snapping maps them to the first-listed entity (often the gold)."""
    blind = summary.blind_snaps or {}
    if blind.get("entity"):
        typer.echo(f"warning: {blind['entity']} answer(s) name an entity no task entity shares a word with (empty or "
                   "nonsense); the benchmark's snapping maps each to the first-listed entity, "
                   f"{blind['entity_onto_gold']} of them onto the gold: see strict_gold_correct_rate in summary.json",
                   err=True)


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


@creativity_app.command("judge")
def judge(
    run_dir: Path = output_argument(..., kind="folder", help="Run directory of 'kari creativity solve' (the "
                                    "judgement goes into it), or a runner output file of the benchmark's own "
                                    "evaluate.py ({task_id: [sample, ...]}; with --tasks and --out)."),
    tasks: Optional[Path] = typer.Option(None, "--tasks", help="A runner output file's task file."),
    # checked by check_outputs in kari.creativity.judge; a plain option because it is refused beside a run
    # directory, the fuzz test's world for this command
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="A runner output file's judgement folder "
                                       "(judgements.jsonl, judge_summary.json, judged_outputs/; resumed)."),
    benchmark_repo: Optional[Path] = typer.Option(None, "--benchmark-repo", help=BENCHMARK_REPO_JUDGE),
    method: str = typer.Option(JudgeMethod.LLM.value, "--judge", help=f"{one_of(JudgeMethod)}: llm the rubric and "
                               "reasonability level by an LLM (the symbolic scorer where its reply is unreadable), "
                               "symbolic only what words can show."),
    entities: Optional[list[Path]] = typer.Option(None, "--entities", help="Entity files or the benchmark's "
                                                  "1_entity_lookup.json: the predicted part's attributes."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database: the predicted part's attributes when "
                                                         "--entities lacks it."),
    limit: Optional[int] = count(None, "--limit", "-n", high=MAX_GAMES, help="Only the first N tasks not judged yet."),
    max_tokens: int = count(JUDGE_MAX_TOKENS, "--max-tokens", high=MAX_TOKENS,
                            help="Max tokens per judge reply (the benchmark's; with --benchmark-repo the "
                                 "checkout's own call_model decides)."),
    base_url: BaseUrl = LLM_DEFAULTS.base_url,
    model: Model = LLM_DEFAULTS.model,
    api_key_env: ApiKeyEnv = LLM_DEFAULTS.api_key_env,
    no_cache: NoCache = LLM_DEFAULTS.no_cache,
    cache_dir: CacheDir = LLM_DEFAULTS.cache_dir,
    llm_timeout: LLMTimeout = LLM_DEFAULTS.timeout,
    llm_attempts: LLMAttempts = LLM_DEFAULTS.attempts,
    llm_max_bytes: LLMMaxBytes = LLM_DEFAULTS.max_bytes,
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Judge each task's answer as CreativityBench's judge does: the six-field how_to_use rubric (conditions
    covered, attributes grounded, prediction correct, action feasible) and, for a non-gold answer, the
    reasonability level; writes judgements.jsonl, judge_summary.json and judged_outputs/ (resumed)."""
    from kari.creativity.judge import JudgeConfig, judge_run

    llm = llm_options(base_url, model, api_key_env, no_cache, cache_dir, llm_timeout, llm_attempts, llm_max_bytes)
    llm_config = llm.config() if method == JudgeMethod.LLM else None
    config = JudgeConfig(method=method, model=llm_config.model if llm_config else None,
                         base_url=llm_config.base_url if llm_config else None, max_tokens=max_tokens,
                         entities=tuple(str(p.resolve()) for p in entities or ()),
                         db=str(db.resolve()) if db else None, limit=limit,
                         benchmark_repo=str(benchmark_repo.resolve()) if benchmark_repo else None)
    lookup = None
    if benchmark_repo is not None and entities:
        from kari.creativity.upstream import lookup_records

        lookup = lookup_records(entities)
    summary = judge_run(run_dir, config, llm_config=llm_config, progress=not quiet and sys.stderr.isatty(),
                        tasks_file=tasks, out=out, entity_lookup=lookup)
    from kari.cli.play import echo_old_run_notes

    if run_dir.is_dir():
        echo_old_run_notes([run_dir])
    means = {k: v["mean"] for k, v in summary.gold.items()}
    typer.echo(f"{summary.judged} of {summary.tasks} tasks judged ({_counts(summary.how)}); gold answers' "
               f"rubric means {means}; reasonability levels {_counts(summary.reasonability_levels)}; prompts "
               f"{(summary.prompts or '').split(':')[0]} -> {out or run_dir}")


@creativity_app.command("compare")
def compare(
    runs: list[Path] = typer.Argument(..., help="Run directories of 'kari creativity solve' on the same tasks: "
                                                "each later one is compared with the first."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write compare.json and compare.md here."),
    resamples: int = count(10_000, "--resamples", high=MAX_RESAMPLES, help="Bootstrap resamples of every interval."),
    seed: int = seed_option(0, "--seed", help="Seed of the bootstrap."),
) -> None:
    """Paired comparisons of runs on the same tasks: the entity, part, gold and strict gold deltas with paired
    bootstrap intervals over tasks and McNemar's exact test, the gold delta per task difficulty."""
    from kari.io.atomic import atomic_write_json, atomic_write_text, check_output_dir
    from kari.report.comparisons import Settings
    from kari.report.creativity_pairs import compare_runs, markdown

    data = compare_runs(runs, Settings(resamples=resamples, seed=seed))
    text = markdown(data)
    if out is not None:
        folder = check_output_dir(out)
        atomic_write_json(folder / "compare.json", data)
        atomic_write_text(folder / "compare.md", text)
    typer.echo(text, nl=False)


@creativity_app.command("score")
def score(
    answers: Path = typer.Argument(..., help="A runner output or judge output file in CreativityBench's format "
                                             "({task_id: [sample, ...]})."),
    tasks: Path = typer.Option(..., "--tasks", help="The task file the answers are for."),
    out: Optional[Path] = output(None, "--out", "-o", kind="folder", help="Folder for scores.jsonl and summary.json."),
) -> None:
    """Score answers in CreativityBench's own output format as its judge does (entity, part, gold, relation);
    for a judge output, compare kari's scores with the judge's and summarise its rubric."""
    import json

    from kari.creativity.scoring import score_file

    summary = score_file(answers, tasks, out)
    head = summary.headline
    text = (f"{summary.tasks_answered} of {summary.tasks_in_file} tasks answered: entity correct "
            f"{head['entity_correct_rate']}, gold correct {head['gold_correct_rate']}; relations "
            f"{_counts(head['relations'])}")
    if summary.judge is not None:
        text += f"; agrees with the judge: {json.dumps(summary.judge['agree'])} of {summary.judge['samples']}"
    typer.echo(text + (f" -> {out}" if out else ""))


def register(app: typer.Typer) -> None:
    """Add the ``creativity`` group to the root app."""
    app.add_typer(creativity_app, name="creativity")
