"""The main job on one benchmark, offline: KB -> rules -> coverage -> games -> report.

``kari pipeline --out DIR`` runs, on the bundled data unless told otherwise:

1. ``kari kb load``: the KGTK KB into ``DIR/kari.duckdb`` (its object-property view is the induction input);
2. ``kari induce --db --cv 5``: one KARI rule per affordance, offline (``DIR/rules.kari`` and ``rules.jsonl``),
   and 5 cross-fitted rule sets (``DIR/rules.cv``: each induced without one fold of the objects);
3. ``kari coverage``: rules x benchmark objects into the same database (tables ``coverage`` etc.);
4. ``kari play``: the benchmark's games with each symbolic questioner (``DIR/play/<questioner>``); the players
   that see rules (``greedy-ig+rules``, ``rules``) get, in each game, the rules induced without its hidden
   object, so no number rests on a rule induced from the object it is scored on;
5. ``kari report``: a side-by-side table and the IG-over-turns figure (``DIR/report``).

Every step is the library function behind the CLI command of the same name; every output is resumable or
rewritten atomically, so a rerun of the same command finishes what a crash left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.game.names import ONLINE_PLAYERS, RULES_SUFFIX, Player

DEFAULT_QUESTIONERS = ("optimal", "greedy-ig", "greedy-ig+rules", "greedy-ig@10", "greedy-ig@10+rules", "fix20q", "rules")
"""``NAME[@K][+rules]``: ``@K`` caps the positives the player's soft belief may use (``@10``: the paper's 10
representatives, a player that knows little, as an LLM Questioner does); ``+rules`` gives it the rules."""
FOLDS = 5
"""Players that see rules get cross-fitted ones: each game the rules induced without its hidden object's fold."""
ONLINE_QUESTIONERS = ONLINE_PLAYERS


@dataclass(frozen=True)
class PipelineResult:
    """Where each step wrote its output, with one summary line per step."""

    out: Path
    db: Path
    rules: Path
    play_dirs: dict[str, Path]
    report: Path
    lines: list[str] = field(default_factory=list)


def run_pipeline(out: str | Path, *, kb_files: Sequence[str | Path] | None = None, bench: str | Path | None = None,
                 questioners: Sequence[str] = DEFAULT_QUESTIONERS, games: int | None = None, seed: int = 0,
                 progress: bool = False, echo: Callable[[str], None] = lambda line: None) -> PipelineResult:
    """Run the five steps into ``out``; ``echo`` receives one line per finished step. Each input is read once
    (:class:`kari.study.Study`) and handed to the library cores as an object."""
    from kari.game.report import report_loaded
    from kari.induce.config import InduceConfig
    from kari.induce.folds import cv_dir
    from kari.induce.inputs import from_db
    from kari.induce.run import induce_loaded
    from kari.io.atomic import prepare_output_dir
    from kari.kb import load_into
    from kari.resources import bundled_bench_dir, bundled_kb_file
    from kari.solver.run import coverage_loaded
    from kari.study import Study

    bench_dir = Path(bench) if bench is not None else bundled_bench_dir()
    _check_options(questioners, games, kb_files)  # every option and input is checked before any work
    study = Study.open(bench_dir)  # a structurally broken benchmark stops here
    for part in ("objects", "games"):
        if not study.bench.report.counts.get(f"{part}.jsonl"):
            raise KariError(f"the benchmark has no {part}", file=str(bench_dir / f"{part}.jsonl"), code="bad-option")
    out = prepare_output_dir(out)
    db = out / "kari.duckdb"
    lines: list[str] = []

    def step(line: str) -> None:
        lines.append(line)
        echo(line)

    loaded = load_into(db, [Path(f) for f in kb_files] if kb_files else [bundled_kb_file()])
    step(f"kb: {loaded.edges_added} new edges from {len(loaded.files)} file(s) -> {db}")
    vocab = study.attach_db(db)

    rules = out / "rules.kari"
    outcome = induce_loaded(from_db(db, vocab), {"kind": "db", "path": str(db)}, vocab, out=rules, db=db,
                            run_dir=out / "induce", config=InduceConfig(seed=seed), progress=progress, cv=FOLDS)
    cross_fitted = cv_dir(rules)
    heldout = "" if outcome.cv is None else (f" (macro F1 held-out {outcome.cv.macro_f1[0]:.3f}, "
                                             f"in-sample {outcome.cv.macro_f1[1]:.3f})")
    step(f"induce: {len(outcome.rules)} rules for {len(outcome.scores)} affordances -> {rules}; {FOLDS} "
         f"cross-fitted rule sets -> {cross_fitted}{heldout}; run directory {outcome.run_dir}")

    with study.connect() as con:
        summary = coverage_loaded(study.rules(rules).folds[0], con, vocab, study.raw, folder=db.resolve().parent,
                                  db=db)
    step(f"coverage: {summary.covered_pairs} of {summary.pairs} rule x object pairs covered; "
         f"{summary.games_with_rule} of {summary.games} games have a rule for their target -> {db}")

    runs, play_dirs = [], {}
    for name in questioners:
        run = _play(study, name, out / "play" / name, seed, games, cross_fitted.resolve(), progress)
        runs.append(run)
        play_dirs[name] = run.path
        turns = run.summary.avg_turns_solved
        step(f"play {name}: SR {100 * (run.summary.success_rate or 0):.1f}% over {run.summary.games} games, "
             f"turns (solved) {'-' if turns is None else f'{turns:.2f}'} -> {run.path}")

    report_dir = out / "report"
    report_loaded(runs, report_dir)
    step(f"report: {report_dir / 'report.md'} and {report_dir / 'ig_over_turns.png'}")
    return PipelineResult(out, db, rules, play_dirs, report_dir, lines)


