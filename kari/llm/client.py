"""The chat client every kari role uses: cache, replay, concurrency limit, usage totals and the call log.

The client is backend-agnostic; a backend (today :class:`~kari.llm.openai_backend.OpenAIBackend`) only turns one
request into one reply. Typical use::

    client = make_chat_client(LLMConfig(base_url="http://127.0.0.1:8080/v1", model="smollm2"))
    reply = client.chat([{"role": "user", "content": "Say hi"}], max_tokens=8, role="oracle")
    reply.text, client.usage.total_tokens
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from kari.errors import KariError

from .cache import CachedReply, ReplyCache, cache_key, request_fingerprint
from .calllog import CallLog
from .config import LLMConfig
from .openai_backend import OpenAIBackend
from .types import ChatReply, ChatRequest, Message, Usage


class Backend(Protocol):
    """Turns one request into one reply: ``complete(request) -> (reply, retries, json_mode_used)``."""

    name: str

    def complete(self, request: ChatRequest) -> tuple[CachedReply, int, str]: ...


class ChatClient:
    """Chat completions with an on-disk cache, a concurrency limit, usage totals and an optional :class:`CallLog`."""

    def __init__(self, config: LLMConfig, backend: Backend | None, log: CallLog | None = None) -> None:
        self.config = config
        self.backend = backend
        self.log = log
        self.cache = ReplyCache(config.resolved_cache_dir) if config.use_cache else None
        self._slots = threading.BoundedSemaphore(config.concurrency)
        self._lock = threading.Lock()
        self._usage = Usage()

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
    ) -> ChatReply:
        """One chat completion; answered from the cache when the same request was made before."""
        request = ChatRequest(_check_messages(messages), max_tokens, temperature, json_schema, role)
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
        fingerprint = request_fingerprint(self.config.model, request.messages, max_tokens, temperature, json_schema,
                                          base_url=self.config.base_url, json_mode=self.config.json_mode,
                                          backend=self.config.backend)
        key = cache_key(fingerprint)
        started = time.perf_counter()
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                reply = _reply(hit, time.perf_counter() - started, cached=True, key=key)
                self._count(reply, role, retries=0, json_mode="cache")
                return reply
        if self.config.offline_replay or self.backend is None:
            raise KariError(
                f"offline replay: no recorded reply for {role or 'this call'} (key {key[:16]}) "
                f"in {self.config.resolved_cache_dir}; record it once against a server",
                code="llm-replay-miss",
            )
        with self._slots:
            started = time.perf_counter()
            live, retries, mode = self.backend.complete(request)
            latency = time.perf_counter() - started
        reply = _reply(live, latency, cached=False, key=key)
        if self.cache is not None:
            self.cache.put(
                key,
                fingerprint,
                CachedReply(live.text, live.prompt_tokens, live.completion_tokens, latency, live.finish_reason),
            )
        self._count(reply, role, retries, mode)
        return reply

    def chat_many(self, requests: Sequence[ChatRequest | Mapping[str, Any]]) -> list[ChatReply]:
        """Run many requests on a thread pool bounded by ``concurrency``; replies come back in input order.

        Each request is a :class:`ChatRequest` or a mapping of :meth:`chat` arguments. The first failure (in input
        order) is raised after the others have finished.
        """
        reqs = [r if isinstance(r, ChatRequest) else ChatRequest(**r) for r in requests]
        if not reqs:
            return []

        def one(r: ChatRequest) -> ChatReply:
            return self.chat(
                r.messages, max_tokens=r.max_tokens, temperature=r.temperature, json_schema=r.json_schema, role=r.role
            )

        with ThreadPoolExecutor(
            max_workers=min(self.config.concurrency, len(reqs)), thread_name_prefix="kari-llm"
        ) as pool:
            futures = [pool.submit(one, r) for r in reqs]
        return [f.result() for f in futures]

    def _count(self, reply: ChatReply, role: str, retries: int, json_mode: str) -> None:
        with self._lock:
            self._usage.add(reply, role, retries)
        if self.log is not None:
            self.log.record(reply, role=role, model=self.config.model, retries=retries, json_mode=json_mode)


def make_chat_client(config: LLMConfig, log: CallLog | None = None) -> ChatClient:
    """The client for ``config.backend`` (``openai``); replay-only configs never touch the network."""
    if config.backend != "openai":
        raise KariError(f"unknown LLM backend {config.backend!r} (known: openai)", code="llm-config")

    if not config.offline_replay:
        config.api_key()  # fail early and clearly when OpenAI's API has no key
    return ChatClient(config, None if config.offline_replay else OpenAIBackend(config), log)


def _reply(stored: CachedReply, latency: float, *, cached: bool, key: str) -> ChatReply:
    return ChatReply(
        stored.text, stored.prompt_tokens, stored.completion_tokens, latency, cached, key, stored.finish_reason
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
