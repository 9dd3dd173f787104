"""Shards of one induction (``kari induce --shard K/N``) joined into the run the unsharded command writes.

Each shard is a run directory of :mod:`kari.induce.rundir` whose manifest records its ``shard`` and the run's
``plan`` (every affordance, split by name: :class:`kari.io.plan.Plan`). :func:`merge_shards` reads every shard
(each locked while read) and refuses, naming the directory:

- a directory that is not a run directory of ``kari induce``, or not a shard; shards of a different N; a shard
  given twice or missing (every K of 1..N must be given);
- shards of other settings, models, prompts, inputs or vocabulary than the first one (the key of the manifest
  that differs is named), or whose affordances differ (their plans);
- a shard that has not finished its share (rerun its command first), or holds an affordance of another shard;
- inputs that changed since the shards ran (the run's cache key, recomputed from the inputs now, differs), or a
  vocabulary in the database other than the one the shards started from.

The merged run directory is built in a new folder beside it (:func:`kari.io.shards.staging`): the shards'
finished affordances, their settings search (``tuning.json``, the same in every shard) and their call logs
(``calls/shard<K>-<session>.jsonl``); the run then finishes there as a resumed run does, without a request
(every affordance is finished): the vocabulary additions merged in affordance order and written back to the
database, the rules scored, and the rules file, its JSONL, ``coverage.jsonl``, ``vocabulary.jsonl`` and
``report.md`` written as the unsharded run writes them. The folder is renamed into place at the end.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.core.induce_config import Backend, InduceConfig, InputKind
from kari.induce.records import InductionResult
from kari.induce.rundir import RunDir
from kari.io.plan import Plan, Shard
from kari.io.lock import folder_lock
from kari.io.shards import distinct_dirs, merge_target, staging
from kari.induce.run import induce_loaded, read_inputs, run_key, vocabulary_digest
from kari.llm import LLMConfig

SAME = ("cache_key", "config", "input", "db", "models", "prompts", "backend", "start_vocabulary", "plan")
"""The manifest keys every shard of one induction shares."""


def is_induction_run(folder: Path) -> bool:
    """Does ``folder`` hold a run directory of ``kari induce``?"""
    return (folder / "manifest.json").is_file() and not (folder / "config.json").is_file()


def merge_shards(dirs: Sequence[str | Path], out: str | Path, *, run_dir: str | Path | None = None,
                 argv: list[str] | None = None, progress: bool = False) -> Any:
    """Join the induction shards ``dirs`` into the rules file ``out`` (its JSONL beside it) and the run directory
    ``run_dir`` (default: ``out`` with suffix ``.run``), equal to what ``kari induce`` writes unsharded; returns
    its :class:`kari.induce.run.InduceOutcome`."""
    folders = distinct_dirs(dirs)
    out = Path(out)
    target = merge_target(run_dir if run_dir is not None else out.with_suffix(".run"), folders, RunDir.NAMES)
    with ExitStack() as stack:
        shards = []
        for folder in folders:
            if not is_induction_run(folder):
                raise KariError("not a run directory of kari induce (no manifest.json, or the config.json of "
                                "another command): merge the shards of one command", file=str(folder),
                                code="merge-shards")
            stack.enter_context(folder_lock(folder))  # a shard still being induced is not merged
            shards.append(_read_shard(folder))
        first = _check_shards(shards)
        with staging(target) as folder:
            _copy_shards(shards, folder)
            outcome = _finish(first, out, folder, argv, progress)
    return dataclasses.replace(outcome, run_dir=target)


class _ShardRun:
    """One shard read back: its folder, manifest, shard, plan and finished affordances."""

    def __init__(self, folder: Path, manifest: dict[str, Any], shard: Shard, plan: Plan,
                 results: dict[str, InductionResult]) -> None:
        self.folder, self.manifest, self.shard, self.plan, self.results = folder, manifest, shard, plan, results


def _read_shard(folder: Path) -> _ShardRun:
    run = RunDir(folder)
    manifest = run.manifest() or {}
    if not manifest.get("shard") or not isinstance(manifest.get("plan"), Mapping):
        raise KariError("not a shard (its manifest records no shard: induced without --shard K/N)",
                        file=str(folder), code="merge-shards")
    try:
        shard = Shard.parse(manifest["shard"])
    except KariError as exc:
        raise KariError(exc.message, file=str(run.manifest_path), code="merge-shards") from None
    plan = Plan.from_json(manifest["plan"], run.manifest_path)
    return _ShardRun(folder, manifest, shard, plan, run.finished())


def _check_shards(shards: Sequence[_ShardRun]) -> _ShardRun:
    """Refuse shards that do not make up one whole, finished induction (see the module docstring)."""
    first = shards[0]
    count = first.shard.count
    by_index: dict[int, _ShardRun] = {}
    for run in shards:
        where = str(run.folder)
        if run.shard.count != count:
            raise KariError(f"shard {run.shard} is not one of {count} like {first.folder} (shard {first.shard})",
                            file=where, code="merge-shards")
        diff = [k for k in SAME if run.manifest.get(k) != first.manifest.get(k)]
        if diff:
            raise KariError(f"this shard was made with other settings, inputs or vocabulary than {first.folder} "
                            f"({', '.join(diff)})", file=where, code="merge-shards")
        if run.shard.index in by_index:
            raise KariError(f"shard {run.shard} is given twice: {by_index[run.shard.index].folder} and {run.folder} "
                            "(overlapping shards)", file=where, code="merge-shards")
        by_index[run.shard.index] = run
        _check_share(run)
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in by_index]
    if missing:
        raise KariError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of this induction "
                        f"{'are' if len(missing) > 1 else 'is'} missing: give the run directories of all {count} "
                        "shards", code="merge-shards")
    tunings = {_tuning(run) for run in shards}
    if len(tunings) > 1:
        raise KariError("the shards chose different offline settings (tuning.json): they did not read the same "
                        "inputs", file=str(first.folder), code="merge-shards")
    return first


def _check_share(run: _ShardRun) -> None:
    """A shard's finished affordances must be exactly its share of the plan."""
    share = [a for a in run.plan.selected if run.plan.owns(run.shard, a)]
    stray = sorted(a for a in run.results if not run.plan.owns(run.shard, a))
    if stray:
        raise KariError(f"holds affordance {stray[0]!r}, which is not this shard's ({run.shard})", file=str(run.folder),
                        code="merge-shards")
    left = [a for a in share if a not in run.results]
    if left or run.manifest.get("status") != "finished":
        raise KariError(f"this shard has not finished ({len(share) - len(left)} of its {len(share)} affordances; "
                        f"status {run.manifest.get('status')!r}): rerun its command to finish it", file=str(run.folder),
                        code="merge-shards")


