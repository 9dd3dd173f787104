"""LLM access for kari: an OpenAI-compatible chat client with an on-disk cache, replay mode, retries,
a concurrency limit, per-run call logs, prompt files and strict JSON extraction.

The names below are loaded on first use (:mod:`kari.exports`), so that importing :mod:`kari.llm.config` (the CLI
does, for its option defaults) stays cheap; ``openai`` itself is imported only when a live call is made.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.llm.cache import ReplyCache, cache_key, request_fingerprint
    from kari.llm.calllog import CallLog
    from kari.llm.client import (
        ChatClient, chat_client, make_chat_client, optional_chat_client, require_client, session_log
    )
    from kari.llm.config import JSON_MODES, JsonMode, LLMConfig, LLMOptions, default_cache_dir
    from kari.llm.jsonreply import extract_json_object
    from kari.llm.prompts import Prompt, list_prompts, load_prompt
    from kari.llm.types import ChatReply, ChatRequest, Message, Usage

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.llm.cache": ("ReplyCache", "cache_key", "request_fingerprint"),
    "kari.llm.calllog": ("CallLog",),
    "kari.llm.client": ("ChatClient", "chat_client", "make_chat_client", "optional_chat_client", "require_client",
                        "session_log"),
    "kari.llm.config": ("JSON_MODES", "JsonMode", "LLMConfig", "LLMOptions", "default_cache_dir"),
    "kari.llm.jsonreply": ("extract_json_object",),
    "kari.llm.prompts": ("Prompt", "list_prompts", "load_prompt"),
    "kari.llm.types": ("ChatReply", "ChatRequest", "Message", "Usage"),
})
