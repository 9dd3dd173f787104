"""The main job on one benchmark, offline: KB -> rules -> coverage -> games -> report.

``kari pipeline --out DIR`` runs, on the bundled data unless told otherwise:

1. ``kari kb load``: the KGTK KB into ``DIR/kari.duckdb``;
2. ``kari induce --db``: KARI as the paper runs it, one rule per (grouped) KB affordance verb, grounded in the
   KB's positives (``DIR/rules.kari`` and ``rules.jsonl``, run directory ``DIR/induce``);
3. ``kari induce --bench --cv 5``: the benchmark-supervised rules, one per benchmark affordance, and 5
   cross-fitted rule sets (``DIR/bench_rules.cv``: each induced without one fold of the objects);
4. ``kari coverage --ledger``: the KB rules x benchmark objects into the same database, the KB coverage
   (benchmark affordances and games whose target has a rule matched by sentence similarity) and the KB-gap
   ledger (tables ``kb_gaps``, ``kb_gap_games`` and ``DIR/kb_gaps.csv``: :mod:`kari.report.ledger`);
5. ``kari play``: the benchmark's games with each symbolic questioner (``DIR/play/<questioner>``); ``+kb``
   players get the KB rules matched to their candidates, ``+rules`` players (and ``rules``) in each game the
   cross-fitted rules induced without its hidden object, so no number rests on a benchmark label of the object
   it is scored on;
6. ``kari report``: Table 1 with both rule sources, the KB coverage split, the KB-gap ledger and the IG figure
   (``DIR/report``).

Every step is the library function behind the CLI command of the same name; every output is resumable or
rewritten atomically, so a rerun of the same command finishes what a crash left. Each input is read once
(:class:`kari.study.Study`) and handed to the library cores as an object.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.bench.reader import canonical_benchmark
from kari.core.game_defaults import DEFAULT_QUESTIONERS, MATCH_THRESHOLD
from kari.errors import KariError
from kari.core.game_names import KB_SUFFIX, ONLINE_PLAYERS, RULES_SUFFIX, Player, RuleOrigin
from kari.core.induce_config import InduceConfig, InputKind
from kari.domain.canon import canonical_rules
from kari.explain.proof import RecordEvidence
from kari.explain.sources import ObjectSource
from kari.game.kb_coverage import TargetMatching
from kari.game.match import RuleMatcher, RuleSource
from kari.game.questioners import questioner_class
from kari.game.run import PlayConfig, play_loaded
from kari.induce.folds import cv_dir
from kari.induce.inputs import bench_evidence
from kari.induce.run import induce_loaded, jsonl_path, load_evidence
from kari.io.atomic import prepare_output_dir
from kari.kb.textfile import check_readable
from kari.report.ledger_store import LEDGER_FILE, coverage_ledger, write_ledger_file, write_ledger_tables
from kari.resources import bundled_bench_dir, bundled_kb_file
from kari.rules.ast import Atom, Rule
from kari.solver.run import coverage_loaded
from kari.study import Study

FOLDS = 5
"""Players that see benchmark rules get cross-fitted ones: each game the rules induced without its hidden
object's fold."""
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
    bench_rules: Path | None = None


def run_pipeline(out: str | Path, *, kb_files: Sequence[str | Path] | None = None, bench: str | Path | None = None,
                 questioners: Sequence[str] = DEFAULT_QUESTIONERS, games: int | None = None, seed: int = 0,
                 progress: bool = False, echo: Callable[[str], None] = lambda line: None) -> PipelineResult:
    """Run the six steps into ``out``; ``echo`` receives one line per finished step. Each input is read once
    (:class:`kari.study.Study`) and handed to the library cores as an object."""
    from kari.report.writer import report_loaded
    from kari.kb import load_into

    bench_dir = Path(bench) if bench is not None else bundled_bench_dir()
    _check_options(questioners, games, kb_files)  # every option and input is checked before any work
    study = Study.open(bench_dir)  # a structurally broken benchmark stops here
    for part in ("objects", "games"):
        if not study.bench.report.counts.get(f"{part}.jsonl"):
            raise KariError(f"the benchmark has no {part}", file=str(bench_dir / f"{part}.jsonl"), code="bad-option")
    if any(parse_player(q)[2] == RuleOrigin.KB for q in questioners):
        probe = RuleMatcher([Rule("probe", Atom("SHAPE", "flat"))], embedder=study.shared_embedder())
        probe.check_available()  # no embed extra: stop before any work
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
    config = InduceConfig(seed=seed)
    evidence, info = load_evidence(db, None, vocab, config)
    kb_outcome = induce_loaded(evidence, info, vocab, out=rules, db=db, run_dir=out / "induce", config=config,
                               progress=progress)
    step(f"induce (KB): {len(kb_outcome.rules)} rules for {len(kb_outcome.results)} groups of KB verbs -> {rules}; "
         f"run directory {kb_outcome.run_dir}")

    bench_rules = out / "bench_rules.kari"
    labelled = bench_evidence(canonical_benchmark(study.raw, vocab))  # its words read as the database holds them
    outcome = induce_loaded(labelled, {"kind": InputKind.BENCH, "path": str(bench_dir)}, vocab, out=bench_rules,
                            db=db, run_dir=out / "induce_bench", config=InduceConfig(seed=seed), progress=progress,
                            cv=FOLDS)
    cross_fitted = cv_dir(bench_rules)
    heldout = "" if outcome.cv is None else (f" (macro F1 held-out {outcome.cv.macro_f1[0]:.3f}, "
                                             f"in-sample {outcome.cv.macro_f1[1]:.3f})")
    step(f"induce (benchmark): {len(outcome.rules)} rules for {len(outcome.scores)} affordances -> {bench_rules}; "
         f"{FOLDS} cross-fitted rule sets -> {cross_fitted}{heldout}")

    kb_rules = jsonl_path(rules).resolve()  # the KB rules with their metadata (member verbs, KB positives, evidence)
    matching = TargetMatching(MATCH_THRESHOLD, embedder=study.shared_embedder())
    with study.connect() as con:
        summary = coverage_loaded(study.rules(kb_rules).folds[0], con, vocab, study.raw, folder=db.resolve().parent,
                                  db=db, match_targets=matching)
    kb = summary.kb
    step(f"coverage: {summary.covered_pairs} of {summary.pairs} rule x object pairs covered; "
         + ("; ".join(kb.lines()) if kb is not None else "no KB coverage") + f" -> {db}")
    step(_ledger_step(study, vocab, kb_rules, out))

    given = {RuleOrigin.KB: kb_rules, RuleOrigin.CROSS_FITTED: cross_fitted.resolve()}
    runs, play_dirs = [], {}
    for name in questioners:
        run = _play(study, name, out / "play" / name, seed, games, given, progress)
        runs.append(run)
        play_dirs[name] = run.path
        turns = run.summary.avg_turns_solved
        step(f"play {name}: SR {100 * (run.summary.success_rate or 0):.1f}% over {run.summary.games} games, "
             f"turns (solved) {'-' if turns is None else f'{turns:.2f}'} -> {run.path}")

    report_dir = out / "report"
    report_loaded(runs, report_dir, inputs=_report_inputs(study, bench_dir))
    step(f"report: {report_dir / 'report.md'} and {report_dir / 'ig_over_turns.png'}")
    return PipelineResult(out, db, rules, play_dirs, report_dir, lines, bench_rules)


