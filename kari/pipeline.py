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
5. ``kari play``: the benchmark's games with each questioner (``DIR/play/<questioner>``, an LLM questioner once
   per model: ``DIR/play/<model>/<questioner>``, :mod:`kari.grid`); ``+kb`` players get the KB rules matched to
   their candidates, ``+rules`` players (and ``rules``) in each game the cross-fitted rules induced without its
   hidden object, so no number rests on a benchmark label of the object it is scored on. Independent players,
   and the shards of each (``shards``), are played side by side in up to ``jobs`` processes
   (:mod:`kari.io.jobs`; default: the cores), with the outputs of a run one after the other;
6. ``kari report``: Table 1 with both rule sources, the KB coverage split, the KB-gap ledger and the IG figure
   (``DIR/report``).

Every step is the library function behind the CLI command of the same name; every output is resumable or
rewritten atomically, so a rerun of the same command finishes what a crash left. Each input is read once
(:class:`kari.study.Study`) and handed to the library cores as an object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import bench_inputs, canonical_benchmark
from kari.core.game_defaults import DEFAULT_QUESTIONERS, MATCH_THRESHOLD
from kari.errors import KariError
from kari.core.game_names import KB_SUFFIX, ONLINE_PLAYERS, RULES_SUFFIX, Player, RuleOrigin
from kari.core.induce_config import InduceConfig, InputKind
from kari.domain.canon import canonical_rules
from kari.explain.proof import RecordEvidence
from kari.explain.sources import ObjectSource
from kari.game.kb_coverage import TargetMatching
from kari.game.match import RuleMatcher, RuleSource
from kari.rules.anchors import usable_rules
from kari.game.questioners import questioner_class
from kari.game.run import PlayConfig, merge_runs, play_loaded
from kari.io.runlog import CONFIG_FILE, check_settings
from kari.grid import GridSpec, LLMCalls, ModelSpec, grid_cells, is_llm_player
from kari.induce.folds import cv_dir
from kari.induce.inputs import bench_evidence
from kari.induce.run import induce_loaded, jsonl_path, load_evidence
from kari.io.atomic import prepare_output_dir
from kari.io.fingerprint import INPUTS_KEY
from kari.io.jobs import available_cores, run_jobs
from kari.io.plan import SHARD_KEY, Shard
from kari.io.outputs import Output, OutputKind, check_outputs, inputs_of
from kari.kb.textfile import check_readable
from kari.report.inputs import ReportInputs
from kari.report.writer import load_run, report_loaded
from kari.report.ledger_store import LEDGER_FILE, coverage_ledger, write_ledger_file, write_ledger_tables
from kari.resources import bundled_bench_dir, bundled_kb_file
from kari.rules.ast import Atom, Rule
from kari.solver.run import coverage_loaded
from kari.study import Study

if TYPE_CHECKING:
    from kari.vocab.vocabulary import Vocabulary

FOLDS = 5
"""Players that see benchmark rules get cross-fitted ones: each game the rules induced without its hidden
object's fold."""
ONLINE_QUESTIONERS = ONLINE_PLAYERS
PIPELINE_DB = "kari.duckdb"
"""The KB database the pipeline writes into its folder (and reads back on a rerun)."""
KB_RULES = "rules.kari"          # the KB-anchored rules (their JSONL twin beside)
BENCH_RULES = "bench_rules.kari"  # the benchmark rules (their cross-fitted sets in bench_rules.cv/)
PIPELINE_WRITES = (KB_RULES, "rules.jsonl", "induce/", BENCH_RULES, "bench_rules.jsonl",
                   "bench_rules.cv/", "induce_bench/", "play/", "report/", "kb_gaps.csv")
"""What else the pipeline writes into its folder (a name ending in ``/``: a folder of its own)."""


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


