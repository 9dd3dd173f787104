"""LLM access for kari: an OpenAI-compatible chat client with an on-disk cache, replay mode, retries,
a concurrency limit, per-run call logs, prompt files and strict JSON extraction.

Heavy imports (``openai``) happen only when a live call is made.
"""

from .cache import ReplyCache, cache_key, request_fingerprint
from .calllog import CallLog
from .client import ChatClient, make_chat_client
from .config import JSON_MODES, LLMConfig, default_cache_dir
from .jsonreply import extract_json_object
from .prompts import Prompt, list_prompts, load_prompt
from .types import ChatReply, ChatRequest, Message, Usage

__all__ = [
    "JSON_MODES",
    "CallLog",
    "ChatClient",
    "ChatReply",
    "ChatRequest",
    "LLMConfig",
    "Message",
    "Prompt",
    "ReplyCache",
    "Usage",
    "cache_key",
    "default_cache_dir",
    "extract_json_object",
    "list_prompts",
    "load_prompt",
    "make_chat_client",
    "request_fingerprint",
]
