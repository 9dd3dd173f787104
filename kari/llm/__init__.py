"""LLM access for kari: an OpenAI-compatible chat client with an on-disk cache, replay mode, retries,
a concurrency limit, per-run call logs, prompt files and strict JSON extraction.

The names below are loaded on first use, so that importing :mod:`kari.llm.config` (the CLI does, for its
option defaults) stays cheap; ``openai`` itself is imported only when a live call is made.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "ReplyCache": "cache", "cache_key": "cache", "request_fingerprint": "cache",
    "CallLog": "calllog",
    "ChatClient": "client", "make_chat_client": "client",
    "JSON_MODES": "config", "LLMConfig": "config", "default_cache_dir": "config",
    "extract_json_object": "jsonreply",
    "Prompt": "prompts", "list_prompts": "prompts", "load_prompt": "prompts",
    "ChatReply": "types", "ChatRequest": "types", "Message": "types", "Usage": "types",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value