def run_grid(spec: GridSpec, out: str | Path | None = None, *, progress: bool = False,
             echo: Callable[[str], None] = lambda line: None) -> PipelineResult:
    """:func:`run_pipeline` over a study's grid (:class:`kari.grid.GridSpec`: its players, models, runs, jobs and
    shards) into ``out`` (default: the spec's)."""
    target = out if out is not None else spec.out
    if target is None:
        raise KariError("give --out DIR (or out = ... in the study file)", code="bad-option")
    return run_pipeline(target, kb_files=list(spec.kb) or None, bench=spec.bench, questioners=spec.players,
                        games=spec.games, seed=spec.seed, progress=progress, echo=echo, models=spec.models,
                        runs=spec.runs, jobs=spec.jobs, shards=spec.shards, llm=spec.llm,
                        flagged_rules=spec.flagged_rules)


def run_pipeline(out: str | Path, *, kb_files: Sequence[str | Path] | None = None, bench: str | Path | None = None,
                 questioners: Sequence[str] = DEFAULT_QUESTIONERS, games: int | None = None, seed: int = 0,
                 progress: bool = False, echo: Callable[[str], None] = lambda line: None,
                 models: Sequence[ModelSpec] = (), runs: int | None = None, jobs: int | None = None,
                 shards: int = 1, llm: LLMCalls = LLMCalls(), flagged_rules: str | None = None) -> PipelineResult:
    """Run the six steps into ``out``; ``echo`` receives one line per finished step. Each input is read once
    (:class:`kari.study.Study`) and handed to the library cores as an object. ``models``: the models each LLM
    player plays with (:mod:`kari.grid`); ``runs``: runs per game (default: each player's own); ``jobs``: players
    and shards played at once (default: the cores); ``shards``: each player's games in that many shards;
    ``flagged_rules``: ``use`` gives the players (and the KB coverage and ledger) the KB rules flagged as no better
    than the KB's base rate too (default: skip them)."""
    from kari.kb import load_into

    bench_dir = Path(bench) if bench is not None else bundled_bench_dir()
    grid = GridSpec(players=tuple(questioners), models=tuple(models), games=games, seed=seed, runs=runs, jobs=jobs,
                    shards=shards, llm=llm, flagged_rules=flagged_rules)
    grid.check()
    _check_options(questioners, games, kb_files, bool(models))  # every option and input is checked before any work
    check_outputs([Output(Path(out), "--out", OutputKind.FOLDER, names=PIPELINE_WRITES, databases=(PIPELINE_DB,))],
                  [*inputs_of("--kb", kb_files or ()), *bench_inputs(bench_dir)])
    endpoints = {m.folder: llm.config(m) for m in models}  # an endpoint that cannot be made fails before any work
    study = Study.open(bench_dir)  # a structurally broken benchmark stops here
    given = _given(Path(out))
    _check_resumed(_cells(grid, Path(out)), grid, study.raw.root.resolve(), (Path(out) / PIPELINE_DB).resolve(), given)
    for part in ("objects", "games"):
        if not study.bench.report.counts.get(f"{part}.jsonl"):
            raise KariError(f"the benchmark has no {part}", file=str(bench_dir / f"{part}.jsonl"), code="bad-option")
    if any(parse_player(q)[2] == RuleOrigin.KB for q in questioners):
        probe = RuleMatcher([Rule("probe", Atom("SHAPE", "flat"))], embedder=study.shared_embedder())
        probe.check_available()  # no embed extra: stop before any work
    out = prepare_output_dir(out)
    db = out / PIPELINE_DB
    lines: list[str] = []

    def step(line: str) -> None:
        lines.append(line)
        echo(line)

    loaded = load_into(db, [Path(f) for f in kb_files] if kb_files else [bundled_kb_file()])
    step(f"kb: {loaded.edges_added} new edges from {len(loaded.files)} file(s) -> {db}")
    vocab = study.attach_db(db)

    rules = out / KB_RULES
    config = InduceConfig(seed=seed)
    evidence, info = load_evidence(db, None, vocab, config)
    kb_outcome = induce_loaded(evidence, info, vocab, out=rules, db=db, run_dir=out / "induce", config=config,
                               progress=progress)
    step(f"induce (KB): {len(kb_outcome.rules)} rules for {len(kb_outcome.results)} groups of KB verbs -> {rules}; "
         f"run directory {kb_outcome.run_dir}")

    bench_rules = out / BENCH_RULES
    labelled = bench_evidence(canonical_benchmark(study.raw, vocab))  # its words read as the database holds them
    outcome = induce_loaded(labelled, {"kind": InputKind.BENCH, "path": str(bench_dir)}, vocab, out=bench_rules,
                            db=db, run_dir=out / "induce_bench", config=InduceConfig(seed=seed), progress=progress,
                            cv=FOLDS)
    cross_fitted = cv_dir(bench_rules)
    heldout = "" if outcome.cv is None else (f" (macro F1 held-out {outcome.cv.macro_f1[0]:.3f}, "
                                             f"in-sample {outcome.cv.macro_f1[1]:.3f})")
    step(f"induce (benchmark): {len(outcome.rules)} rules for {len(outcome.scores)} affordances -> {bench_rules}; "
         f"{FOLDS} cross-fitted rule sets -> {cross_fitted}{heldout}")

    kb_rules = given[RuleOrigin.KB]  # the KB rules with their metadata (member verbs, KB positives, evidence)
    # coverage and its ledger: of the KB rules the players use (flagged ones skipped unless --flagged-rules use)
    matching = TargetMatching(MATCH_THRESHOLD, embedder=study.shared_embedder())
    with study.connect() as con:
        summary = coverage_loaded(usable_rules(study.rules(kb_rules).folds[0], flagged_rules), con, vocab, study.raw,
                                  folder=db.resolve().parent, db=db, match_targets=matching)
    kb = summary.kb
    step(f"coverage: {summary.covered_pairs} of {summary.pairs} rule x object pairs covered; "
         + ("; ".join(kb.lines()) if kb is not None else "no KB coverage") + f" -> {db}")
    step(_ledger_step(study, vocab, kb_rules, out, flagged_rules))

    workers = jobs if jobs is not None else available_cores()
    cells = _cells(grid, out)
    played = _play_grid(study, cells, grid, given, endpoints, workers, progress)
    play_dirs = {}
    for cell, run in zip(cells, played, strict=True):
        play_dirs[cell.key] = run.path
        turns = run.summary.avg_turns_solved
        tokens = "" if run.tokens is None else f", {run.tokens:,} tokens"
        step(f"play {cell.key}: SR {100 * (run.summary.success_rate or 0):.1f}% over {run.summary.games} games, "
             f"turns (solved) {'-' if turns is None else f'{turns:.2f}'}{tokens} -> {run.path}")

    report_dir = out / "report"
    report_loaded(played, report_dir, inputs=_report_inputs(study, bench_dir))
    step(f"report: {report_dir / 'report.md'} and {report_dir / 'ig_over_turns.png'}")
    return PipelineResult(out, db, rules, play_dirs, report_dir, lines, bench_rules)


