"""Affordances induced several at a time (``kari induce --concurrency N``), each one's rounds in order.

Each affordance runs in a thread of its own; only the LLM client is shared, and its limit bounds the requests in
flight (N). Everything but waiting on the server runs under one lock (:class:`LocalWork`): a thread holds it while
it computes (the solver, the guards, the vocabulary's caches, the embedder) and lets go of it while its requests
are in flight, so the local work runs one affordance at a time, as in a sequential run, while up to N requests of
many affordances wait on the server. An affordance's result does not depend on the others (each audits against
the vocabulary as the run started: :mod:`kari.induce.loop`), so any N gives the results of N = 1.

:func:`induce_all` hands each finished result to ``done`` in the calling thread as soon as it is there (the run
saves it then). When one affordance fails, the affordances not started yet are cancelled; when the failure is not
a spent budget (the others then stop at their next live request by themselves), the client is stopped too, so
the requests in flight are abandoned. Ctrl-C (KeyboardInterrupt in the calling thread) stops the client the same
way; the results finished before the threads wound down are handed to ``done`` before the interrupt goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import TypeVar

from kari.llm.limits import BudgetSpent, Cancelled

T = TypeVar("T")
R = TypeVar("R")


class LocalWork:
    """The lock of the run's local work: held while a thread computes, released while it waits on the server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner = threading.local()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block (the work of one affordance)."""
        with self._lock:
            self._owner.holds = True
            try:
                yield
            finally:
                self._owner.holds = False

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """Let go of the lock while the block waits on the server (a no-op in a thread that does not hold it)."""
        if not getattr(self._owner, "holds", False):
            yield
            return
        self._owner.holds = False
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._owner.holds = True


def induce_all(items: Sequence[T], work: Callable[[T], R], workers: int, done: Callable[[R], None],
               stop: Callable[[], None]) -> None:
    """``done(work(item))`` for every item, with up to ``workers`` items in flight (``workers == 1``: one after
    the other, in the calling thread). ``stop()`` stops the shared client (see the module docstring). The first
    failure is raised once every started item has ended."""
    if workers < 1:
        raise ValueError("workers must be >= 1")
    if workers == 1 or len(items) <= 1:
        for item in items:
            done(work(item))
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kari-induce")
    waiting: set[Future[R]] = {pool.submit(work, item) for item in items}   # not handed to ``done`` yet
    failure: BaseException | None = None
    try:
        while waiting:
            finished, _ = wait(waiting, return_when=FIRST_COMPLETED)
            for future in finished:
                waiting.discard(future)
                failure = _hand_over(future, done, failure, waiting, stop)
    except BaseException:                  # Ctrl-C (or a failing ``done``): stop, keep what finished, go on
        stop()
        for future in waiting:
            future.cancel()
        for future in waiting:
            if not future.cancelled():
                try:
                    done(future.result())
                except Exception:  # noqa: BLE001 - Cancelled, a spent budget...: the interrupt is what goes on
                    continue
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if failure is not None:
        raise failure


def _hand_over(future: Future[R], done: Callable[[R], None], failure: BaseException | None,
               pending: set[Future[R]], stop: Callable[[], None]) -> BaseException | None:
    """Give one ended item's result to ``done``; on its failure (the first one kept), cancel the items not
    started and stop the client unless the budget is what ran out. Returns the failure to raise at the end."""
    if future.cancelled():
        return failure
    error = future.exception()
    if error is None:
        done(future.result())
        return failure
    if isinstance(error, Cancelled):
        return failure
    if failure is None:
        for other in pending:
            other.cancel()
        if not isinstance(error, BudgetSpent):
            stop()
        return error
    return failure


__all__ = ["LocalWork", "induce_all"]