def _report_inputs(study: Any, bench_dir: Path) -> Any:
    """The study's benchmark objects and rule sets, for the report's KB-gap ledger (nothing is read again)."""
    from kari.report.inputs import ReportInputs

    objects = ObjectSource(dict(study.canonical().objects), study.vocab, RecordEvidence(), f"the benchmark {bench_dir}")
    return ReportInputs(objects, study.rules)


def _ledger_step(study: Any, vocab: Any, kb_rules: Path, out: Path) -> str:
    """The KB-gap ledger of the coverage just stored (the KB rules on the benchmark's games) into the database's
    ``kb_gaps`` / ``kb_gap_games`` tables and ``out/kb_gaps.csv``; its summary line."""
    objects = study.canonical().objects
    with study.connect() as con:
        ledger = coverage_ledger(con, canonical_rules(study.rules(kb_rules).folds[0], vocab), objects, vocab)
        write_ledger_tables(con, ledger)
    write_ledger_file(ledger, out / LEDGER_FILE)
    return f"{ledger.line()} -> tables kb_gaps, kb_gap_games and {out / LEDGER_FILE}"


def _play(study: Any, name: str, folder: Path, seed: int, games: int | None, given: dict[str, Path],
          progress: bool) -> Any:
    """Play ``name`` (``NAME[@K][+kb|+rules]``) on the study's benchmark with a copy of its vocabulary; players
    that see rules get the rule set of their source in ``given`` (the KB rules, or the cross-fitted benchmark
    sets; each read once for all players)."""
    player, model_reps, source = parse_player(name)
    path = given[source] if source is not None else None
    config = PlayConfig(bench=study.raw.root.resolve(), questioner=player, seed=seed, games=games, rules=path,
                        db=study.db.resolve(), model_reps=model_reps)
    bench = study.canonical()  # read into the vocabulary once, after coverage grew it as the database holds it
    vocab = study.fork()
    rules = None
    if path is not None:
        rules = RuleSource.of(study.rules(path), vocab, config.rule_threshold, config.rule_top_k, config.rule_match,
                              embedder=study.shared_embedder())
    return play_loaded(config, folder, bench=bench, vocab=vocab, rules=rules, progress=progress)


def parse_player(spec: str) -> tuple[str, int | None, str | None]:
    """``"greedy-ig@10+kb"`` -> ``("greedy-ig", 10, "kb")``: the player, its cap on positives and its rule source
    (:class:`~kari.core.game_names.RuleOrigin`: ``kb``, the KB-anchored rules; ``cross-fitted``, the cross-fitted
    benchmark rules; None: no rules). The ``rules`` player always has a source: ``cross-fitted`` unless named
    ``rules+kb``."""
    source = (RuleOrigin.KB if spec.endswith(KB_SUFFIX) else
              RuleOrigin.CROSS_FITTED if spec.endswith(RULES_SUFFIX) else None)
    base = spec.removesuffix(KB_SUFFIX) if source == RuleOrigin.KB else spec.removesuffix(RULES_SUFFIX)
    name, _, reps = base.partition("@")
    if reps and (not reps.isdigit() or int(reps) < 1):
        raise KariError(f"bad player {spec!r}: after @ comes a number of positives >= 1", code="bad-option")
    if name == Player.RULES and source is None:
        source = RuleOrigin.CROSS_FITTED
    return name, int(reps) if reps else None, source


def _check_options(questioners: Sequence[str], games: int | None, kb_files: Sequence[str | Path] | None) -> None:
    """A :class:`KariError` for an option the last step would only meet after the first ones ran."""
    for name in questioners:
        questioner_class(parse_player(name)[0])
        if name in ONLINE_QUESTIONERS:
            raise KariError(f"the pipeline runs offline; play {name!r} with `kari play` instead", code="bad-option")
    if games is not None and games < 1:
        raise KariError("--games must be >= 1", code="bad-option")
    for path in kb_files or ():
        check_readable(Path(path))
