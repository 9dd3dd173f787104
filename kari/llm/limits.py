"""What ends a client's live calls early: a budget of calls and tokens, and a stop signal.

:class:`Budget` counts the calls that reach the server and the tokens their replies report (a cache hit is
free). A live call first takes one call of the budget (:meth:`Budget.take`); once the calls are used up, or the
tokens reported so far reach the token budget, the next live call raises :class:`BudgetSpent`. The call budget
is exact whatever the concurrency; the token budget can be passed by the replies already in flight when it is
reached (their tokens are known only when they come back).

:class:`Cancelled` is raised in every thread that waits on the client once :meth:`ChatClient.stop
<kari.llm.client.ChatClient.stop>` was called (Ctrl-C in the main thread, a failure of another worker).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from kari.errors import ExitCode, KariError

POLL_S = 0.05
"""How often a waiting call looks whether its client was stopped."""
BUDGET_EXIT = ExitCode.BUDGET
"""The exit code of a command stopped by its budget (EX_TEMPFAIL: rerun it to go on)."""


class Cancelled(Exception):
    """The client was stopped while this call waited (for a slot, a reply, or a retry)."""


class BudgetSpent(KariError):
    """A live call was refused: the budget of calls or tokens is spent (code ``budget``, exit 75)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="budget", exit_code=BUDGET_EXIT)


@dataclass(frozen=True)
class BudgetState:
    """Live calls and tokens spent so far, and the limits (None: no limit)."""

    calls: int
    tokens: int
    max_calls: int | None
    max_tokens: int | None

    def describe(self) -> str:
        """``"12 of 12 calls, 3,400 tokens"``: what was spent, against the limits."""
        calls = f"{self.calls:,} of {self.max_calls:,} calls" if self.max_calls is not None else f"{self.calls:,} calls"
        tokens = (f"{self.tokens:,} of {self.max_tokens:,} tokens" if self.max_tokens is not None
                  else f"{self.tokens:,} tokens")
        return f"{calls}, {tokens}"


class Budget:
    """Live calls and tokens a client may spend (each limit None for none); thread-safe."""

    def __init__(self, calls: int | None = None, tokens: int | None = None) -> None:
        if (calls is not None and calls < 1) or (tokens is not None and tokens < 1):
            raise KariError("a budget of calls or tokens must be >= 1", code="llm-config")
        self.max_calls, self.max_tokens = calls, tokens
        self._calls = 0
        self._tokens = 0
        self._lock = threading.Lock()

    @property
    def limited(self) -> bool:
        return self.max_calls is not None or self.max_tokens is not None

    def state(self) -> BudgetState:
        with self._lock:
            return BudgetState(self._calls, self._tokens, self.max_calls, self.max_tokens)

    def take(self) -> None:
        """Take one live call, or raise :class:`BudgetSpent` when the calls or tokens are used up."""
        with self._lock:
            spent = (self.max_calls is not None and self._calls >= self.max_calls) or \
                (self.max_tokens is not None and self._tokens >= self.max_tokens)
            if not spent:
                self._calls += 1
                return
        raise BudgetSpent(f"the LLM budget is spent ({self.state().describe()})")

    def spend(self, tokens: int) -> None:
        """Count the tokens one live reply reported."""
        with self._lock:
            self._tokens += max(0, int(tokens))


__all__ = ["BUDGET_EXIT", "POLL_S", "Budget", "BudgetSpent", "BudgetState", "Cancelled"]
