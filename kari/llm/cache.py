"""Content-addressed on-disk cache of chat replies, so a rerun is free and the same inputs give the same output.

The key is the sha256 of the canonical JSON of everything that can change the answer: the backend and the
server (base URL), the model, the messages, max_tokens, temperature, the sampling seed when one is sent, the JSON
schema and the configured JSON mode (structured output constrains what the model may say). An entry also keeps
the model id the server reported. Another server or port, even with the same model
name, is another key: a run never replays replies recorded against a different server.

Entries live at ``<root>/<key[:2]>/<key>.json`` and are written once, atomically: the first reply recorded for a
key stays, and a later writer (another thread, process, or a machine sharing the folder on a network file
system) gets the reply already there (:func:`kari.io.atomic.create_once`), so every shard and every rerun that
shares a cache folder replays the same reply. An unreadable or inconsistent entry is a miss (logged once per
file), never a crash or a hang; the next live reply replaces it. An entry that is not a
regular file (a symbolic link, a FIFO, a device) or is larger than :data:`MAX_ENTRY_BYTES` is never read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.io.atomic import atomic_write_text, create_once

from .types import Message, without_surrogates

LOG = logging.getLogger("kari.llm")
CACHE_FORMAT = 2
MAX_ENTRY_BYTES = 64 * 2**20
"""The largest cache entry read (a reply and its request); a larger file is a miss."""


def canonical_json(obj: Any) -> str:
    """Key-sorted, whitespace-free JSON: equal data gives equal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_fingerprint(
    model: str,
    messages: Sequence[Message],
    max_tokens: int,
    temperature: float,
    json_schema: Mapping[str, Any] | None,
    *,
    base_url: str,
    json_mode: str,
    backend: str = "openai",
    seed: int | None = None,
) -> dict[str, Any]:
    """Everything about a request that determines its reply (what the cache key hashes); a sampling ``seed``
    is part of it only when one is sent, so requests without one keep the keys they always had."""
    fingerprint = {
        "format": CACHE_FORMAT,
        "backend": backend,
        "base_url": base_url.rstrip("/"),
        "model": model,
        "messages": [dict(m) for m in messages],
        "max_tokens": int(max_tokens),
        "temperature": float(temperature),
        "json_schema": json_schema,
        "json_mode": json_mode,
    }
    if seed is not None:
        fingerprint["seed"] = int(seed)
    return fingerprint


def cache_key(fingerprint: Mapping[str, Any]) -> str:
    """sha256 hex digest of the canonical JSON of a :func:`request_fingerprint`."""
    return hashlib.sha256(canonical_json(fingerprint).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    """A stored reply: text, token counts and the latency of the live call that produced it."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    finish_reason: str = ""
    model: str = ""  # the model id the server reported ('' in entries of an older kari)


class ReplyCache:
    """Replies on disk under ``root``, one JSON file per key."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._reported: set[Path] = set()
        self._lock = threading.Lock()
        self.corrupt_entries = 0
        self.oversized = 0
        self.write_failed = False

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for ``key``, or None (missing or corrupt: counted and reported once per file)."""
        return self._read(key, report=True)

    def _read(self, key: str, *, report: bool) -> CachedReply | None:
        path = self.path(key)
        complain = self._report if report else (lambda path, why: None)
        try:
            raw = _read_entry(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            complain(path, f"cannot read it ({exc.strerror or exc})")
            return None
        except ValueError as exc:
            complain(path, str(exc))
            return None
        try:
            data = json.loads(raw)
            if data.get("key") != key or data.get("format") != CACHE_FORMAT:
                raise ValueError("key or format does not match")
            reply = CachedReply(
                text=without_surrogates(_typed(data, "text", str)),
                prompt_tokens=_typed(data, "prompt_tokens", int),
                completion_tokens=_typed(data, "completion_tokens", int),
                latency_s=float(_typed(data, "latency_s", (int, float))),
                finish_reason=str(data.get("finish_reason") or ""),
                model=str(data.get("model") or ""),
            )
        except (ValueError, TypeError, AttributeError) as exc:
            complain(path, str(exc))
            return None
        return reply

    def put(self, key: str, fingerprint: Mapping[str, Any], reply: CachedReply) -> CachedReply:
        """Store ``reply`` for ``key`` (with the request, for auditing) unless a readable entry is there already,
        and return the reply the cache holds for ``key``: the first one recorded (by this or another process)
        wins. A cache that cannot be written (a read-only folder, a full disk) is a warning, once: the run goes on
        uncached, with ``reply``. An entry larger than :data:`MAX_ENTRY_BYTES` (which :meth:`get` would never read
        back) is not written."""
        path, text = self.path(key), self._entry(key, fingerprint, reply)
        if len(text.encode("utf-8")) > MAX_ENTRY_BYTES:
            with self._lock:
                self.oversized += 1
            LOG.warning("kari: an LLM reply of %s characters is not cached: its entry would be larger than %s bytes",
                        f"{len(reply.text):,}", f"{MAX_ENTRY_BYTES:,}")
            return reply
        try:
            _clear_odd_entry(path)
            if not path.exists() and create_once(path, text):
                return reply
            stored = self._read(key, report=False)  # an entry that cannot be read was reported when it was missed
            if stored is not None:
                return stored
            atomic_write_text(path, text)  # in place of an entry that cannot be read
        except (KariError, OSError) as exc:
            with self._lock:
                first, self.write_failed = not self.write_failed, True
            if first:
                LOG.warning("kari: the LLM reply cache cannot be written (%s); replies are not recorded", exc)
        return reply

    @staticmethod
    def _entry(key: str, fingerprint: Mapping[str, Any], reply: CachedReply) -> str:
        """The JSON text of the entry for ``key``."""
        return json.dumps(
            {
                "format": CACHE_FORMAT,
                "key": key,
                "text": reply.text,
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "latency_s": round(reply.latency_s, 6),
                "finish_reason": reply.finish_reason,
                **({"model": reply.model} if reply.model else {}),
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "request": dict(fingerprint),
            },
            indent=2,
            ensure_ascii=False,
        ) + "\n"

    def _report(self, path: Path, why: str) -> None:
        with self._lock:
            self.corrupt_entries += 1
            if path in self._reported:
                return
            self._reported.add(path)
        LOG.warning("kari: ignoring corrupt LLM cache entry %s (%s); treating it as a miss", path, why)


def _read_entry(path: Path) -> str:
    """The text of a cache entry, read only when it is a regular file of at most :data:`MAX_ENTRY_BYTES`: the
    final path component is not followed when it is a symbolic link, and a FIFO is opened without waiting for a
    writer. ``ValueError`` says why an entry is not read; ``OSError`` comes from the file system."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if path.is_symlink():
            raise ValueError("it is a symbolic link, not a file kari wrote") from None
        raise exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("it is not a regular file")
        if info.st_size > MAX_ENTRY_BYTES:
            raise ValueError(f"it is larger than {MAX_ENTRY_BYTES:,} bytes")
        data = handle.read(MAX_ENTRY_BYTES + 1)
    if len(data) > MAX_ENTRY_BYTES:
        raise ValueError(f"it is larger than {MAX_ENTRY_BYTES:,} bytes")
    return data.decode("utf-8")


def _clear_odd_entry(path: Path) -> None:
    """Remove a symbolic link, FIFO, socket or device where a cache entry belongs (never what a link points to),
    so that the reply can be written there."""
    try:
        info = path.lstat()
    except OSError:
        return
    if stat.S_ISLNK(info.st_mode) or not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        path.unlink()


def _typed(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"field {name!r} missing or of the wrong type")
    return value
