"""The client against a real llama_cpp.server with SmolLM2-135M (protocol and JSON handling, never answer quality)."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import LLM_SERVER_MODEL

from kari.llm import CallLog, ChatRequest, LLMConfig, extract_json_object, load_prompt, make_chat_client

pytestmark = pytest.mark.llm_server

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
}


def client_for(base_url: str, cache_dir: Path, **kw):
    return make_chat_client(
        LLMConfig(base_url=base_url, model=LLM_SERVER_MODEL, cache_dir=cache_dir, timeout=30, **kw), CallLog()
    )


def test_chat_completion_round_trip(llm_server: str, tmp_path: Path) -> None:
    client = client_for(llm_server, tmp_path)
    reply = client.chat([{"role": "user", "content": "Name one metal."}], max_tokens=8, role="smoke")
    assert reply.text.strip() and not reply.cached
    assert reply.prompt_tokens > 0 and 0 < reply.completion_tokens <= 8 and reply.latency_s > 0
    assert reply.finish_reason in {"stop", "length"}
    again = client.chat([{"role": "user", "content": "Name one metal."}], max_tokens=8, role="smoke")
    assert again.cached and again.text == reply.text
    assert client.usage.as_dict()["live_calls"] == 1 and client.usage.cache_hits == 1


def test_json_mode_returns_schema_valid_json(llm_server: str, tmp_path: Path) -> None:
    client = client_for(llm_server, tmp_path)
    prompt = load_prompt("_selftest")
    messages = [{"role": "user", "content": prompt.render(thing="a spoon")}]
    reply = client.chat(messages, max_tokens=24, json_schema=SCHEMA, role="selftest")
    assert extract_json_object(reply.text)["answer"] in {"yes", "no"}
    # llama.cpp refuses OpenAI's json_schema (HTTP 422); auto mode fell back to its json_object+schema and remembers it.
    assert client.backend.json_mode_for(SCHEMA) == "json_object"
    assert client.log.records[-1]["json_mode"] == "json_object"


def test_chat_many_in_order_with_limited_concurrency(llm_server: str, tmp_path: Path) -> None:
    client = client_for(llm_server, tmp_path, concurrency=2, use_cache=False)
    things = ["a spoon", "a towel", "a rock"]
    prompt = load_prompt("_selftest")
    replies = client.chat_many(
        [
            ChatRequest([{"role": "user", "content": prompt.render(thing=t)}], max_tokens=16, json_schema=SCHEMA)
            for t in things
        ]
    )
    assert len(replies) == 3 and all(extract_json_object(r.text)["answer"] in {"yes", "no"} for r in replies)
    totals = client.log.totals
    assert totals.calls == 3 and totals.live_prompt_tokens == sum(r.prompt_tokens for r in replies) > 0
