"""The ``openai`` backend: chat completions from OpenAI or any OpenAI-compatible server (vLLM, sglang, llama.cpp).

Structured output: ``json_schema`` sends OpenAI's ``{"type": "json_schema", "json_schema": {...}}``;
``json_object`` sends llama.cpp's ``{"type": "json_object", "schema": ...}``. In ``auto`` mode a server that
rejects a format (HTTP 400/422, or a 500 naming ``response_format``, as llama-cpp-python answers) gets the
next one, down to plain text, and the client remembers what worked for that schema. The openai library's own
retries are off: :mod:`kari.llm.retry` retries timeouts, connection errors, 429 and 5xx with backoff and
jitter, never other 4xx.

``config.timeout`` bounds each attempt as a whole (headers and body), not each read: a server that sends its
headers and then one byte every few seconds is cut off at the deadline. An attempt runs in its own daemon thread
while the caller waits at most that long; an abandoned attempt stops reading at its next chunk (and at the
client's next read timeout at the latest). When the client is stopped (its ``stopped`` event), the wait and the
backoff between attempts end at once with :class:`~kari.llm.limits.Cancelled`. ``config.max_reply_bytes`` bounds
the body: a server that sends more (a never-ending body) is cut off there, the attempt fails and the connection
is closed, so memory never grows past the limit. The body is decoded here (JSON nested too deeply to read names
the server). A reply's lone UTF-16 surrogates (``"\\ud800"`` in the JSON body) become U+FFFD, so the text can
always be written as UTF-8.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Mapping
from functools import partial
from typing import Any

from kari.errors import KariError

from .cache import CachedReply, canonical_json
from .config import LLMConfig
from .limits import POLL_S, Cancelled
from .retry import RetriesExhausted, Transient, call_with_retries
from .types import ChatRequest, without_surrogates

FALLBACK_ORDER = ("json_schema", "json_object", "off")
RETRYABLE_STATUS = frozenset({408, 409, 429})
FORMAT_REJECTED_STATUS = frozenset({400, 422})


class _FormatRejected(Exception):
    """The server refused the request while a ``response_format`` was set."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class OpenAIBackend:
    """Sends one :class:`ChatRequest` to ``config.base_url`` and returns the reply with its retry count."""

    name = "openai"

    def __init__(self, config: LLMConfig, stopped: threading.Event | None = None) -> None:
        self.config = config
        self.stopped = stopped if stopped is not None else threading.Event()
        self._client: Any = None
        self._lock = threading.Lock()
        self._mode_for_schema: dict[str, str] = {}

    def _openai(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    api_key=self.config.api_key(),
                    base_url=self.config.base_url,
                    timeout=self.config.timeout,
                    max_retries=0,
                )
            return self._client

    def json_mode_for(self, schema: Mapping[str, Any] | None) -> str:
        """The JSON mode the next request with ``schema`` will use."""
        if schema is None:
            return "off"
        if self.config.json_mode != "auto":
            return self.config.json_mode
        with self._lock:
            return self._mode_for_schema.get(_schema_id(schema), FALLBACK_ORDER[0])

    def complete(self, request: ChatRequest) -> tuple[CachedReply, int, str]:
        """(reply, retries, json mode used) for one request; a :class:`KariError` when it cannot be answered."""
        client = self._openai()
        mode = self.json_mode_for(request.json_schema)
        while True:
            try:
                outcome = call_with_retries(
                    partial(self._attempt, client, request, mode),
                    max_retries=self.config.max_retries,
                    base=self.config.backoff_base,
                    cap=self.config.backoff_max,
                    sleep=self._pause,
                )
            except _FormatRejected as exc:
                nxt = _next_mode(mode) if self.config.json_mode == "auto" else None
                if nxt is None:
                    raise KariError(
                        f"{self._where()} rejected the request (HTTP {exc.status}): {exc.detail}", code="llm-request"
                    ) from None
                mode = nxt
                continue
            except RetriesExhausted as exc:
                raise KariError(f"{self._where()} {exc}", code="llm-unavailable") from None
            if request.json_schema is not None and self.config.json_mode == "auto":
                with self._lock:
                    self._mode_for_schema[_schema_id(request.json_schema)] = mode
            return outcome.value, outcome.retries, mode

    def _pause(self, seconds: float) -> None:
        """The backoff before a retry, cut short (:class:`Cancelled`) when the client is stopped."""
        if self.stopped.wait(seconds):
            raise Cancelled("the LLM client was stopped")

    def _where(self) -> str:
        return f"LLM server {self.config.base_url} (model {self.config.model}):"

    def _attempt(self, client: Any, request: ChatRequest, mode: str) -> CachedReply:
        import openai

        kwargs: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(m) for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.json_schema is not None and mode != "off":
            kwargs["response_format"] = response_format(mode, request.json_schema)
        started = time.perf_counter()
        stop = threading.Event()
        try:
            content_type, body = _within(self.config.timeout, lambda: self._read(client, kwargs, stop), stop,
                                         self.stopped)
        except openai.APITimeoutError:
            raise Transient(f"timed out after {self.config.timeout:g} s (the whole reply)") from None
        except openai.APIConnectionError as exc:
            raise Transient(f"connection error: {_short(exc)}") from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            if "response_format" in kwargs and _blames_response_format(status, exc):
                raise _FormatRejected(status, _short(exc)) from None
            if status in RETRYABLE_STATUS or status >= 500:
                raise Transient(f"HTTP {status}: {_short(exc)}", _retry_after(exc)) from None
            if status in (401, 403):
                raise KariError(
                    f"{self._where()} refused the API key from {self.config.api_key_env} (HTTP {status})",
                    code="llm-auth",
                ) from None
            raise KariError(
                f"{self._where()} rejected the request (HTTP {status}): {_short(exc)}", code="llm-request"
            ) from None
        latency = time.perf_counter() - started
        completion = self._decode(content_type, body)
        text, finish_reason = self._content(completion)
        usage = completion.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return CachedReply(
            text=text,
            prompt_tokens=_count(usage.get("prompt_tokens", 0)),
            completion_tokens=_count(usage.get("completion_tokens", 0)),
            latency_s=latency,
            finish_reason=str(finish_reason or ""),
            model=_served_model(completion),
        )

    def _read(self, client: Any, kwargs: dict[str, Any], stop: threading.Event) -> tuple[str, bytes]:
        """Send the request and read the body, at most ``config.max_reply_bytes`` of it; stop reading as soon
        as ``stop`` is set (the waiting caller gave the attempt up). Returns (content type, body)."""
        limit = self.config.max_reply_bytes
        with client.chat.completions.with_streaming_response.create(**kwargs) as response:
            content_type = str(response.headers.get("content-type", ""))
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                if stop.is_set():
                    raise Transient("abandoned: the attempt's time was up")
                size += len(chunk)
                if size > limit:
                    raise Transient(f"the reply is larger than {limit:,} bytes (--llm-max-bytes); cut off there")
                chunks.append(chunk)
        return content_type, b"".join(chunks)

    def _decode(self, content_type: str, body: bytes) -> dict[str, Any]:
        """The JSON object of a chat completion body. A body that is not JSON at all (an HTML page: usually a
        wrong --base-url) or JSON nested too deeply to read is a :class:`KariError` naming the server; a
        truncated or malformed JSON body (the connection was cut) is :class:`Transient`."""
        text = body.decode("utf-8", errors="replace")
        if "json" not in content_type.lower() and not text.lstrip().startswith(("{", "[")):
            start = " ".join(text[:80].split())
            raise KariError(
                f"{self._where()} answered HTTP 200 with a body that is not a JSON chat completion "
                f"(it starts {start!r}); is the base URL the API root (often ending in /v1)?",
                code="llm-protocol",
            )
        try:
            data = json.loads(text)
        except RecursionError:
            raise KariError(f"{self._where()} answered with JSON nested too deeply to read "
                            f"({len(body):,} bytes); not a chat completion", code="llm-protocol") from None
        except ValueError as exc:  # a truncated body (the connection was cut), junk, a number too long
            raise Transient(f"the HTTP 200 reply is not valid JSON ({str(exc).split(';')[0]})") from None
        if not isinstance(data, dict):
            raise Transient(f"the HTTP 200 reply is JSON {type(data).__name__}, not a chat completion object")
        return data

    def _content(self, completion: Mapping[str, Any]) -> tuple[str, Any]:
        """The reply text and finish reason of a decoded completion; a completion without a usable first
        choice is :class:`Transient`."""
        choices = completion.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise Transient("the server returned no choices")
        message = choices[0].get("message")
        if not isinstance(message, dict) or "content" not in message:
            raise Transient("the reply's first choice has no message object")
        content = message["content"]
        if content is not None and not isinstance(content, str):
            raise Transient(f"the reply's message content is {type(content).__name__}, not text")
        return without_surrogates(content or "").replace("\0", "\ufffd"), choices[0].get("finish_reason", "")


