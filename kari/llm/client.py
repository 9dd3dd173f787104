"""The chat client every kari role uses: cache, replay, concurrency limit, budget, usage totals and the call log.

The client is backend-agnostic; a backend (today :class:`~kari.llm.openai_backend.OpenAIBackend`) only turns one
request into one reply. At most ``concurrency`` calls are in flight at once, whatever the number of threads
asking. A request already in flight in another thread is not sent twice: with the cache on, the later asker waits
for the first one's reply and gets it as a cache hit, as it would have in a sequential run. A live call first
takes one call of the budget (:mod:`kari.llm.limits`); :meth:`ChatClient.stop` ends every wait with
:class:`~kari.llm.limits.Cancelled`. Typical use::

    client = make_chat_client(LLMConfig(base_url="http://127.0.0.1:8080/v1", model="smollm2"))
    reply = client.chat([{"role": "user", "content": "Say hi"}], max_tokens=8, role="oracle")
    reply.text, client.usage.total_tokens
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kari.errors import KariError, choice

from .cache import CachedReply, ReplyCache, cache_key, request_fingerprint
from .calllog import CallLog
from .config import LLMConfig
from .limits import POLL_S, Budget, Cancelled
from .openai_backend import OpenAIBackend
from .types import ChatReply, ChatRequest, Message, Usage



class Backend(Protocol):
    """Turns one request into one reply: ``complete(request) -> (reply, retries, json_mode_used)``."""

    name: str

    def complete(self, request: ChatRequest) -> tuple[CachedReply, int, str]: ...


@dataclass
class _Flight:
    """A live call under way: the callers of the same request wait for its reply."""

    done: threading.Event = field(default_factory=threading.Event)
    reply: CachedReply | None = None


class ChatClient:
    """Chat completions with an on-disk cache, a concurrency limit, a budget, usage totals and an optional
    :class:`CallLog`."""

    def __init__(self, config: LLMConfig, backend: Backend | None, log: CallLog | None = None,
                 stopped: threading.Event | None = None) -> None:
        self.config = config
        self.backend = backend
        self.log = log
        self.cache = ReplyCache(config.resolved_cache_dir) if config.use_cache else None
        self.budget = Budget(config.budget_calls, config.budget_tokens)
        self.stopped = stopped if stopped is not None else threading.Event()
        self._slots = threading.BoundedSemaphore(config.concurrency)
        self._lock = threading.Lock()
        self._usage = Usage()
        self._flights: dict[str, _Flight] = {}
        self._pool: ThreadPoolExecutor | None = None

    def stop(self) -> None:
        """Make every call waiting now or later raise :class:`~kari.llm.limits.Cancelled` (replies in flight are
        abandoned)."""
        self.stopped.set()

    def close(self) -> None:
        """End the threads of :meth:`chat_many` (the client can still make calls, one thread at a time)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    @property
    def usage(self) -> Usage:
        """A snapshot of this client's totals (calls, cache hits, tokens, latency, retries)."""
        with self._lock:
            return copy.deepcopy(self._usage)

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        role: str = "",
        tag: str = "",
        seed: int | None = None,
    ) -> ChatReply:
        """One chat completion; answered from the cache when the same request was made before (or is under way
        in another thread). ``tag`` (e.g. the affordance) is written to the call log; ``seed``: the sampling seed
        sent to the server (none when None)."""
        request = ChatRequest(_check_messages(messages), max_tokens, temperature, json_schema, role, tag, seed)
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
        fingerprint = request_fingerprint(self.config.model, request.messages, max_tokens, temperature, json_schema,
                                          base_url=self.config.base_url, json_mode=self.config.json_mode,
                                          backend=self.config.backend, seed=seed)
        key = cache_key(fingerprint)
        while True:
            self._check_stopped()
            started = time.perf_counter()
            if self.cache is not None:
                hit = self.cache.get(key)
                if hit is not None:
                    return self._cached(hit, started, key, request)
            if self.config.offline_replay or self.backend is None:
                raise KariError(
                    f"offline replay: no recorded reply for {role or 'this call'} (key {key[:16]}) "
                    f"in {self.config.resolved_cache_dir}; record it once against a server",
                    code="llm-replay-miss",
                )
            if self.cache is None:
                return self._live(request, key, fingerprint)
            with self._lock:
                flight = self._flights.get(key)
                leader = flight is None
                if flight is None:
                    flight = self._flights[key] = _Flight()
            if leader:
                try:
                    return self._live(request, key, fingerprint, flight)
                finally:
                    with self._lock:
                        self._flights.pop(key, None)
                    flight.done.set()
            self._wait(flight.done)
            if flight.reply is not None:
                return self._cached(flight.reply, started, key, request)
            # the first caller failed: try again (from the cache, or live)

    def _cached(self, stored: CachedReply, started: float, key: str, request: ChatRequest) -> ChatReply:
        reply = _reply(stored, time.perf_counter() - started, cached=True, key=key)
        self._count(reply, request, retries=0, json_mode="cache")
        return reply

    def _live(self, request: ChatRequest, key: str, fingerprint: Mapping[str, Any],
              flight: _Flight | None = None) -> ChatReply:
        """Send ``request`` (one of the ``concurrency`` slots and one call of the budget taken first)."""
        assert self.backend is not None
        self._wait_slot()
        try:
            self.budget.take()
            started = time.perf_counter()
            try:
                live, retries, mode = self.backend.complete(request)
            except KariError as exc:
                if self.log is not None:      # a failed call is in the run's call log too
                    self.log.record_failure(str(exc), role=request.role, model=self.config.model, cache_key=key,
                                            latency_s=time.perf_counter() - started)
                raise
            latency = time.perf_counter() - started
        finally:
            self._slots.release()
        self.budget.spend(live.prompt_tokens + live.completion_tokens)
        stored = CachedReply(live.text, live.prompt_tokens, live.completion_tokens, latency, live.finish_reason,
                             live.model)
        if self.cache is not None:
            stored = self.cache.put(key, fingerprint, stored)  # another process may have recorded it first
        if flight is not None:
            flight.reply = stored
        reply = _reply(stored, latency, cached=False, key=key)
        self._count(reply, request, retries, mode)
        return reply

    def _check_stopped(self) -> None:
        if self.stopped.is_set():
            raise Cancelled("the LLM client was stopped")

    def _wait(self, event: threading.Event) -> None:
        while not event.wait(POLL_S):
            self._check_stopped()

    def _wait_slot(self) -> None:
        while not self._slots.acquire(timeout=POLL_S):
            self._check_stopped()
        if self.stopped.is_set():
            self._slots.release()
            self._check_stopped()

    def chat_many(self, requests: Sequence[ChatRequest | Mapping[str, Any]]) -> list[ChatReply]:
        """Run many requests on the client's threads (``concurrency`` of them, shared by every caller); replies
        come back in input order.

        Each request is a :class:`ChatRequest` or a mapping of :meth:`chat` arguments. The first failure (in input
        order) is raised after the others have finished.
        """
        reqs = [r if isinstance(r, ChatRequest) else ChatRequest(**r) for r in requests]
        if not reqs:
            return []
        if len(reqs) == 1:
            return [self._one(reqs[0])]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="kari-llm")
            pool = self._pool
        futures = [pool.submit(self._one, r) for r in reqs]
        for future in futures:
            future.exception()  # wait for every call before raising the first failure
        return [f.result() for f in futures]

    def _one(self, r: ChatRequest) -> ChatReply:
        return self.chat(r.messages, max_tokens=r.max_tokens, temperature=r.temperature, json_schema=r.json_schema,
                         role=r.role, tag=r.tag, seed=r.seed)

    def _count(self, reply: ChatReply, request: ChatRequest, retries: int, json_mode: str) -> None:
        with self._lock:
            self._usage.add(reply, request.role, retries)
        if self.log is not None:
            self.log.record(reply, role=request.role, model=self.config.model, retries=retries, json_mode=json_mode,
                            tag=request.tag)


