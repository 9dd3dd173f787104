"""Settings of one LLM endpoint: where it is, which model, and how kari calls it (cache, retries, JSON mode)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from kari.errors import KariError, choice

OPENAI_BASE_URL = "https://api.openai.com/v1"
class JsonMode(StrEnum):
    """How kari asks a server for JSON: ``auto`` tries ``json_schema``, then ``json_object``, then plain text, and
    remembers what the server accepts; ``json_schema``: OpenAI structured output; ``json_object``: llama.cpp's
    ``{"type": "json_object", "schema": ...}``; ``off``: never send ``response_format`` (the prompt alone asks
    for JSON)."""

    AUTO = "auto"
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    OFF = "off"


JSON_MODES: tuple[str, ...] = tuple(JsonMode)


DEFAULT_TIMEOUT = 60.0
DEFAULT_ATTEMPTS = 5
DEFAULT_MAX_REPLY_BYTES = 16 * 2**20
"""The largest reply body (bytes) an attempt reads unless ``--llm-max-bytes`` says otherwise: a reply of
512 tokens is a few kB; a server that sends more is cut off there."""
MAX_REPLY_BYTES = 2**30
"""The largest ``--llm-max-bytes`` accepted."""
DEFAULT_MAX_TOKENS = 512
"""Tokens an LLM may write per reply unless a command says otherwise (the paper's Questioner budget)."""
LLM = "llm"
"""The name of every part an LLM can play: the questioner, the Oracle, the Checker, a creativity solver or goal
mapping."""


def call_limits(timeout: float, attempts: int, max_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> dict[str, Any]:
    """The :class:`LLMConfig` fields for ``--llm-timeout`` (seconds one attempt may take, for the whole reply),
    ``--llm-attempts`` (tries per call) and ``--llm-max-bytes`` (the largest reply body read), checked: a
    :class:`KariError` (code ``bad-option``) unless the timeout is finite and > 0, attempts >= 1 and the size
    limit in [1, :data:`MAX_REPLY_BYTES`]."""
    if not (math.isfinite(timeout) and timeout > 0) or attempts < 1:
        raise KariError(f"--llm-timeout must be > 0 and --llm-attempts >= 1 (got {timeout:g} and {attempts})",
                        code="bad-option")
    if not 1 <= max_bytes <= MAX_REPLY_BYTES:
        raise KariError(f"--llm-max-bytes must be in [1, {MAX_REPLY_BYTES}] (got {max_bytes})", code="bad-option")
    return {"timeout": float(timeout), "max_retries": int(attempts) - 1, "max_reply_bytes": int(max_bytes)}


@dataclass(frozen=True)
class LLMOptions:
    """The LLM connection as a command line gives it (``--base-url``, ``--model``, ``--api-key-env``,
    ``--no-cache``, ``--cache-dir``, ``--llm-timeout``, ``--llm-attempts``, ``--llm-max-bytes``; the CLI declares
    each once, in :mod:`kari.cli.options`): :meth:`config` is the one place a command's :class:`LLMConfig` is built."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    no_cache: bool = False
    cache_dir: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    attempts: int = DEFAULT_ATTEMPTS
    max_bytes: int = DEFAULT_MAX_REPLY_BYTES

    def __post_init__(self) -> None:
        call_limits(self.timeout, self.attempts, self.max_bytes)  # a bad limit fails here, before any work

    def config(self, concurrency: int | None = None, budget_calls: int | None = None,
               budget_tokens: int | None = None) -> LLMConfig:
        """The endpoint these options name (unset ones from ``$KARI_LLM_BASE_URL`` / ``$KARI_LLM_MODEL``);
        ``concurrency``: calls in flight at once (None: the default); ``budget_calls`` / ``budget_tokens``: what
        the client may spend (None: no bound)."""
        return LLMConfig.from_env(base_url=self.base_url, model=self.model, api_key_env=self.api_key_env,
                                  use_cache=not self.no_cache, cache_dir=self.cache_dir,
                                  **call_limits(self.timeout, self.attempts, self.max_bytes),
                                  concurrency=concurrency, budget_calls=budget_calls, budget_tokens=budget_tokens)


def default_cache_dir() -> Path:
    """``$KARI_CACHE_DIR`` when set, else ``~/.cache/kari/llm``."""
    env = os.environ.get("KARI_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "kari" / "llm"


def check_base_url(url: Any) -> None:
    """A :class:`KariError` (code ``bad-option``, exit 2) unless ``url`` is an ``http://`` or ``https://`` URL with
    a host and no whitespace or control characters (``--base-url`` or ``$KARI_LLM_BASE_URL``)."""
    if not isinstance(url, str) or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise KariError(f"the LLM base URL {url!r} holds whitespace or a control character (--base-url or "
                        "KARI_LLM_BASE_URL)", code="bad-option")
    try:
        parsed = urlparse(url)
        port = parsed.port
    except ValueError as exc:
        raise KariError(f"the LLM base URL {url!r} is not a URL: {exc}", code="bad-option") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname or (port is not None and not 0 < port < 65536):
        raise KariError(f"the LLM base URL {url!r} is not an http:// or https:// URL with a host (e.g. "
                        "http://127.0.0.1:8080/v1)", code="bad-option")


@dataclass(frozen=True)
class LLMConfig:
    """How to reach one OpenAI-compatible chat endpoint.

    ``cache_dir`` None means :func:`default_cache_dir`. ``offline_replay`` answers from the cache only: a miss is
    a :class:`KariError` (code ``llm-replay-miss``), no server and no key are needed.
    ``backoff_base`` / ``backoff_max`` (seconds) shape the retry delays: attempt *n* waits a random time in
    ``[d/2, d]`` with ``d = min(backoff_max, backoff_base * 2**n)``, or the server's ``Retry-After`` when longer.
    ``concurrency`` bounds the calls in flight at once. ``budget_calls`` / ``budget_tokens`` bound what one client
    spends on live calls (:mod:`kari.llm.limits`; None: no bound).
    """

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_ATTEMPTS - 1
    concurrency: int = 4
    cache_dir: Path | None = None
    use_cache: bool = True
    json_mode: str = "auto"
    offline_replay: bool = False
    backend: str = "openai"
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    budget_calls: int | None = None
    budget_tokens: int | None = None
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES

    def __post_init__(self) -> None:
        choice(self.json_mode, JsonMode, "JSON mode", code="llm-config")
        if not self.model:
            raise KariError("no model name given (--model or KARI_LLM_MODEL)", code="llm-config")
        if self.concurrency < 1 or self.max_retries < 0 or not (math.isfinite(self.timeout) and self.timeout > 0):
            raise KariError("concurrency must be >= 1, max_retries >= 0 and timeout finite and > 0",
                            code="llm-config")
        if any(b is not None and (isinstance(b, bool) or b < 1) for b in (self.budget_calls, self.budget_tokens)):
            raise KariError("a budget of calls or tokens must be >= 1", code="llm-config")
        if not 1 <= self.max_reply_bytes <= MAX_REPLY_BYTES:
            raise KariError(f"max_reply_bytes must be in [1, {MAX_REPLY_BYTES}]", code="llm-config")
        check_base_url(self.base_url)
        if self.offline_replay and not self.use_cache:
            raise KariError("offline replay needs the cache: do not combine it with --no-cache", code="llm-config")
        if self.cache_dir is not None:
            object.__setattr__(self, "cache_dir", Path(self.cache_dir).expanduser())

    @property
    def resolved_cache_dir(self) -> Path:
        """The cache folder actually used."""
        return self.cache_dir if self.cache_dir is not None else default_cache_dir()

    @property
    def is_openai_api(self) -> bool:
        """True when the endpoint is OpenAI's own API (a real key is then required)."""
        return (urlparse(self.base_url).hostname or "").endswith("api.openai.com")

    def api_key(self) -> str:
        """The key from ``api_key_env``; a dummy key for local servers; a clear error for OpenAI without one."""
        key = os.environ.get(self.api_key_env, "")
        if key:
            return key
        if self.is_openai_api:
            raise KariError(
                f"{self.base_url} needs an API key: set the environment variable {self.api_key_env}", code="llm-auth"
            )
        return "sk-no-key-required"

    def with_(self, **changes: Any) -> LLMConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Build from ``KARI_LLM_BASE_URL`` (default OpenAI), ``KARI_LLM_MODEL`` and explicit overrides.

        Overrides that are None are ignored, so CLI options can be passed through unchanged.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"unknown LLMConfig fields: {', '.join(unknown)}")
        values: dict[str, Any] = {
            "base_url": os.environ.get("KARI_LLM_BASE_URL", OPENAI_BASE_URL),
            "model": os.environ.get("KARI_LLM_MODEL", ""),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