def _cells(grid: GridSpec, out: Path) -> list[PlayCell]:
    """The grid's runs with their folders under ``out/play``."""
    return [PlayCell(name, model, out / "play" / (name if model is None else f"{model.folder}/{name}"))
            for name, model in grid_cells(grid)]


def _given(out: Path) -> dict[str, Path]:
    """Where the pipeline's steps put each rule source the players are given: the KB rules' JSONL twin (with their
    metadata: member verbs, KB positives, evidence) and the cross-fitted benchmark rule sets."""
    return {RuleOrigin.KB: jsonl_path(out / KB_RULES).resolve(),
            RuleOrigin.CROSS_FITTED: cv_dir(out / BENCH_RULES).resolve()}


def _check_resumed(cells: Sequence[PlayCell], grid: GridSpec, bench: Path, db: Path, given: Mapping[str, Path]) -> None:
    """Refuse, before any work, to resume a pipeline whose runs (or their shards) were played with other settings:
    the steps before play would otherwise rewrite the folder's KB, rules, coverage and ledger first (with
    another ``--flagged-rules``, counting other KB rules than its players were given), and the play step refuse
    only then. The inputs' contents are compared by the play step, once the steps have made them."""
    for cell in cells:
        config = _cell_config(cell, grid, bench, db, given)
        identity = config.identity()
        shards = [_shard_folder(cell.folder, s) for s in _shards(grid.shards) if s is not None]
        for folder in (cell.folder, *shards):
            check_settings(folder / CONFIG_FILE, identity, ignore=(*config.counts(), INPUTS_KEY, SHARD_KEY))


