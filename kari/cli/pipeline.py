"""``kari pipeline``: the main job (KB -> induce -> coverage -> play -> report) on the bundled data, offline, or
over a grid of players, models and rule sources (``--study FILE.toml``, ``--model``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from kari.cli.options import (FLAGGED_HELP, MAX_ATTEMPTS, MAX_CONCURRENCY, MAX_GAMES, MAX_RUNS, count, number, output,
                              timeout)
from kari.cli.options import seed as seed_option
from kari.core.game_defaults import DEFAULT_QUESTIONERS
from kari.llm.config import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT

DEFAULT_OUT = Path("runs/quickstart")


def pipeline(
    out: Optional[Path] = output(None, "--out", "-o", kind="folder", help=f"Output folder (resumable; default: the "
                                 f"study's out, else {DEFAULT_OUT})."),
    study: Optional[Path] = typer.Option(None, "--study", help="A study file (TOML: players, models with their "
                                         "servers, games, runs, jobs, shards; docs/llm.md); the options below "
                                         "given on the command line take its place."),
    kb: list[Path] = typer.Option([], "--kb", help="KB file(s) to load (default: the bundled KGTK KB)."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory (default: the bundled one)."),
    questioner: list[str] = typer.Option([], "--questioner", "-q",
                                         help="Players (repeatable): NAME, NAME@K, NAME+kb, NAME+rules: @K caps the positives "
                                              "greedy-ig's belief uses (@10: the paper's 10 representatives), "
                                              "+kb gives the KB-anchored rules, +rules the cross-fitted ones; llm "
                                              "players play once per --model (default: "
                                              f"{', '.join(DEFAULT_QUESTIONERS)})."),
    games: Optional[int] = count(None, "--games", "-n", high=MAX_GAMES, help="Play only the first N games."),
    seed: Optional[int] = seed_option(None, "--seed", help="Seed of induction groups, representatives and "
                                       "random choices; an llm player's sampling seed of run k is seed + k "
                                       "(default 0)."),
    runs: Optional[int] = count(None, "--runs", high=MAX_RUNS, help="Runs per game (default: 5 for fix20q, else 1)."),
    jobs: Optional[int] = count(None, "--jobs", "-j", high=MAX_CONCURRENCY,
                                help="Players (and shards) played at once, each in a process of its own (default: "
                                     "the cores); the outputs are those of one after the other."),
    shards: Optional[int] = count(None, "--shards", high=1000, help="Split each player's games into N shards played "
                                  "as jobs of their own and merged (default 1)."),
    flagged_rules: Optional[str] = typer.Option(None, "--flagged-rules", help=FLAGGED_HELP + " The KB coverage and "
                                                "KB-gap ledger count the same rules."),
    model: list[str] = typer.Option([], "--model", help="An LLM model name (repeatable): every llm player plays "
                                    "once with each, on --base-url."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="LLM server URL of the --model names (default "
                                           "$KARI_LLM_BASE_URL)."),
    llm_temperature: Optional[float] = number(None, "--llm-temperature", low=0, high=2,
                                              help="llm players: sampling temperature (default 0)."),
    concurrency: Optional[int] = count(None, "--concurrency", high=MAX_CONCURRENCY,
                                       help="llm players: games (and LLM calls) in flight per run (default 4)."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the key."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the LLM reply cache."),
    cache_dir: Optional[Path] = output(None, "--cache-dir", kind="cache", help="LLM reply cache folder."),
    llm_timeout: float = timeout(DEFAULT_TIMEOUT, "--llm-timeout", help="Seconds to wait for one LLM reply."),
    llm_attempts: int = count(DEFAULT_ATTEMPTS, "--llm-attempts", high=MAX_ATTEMPTS, help="Attempts per LLM call."),
) -> None:
    """Run the main job: load the KB, induce rules, compute coverage, play games (a grid of players x models x rule
    sources, the independent runs side by side), write one report."""
    from dataclasses import replace

    from kari.grid import GridSpec, LLMCalls, ModelSpec, model_specs, read_study
    from kari.pipeline import run_grid

    spec = read_study(study) if study is not None else GridSpec()
    models = model_specs(model, base_url, llm_temperature, concurrency)
    if models and api_key_env != "OPENAI_API_KEY":
        models = tuple(replace(m, api_key_env=api_key_env) for m in models)
    if not models and (llm_temperature is not None or concurrency is not None or base_url is not None):
        models = tuple(ModelSpec(m.name, base_url or m.base_url, m.api_key_env,
                                 m.temperature if llm_temperature is None else llm_temperature,
                                 m.concurrency if concurrency is None else concurrency, m.label)
                       for m in spec.models)
    llm = spec.llm
    if no_cache or cache_dir is not None or llm_timeout != DEFAULT_TIMEOUT or llm_attempts != DEFAULT_ATTEMPTS:
        llm = LLMCalls(cache_dir if cache_dir is not None else llm.cache_dir, no_cache or llm.no_cache,
                       llm_timeout if llm_timeout != DEFAULT_TIMEOUT else llm.timeout,
                       llm_attempts if llm_attempts != DEFAULT_ATTEMPTS else llm.attempts)
    spec = spec.with_options(kb=tuple(kb), bench=bench, players=tuple(questioner), games=games, seed=seed, runs=runs,
                             jobs=jobs, shards=shards, models=models, llm=llm, flagged_rules=flagged_rules)
    run_grid(spec, out if out is not None else (spec.out or DEFAULT_OUT), progress=sys.stderr.isatty(),
             echo=typer.echo)


def register(app: typer.Typer) -> None:
    """Add ``kari pipeline`` to the root app."""
    app.command("pipeline")(pipeline)
