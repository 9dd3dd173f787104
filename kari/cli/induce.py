"""``kari induce``: KARI rule induction (Proposer / Validator / Auditor loop) from the KB or a benchmark."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from typing import Optional

from kari.cli.options import (LLM_DEFAULTS, MAX_ATTEMPTS, MAX_BATCH, MAX_CONCURRENCY, MAX_ITEMS, MAX_ROUNDS, ApiKeyEnv,
                               BaseUrl, CacheDir, LLMAttempts, LLMMaxBytes, LLMTimeout, Model, NoCache, budget_calls,
                               budget_tokens, count, llm_options, number, output)
from kari.cli.options import seed as seed_option
from kari.cli.options import shard as shard_option
from kari.core.terms import Semantics
from kari.errors import one_of
from kari.core.induce_config import BENCH_DEFAULTS, KB_DEFAULTS, Backend, Grouping, InduceConfig, Negatives
from kari.io.plan import Shard
from kari.llm.limits import BUDGET_EXIT

DEFAULTS = InduceConfig()
"""The defaults the options below show and fall back to."""


def induce(
    out: Path = output(..., "--out", help="The .kari rules file to write (the .jsonl form goes beside it)."),
    db: Path | None = output(None, "--db", kind="database", help="KB database (kari kb load): the evidence without --bench, "
                                    "and the vocabulary store read and extended (with --bench, created if missing). "
                                    "A CreativityBench KB (kari creativity load) gives part-level evidence: one "
                                    "PART(x, ...) rule per part-affordance verb, its branches' edge ids "
                                    "cb:SCENARIO+ENTITY/PART#affordanceN, ...#affordanceN/attributeM and "
                                    "...#ATTRIBUTE."),
    bench: Path | None = typer.Option(None, "--bench", help="Benchmark directory to induce from (labels + objects)."),
    run_dir: Path | None = output(None, "--run-dir", kind="folder", help="Run directory (default: OUT with suffix .run)."),
    llm: str = typer.Option(Backend.OFFLINE.value, "--llm", help=f"Backend, {one_of(Backend)}: offline symbolic (no "
                            "network), openai any OpenAI-compatible server (the --base-url ... --llm-max-bytes "
                            "options)."),
    affordance: list[str] = typer.Option([], "--affordance", "-a", help="Only these affordances (repeatable)."),
    limit: int | None = count(None, "--limit", high=MAX_ITEMS, help="Only the first N affordances (a cheap trial run)."),
    seed: int = seed_option(0, "--seed", help="Seed of the groups of each round and of the folds (--cv, tuning)."),
    max_atoms: int | None = count(None, "--max-atoms", high=8, help="Offline: at most K atoms per branch "
                                  f"(default {DEFAULTS.max_atoms}; tuned unless --no-tune)."),
    seed_branches: int = count(DEFAULTS.seed_branches, "--seed-branches", high=MAX_ITEMS,
                               help="Offline proposer: at most this many seed branches."),
    min_precision: float | None = number(None, "--min-precision", low=0, high=1, help="Offline: floor of a branch's "
                                         f"m-estimate of precision (default {BENCH_DEFAULTS['min_precision']}; "
                                         f"{KB_DEFAULTS['min_precision']} for KB input)."),
    min_support: int | None = count(None, "--min-support", high=MAX_ITEMS, help="Offline: positives a branch covers, "
                                    f"and that hold each of its atoms (default {DEFAULTS.min_support})."),
    min_coverage: float | None = number(None, "--min-coverage", low=0, high=1, help="Offline: share of the positives "
                                        f"a branch covers (default {DEFAULTS.min_coverage}; tuned unless --no-tune)."),
    min_objects: int | None = count(None, "--min-objects", high=MAX_ITEMS, help="Offline: known objects (positives "
                                    "and negatives) that hold each atom of a branch "
                                    f"(default {DEFAULTS.min_objects}: rare values are never proposed)."),
    min_gain: float | None = number(None, "--min-gain", low=0, high=1, high_open=True,
                                    help=f"Offline: training F1 a branch must add (default {DEFAULTS.min_gain})."),
    beta: float | None = number(None, "--beta", low=0, high=10, low_open=True, help="Offline: the rule's training "
                                f"F-beta is maximised (default {BENCH_DEFAULTS['beta']:g}, F1; "
                                f"{KB_DEFAULTS['beta']:g} for KB input, whose closed-world negatives are mostly "
                                "unknowns)."),
    tune: bool = typer.Option(True, "--tune/--no-tune", help="Offline: choose --min-coverage and --max-atoms by "
                              "3-fold inner cross-validation on the training objects."),
    lift: bool = typer.Option(True, "--lift/--no-lift", help="Lift every proposed branch's values up the is-a "
                              "taxonomy while its precision holds (both backends)."),
    groups: int | None = count(None, "--rounds", high=MAX_ROUNDS, help="Rounds of the loop (default: 1 offline, 3 with an "
                                      "LLM, the paper's loop)."),
    grouping: str = typer.Option(str(DEFAULTS.grouping), "--group", help=f"KB input, {one_of(Grouping)}: how verbs "
                                 "that mean the same are grouped before induction (one rule per group): wordnet "
                                 "the WordNet sense of the head verb chosen from the phrase, its sentences and "
                                 "positives (thin groups pooled into their sense's hypernym), lemma the head word in "
                                 "base form, embedding MiniLM clusters (needs kari[embed])."),
    complete: bool = typer.Option(True, "--complete/--no-complete", help="KB input: complete each object's "
                                  "properties from what the KB says of its classes (WordNet hypernyms, IsA edges), "
                                  "each inferred fact marked inferred with its source edges."),
    pool: bool = typer.Option(True, "--pool/--no-pool", help="KB input: pool each verb group's positives with "
                              "their KB kin (is-a parents, siblings, parts) as weighed positives, and weigh its "
                              "implicit negatives by how well the KB describes them (positive-unlabelled)."),
    min_kb_objects: int = count(DEFAULTS.min_kb_objects, "--min-kb-objects", high=MAX_ITEMS,
                                help="KB input: a verb group gets a rule only when its KB positives and pooled kin "
                                "are at least N distinct objects (thinner groups are listed in the run's "
                                "left_out.jsonl, reason thin-evidence; 1 keeps every group)."),
    group_threshold: float = number(DEFAULTS.group_threshold, "--group-threshold", low=0, high=1,
                                    help="--group embedding: the cosine a verb needs to join a cluster."),
    tune_min_positives: int = count(DEFAULTS.tune_min_positives, "--tune-min-positives", high=MAX_ITEMS,
                                    help="Offline: the settings search judges only affordances with at least N "
                                    "positives (sparser ones cannot separate settings and keep the chosen or "
                                    "default ones)."),
    negatives: str = typer.Option(Negatives.AUTO.value, "--negatives",
                                  help=f"Known negatives: {one_of(Negatives)}."),
    semantics: str = typer.Option(
        Semantics.ANY_PART.value, "--semantics", help=f"Coverage semantics for scoring: {one_of(Semantics)}."
    ),
    repair_attempts: int = count(DEFAULTS.repair_attempts, "--repair-attempts", low=0, high=MAX_ATTEMPTS,
                                 help="Repair attempts for an invalid proposal."),
    base_url: BaseUrl = LLM_DEFAULTS.base_url,
    model: Model = LLM_DEFAULTS.model,
    api_key_env: ApiKeyEnv = LLM_DEFAULTS.api_key_env,
    no_cache: NoCache = LLM_DEFAULTS.no_cache,
    cache_dir: CacheDir = LLM_DEFAULTS.cache_dir,
    llm_timeout: LLMTimeout = LLM_DEFAULTS.timeout,
    llm_attempts: LLMAttempts = LLM_DEFAULTS.attempts,
    concurrency: int = count(4, "--concurrency", "-j", high=MAX_CONCURRENCY, help="openai: LLM requests in flight "
                             "at once, across affordances (each affordance's rounds stay in order: propose, "
                             "validate, audit); the rules are the same for any N. Offline: one affordance at a "
                             "time."),
    budget_calls_: int | None = budget_calls("--budget-calls", help="openai: stop cleanly once this run has sent "
                                                "N requests to the server (cache hits are free); the finished "
                                                f"affordances are kept, exit {BUDGET_EXIT}: rerun to go on."),
    budget_tokens_: int | None = budget_tokens("--budget-tokens", help="openai: stop cleanly once the server's "
                                                  "replies in this run report N tokens (prompt and completion; the "
                                                  "requests already in flight may pass it); resumable like "
                                                  "--budget-calls."),
    validator_batch: int = count(1, "--validator-batch", high=MAX_BATCH, metavar="K", help="openai: objects per "
                                 "Validator request (each judged on its own; an object the reply leaves unlabelled "
                                 "is asked again alone). 1: one object per request, the paper's loop."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the affordances (verb groups) this run would "
                                 "induce and the LLM requests and tokens per role expected from the evidence's "
                                 "counts; no request is sent and nothing is written."),
    shard: Optional[Shard] = shard_option("--shard", help="Induce only shard K of N of the affordances (a fixed "
                                          "split by name) into a run of its own; kari merge joins the N shards into "
                                          "the unsharded run's rules and run directory (docs/cluster.md)."),
    llm_max_bytes: LLMMaxBytes = LLM_DEFAULTS.max_bytes,
    cv: int | None = count(None, "--cv", low=2, high=MAX_ROUNDS, metavar="K", help="Also judge the rules out of sample: K-fold "
                                  "cross-validation by object (seeded by --seed); fold rule sets, folds.json and "
                                  "cv.json go to OUT with suffix .cv, held-out scores to the report."),
    fold: int | None = count(None, "--fold", low=0, high=MAX_ROUNDS - 1, metavar="k", help="With --cv K: induce only "
                             "fold k (0..K-1) into RUN/cv/fold<k>/ and RULES.cv/fold<k>.*, e.g. one job of a cluster "
                             "array; rerun without --fold once every fold is there to write the rules and cv.json "
                             "(docs/cluster.md)."),
    fresh: bool = typer.Option(False, "--fresh", help="Start over instead of resuming the run directory."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no timer table."),
) -> None:
    """Induce one rule per affordance verb and write RULES.kari, RULES.jsonl and the run directory.

    The Proposer / Validator / Auditor loop is described in docs/method.md (section 2); the files it writes in
    docs/formats.md.
    """
    from kari.induce.report import unanswered_line
    from kari.induce.run import induce as run_induce

    llm_connection = llm_options(base_url, model, api_key_env, no_cache, cache_dir, llm_timeout, llm_attempts,
                                 llm_max_bytes)
    given: dict[str, Any] = {"max_atoms": max_atoms, "min_precision": min_precision, "min_support": min_support,
             "min_coverage": min_coverage, "min_objects": min_objects, "min_gain": min_gain, "groups": groups,
             "beta": beta}
    config = InduceConfig(
        seed=seed,
        seed_branches=seed_branches,
        repair_attempts=repair_attempts,
        negatives=negatives,
        semantics=semantics,
        backend=llm,
        affordances=tuple(affordance),
        limit=limit,
        tune=tune,
        lift=lift,
        grouping=grouping,
        group_threshold=group_threshold,
        tune_min_positives=tune_min_positives,
        complete=complete,
        pool=pool,
        min_kb_objects=min_kb_objects,
        validator_batch=validator_batch,
        **{k: v for k, v in given.items() if v is not None},
    )
    llm_config = llm_connection.config(concurrency=concurrency, budget_calls=budget_calls_,
                                       budget_tokens=budget_tokens_) if llm == Backend.OPENAI else None
    if dry_run:
        from kari.induce.run import dry_run as plan_run

        typer.echo(plan_run(db=db, bench=bench, config=config, llm=llm_config, shard=shard), nl=False)
        return
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
        cv=cv,
        fold=fold,
        shard=shard,
    )
    if fold is not None:
        typer.echo(f"fold {fold} of {cv}: {len(outcome.rules)} rules induced without its objects -> "
                   f"{outcome.out.with_suffix('.cv')}/fold{fold}.kari (run directory {outcome.run_dir}); once every "
                   "fold is done, rerun without --fold to write the rules and cv.json")
        return
    scores = outcome.scores.values()
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    typer.echo(
        f"{len(outcome.rules)} rules for {len(outcome.results)} affordances -> {outcome.out} and {outcome.jsonl}"
        + (f" (resumed {len(outcome.resumed)})" if outcome.resumed else "")
        + (f" (shard {shard}: merge the {shard.count} shards with kari merge)" if shard is not None else "")
    )
    unanswered = unanswered_line(outcome.results)
    if unanswered:
        typer.echo(unanswered)
    missing = sorted(a for a, r in outcome.results.items() if r.body is None)
    if missing:
        typer.echo(f"{len(missing)} without a rule ({', '.join(missing[:8])}{', ...' if len(missing) > 8 else ''}):"
                   " why is in the report")
    typer.echo(
        f"mean recall {mean([s.recall for s in scores]):.3f}, mean precision "
        f"{mean([s.precision or 0.0 for s in scores]):.3f}; report: {outcome.run_dir / 'report.md'}"
    )
    if outcome.cv is not None:
        held, inside = outcome.cv["pooled"]["heldout"], outcome.cv["pooled"]["in_sample"]
        typer.echo(
            f"{outcome.cv['k']}-fold held-out mean F1 {held['macro']['f1']:.3f} (micro {held['micro']['f1']:.3f}); "
            f"in-sample {inside['macro']['f1']:.3f}; cross-fitted rules and cv.json in {outcome.out.with_suffix('.cv')}"
        )
    if not quiet:
        typer.echo(outcome.timers.table(), err=True)


def register(app: typer.Typer) -> None:
    """Add ``kari induce`` to the root app."""
    app.command("induce")(induce)