def _within(seconds: float, call: Any, stop: threading.Event, stopped: threading.Event) -> Any:
    """``call()`` run in a daemon thread; its result, or its exception re-raised here, or
    :class:`~kari.llm.retry.Transient` once ``seconds`` have passed, or :class:`Cancelled` as soon as ``stopped``
    (the client's) is set; either way ``stop`` (the attempt's) is then set, for the thread to end its reads (it
    is left to end on its own)."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="kari-llm-attempt", daemon=True).start()
    deadline = time.monotonic() + seconds
    while not done.wait(min(POLL_S, max(0.0, deadline - time.monotonic()))):
        cancelled = stopped.is_set()
        if cancelled or time.monotonic() >= deadline:
            stop.set()
            if cancelled:
                raise Cancelled("the LLM client was stopped")
            raise Transient(f"timed out after {seconds:g} s (the whole reply)")
    if "error" in box:
        raise box["error"]
    return box["value"]




def _served_model(completion: Mapping[str, Any]) -> str:
    """The model id a decoded chat completion names (its ``model`` field; '' when it has none)."""
    model = completion.get("model")
    return model if isinstance(model, str) else ""


def _count(value: Any) -> int:
    """A token count from the server's usage block: a whole number as JSON gives it (``12``, ``12.0``, ``"12"``);
    0 when missing, negative or not a whole number."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else 0


def response_format(mode: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The ``response_format`` body for a JSON mode (``json_schema`` or ``json_object``)."""
    if mode == "json_schema":
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "reply"))[:64]
        return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}
    if mode == "json_object":
        return {"type": "json_object", "schema": dict(schema)}
    raise ValueError(f"no response_format for JSON mode {mode!r}")


def _blames_response_format(status: int, exc: BaseException) -> bool:
    """A 400/422, or a 500 whose message names ``response_format`` (llama-cpp-python reports its request
    validation errors as HTTP 500)."""
    return status in FORMAT_REJECTED_STATUS or (status == 500 and "response_format" in str(exc))


def _next_mode(mode: str) -> str | None:
    i = FALLBACK_ORDER.index(mode)
    return FALLBACK_ORDER[i + 1] if i + 1 < len(FALLBACK_ORDER) else None


def _schema_id(schema: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(schema).encode("utf-8")).hexdigest()


def _retry_after(exc: Any) -> float | None:
    try:
        return float(exc.response.headers.get("retry-after"))
    except (AttributeError, TypeError, ValueError):
        return None


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
