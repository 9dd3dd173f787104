"""``kari induce``: KARI rule induction (Proposer / Validator / Auditor loop) from the KB or a benchmark."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from kari.llm.config import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT


def induce(
    out: Path = typer.Option(..., "--out", help="The .kari rules file to write (the .jsonl form goes beside it)."),
    db: Path | None = typer.Option(None, "--db", help="KB database (kari kb load): the evidence without --bench, "
                                    "and the vocabulary store read and extended (with --bench, created if missing)."),
    bench: Path | None = typer.Option(None, "--bench", help="Benchmark directory to induce from (labels + objects)."),
    run_dir: Path | None = typer.Option(None, "--run-dir", help="Run directory (default: OUT with suffix .run)."),
    llm: str = typer.Option("offline", "--llm", help="Backend: offline (symbolic, no network) or openai."),
    affordance: list[str] = typer.Option([], "--affordance", "-a", help="Only these affordances (repeatable)."),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N affordances (a cheap trial run)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the 3-group split."),
    max_atoms: int = typer.Option(3, "--max-atoms", help="Offline proposer: at most K atoms per branch."),
    seed_branches: int = typer.Option(3, "--seed-branches", help="Offline proposer: at most this many seed branches."),
    min_precision: float = typer.Option(0.4, "--min-precision", help="Offline proposer: precision floor of a branch."),
    negatives: str = typer.Option("auto", "--negatives", help="Known negatives: auto, labelled or closed-world."),
    semantics: str = typer.Option(
        "any-part", "--semantics", help="Coverage semantics for scoring: any-part or strict."
    ),
    repair_attempts: int = typer.Option(2, "--repair-attempts", help="Repair attempts for an invalid proposal."),
    base_url: str | None = typer.Option(None, "--base-url", help="openai: server URL (default $KARI_LLM_BASE_URL)."),
    model: str | None = typer.Option(None, "--model", help="openai: model name (default $KARI_LLM_MODEL)."),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY", "--api-key-env", help="openai: environment variable holding the key."
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="openai: do not read or write the reply cache."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="openai: reply cache folder."),
    llm_timeout: float = typer.Option(DEFAULT_TIMEOUT, "--llm-timeout", help="openai: seconds to wait for one reply "
                                      "before the attempt counts as failed."),
    llm_attempts: int = typer.Option(DEFAULT_ATTEMPTS, "--llm-attempts", help="openai: attempts per call "
                                     "(timeouts, connection errors, HTTP 429 and 5xx are retried with backoff)."),
    fresh: bool = typer.Option(False, "--fresh", help="Start over instead of resuming the run directory."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no timer table."),
) -> None:
    """Induce one rule per affordance verb and write RULES.kari, RULES.jsonl and the run directory.

    The Proposer / Validator / Auditor loop is described in docs/method.md (section 2); the files it writes in
    docs/formats.md.
    """
    from kari.induce.config import InduceConfig
    from kari.induce.run import induce as run_induce
    from kari.llm.config import call_limits

    limits = call_limits(llm_timeout, llm_attempts)
    config = InduceConfig(
        seed=seed,
        max_atoms=max_atoms,
        seed_branches=seed_branches,
        repair_attempts=repair_attempts,
        min_precision=min_precision,
        negatives=negatives,
        semantics=semantics,
        backend=llm,
        affordances=tuple(affordance),
        limit=limit,
    )
    llm_config = None
    if llm == "openai":
        from kari.llm import LLMConfig

        llm_config = LLMConfig.from_env(
            base_url=base_url, model=model, api_key_env=api_key_env, use_cache=not no_cache, cache_dir=cache_dir,
            **limits,
        )
    outcome = run_induce(
        out=out,
        db=db,
        bench=bench,
        run_dir=run_dir,
        config=config,
        llm=llm_config,
        fresh=fresh,
        progress=not quiet and sys.stderr.isatty(),
        argv=["induce", *sys.argv[2:]],
    )
    scores = outcome.scores.values()
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    typer.echo(
        f"{len(outcome.rules)} rules for {len(outcome.results)} affordances -> {outcome.out} and {outcome.jsonl}"
        + (f" (resumed {len(outcome.resumed)})" if outcome.resumed else "")
    )
    typer.echo(
        f"mean recall {mean([s.recall for s in scores]):.3f}, mean precision "
        f"{mean([s.precision or 0.0 for s in scores]):.3f}; report: {outcome.run_dir / 'report.md'}"
    )
    if not quiet:
        typer.echo(outcome.timers.table(), err=True)


def register(app: typer.Typer) -> None:
    """Add ``kari induce`` to the root app."""
    app.command("induce")(induce)