def _play(study: Any, name: str, folder: Path, seed: int, games: int | None, cross_fitted: Path,
          progress: bool) -> Any:
    """Play ``name`` (``NAME[@K][+rules]``) on the study's benchmark with a copy of its vocabulary; players that
    see rules get the cross-fitted sets (read once for all of them)."""
    from kari.game.match import RuleSource
    from kari.game.run import PlayConfig, play_loaded

    player, model_reps, given_rules = parse_player(name)
    sees = given_rules or player == Player.RULES  # "greedy-ig+rules": the same player, given the rules
    config = PlayConfig(bench=study.raw.root.resolve(), questioner=player, seed=seed, games=games,
                        rules=cross_fitted.resolve() if sees else None, db=study.db.resolve(), model_reps=model_reps)
    bench = study.canonical()  # read into the vocabulary once, after coverage grew it as the database holds it
    vocab = study.fork()
    rules = None
    if sees:
        rules = RuleSource.of(study.rules(cross_fitted), vocab, config.rule_threshold, config.rule_top_k,
                              config.rule_match, embedder=study.shared_embedder())
    return play_loaded(config, folder, bench=bench, vocab=vocab, rules=rules, progress=progress)


def parse_player(spec: str) -> tuple[str, int | None, bool]:
    """``"greedy-ig@10+rules"`` -> ``("greedy-ig", 10, True)``: the player, its cap on positives, rules or not."""
    rules = spec.endswith(RULES_SUFFIX)
    name, _, reps = spec.removesuffix(RULES_SUFFIX).partition("@")
    if reps and (not reps.isdigit() or int(reps) < 1):
        raise KariError(f"bad player {spec!r}: after @ comes a number of positives >= 1", code="bad-option")
    return name, int(reps) if reps else None, rules


def _check_options(questioners: Sequence[str], games: int | None, kb_files: Sequence[str | Path] | None) -> None:
    """A :class:`KariError` for an option the last step would only meet after the first ones ran."""
    from kari.game.questioners import questioner_class
    from kari.kb.textfile import check_readable

    for name in questioners:
        questioner_class(parse_player(name)[0])
        if name in ONLINE_QUESTIONERS:
            raise KariError(f"the pipeline runs offline; play {name!r} with `kari play` instead", code="bad-option")
    if games is not None and games < 1:
        raise KariError("--games must be >= 1", code="bad-option")
    for path in kb_files or ():
        check_readable(Path(path))
