"""Plain data that flows through the LLM layer: a request, a reply and usage totals."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate replaced by U+FFFD: a JSON body may escape one (``"\\ud800"``),
    which is not a character and cannot be written as UTF-8."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


Message = Mapping[str, str]
"""One chat message, ``{"role": "system" | "user" | "assistant", "content": "..."}``."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat call, as given to :meth:`ChatClient.chat_many`; ``tag`` (e.g. the affordance asked about) goes to
    the call log only, never into the cache key."""

    messages: Sequence[Message]
    max_tokens: int
    temperature: float = 0.0
    json_schema: Mapping[str, Any] | None = None
    role: str = ""
    tag: str = ""
    seed: int | None = None


@dataclass(frozen=True)
class ChatReply:
    """The assistant's text and what it cost. ``cached`` replies made no HTTP call (``latency_s`` ~ 0)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool
    cache_key: str = ""
    finish_reason: str = ""
    model: str = ""
    """The model id the server reported in its reply (the chat completion's ``model``; '' when it gave none)."""


@dataclass
class Usage:
    """Totals over all calls of a client (or a :class:`~kari.llm.calllog.CallLog`).

    ``prompt_tokens`` / ``completion_tokens`` count every call, cached or not, so a rerun reports the same
    footprint; ``live_*`` count only calls that reached the server. ``latency_s`` sums live calls only.
    ``served_models`` counts the replies per model id the server reported (left out of :meth:`as_dict` when no
    reply named one).
    """

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    live_prompt_tokens: int = 0
    live_completion_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0
    by_role: dict[str, int] = field(default_factory=dict)
    served_models: dict[str, int] = field(default_factory=dict)

    @property
    def live_calls(self) -> int:
        """Calls that went to the server."""
        return self.calls - self.cache_hits

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens over all calls."""
        return self.prompt_tokens + self.completion_tokens

    def add(self, reply: ChatReply, role: str = "", retries: int = 0) -> None:
        """Count one finished call."""
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        self.retries += retries
        self.by_role[role] = self.by_role.get(role, 0) + 1
        if reply.model:
            self.served_models[reply.model] = self.served_models.get(reply.model, 0) + 1
        if reply.cached:
            self.cache_hits += 1
        else:
            self.live_prompt_tokens += reply.prompt_tokens
            self.live_completion_tokens += reply.completion_tokens
            self.latency_s += reply.latency_s

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready totals (for run summaries)."""
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "live_calls": self.live_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "live_prompt_tokens": self.live_prompt_tokens,
            "live_completion_tokens": self.live_completion_tokens,
            "latency_s": round(self.latency_s, 4),
            "retries": self.retries,
            "by_role": dict(sorted(self.by_role.items())),
            **({"served_models": dict(sorted(self.served_models.items()))} if self.served_models else {}),
        }