def _cell_config(cell: PlayCell, grid: GridSpec, bench: Path, db: Path, given: Mapping[str, Path]) -> PlayConfig:
    """The settings ``cell`` plays with (``NAME[@K][+kb|+rules]``, with its model) on the benchmark ``bench`` and
    the KB database ``db``, given the rule set of its source in ``given``."""
    player, model_reps, source = parse_player(cell.player)
    model = cell.model
    return PlayConfig(bench=bench, questioner=player, seed=grid.seed, games=grid.games, runs=grid.runs,
                      rules=given[source] if source is not None else None, db=db, model_reps=model_reps,
                      model=model.name if model else None, base_url=model.base_url if model else None,
                      llm_temperature=model.temperature if model else None, flagged_rules=grid.flagged_rules)


def _report_inputs(study: Study, bench_dir: Path) -> ReportInputs:
    """The study's benchmark objects and rule sets, for the report's KB-gap ledger (nothing is read again)."""
    objects = ObjectSource(dict(study.canonical().objects), study.vocabulary(), RecordEvidence(),
                           f"the benchmark {bench_dir}")
    return ReportInputs(objects, study.rules)


def _ledger_step(study: Study, vocab: Vocabulary, kb_rules: Path, out: Path, flagged: str | None) -> str:
    """The KB-gap ledger of the coverage just stored (the KB rules players use: ``flagged`` as ``usable_rules``, on the
    benchmark's games) into the database's ``kb_gaps`` / ``kb_gap_games`` tables and ``out/kb_gaps.csv``; its
    summary line."""
    objects = study.canonical().objects
    with study.connect() as con:
        used = canonical_rules(usable_rules(study.rules(kb_rules).folds[0], flagged), vocab)
        ledger = coverage_ledger(con, used, objects, vocab)
        write_ledger_tables(con, ledger)
    write_ledger_file(ledger, out / LEDGER_FILE)
    return f"{ledger.line()} -> tables kb_gaps, kb_gap_games and {out / LEDGER_FILE}"


@dataclass(frozen=True)
class PlayCell:
    """One run of the grid: a player, the model it plays with (None: no LLM) and its run directory."""

    player: str
    model: ModelSpec | None
    folder: Path

    @property
    def key(self) -> str:
        """The cell's name in :attr:`PipelineResult.play_dirs` and the step lines: ``player`` or
        ``model/player``."""
        return self.player if self.model is None else f"{self.model.folder}/{self.player}"


def _play_grid(study: Study, cells: Sequence[PlayCell], grid: GridSpec, given: Mapping[str, Path],
               endpoints: dict[str, Any], workers: int, progress: bool) -> list[Any]:
    """Play every cell (each shard of it a job of its own, :mod:`kari.io.jobs`), merge the shards, and return the
    runs in cell order. Every job's inputs are made here first, in cell order, so a job's outputs do not depend
    on which jobs run beside it or before it."""
    alone = workers == 1 or len(cells) * grid.shards == 1
    jobs, owners, merged = [], [], []
    for index, cell in enumerate(cells):
        done = grid.shards > 1 and (cell.folder / "summary.json").is_file()  # merged by an earlier session
        merged.append(done)
        if done:
            continue
        prepared = _prepare(study, cell, grid, given, endpoints)
        for shard in _shards(grid.shards):
            folder = cell.folder if shard is None else _shard_folder(cell.folder, shard)
            jobs.append(_PlayJob(prepared, folder, shard, progress and alone))
            owners.append(index)
    results = run_jobs(jobs, workers)
    runs: list[Any] = []
    for index, cell in enumerate(cells):
        if grid.shards == 1:
            runs.append(results[owners.index(index)])
            continue
        if not merged[index]:
            merge_runs([_shard_folder(cell.folder, Shard(k, grid.shards)) for k in range(1, grid.shards + 1)],
                       cell.folder)
        runs.append(load_run(cell.folder))
    return runs


