"""Per-run log of every LLM call (one JSON line each) and the run's token totals.

Each line is written whole with one ``write`` and flushed, so the file is valid JSONL at any moment, even after
a crash; the file is truncated when the log is opened, so it describes one run.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from kari.errors import KariError

from .types import ChatReply, Usage


class CallLog:
    """Records calls in memory and, when ``path`` is given, appends them to a JSONL file.

    A line: ``{"ts", "role", "model", "cache_key", "cached", "prompt_tokens", "completion_tokens", "latency_s",
    "retries", "json_mode", "finish_reason"}``, ``"tag"`` (what the call was about, e.g. the affordance) when the
    caller gave one, and ``served_model`` (the model id the server reported) when the reply named one; a call that
    failed: ``{"ts", "role", "model", "cache_key", "latency_s", "error"}`` (:meth:`record_failure`).
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.records: list[dict[str, Any]] = []
        self._usage = Usage()
        self._lock = threading.Lock()
        self._handle = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._handle = self.path.open("w", encoding="utf-8")
            except OSError as exc:
                raise KariError(f"cannot write: {exc.strerror or exc}", file=str(self.path),
                                code="output-write") from None

    def record(self, reply: ChatReply, *, role: str, model: str, retries: int = 0, json_mode: str = "",
               tag: str = "") -> None:
        """Log one finished call."""
        entry = {
            "ts": round(time.time(), 3),
            "role": role,
            "model": model,
            "cache_key": reply.cache_key,
            "cached": reply.cached,
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "latency_s": round(reply.latency_s, 4),
            "retries": retries,
            "json_mode": json_mode,
            "finish_reason": reply.finish_reason,
            **({"tag": tag} if tag else {}),
            **({"served_model": reply.model} if reply.model else {}),
        }
        with self._lock:
            self._usage.add(reply, role, retries)
        self._write(entry)

    def record_failure(self, error: str, *, role: str, model: str, cache_key: str, latency_s: float) -> None:
        """Log one call that ended without a reply (``error``: the one-line reason, e.g. a reply over
        ``--llm-max-bytes`` on every attempt)."""
        self._write({"ts": round(time.time(), 3), "role": role, "model": model, "cache_key": cache_key,
                     "latency_s": round(latency_s, 4), "error": error})

    def _write(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self._lock:
            self.records.append(entry)
            if self._handle is not None:
                try:                 # straight to the file: a failed write leaves nothing for close() to retry
                    view = memoryview(line.encode("utf-8"))
                    while view:
                        view = view[os.write(self._handle.fileno(), view):]
                except OSError as exc:   # a full disk: name the file (the run stops; its records so far stay)
                    raise KariError(f"cannot write: {exc.strerror or exc}", file=str(self.path),
                                    code="output-write") from None

    @property
    def totals(self) -> Usage:
        """A snapshot of the totals so far."""
        with self._lock:
            return copy.deepcopy(self._usage)

    def close(self) -> None:
        """Close the file (records stay readable)."""
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None

    def __enter__(self) -> CallLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
