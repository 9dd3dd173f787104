"""Retry a call with exponential backoff and jitter, for transient failures only."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


class Transient(Exception):
    """Wraps a failure worth retrying (timeout, connection error, 429, 5xx); ``retry_after`` in seconds if known."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class RetriesExhausted(Exception):
    """Every attempt failed with a transient error; ``reason`` is the last one."""

    def __init__(self, attempts: int, reason: str) -> None:
        super().__init__(f"failed after {attempts} attempt{'s' if attempts != 1 else ''}: {reason}")
        self.attempts = attempts
        self.reason = reason


def backoff_delay(
    attempt: int, base: float, cap: float, retry_after: float | None = None, rng: random.Random | None = None
) -> float:
    """Seconds before retry number ``attempt`` (0-based): random in ``[d/2, d]``, ``d = min(cap, base * 2**attempt)``.

    A server's ``Retry-After`` wins when longer (still capped).
    """
    ceiling = min(cap, base * (2**attempt))
    delay = (rng or random).uniform(ceiling / 2, ceiling)
    if retry_after is not None:
        delay = max(delay, min(cap, retry_after))
    return delay


@dataclass
class Outcome(Generic[T]):
    """The value of a successful call and how many retries it took."""

    value: T
    retries: int


def call_with_retries(
    fn: Callable[[], T],
    *,
    max_retries: int,
    base: float,
    cap: float,
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome[T]:
    """Run ``fn``; on :class:`Transient` wait and retry, at most ``max_retries`` times, then :class:`RetriesExhausted`.

    Any other exception propagates at once (a bad request is not retried).
    """
    attempt = 0
    while True:
        try:
            return Outcome(fn(), attempt)
        except Transient as exc:
            if attempt >= max_retries:
                raise RetriesExhausted(attempt + 1, exc.reason) from exc
            sleep(backoff_delay(attempt, base, cap, exc.retry_after))
            attempt += 1
