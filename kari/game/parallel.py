"""Several games in flight at once (``kari play --concurrency N``), results in input order.

Games are independent: each has its own random stream (seed, run, game) and, played in its own thread, its own
players; only the LLM client is shared, and its concurrency limit bounds the HTTP calls in flight. So N games
played at once give the same records as a sequential run. :func:`ordered_map` hands results back in input order,
so ``games.jsonl`` has the sequential order and a crash leaves a prefix of it (a rerun resumes after it).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

LOOKAHEAD = 4
"""Games started ahead of the oldest unfinished one, per worker (a slow game does not stall the others)."""


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[tuple[T, R]]:
    """``(item, fn(item))`` in input order, with up to ``workers`` calls running at once.

    ``workers == 1`` runs every call in the calling thread (an interactive player reads the terminal there). The
    first exception, in input order, is raised after the calls already running have finished; calls not yet
    started are cancelled.
    """
    if workers < 1:
        raise ValueError("workers must be >= 1")
    if workers == 1:
        for item in items:
            yield item, fn(item)
        return
    source = iter(items)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kari-game")
    window: deque[tuple[T, Future[R]]] = deque()
    try:
        for item in source:
            window.append((item, pool.submit(fn, item)))
            if len(window) >= workers * LOOKAHEAD:
                head, future = window.popleft()
                yield head, future.result()
        while window:
            head, future = window.popleft()
            yield head, future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class PerThread(Generic[T]):
    """One instance of ``build()`` per thread (players keep per-game state, so threads must not share them)."""

    def __init__(self, build: Callable[[], T], first: T | None = None) -> None:
        self._build = build
        self._local = threading.local()
        if first is not None:
            self._local.value = first

    def get(self) -> T:
        value = getattr(self._local, "value", None)
        if value is None:
            value = self._local.value = self._build()
        return value
