"""Shards of one run joined into one run directory (``kari merge``), equal to the run played unsharded.

Each shard is a run directory of the resumable run loop (:mod:`kari.io.runloop`) whose ``config.json``
records its ``shard`` (``K/N``). :func:`join_shards` reads every shard (each locked while it is read, its log
checked as a resume checks it) and refuses, naming the directories:

- a directory that is not a shard (or a run directory of an older kari, which recorded no shard, plan or
  fingerprints), or shards of a different number N;
- shards of different settings or counts, or that read inputs of different content (their fingerprints);
- a shard given twice (overlapping shards) or a shard missing (every K of 1..N must be given);
- a shard that has not finished its share of the items (resume it first), or holds items the run did not ask
  for.

The records are put in the order an unsharded run writes them (:attr:`kari.io.plan.Plan.order`);
:func:`write_merged` writes the joined run into a new folder built beside ``--out`` and renamed into place at
the end, so a failed merge leaves nothing behind.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from kari.errors import KariError
from kari.io.atomic import atomic_write_json, atomic_write_jsonl, check_output_dir
from kari.io.fingerprint import INPUTS_KEY, changes
from kari.io.lock import folder_lock
from kari.io.outputs import Input, Output, OutputKind, check_outputs
from kari.io.plan import PLAN_FILE, SHARD_KEY, ItemKey, Plan
from kari.io.runlog import CONFIG_FILE, SUMMARY_FILE, read_config
from kari.io.runloop import OLD_RUN, LoggedRun, Record, RunLog, old_run_note, read_checked_log
from kari.io.versions import FORMAT_KEY, RUN_FORMAT

R = TypeVar("R", bound=Record)
T = TypeVar("T")


@dataclass(frozen=True)
class Joined(Generic[R]):
    """Shards joined: the run's ``config.json`` (the shards' own without the shard), its plan, every record in
    the unsharded order, and the LLM usage the shards' summaries report (summed; None without any)."""

    config: dict[str, Any]
    plan: Plan
    records: list[R]
    llm_usage: dict[str, Any] | None
    shards: int


def join_shards(dirs: Sequence[str | os.PathLike[str]], log: RunLog[R]) -> Joined[R]:
    """Read and check the shards ``dirs`` of one run (see the module docstring) and join their records."""
    distinct_dirs(dirs)
    with ExitStack() as stack:
        runs = [_read_shard(Path(d), log, stack) for d in dirs]
        return _join(runs, log.key)


def distinct_dirs(dirs: Sequence[str | os.PathLike[str]], *, none: str = "give the run directories of the shards "
                  "to merge", once: str = "each shard is merged once", code: str = "merge-shards") -> list[Path]:
    """The folders given (shards to merge, runs to report), refused when there are none or one is given twice
    (under any name)."""
    if not dirs:
        raise KariError(none, code=code)
    seen: dict[Path, Path] = {}
    for given in map(Path, dirs):
        if given.resolve() in seen:
            raise KariError(f"given twice (also as {seen[given.resolve()]}): {once}", file=str(given), code=code)
        seen[given.resolve()] = given
    return list(seen.values())


def _read_shard(folder: Path, log: RunLog[R], stack: ExitStack) -> LoggedRun[R]:
    if not (folder / CONFIG_FILE).is_file() or not (folder / log.file).is_file():
        raise KariError(f"not a shard's run directory (no {CONFIG_FILE} or {log.file})", file=str(folder),
                        code="merge-shards")
    note = old_run_note(folder)
    if note is not None:  # an older kari recorded no shard, plan or fingerprints: nothing to check it against
        raise KariError(f"this run directory {OLD_RUN}: merge takes shards played with --shard K/N by this kari",
                        file=str(folder), code="merge-shards")
    stack.enter_context(folder_lock(folder))  # a shard still being played is not merged
    run = read_checked_log(folder, log)
    if run.shard is None or run.plan is None:
        raise KariError(f"not a shard (its {CONFIG_FILE} records no shard: played without --shard K/N)",
                        file=str(folder), code="merge-shards")
    return run


def _join(runs: Sequence[LoggedRun[R]], key: Callable[[R], ItemKey]) -> Joined[R]:
    first = runs[0]
    assert first.shard is not None and first.plan is not None
    count = first.shard.count
    by_index: dict[int, LoggedRun[R]] = {}
    for run in runs:
        assert run.shard is not None and run.plan is not None
        if run.shard.count != count:
            raise KariError(f"shard {run.shard} is not one of {count} like {first.folder} (shard {first.shard})",
                            file=str(run.folder), code="merge-shards")
        _same_run(first, run)
        if run.shard.index in by_index:
            raise KariError(f"shard {run.shard} is given twice: {by_index[run.shard.index].folder} and "
                            f"{run.folder} (overlapping shards)", file=str(run.folder), code="merge-shards")
        by_index[run.shard.index] = run
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in by_index]
    if missing:
        raise KariError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of this run "
                        f"{'are' if len(missing) > 1 else 'is'} missing: give the run directories of all {count} "
                        "shards", code="merge-shards")
    plan = first.plan
    position = {k: i for i, k in enumerate(plan.order)}
    records: list[tuple[int, R]] = []
    for index in sorted(by_index):
        run = by_index[index]
        records += _shard_records(run, plan, position, key)
    config = {k: v for k, v in first.config.items() if k != SHARD_KEY}
    usages = [_usage(run.folder) for run in runs]
    return Joined(config, plan, [r for _, r in sorted(records, key=lambda pair: pair[0])],
                  add_counts(u for u in usages if u is not None), count)


