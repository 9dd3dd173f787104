"""``kari play`` / ``kari report`` / ``kari export-prompts``: Affordance20Q games, run comparison, prompts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kari.cli.options import (FLAGGED_HELP, LLM_DEFAULTS, MATCH_DEFAULTS, MAX_BUDGET, MAX_CONCURRENCY, MAX_GAMES,
                               MAX_ITEMS, MAX_RESAMPLES, MAX_RUNS, MAX_TOKENS, ApiKeyEnv, BaseUrl, CacheDir, LLMAttempts,
                               LLMMaxBytes, LLMTimeout, MatchThreshold, Model, NoCache, RuleMatch, TopK, count,
                               llm_options, number, output)
from kari.cli.options import seed as seed_option
from kari.cli.options import shard as shard_option
from kari.errors import KariError, one_of
from kari.core import game_defaults as defaults
from kari.core.formats import ReportFormat
from kari.core.game_names import CheckerKind, OracleKind, Player, RuleWeighting
from kari.io.plan import Shard
from kari.llm.config import DEFAULT_MAX_TOKENS, LLM

if TYPE_CHECKING:
    from kari.game.summary import RunSummary

QUESTIONER_HELP = f"{one_of(Player)}."
WEIGHTS_HELP = (f"greedy-ig +rules: factors from each rule's own evidence (precision and support; docs/method.md) or "
                f"fixed ({defaults.RULE_SATISFIED:g} satisfied / {defaults.RULE_FALSIFIED:g} falsified for every rule); "
                f"one of {one_of(RuleWeighting)} (default {defaults.RULE_WEIGHTING}).")


def play(
    out: Path = output(..., "--out", "-o", kind="folder", help="Run directory (games.jsonl, summary.json, plots); "
                       "resumed."),
    questioner: str = typer.Option(Player.OPTIMAL.value, "--questioner", "-q", help=f"The player: {QUESTIONER_HELP}"),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory (default: the bundled one)."),
    games: Optional[int] = count(None, "--games", "-n", high=MAX_GAMES, help="Play only the first N games."),
    game: list[str] = typer.Option([], "--game", help="Play only this game id (repeatable)."),
    seed: int = seed_option(0, "--seed", help="Seed of representatives and of random choices."),
    runs: Optional[int] = count(None, "--runs", high=MAX_RUNS, help="Runs per game (default: 5 for fix20q, else 1)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Rules file: given to rules/llm players; splits metrics."),
    match_threshold: MatchThreshold = MATCH_DEFAULTS[0],
    top_k: TopK = MATCH_DEFAULTS[2],
    match: RuleMatch = MATCH_DEFAULTS[1],
    rule_weights: Optional[str] = typer.Option(None, "--rule-weights", help=WEIGHTS_HELP),
    flagged_rules: Optional[str] = typer.Option(None, "--flagged-rules", help=FLAGGED_HELP),
    questions: Optional[Path] = typer.Option(None, "--questions", help="fix20q: TSV of DIMENSION<TAB>value questions."),
    softmax_temperature: float = number(1.0, "--softmax-temperature", low=0, high=1e6, low_open=True,
                                        help="fix20q: temperature of the guess."),
    llm_temperature: Optional[float] = number(None, "--llm-temperature", low=0, high=2,
                                              help="llm questioner: sampling temperature (default 0); above 0 run k "
                                                   "of --runs sends the sampling seed --seed + k to the server."),
    oracle: str = typer.Option(OracleKind.KB.value, "--oracle", help=f"Oracle: {one_of((OracleKind.KB, OracleKind.LLM))}."),
    checker: str = typer.Option(CheckerKind.SYMBOLIC.value, "--checker", help=f"Checker: {one_of(CheckerKind)}."),
    budget: int = count(defaults.BUDGET, "--budget", high=MAX_BUDGET, help="Questions per game before a forced guess."),
    eps: float = number(defaults.EPS, "--eps", low=0, high=1, high_open=True, help="Soft belief: weight factor of a representative per "
                              "answer that contradicts it (0 = hard elimination)."),
    smoothing: float = number(defaults.SMOOTHING, "--smoothing", low=0, high=1, help="Soft belief: probability that an "
                                    "answer follows the candidate's property frequencies, not one representative."),
    stop_belief: float = number(defaults.STOP_BELIEF, "--stop-belief", low=0, high=1, help="greedy-ig: guess once the soft "
                                      "belief of a candidate reaches this."),
    model_reps: Optional[int] = count(None, "--model-reps", high=MAX_ITEMS, help="Soft belief: at most this many "
                                             "positives per candidate (default: all but the hidden object)."),
    oracle_noise: float = number(0.0, "--oracle-noise", low=0, high=0.5, help="Flip each Oracle answer with this probability "
                                       "(seeded per game)."),
    min_gain: float = number(defaults.MIN_GAIN, "--min-gain", low=0, high=1e6, help="greedy-ig: guess when no question is "
                                   "expected to gain this many bits."),
    lookahead: int = count(defaults.LOOKAHEAD, "--lookahead", high=2, help="greedy-ig: 1 = one question ahead, 2 = two."),
    max_tokens: int = count(DEFAULT_MAX_TOKENS, "--max-tokens", high=MAX_TOKENS,
                            help=f"llm questioner: max tokens per reply (paper: {DEFAULT_MAX_TOKENS})."),
    reps: int = count(defaults.REPRESENTATIVES, "--reps", high=MAX_ITEMS, help="Representative objects per affordance."),
    vocab: Optional[Path] = typer.Option(None, "--vocab", help="Vocabulary folder (default: the shipped one)."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database whose vocabulary to use (read only)."),
    interactive: bool = typer.Option(False, "--interactive", help="Play yourself in the terminal (human baseline)."),
    base_url: BaseUrl = LLM_DEFAULTS.base_url,
    model: Model = LLM_DEFAULTS.model,
    api_key_env: ApiKeyEnv = LLM_DEFAULTS.api_key_env,
    no_cache: NoCache = LLM_DEFAULTS.no_cache,
    cache_dir: CacheDir = LLM_DEFAULTS.cache_dir,
    llm_timeout: LLMTimeout = LLM_DEFAULTS.timeout,
    llm_attempts: LLMAttempts = LLM_DEFAULTS.attempts,
    llm_max_bytes: LLMMaxBytes = LLM_DEFAULTS.max_bytes,
    concurrency: int = count(1, "--concurrency", "-j", high=MAX_CONCURRENCY,
                                    help="Games in flight at once (for LLM players: also the LLM client's limit of "
                                         "calls in flight). Records and their order are those of a sequential run."),
    shard: Optional[Shard] = shard_option("--shard", help="Play only shard K of N of the games (a fixed split by "
                                          "game id) into OUT, a run directory of its own; 'kari merge' joins the N "
                                          "shards into one run (docs/cluster.md)."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Play Affordance20Q games and write games.jsonl, summary.json and plots into OUT (file formats:
    docs/formats.md; the game and its metrics: docs/method.md)."""
    from kari.core.game_settings import PlayerSettings
    from kari.game.run import PlayConfig
    from kari.resources import bundled_bench_dir

    llm = llm_options(base_url, model, api_key_env, no_cache, cache_dir, llm_timeout, llm_attempts, llm_max_bytes)
    if questions is not None:
        from kari.io.text import read_text

        if questioner != Player.FIX20Q:
            raise KariError(f"--questions is the {Player.FIX20Q.value} questioner's question list; --questioner "
                            f"{questioner} asks questions of its own and would not read it", code="bad-option")
        read_text(questions, "question list")  # a missing or non-UTF-8 list fails here, before any game
    llm_parts = LLM in (questioner, oracle, checker)
    llm_config = llm.config(concurrency=concurrency if concurrency > 1 else None) if llm_parts else None
    config = PlayConfig(
        bench=(bench or bundled_bench_dir()).resolve(), questioner=Player.HUMAN if interactive else questioner,
        oracle=oracle, checker=checker, seed=seed, runs=runs, games=games, game_ids=tuple(game),
        rules=rules.resolve() if rules else None, rule_threshold=match_threshold, rule_top_k=top_k,
        rule_match=match, rule_weights=rule_weights, flagged_rules=flagged_rules,
        questions=questions.resolve() if questions else None, temperature=softmax_temperature, budget=budget,
        max_tokens=max_tokens,
        reps_k=reps, eps=eps, smoothing=smoothing, oracle_noise=oracle_noise, model_reps=model_reps,
        extra=PlayerSettings(min_gain=min_gain, lookahead=lookahead, stop_belief=stop_belief)
        if questioner == Player.GREEDY_IG else PlayerSettings(),
        vocab=vocab, db=db.resolve() if db else None, model=llm_config.model if llm_config else None,
        base_url=base_url if llm_parts else None, llm_temperature=llm_temperature)
    if interactive:
        from kari.game.interactive import play_interactive

        if concurrency > 1 or shard is not None:
            raise KariError("--interactive plays one game at a time (no --concurrency, no --shard)",
                            code="game-config")

        play_interactive(config, out, games=games or 1)
        return
    from kari.game.run import play as run_play

    summary = run_play(config, out, llm_config=llm_config, progress=not quiet and sys.stderr.isatty(),
                       concurrency=concurrency, shard=shard)
    typer.echo(summary_line(summary, out) + (f" (shard {shard})" if shard is not None else ""))


