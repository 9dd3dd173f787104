"""Independent jobs side by side in worker processes, results in the order given (``kari pipeline --jobs N``).

A job is a function of no arguments that writes its own outputs (a player's run directory, one shard of it) and
returns a small picklable value. With one worker, or one job, every job runs in the calling process, one after
the other. With more, the jobs run in up to ``workers`` processes forked from this one: a job sees the objects the
caller already loaded (the benchmark, the vocabulary, the matched rules), copied on write, so nothing is read
again and no job depends on another's run. A job that fails with a :class:`~kari.errors.KariError` fails the batch
with that error (the first, in the order given) once the jobs already running have finished; a job not yet
started is not run.

>>> run_jobs([lambda: 1, lambda: 2], workers=1)
[1, 2]
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from kari.errors import KariError

T = TypeVar("T")

_PENDING: Sequence[Callable[[], Any]] = ()
"""The jobs of the batch being run (inherited by the forked workers, which run them by index)."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; ``os.cpu_count()`` where that is unknown)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


MIN_SPREAD = 16
"""Fewer jobs than this run in the calling process (forking workers would cost more than it saves)."""


def spread_over(work: int, at_least: int = MIN_SPREAD) -> int:
    """The workers for one step of independent CPU-bound jobs: every available core once its ``work`` (by
    default the number of jobs) reaches ``at_least``, else one (the calling process)."""
    return available_cores() if work >= at_least else 1


TIMINGS = ("time_s", "latency_s")
"""The fields in which a run's files may differ from those of the same run played otherwise (wall times)."""


def without_timings(value: Any) -> Any:
    """A JSON value with every :data:`TIMINGS` field blanked: what "the same outputs" compares."""
    if isinstance(value, dict):
        return {k: (None if k in TIMINGS else without_timings(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def _run(index: int) -> tuple[str, Any]:
    """Job ``index`` in a worker: ``("ok", value)`` or ``("error", the KariError's fields)``."""
    try:
        return "ok", _PENDING[index]()
    except KariError as exc:
        return "error", (exc.message, exc.file, exc.line, exc.col, exc.code, exc.exit_code)


def run_jobs(jobs: Sequence[Callable[[], T]], workers: int, each: Callable[[T], None] | None = None) -> list[T]:
    """Every job's value, in the order of ``jobs``, with up to ``workers`` jobs running at once (see the module
    docstring); ``each(value)``, when given, runs in the calling process on every value in that order as soon as
    it and the values before it are there (a progress bar, a checkpoint). A process that cannot fork (no
    ``fork`` start method) runs the jobs one after the other."""
    global _PENDING
    if workers < 1:
        raise KariError(f"--jobs must be >= 1 (got {workers})", code="bad-option")
    if workers == 1 or len(jobs) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        outcomes = []
        for job in jobs:
            outcomes.append(job())
            if each is not None:
                each(outcomes[-1])
        return outcomes
    _PENDING = jobs
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
            futures = [pool.submit(_run, index) for index in range(len(jobs))]
            outcomes = []
            for future in futures:
                kind, value = future.result()
                if kind == "error":
                    for later in futures:
                        later.cancel()
                    message, file, line, col, code, exit_code = value
                    raise KariError(message, file=file, line=line, col=col, code=code, exit_code=exit_code)
                outcomes.append(value)
                if each is not None:
                    each(value)
        return outcomes
    finally:
        _PENDING = ()