def require_client(client: ChatClient | None, who: str) -> ChatClient:
    """``client``, which ``who`` (a part an LLM plays) cannot do without: a ``llm-config`` error when None."""
    if client is None:
        raise KariError(f"{who} needs an LLM endpoint: pass --model (and --base-url)", code="llm-config")
    return client


def session_log(folder: Path, prefix: str = "llm_calls") -> Path:
    """The call log of one session in a run directory: ``FOLDER/PREFIX-<YYYYmmddTHHMMSS>.jsonl``."""
    return folder / f"{prefix}-{time.strftime('%Y%m%dT%H%M%S')}.jsonl"


@contextmanager
def chat_client(config: LLMConfig, log_path: Path) -> Iterator[ChatClient]:
    """The one way a command builds its chat client: :func:`make_chat_client` for ``config`` with a
    :class:`CallLog` at ``log_path`` (one JSON line per call), the log closed after the block."""
    client = make_chat_client(config)  # a config that cannot work fails before the log file is made
    with CallLog(log_path) as log:
        client.log = log
        yield client


@contextmanager
def optional_chat_client(config: LLMConfig | None, log_path: Path) -> Iterator[ChatClient | None]:
    """:func:`chat_client` when there is an endpoint, else None (a run in which no LLM plays a part)."""
    if config is None:
        yield None
        return
    with chat_client(config, log_path) as client:
        yield client


def make_chat_client(config: LLMConfig, log: CallLog | None = None) -> ChatClient:
    """The client for ``config.backend`` (``openai``); replay-only configs never touch the network."""
    choice(config.backend, ("openai",), "LLM backend", code="llm-config")

    if not config.offline_replay:
        config.api_key()  # fail early and clearly when OpenAI's API has no key
    stopped = threading.Event()
    return ChatClient(config, None if config.offline_replay else OpenAIBackend(config, stopped), log, stopped)


def _reply(stored: CachedReply, latency: float, *, cached: bool, key: str) -> ChatReply:
    return ChatReply(
        stored.text, stored.prompt_tokens, stored.completion_tokens, latency, cached, key, stored.finish_reason,
        stored.model,
    )


def _check_messages(messages: Sequence[Message]) -> tuple[dict[str, str], ...]:
    if isinstance(messages, (str, bytes)) or not messages:
        raise ValueError("messages must be a non-empty list of {'role', 'content'} dicts")
    out = []
    for m in messages:
        if not isinstance(m, Mapping) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
            raise ValueError(f"each message needs string 'role' and 'content', got {m!r}")
        out.append(dict(m))
    return tuple(out)