def summary_line(summary: RunSummary, out: Path) -> str:
    """The one line ``kari play`` prints about a run's :class:`~kari.game.summary.RunSummary`."""
    sr, turns = summary.success_rate, summary.avg_turns_solved
    text = (f"{summary.games} games x {summary.runs} run(s): SR {100 * (sr or 0):.1f}%, "
            f"turns (solved) {'-' if turns is None else f'{turns:.2f}'}")
    cov = summary.by_rule_coverage
    if cov:
        text += "; " + ", ".join(f"{k} SR {100 * (v.success_rate or 0):.1f}% ({v.games})" for k, v in cov.items())
    given = summary.rules_given
    if given:
        skipped = given.get("flagged_skipped", 0)
        text += f"; {given.get('rules', 0):,} rules given"
        text += f", {skipped:,} flagged KB rules skipped" if skipped else ""
    return text + f" -> {out}"


def report(
    runs: list[Path] = typer.Argument(..., help="Run directories written by kari play."),
    out: Optional[Path] = output(None, "--out", "-o", kind="folder", help="Write report.md, report.json, leaderboard.csv, "
                                       "leaderboard.json and ig_over_turns.png here."),
    output_format: str = typer.Option(ReportFormat.MD.value, "--format", help=f"What to print: {one_of(ReportFormat)}: "
                                      "md the Markdown report, csv or json the leaderboard (one row per run, best SR "
                                      "first)."),
    resamples: int = count(10_000, "--resamples", high=MAX_RESAMPLES, help="Bootstrap resamples of every interval."),
    seed: int = seed_option(0, "--seed", help="Seed of the bootstrap."),
    html: bool = typer.Option(False, "--html", help="Also write report.html (one self-contained page: tables, "
                              "filters, transcripts, rules with proofs) into --out."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="HTML: rules to show with coverage and proofs "
                                         "(default: the rules file of the first run played with rules)."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark of the games and objects of the "
                                         "proofs and the KB-gap ledger (default: the runs' own)."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB whose vocabulary and edges back the proofs and the "
                                      "KB-gap ledger (default: the runs' own)."),
) -> None:
    """Compare runs side by side: SR and turns with 95% intervals, paired deltas with McNemar's test (Markdown,
    report.json, a leaderboard as CSV / JSON), IG over turns, the KB-gap ledger of the run whose rules split the
    games (kb_gaps.csv), and with --html a browsable page."""
    from kari.errors import choice
    from kari.report.leaderboard import leaderboard_csv
    from kari.report.writer import ReportOptions, write_report

    choice(output_format, ReportFormat, "format", code="bad-option")
    made = write_report(runs, out, ReportOptions(resamples=resamples, seed=seed, html=html, rules=rules,
                                                  bench=bench, db=db))
    echo_old_run_notes(runs)
    if output_format == ReportFormat.MD:
        typer.echo(made.markdown, nl=False)
    elif output_format == ReportFormat.CSV:
        typer.echo(leaderboard_csv(made.leaderboard), nl=False)
    else:
        import json

        typer.echo(json.dumps(made.leaderboard, indent=2, ensure_ascii=False))