def _shards(count: int) -> list[Shard | None]:
    return [None] if count == 1 else [Shard(k, count) for k in range(1, count + 1)]


def _shard_folder(folder: Path, shard: Shard) -> Path:
    """Where shard K of N of a cell plays: ``<player>.shards/K-of-N`` beside the cell's run directory."""
    return folder.with_name(f"{folder.name}.shards") / f"{shard.index}-of-{shard.count}"


@dataclass(frozen=True)
class _Prepared:
    """A cell's loaded inputs: its configuration, the benchmark, its vocabulary fork, its matched rules and its
    endpoint."""

    config: PlayConfig
    bench: Any
    vocab: Any
    rules: RuleSource | None
    llm_config: Any
    concurrency: int


@dataclass(frozen=True)
class _PlayJob:
    """One job of :func:`kari.io.jobs.run_jobs`: a cell (or a shard of it) played into ``folder``."""

    prepared: _Prepared
    folder: Path
    shard: Shard | None
    progress: bool

    def __call__(self) -> Any:
        p = self.prepared
        run = play_loaded(p.config, self.folder, bench=p.bench, vocab=p.vocab, rules=p.rules, llm_config=p.llm_config,
                          progress=self.progress, concurrency=p.concurrency, shard=self.shard)
        return None if self.shard is not None else run


def _prepare(study: Study, cell: PlayCell, grid: GridSpec, given: Mapping[str, Path],
             endpoints: dict[str, Any]) -> _Prepared:
    """The inputs of ``cell`` (``NAME[@K][+kb|+rules]``, with its model): the study's benchmark, a copy of its
    vocabulary, the rule set of its source in ``given`` (the KB rules, or the cross-fitted benchmark sets; each
    read once for all players) matched to every affordance of the benchmark now."""
    config = _cell_config(cell, grid, study.raw.root.resolve(), study.database().resolve(), given)
    model = cell.model
    bench = study.canonical()  # read into the vocabulary once, after coverage grew it as the database holds it
    vocab = study.fork()
    rules = None
    if config.rules is not None:
        rules = RuleSource.of(study.rules(config.rules), vocab, config.rule_threshold, config.rule_top_k,
                              config.rule_match, embedder=study.shared_embedder(), flagged=config.flagged)
        rules.match_all(sorted({c for game in bench.games for c in game.candidates}))  # here: no job embeds
    return _Prepared(config, bench, vocab, rules, endpoints.get(model.folder) if model else None,
                     model.concurrency if model else 1)


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


def _check_options(questioners: Sequence[str], games: int | None, kb_files: Sequence[str | Path] | None,
                   with_models: bool = False) -> None:
    """A :class:`KariError` for an option the last step would only meet after the first ones ran."""
    for name in questioners:
        player = parse_player(name)[0]
        questioner_class(player)
        if player in ONLINE_QUESTIONERS and not (with_models and is_llm_player(name)):
            raise KariError(f"the pipeline runs without a person at the terminal; play {name!r} with `kari play` "
                            "instead" if player == Player.HUMAN else
                            f"the player {name!r} needs a model: give --model NAME (and --base-url) or a study's "
                            "[[models]]", code="bad-option")
    if games is not None and games < 1:
        raise KariError("--games must be >= 1", code="bad-option")
    for path in kb_files or ():
        check_readable(Path(path))