def _same_run(first: LoggedRun[Any], run: LoggedRun[Any]) -> None:
    """Refuse a shard made with other settings, counts or inputs than the first one."""
    where = str(run.folder / CONFIG_FILE)
    old, new = first.config.get(INPUTS_KEY), run.config.get(INPUTS_KEY)
    if isinstance(old, Mapping) and isinstance(new, Mapping) and old != new:
        raise KariError(f"this shard read other inputs than {first.folder}: {changes(old, new)[0]}", file=where,
                        code="merge-shards")
    keys = set(first.config) | set(run.config)
    diff = sorted(k for k in keys if k not in (SHARD_KEY, INPUTS_KEY, FORMAT_KEY)
                  and first.config.get(k) != run.config.get(k))
    if diff or old != new:
        raise KariError(f"this shard was made with other settings than {first.folder} "
                        f"({', '.join(diff) or INPUTS_KEY})", file=where, code="merge-shards")
    if first.plan != run.plan:
        raise KariError(f"this shard's {PLAN_FILE} differs from that of {first.folder}", file=where,
                        code="merge-shards")


def _shard_records(run: LoggedRun[R], plan: Plan, position: Mapping[ItemKey, int],
                   key: Callable[[R], ItemKey]) -> list[tuple[int, R]]:
    """A finished shard's records with their places in the unsharded order."""
    have = {key(r) for r in run.records}
    extra = [key(r) for r in run.records if key(r) not in position]
    if extra:
        raise KariError(f"shard {run.shard} holds {len(extra)} record(s) the run did not ask for (first: "
                        f"{plan.describe(extra[0])}): merge shards played with the same counts", file=str(run.folder),
                        code="merge-shards")
    plan.unfinished(run.shard, have, str(run.folder), "merge-shards")
    return [(position[key(r)], r) for r in run.records]


def _usage(folder: Path) -> dict[str, Any] | None:
    """The LLM usage a shard's ``summary.json`` reports (None when it reports none or has no summary)."""
    try:
        summary = read_config(folder / SUMMARY_FILE)
    except KariError:
        return None
    usage = summary.get("llm_usage") if summary else None
    return usage if isinstance(usage, dict) else None


def add_counts(items: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Mappings of counts added key by key (nested mappings too; floats rounded to 4 places); None for none."""
    total: dict[str, Any] | None = None
    for item in items:
        total = dict(item) if total is None else _add(total, item)
    return total


def _add(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, Mapping):
            prior = out.get(k)
            out[k] = _add(prior if isinstance(prior, Mapping) else {}, v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(out.get(k, 0), (int, float)):
            out[k] = out.get(k, 0) + v
            if isinstance(out[k], float):
                out[k] = round(out[k], 4)
        else:
            out.setdefault(k, v)
    return out


def write_merged(out: str | os.PathLike[str], joined: Joined[R], log: RunLog[R],
                 shards: Sequence[str | os.PathLike[str]], finish: Callable[[Path], T]) -> T:
    """Write the joined run as the run directory ``out`` (which must not exist, or be an empty folder, and be
    none of the ``shards``): ``config.json``, ``plan.json`` and the log, then ``finish(folder)`` (the command's
    summary, plots, ...), all into a new folder beside ``out`` renamed into place at the end. Returns what
    ``finish`` returned."""
    target = merge_target(out, shards, (CONFIG_FILE, PLAN_FILE, log.file))
    with staging(target) as folder:
        atomic_write_json(folder / CONFIG_FILE, RUN_FORMAT.stamped(joined.config))
        atomic_write_json(folder / PLAN_FILE, joined.plan.to_json())
        atomic_write_jsonl(folder / log.file, [r.to_json() for r in joined.records])
        return finish(folder)


def merge_target(out: str | os.PathLike[str], shards: Sequence[str | os.PathLike[str]],
                 names: Sequence[str]) -> Path:
    """The merged run's folder ``out``, checked: none of the ``shards``, none of the ``names`` it writes a file of
    a shard (:func:`~kari.io.outputs.check_outputs`), and new or an empty folder."""
    target = check_output_dir(out)
    given = {Path(s).resolve() for s in shards}
    if target.resolve() in given:
        raise KariError("--out is one of the shards; the merged run goes to a new folder", file=str(target),
                        code="output-is-input")
    check_outputs([Output(target, "--out", OutputKind.FOLDER, names=tuple(names))],
                  [Input(Path(s) / name, f"a shard's {name}") for s in shards for name in names])
    if target.exists() and any(target.iterdir()):
        raise KariError("exists and is not empty; the merged run goes to a new folder", file=str(target),
                        code="output-kind")
    return target


@contextmanager
def staging(target: Path) -> Iterator[Path]:
    """A new folder beside ``target``, renamed to ``target`` when the block succeeds and removed otherwise."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        folder = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        folder.mkdir()
    except OSError as exc:
        raise KariError(f"cannot create the output folder: {exc.strerror or exc}", file=str(target),
                        code="output-write") from None
    try:
        yield folder
        try:
            os.replace(folder, target)  # over an empty folder too
        except OSError as exc:
            raise KariError(f"cannot move the merged run into place: {exc.strerror or exc}", file=str(target),
                            code="output-write") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


__all__ = ["Joined", "add_counts", "distinct_dirs", "join_shards", "merge_target", "staging", "write_merged"]