def echo_old_run_notes(run_dirs: list[Path]) -> None:
    """A note on stderr for each run directory of an older kari (no fingerprints, no plan: checked less)."""
    from kari.io.runloop import old_run_note

    for folder in run_dirs:
        note = old_run_note(folder)
        if note:
            typer.echo(f"note: {note}", err=True)


def export_prompts(
    rules: Path = typer.Option(..., "--rules", help="Rules file (.kari or .jsonl)."),
    out: Path = output(..., "--out", "-o", kind="folder", help="Output directory."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory (default: the bundled one)."),
    games: Optional[int] = count(None, "--games", "-n", high=MAX_GAMES, help="Only the first N games."),
    match_threshold: MatchThreshold = MATCH_DEFAULTS[0],
    top_k: TopK = MATCH_DEFAULTS[2],
    match: RuleMatch = MATCH_DEFAULTS[1],
    budget: int = count(defaults.BUDGET, "--budget", high=MAX_BUDGET, help="Question budget stated in the prompt."),
) -> None:
    """Write each game's Questioner prompt with its matched rules (prompts/*.txt, prompts.jsonl, coverage.json)."""
    from kari.game.export import export_prompts as run_export
    from kari.resources import bundled_bench_dir

    cov = run_export(bench or bundled_bench_dir(), rules, out, threshold=match_threshold, top_k=top_k, games=games,
                     budget=budget, match_mode=match)
    share = cov["target_covered_share"]
    typer.echo(f"{cov['games']} prompts -> {out}; target covered by a matched rule in {cov['target_covered']} games"
               f" ({100 * (share or 0):.1f}%)")


def register(app: typer.Typer) -> None:
    """Add ``kari play``, ``kari report`` and ``kari export-prompts`` to the root app."""
    app.command("play")(play)
    app.command("report")(report)
    app.command("export-prompts")(export_prompts)