def _tuning(run: _ShardRun) -> str:
    path = RunDir(run.folder).tuning_path
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _copy_shards(shards: Sequence[_ShardRun], folder: Path) -> None:
    """The shards' finished affordances, settings search and call logs, into the new run directory."""
    merged = RunDir(folder)
    for run in sorted(shards, key=lambda r: r.shard.index):
        source = RunDir(run.folder)
        for result in run.results.values():
            merged.save(result)
        for log in sorted((run.folder / "calls").glob("*.jsonl")):
            (folder / "calls").mkdir(exist_ok=True)
            shutil.copyfile(log, folder / "calls" / f"shard{run.shard.index}-{log.name}")
        if source.tuning_path.is_file() and not merged.tuning_path.is_file():
            shutil.copyfile(source.tuning_path, merged.tuning_path)


def _finish(first: _ShardRun, out: Path, folder: Path, argv: list[str] | None, progress: bool) -> Any:
    """Finish the merged run in ``folder`` as a resumed unsharded run (no request: every affordance is there)."""
    manifest = first.manifest
    config = _config(manifest.get("config") or {}, first.folder)
    info = manifest.get("input") or {}
    kind = info.get("kind")
    db = manifest.get("db")
    bench = info.get("path") if kind == InputKind.BENCH else None
    llm = _llm(manifest) if config.backend == Backend.OPENAI else None
    vocab, evidence, input_info = read_inputs(db, bench, config)
    key, _, _ = run_key(config.for_input(input_info["kind"]), llm, evidence)
    if key != manifest.get("cache_key"):
        raise KariError(f"the inputs ({input_info['kind']} {input_info['path']}) or kari's settings and prompts "
                        f"changed since the shards ran (cache key {manifest.get('cache_key')}, now {key}): induce the "
                        "shards again", code="merge-shards")
    if vocabulary_digest(vocab) != manifest.get("start_vocabulary"):
        raise KariError("the vocabulary stored in the database changed since the shards ran: induce the shards "
                        "again", file=str(db), code="merge-shards")
    return induce_loaded(evidence, input_info, vocab, out=out, db=db, run_dir=folder, config=config, llm=llm,
                         progress=progress, argv=argv)


def _config(data: Mapping[str, Any], folder: Path) -> InduceConfig:
    """The shards' settings, from their manifest's ``config``."""
    names = {f.name for f in dataclasses.fields(InduceConfig)}
    values = {k: v for k, v in data.items() if k in names}
    values["affordances"] = tuple(values.get("affordances") or ())
    try:
        return InduceConfig(**values)
    except (KariError, TypeError) as exc:
        raise KariError(f"the manifest's settings cannot be read ({exc})", file=str(folder / "manifest.json"),
                        code="merge-shards") from None


def _llm(manifest: Mapping[str, Any]) -> Any:
    """The shards' model, answered from the cache only (the merge makes no request)."""
    llm = manifest.get("llm") or {}
    return LLMConfig(base_url=llm.get("base_url") or "http://127.0.0.1/v1", model=llm.get("model") or "?",
                     cache_dir=llm.get("cache_dir"), offline_replay=True)


__all__ = ["is_induction_run", "merge_shards"]
