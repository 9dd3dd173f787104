"""The chat client over real HTTP against the scripted stub server: cache, replay, retries, timeouts, JSON modes,
concurrency and token totals."""

from __future__ import annotations

import json
import logging
import random
import time
from pathlib import Path

import pytest
from llm_server import StubLLMServer, StubReply, free_port

from kari.errors import KariError
from kari.llm import CallLog, ChatRequest, LLMConfig, ReplyCache, cache_key, make_chat_client, request_fingerprint
from kari.llm.retry import RetriesExhausted, Transient, backoff_delay, call_with_retries

MSG = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Is a knife sharp?"}]
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def config(base_url: str, cache_dir: Path, **kw) -> LLMConfig:
    opts = {"backoff_base": 0.01, "backoff_max": 0.05, "timeout": 5.0}
    opts.update(kw)
    return LLMConfig(base_url=base_url, model="stub-model", cache_dir=cache_dir, **opts)


def test_chat_sends_request_and_returns_reply(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.script = [StubReply(text="yes it is")]
    client = make_chat_client(config(llm_stub.base_url, tmp_path))
    reply = client.chat(MSG, max_tokens=7, temperature=0.2, role="oracle")
    assert reply.text == "yes it is" and not reply.cached and reply.finish_reason == "stop"
    assert (reply.prompt_tokens, reply.completion_tokens) == (6, 3)
    assert reply.latency_s > 0
    body = llm_stub.bodies[0]
    assert body["model"] == "stub-model" and body["messages"] == MSG
    assert body["max_tokens"] == 7 and body["temperature"] == 0.2 and "response_format" not in body


def test_second_run_is_served_from_cache_without_http(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    first = make_chat_client(config(llm_stub.base_url, tmp_path)).chat(MSG, max_tokens=8)
    llm_stub.stop()  # no server any more: only the cache can answer
    rerun = make_chat_client(config(llm_stub.base_url, tmp_path, max_retries=0))
    again = rerun.chat(MSG, max_tokens=8)
    assert again.cached and again.text == first.text and again.cache_key == first.cache_key
    assert (again.prompt_tokens, again.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert llm_stub.requests == 1
    assert (
        rerun.usage.cache_hits == 1 and rerun.usage.live_calls == 0 and rerun.usage.prompt_tokens == first.prompt_tokens
    )
    stored = json.loads(ReplyCache(tmp_path).path(first.cache_key).read_text())
    assert stored["request"]["messages"] == MSG and stored["text"] == first.text


def test_cache_key_covers_the_server_and_every_parameter(tmp_path: Path) -> None:
    """A reply recorded against one server is never replayed for another (issue 12: another port, same model)."""
    with_stub = [StubLLMServer().start() for _ in range(2)]
    try:
        first = make_chat_client(config(with_stub[0].base_url, tmp_path)).chat(MSG, max_tokens=8)
        other = make_chat_client(config(with_stub[1].base_url, tmp_path)).chat(MSG, max_tokens=8)
        assert not other.cached and with_stub[1].requests == 1 and other.cache_key != first.cache_key
        again = make_chat_client(config(with_stub[0].base_url + "/", tmp_path)).chat(MSG, max_tokens=8)
        assert again.cached and with_stub[0].requests == 1      # a trailing slash is the same server
    finally:
        for s in with_stub:
            s.stop()

    def fingerprint(model="m", messages=MSG, max_tokens=8, temperature=0.0, schema=None, **kw):
        where = {"base_url": "http://a/v1", "json_mode": "auto", **kw}
        return request_fingerprint(model, messages, max_tokens, temperature, schema, **where)

    base = fingerprint()
    variants = [
        fingerprint(model="m2"),
        fingerprint(messages=MSG[1:]),
        fingerprint(max_tokens=9),
        fingerprint(temperature=0.5),
        fingerprint(schema=SCHEMA),
        fingerprint(base_url="http://b/v1"),
        fingerprint(json_mode="off"),
        fingerprint(backend="other"),
    ]
    keys = {cache_key(v) for v in variants}
    assert len(keys) == len(variants) and cache_key(base) not in keys
    assert cache_key(base) == cache_key(fingerprint(messages=[dict(reversed(list(m.items()))) for m in MSG],
                                                    temperature=0))


def test_no_cache_neither_reads_nor_writes(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    client = make_chat_client(config(llm_stub.base_url, tmp_path, use_cache=False))
    assert not client.chat(MSG, max_tokens=8).cached
    assert not client.chat(MSG, max_tokens=8).cached
    assert llm_stub.requests == 2 and not any(tmp_path.iterdir())


def test_replay_mode_answers_from_recordings_and_fails_clearly_on_a_miss(
    llm_stub: StubLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = make_chat_client(config(llm_stub.base_url, tmp_path)).chat(MSG, max_tokens=8, role="oracle")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    replay = make_chat_client(config(llm_stub.base_url, tmp_path, offline_replay=True))  # no key, no HTTP
    assert replay.chat(MSG, max_tokens=8).text == recorded.text
    openai_replay = make_chat_client(config("https://api.openai.com/v1", tmp_path, offline_replay=True))
    with pytest.raises(KariError, match="no recorded reply"):
        openai_replay.chat(MSG, max_tokens=8)  # recorded against another server: not a replay
    with pytest.raises(KariError) as err:
        replay.chat(MSG, max_tokens=9, role="checker")
    assert err.value.code == "llm-replay-miss" and "checker" in str(err.value) and str(tmp_path) in str(err.value)
    assert llm_stub.requests == 1


def test_corrupt_cache_entry_is_a_miss_reported_once(
    llm_stub: StubLLMServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = make_chat_client(config(llm_stub.base_url, tmp_path))
    key = client.chat(MSG, max_tokens=8).cache_key
    path = ReplyCache(tmp_path).path(key)
    for junk in ('{"format": 1, "key": "', "[]", json.dumps({"format": 1, "key": key, "text": 3})):
        path.write_text(junk)
        cache = ReplyCache(tmp_path)
        with caplog.at_level(logging.WARNING, logger="kari.llm"):
            caplog.clear()
            assert cache.get(key) is None and cache.get(key) is None
        assert cache.corrupt_entries == 2 and len(caplog.records) == 1 and str(path) in caplog.text
    fresh = make_chat_client(config(llm_stub.base_url, tmp_path))
    assert not fresh.chat(MSG, max_tokens=8).cached  # went live, and repaired the entry
    assert fresh.chat(MSG, max_tokens=8).cached and llm_stub.requests == 2


def test_server_errors_are_retried_with_backoff(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.script = [
        StubReply(status=500),
        StubReply(status=503),
        StubReply(status=429, headers={"Retry-After": "0"}),
        StubReply(text="ok"),
    ]
    log = CallLog(tmp_path / "calls.jsonl")
    client = make_chat_client(config(llm_stub.base_url, tmp_path / "cache"), log)
    assert client.chat(MSG, max_tokens=4, role="oracle").text == "ok"
    assert llm_stub.requests == 4 and client.usage.retries == 3
    assert json.loads((tmp_path / "calls.jsonl").read_text())["retries"] == 3


def test_client_errors_are_not_retried(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.script = [StubReply(status=400)]
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path)).chat(MSG, max_tokens=4)
    assert err.value.code == "llm-request" and "HTTP 400" in str(err.value) and llm_stub.requests == 1
    llm_stub.script = [StubReply(status=401)]
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path)).chat(MSG, max_tokens=5)
    assert err.value.code == "llm-auth" and llm_stub.requests == 2


def test_retries_give_up_with_a_clear_error(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.script = [StubReply(status=502)] * 3 + [StubReply(text="too late")]
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path, max_retries=2)).chat(MSG, max_tokens=4)
    assert err.value.code == "llm-unavailable" and "after 3 attempts" in str(err.value) and "HTTP 502" in str(err.value)
    assert llm_stub.requests == 3 and not any(tmp_path.rglob("*.json"))


def test_timeouts_are_retried_then_reported(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.script = [StubReply(text="slow", delay=1.5), StubReply(text="fast")]
    client = make_chat_client(config(llm_stub.base_url, tmp_path, timeout=0.3))
    reply = client.chat(MSG, max_tokens=4)
    assert reply.text == "fast" and client.usage.retries == 1 and llm_stub.requests == 2
    llm_stub.script = [StubReply(text="slow", delay=1.5)] * 2
    started = time.monotonic()
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path, timeout=0.3, max_retries=1)).chat(MSG, max_tokens=5)
    assert err.value.code == "llm-unavailable" and "timed out after 0.3 s" in str(err.value)
    assert time.monotonic() - started < 2.5 and llm_stub.requests == 4


def test_a_truncated_json_body_is_retried_then_reported(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    """Issue 12: HTTP 200 with cut-off JSON was a JSONDecodeError traceback."""
    cut = StubReply(body=b'{"id": "x", "choices": [{"message": {"content": "ye')
    llm_stub.script = [cut, StubReply(text="yes")]
    client = make_chat_client(config(llm_stub.base_url, tmp_path))
    assert client.chat(MSG, max_tokens=4).text == "yes" and client.usage.retries == 1
    llm_stub.script = [cut] * 2
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path, max_retries=1)).chat(MSG, max_tokens=5)
    assert err.value.code == "llm-unavailable" and "not valid JSON" in str(err.value) and llm_stub.requests == 4


@pytest.mark.parametrize("body", [
    b'{"id": "x", "object": "chat.completion"}',                     # no choices
    b'{"choices": [{"message": "yes", "finish_reason": "stop"}]}',  # message is not an object
    b'{"choices": [{"message": {"content": ["yes"]}}]}',            # content is not text
    b'[1, 2]',
])
def test_json_that_is_not_a_chat_completion_is_retried_then_reported(llm_stub: StubLLMServer, tmp_path: Path,
                                                                      body: bytes) -> None:
    llm_stub.script = [StubReply(body=body)] * 2
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path, max_retries=1)).chat(MSG, max_tokens=4)
    assert err.value.code == "llm-unavailable" and llm_stub.requests == 2 and not any(tmp_path.rglob("*.json"))


def test_a_body_that_is_not_json_fails_at_once_naming_the_server(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    """Issue 12: an HTML page with HTTP 200 (a wrong base URL) was an AttributeError traceback."""
    llm_stub.script = [StubReply(body=b"<html><body>Welcome to nginx!</body></html>", content_type="text/html")]
    with pytest.raises(KariError) as err:
        make_chat_client(config(llm_stub.base_url, tmp_path)).chat(MSG, max_tokens=4)
    assert err.value.code == "llm-protocol" and llm_stub.base_url in str(err.value) and "<html>" in str(err.value)
    assert llm_stub.requests == 1 and not any(tmp_path.rglob("*.json"))


def test_connection_refused_is_retried_then_reported(tmp_path: Path) -> None:
    with pytest.raises(KariError) as err:
        make_chat_client(config(f"http://127.0.0.1:{free_port()}/v1", tmp_path, max_retries=1)).chat(MSG, max_tokens=4)
    assert (
        err.value.code == "llm-unavailable" and "connection error" in str(err.value) and "2 attempts" in str(err.value)
    )


def test_backoff_is_exponential_with_jitter_and_capped() -> None:
    rng = random.Random(0)
    for attempt in range(6):
        d = min(1.0, 0.1 * 2**attempt)
        assert all(d / 2 <= backoff_delay(attempt, 0.1, 1.0, rng=rng) <= d for _ in range(50))
    assert backoff_delay(0, 0.1, 5.0, retry_after=3.0) == 3.0 and backoff_delay(0, 0.1, 5.0, retry_after=60) == 5.0
    slept: list[float] = []
    calls = iter([Transient("a"), Transient("b"), "done"])

    def flaky() -> str:
        item = next(calls)
        if isinstance(item, Exception):
            raise item
        return item

    assert call_with_retries(flaky, max_retries=5, base=0.1, cap=10, sleep=slept.append).retries == 2
    assert len(slept) == 2 and 0.05 <= slept[0] <= 0.1 and 0.1 <= slept[1] <= 0.2
    with pytest.raises(RetriesExhausted, match="after 1 attempt: x"):
        call_with_retries(
            lambda: (_ for _ in ()).throw(Transient("x")), max_retries=0, base=0.1, cap=1, sleep=slept.append
        )


def test_auto_json_mode_falls_back_and_remembers(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.reject_formats = {"json_schema"}
    llm_stub.respond = lambda body: StubReply(text='{"answer": "yes"}')
    log = CallLog()
    client = make_chat_client(config(llm_stub.base_url, tmp_path), log)
    client.chat(MSG, max_tokens=8, json_schema=SCHEMA)
    client.chat(MSG[1:], max_tokens=8, json_schema=SCHEMA)
    types = [b.get("response_format", {}).get("type") for b in llm_stub.bodies]
    assert types == ["json_schema", "json_object", "json_object"]
    assert llm_stub.bodies[1]["response_format"]["schema"] == SCHEMA
    assert [r["json_mode"] for r in log.records] == ["json_object", "json_object"]
    llm_stub.reject_formats = {"json_schema", "json_object"}
    other = {**SCHEMA, "title": "Other"}
    client.chat(MSG, max_tokens=9, json_schema=other)
    assert "response_format" not in llm_stub.bodies[-1] and log.records[-1]["json_mode"] == "off"


def test_llama_cpp_style_500_naming_response_format_downgrades_without_retries(
    llm_stub: StubLLMServer, tmp_path: Path
) -> None:
    llm_stub.reject_formats, llm_stub.reject_status = {"json_schema"}, 500
    llm_stub.respond = lambda body: StubReply(text='{"answer": "yes"}')
    client = make_chat_client(config(llm_stub.base_url, tmp_path))
    assert client.chat(MSG, max_tokens=8, json_schema=SCHEMA).text == '{"answer": "yes"}'
    assert [b["response_format"]["type"] for b in llm_stub.bodies] == ["json_schema", "json_object"]
    assert client.usage.retries == 0


def test_fixed_json_mode_is_not_downgraded(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.script = [StubReply(text='{"answer": "no"}')]
    client = make_chat_client(config(llm_stub.base_url, tmp_path, json_mode="json_schema"))
    assert client.chat(MSG, max_tokens=8, json_schema=SCHEMA).text == '{"answer": "no"}'
    fmt = llm_stub.bodies[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == SCHEMA and fmt["json_schema"]["name"]
    llm_stub.reject_formats = {"json_schema"}
    with pytest.raises(KariError) as err:
        client.chat(MSG, max_tokens=9, json_schema=SCHEMA)
    assert err.value.code == "llm-request" and "HTTP 422" in str(err.value) and llm_stub.requests == 2


@pytest.mark.parametrize("limit", [1, 3])
def test_concurrency_limit_is_honoured_and_order_kept(llm_stub: StubLLMServer, tmp_path: Path, limit: int) -> None:
    llm_stub.respond = lambda body: StubReply(text=body["messages"][-1]["content"].upper(), delay=0.15)
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=limit))
    requests = [ChatRequest([{"role": "user", "content": f"item {i}"}], max_tokens=4, role="q") for i in range(7)]
    requests.append({"messages": [{"role": "user", "content": "item 7"}], "max_tokens": 4})
    replies = client.chat_many(requests)
    assert [r.text for r in replies] == [f"ITEM {i}" for i in range(8)]
    assert llm_stub.max_in_flight == limit
    assert client.usage.calls == 8 and client.usage.by_role == {"q": 7, "": 1}


def test_semaphore_bounds_direct_calls_from_many_threads(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    import threading

    llm_stub.respond = lambda body: StubReply(text="x", delay=0.15)
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=2))
    threads = [
        threading.Thread(target=client.chat, args=([{"role": "user", "content": f"t{i}"}],), kwargs={"max_tokens": 4})
        for i in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert llm_stub.requests == 6 and llm_stub.max_in_flight == 2


def test_chat_many_raises_the_first_failure(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.respond = lambda body: (
        StubReply(status=400) if "bad" in body["messages"][-1]["content"] else StubReply(text="fine")
    )
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=2))
    reqs = [ChatRequest([{"role": "user", "content": c}], max_tokens=4) for c in ("good", "bad", "fine")]
    with pytest.raises(KariError, match="HTTP 400"):
        client.chat_many(reqs)
    assert client.usage.calls == 2


@pytest.mark.parametrize(("usage", "tokens"), [({"prompt_tokens": "10", "completion_tokens": 3.0}, (10, 3)),
                                              ({"prompt_tokens": 2.5, "completion_tokens": -1}, (0, 0)), (None, (0, 0))])
def test_token_counts_given_as_text_or_as_whole_floats_are_read(llm_stub: StubLLMServer, tmp_path: Path,
                                                                 usage: dict | None, tokens: tuple[int, int]) -> None:
    """A server's "prompt_tokens": "10" or "completion_tokens": 3.0 counted 0 tokens."""
    body = {"id": "x", "object": "chat.completion", "model": "m", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
    if usage is not None:
        body["usage"] = usage
    llm_stub.respond = lambda _: StubReply(body=json.dumps(body).encode())
    reply = make_chat_client(config(llm_stub.base_url, tmp_path / "cache")).chat(MSG, max_tokens=8)
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("ok", *tokens)


def test_token_totals_and_call_log(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    llm_stub.respond = lambda body: StubReply(text="one two three")
    path = tmp_path / "run" / "calls.jsonl"
    with CallLog(path) as log:
        client = make_chat_client(config(llm_stub.base_url, tmp_path / "cache"), log)
        client.chat(MSG, max_tokens=8, role="questioner")
        client.chat(MSG[1:], max_tokens=8, role="oracle")
        client.chat(MSG, max_tokens=8, role="questioner")  # cache hit
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["role"], r["cached"], r["model"]) for r in lines] == [
        ("questioner", False, "stub-model"),
        ("oracle", False, "stub-model"),
        ("questioner", True, "stub-model"),
    ]
    assert lines[0]["cache_key"] == lines[2]["cache_key"] != lines[1]["cache_key"]
    totals = log.totals
    assert (totals.calls, totals.cache_hits, totals.live_calls) == (3, 1, 2)
    assert (totals.prompt_tokens, totals.live_prompt_tokens) == (6 + 4 + 6, 6 + 4)
    assert (totals.completion_tokens, totals.live_completion_tokens) == (9, 6)
    assert totals.latency_s > 0 and totals.as_dict() == client.usage.as_dict()
    assert totals.as_dict()["by_role"] == {"oracle": 1, "questioner": 2}


def test_configuration_errors_are_clear(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(KariError) as err:
        make_chat_client(LLMConfig(base_url="https://api.openai.com/v1", model="gpt-4o-mini", cache_dir=tmp_path))
    assert err.value.code == "llm-auth" and "OPENAI_API_KEY" in str(err.value)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert (
        make_chat_client(
            LLMConfig(base_url="https://api.openai.com/v1", model="gpt-4o-mini", cache_dir=tmp_path)
        ).config.api_key()
        == "sk-test"
    )
    for bad in ({"json_mode": "yaml"}, {"model": ""}, {"concurrency": 0}, {"offline_replay": True, "use_cache": False}):
        with pytest.raises(KariError) as err:
            LLMConfig(**{"base_url": "http://127.0.0.1:1/v1", "model": "m", **bad})
        assert err.value.code == "llm-config"
    client = make_chat_client(LLMConfig(base_url="http://127.0.0.1:1/v1", model="m", cache_dir=tmp_path))
    for messages in ("hi", [], [{"role": "user"}]):
        with pytest.raises(ValueError):
            client.chat(messages, max_tokens=4)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        client.chat(MSG, max_tokens=0)


def test_config_from_env_and_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KARI_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KARI_LLM_MODEL", "smol")
    monkeypatch.setenv("KARI_CACHE_DIR", str(tmp_path / "kc"))
    cfg = LLMConfig.from_env(timeout=None, concurrency=2)
    assert (cfg.base_url, cfg.model, cfg.timeout, cfg.concurrency) == ("http://127.0.0.1:9/v1", "smol", 60.0, 2)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert cfg.resolved_cache_dir == tmp_path / "kc" and cfg.api_key() == "sk-no-key-required"
    monkeypatch.delenv("KARI_CACHE_DIR")
    assert cfg.resolved_cache_dir == Path.home() / ".cache" / "kari" / "llm"
    with pytest.raises(TypeError):
        LLMConfig.from_env(colour="red")


# ------------------------------------------------------------------------------ many callers, budgets, stopping


def _threads(n: int, target) -> list:
    import threading

    results: list = [None] * n

    def run(i: int) -> None:
        try:
            results[i] = target(i)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_one_request_asked_by_many_threads_at_once_goes_out_once(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    """The later askers wait for the first one's reply and get it as a cache hit, as in a sequential run."""
    llm_stub.respond = lambda body: StubReply("one answer", delay=0.3)
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=8))
    replies = _threads(6, lambda i: client.chat(MSG, max_tokens=8))
    assert llm_stub.requests == 1
    assert all(r.text == "one answer" for r in replies) and sum(not r.cached for r in replies) == 1
    assert client.usage.calls == 6 and client.usage.cache_hits == 5
    no_cache = make_chat_client(config(llm_stub.base_url, tmp_path, use_cache=False, concurrency=8))
    _threads(3, lambda i: no_cache.chat(MSG, max_tokens=8))
    assert llm_stub.requests == 4  # without the cache every call is live, as in a sequential run


def test_the_call_budget_is_exact_under_concurrency(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    from kari.llm.limits import BudgetSpent

    llm_stub.respond = lambda body: StubReply("ok " + body["messages"][-1]["content"], delay=0.05)
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=8, budget_calls=5))
    asks = [[{"role": "user", "content": f"q{i}"}] for i in range(12)]
    results = _threads(12, lambda i: client.chat(asks[i], max_tokens=8))
    assert llm_stub.requests == 5 and sum(isinstance(r, BudgetSpent) for r in results) == 7
    spent = next(r for r in results if isinstance(r, BudgetSpent))
    assert spent.code == "budget" and spent.exit_code == 75 and "5 of 5 calls" in spent.message
    again = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=8, budget_calls=1))
    answered = [r for r in results if not isinstance(r, BaseException)]
    assert all(again.chat(asks[i], max_tokens=8).cached for i, r in enumerate(results) if r in answered)
    assert llm_stub.requests == 5  # replies already recorded are free


def test_the_token_budget_stops_new_calls_once_reached(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    from kari.llm.limits import BudgetSpent

    llm_stub.respond = lambda body: StubReply("a b c d e f g h i j")  # 10 completion tokens + the prompt's words
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=1, budget_tokens=30))
    spent = 0
    for i in range(10):
        try:
            reply = client.chat([{"role": "user", "content": f"question {i}"}], max_tokens=20)
            spent += reply.prompt_tokens + reply.completion_tokens
        except BudgetSpent:
            break
    assert spent >= 30 and spent - 12 < 30 and llm_stub.requests == i


def test_stop_ends_every_waiting_call_at_once(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    import threading

    from kari.llm.limits import Cancelled

    llm_stub.respond = lambda body: StubReply("slow", delay=5.0)
    client = make_chat_client(config(llm_stub.base_url, tmp_path, concurrency=2, timeout=30.0))
    asks = [[{"role": "user", "content": f"q{i}"}] for i in range(5)]  # 2 in flight, 3 waiting for a slot
    threading.Timer(0.5, client.stop).start()
    started = time.monotonic()
    results = _threads(5, lambda i: client.chat(asks[i], max_tokens=8))
    assert time.monotonic() - started < 2.0
    assert all(isinstance(r, Cancelled) for r in results)
    with pytest.raises(Cancelled):
        client.chat(MSG, max_tokens=8)


def _put_from_another_process(args: tuple[str, str, str]) -> str:
    from kari.llm.cache import CachedReply, ReplyCache

    root, key, text = args
    return ReplyCache(root).put(key, {"request": text}, CachedReply(text, 1, 1, 0.1)).text


def test_the_cache_keeps_the_first_reply_recorded_for_a_key(tmp_path: Path) -> None:
    """Shards sharing one --cache-dir (processes, machines on a network file system) all replay one reply."""
    from concurrent.futures import ProcessPoolExecutor

    from kari.llm.cache import CachedReply

    cache = ReplyCache(tmp_path)
    key = "ab" + "0" * 62
    assert cache.put(key, {}, CachedReply("first", 1, 2, 0.5)).text == "first"
    assert cache.put(key, {}, CachedReply("second", 1, 2, 0.5)).text == "first"
    assert ReplyCache(tmp_path).get(key).text == "first"
    cache.path(key).write_text("{broken")          # an entry that cannot be read is replaced
    assert cache.put(key, {}, CachedReply("third", 1, 2, 0.5)).text == "third"
    other = "cd" + "0" * 62
    with ProcessPoolExecutor(4) as pool:
        got = list(pool.map(_put_from_another_process, [(str(tmp_path), other, f"reply {i}") for i in range(8)]))
    assert len(set(got)) == 1 and ReplyCache(tmp_path).get(other).text == got[0]
    assert not [p for p in cache.path(other).parent.iterdir() if p.name.endswith(".tmp")]


def test_the_call_log_names_what_each_call_was_about(llm_stub: StubLLMServer, tmp_path: Path) -> None:
    log = CallLog(tmp_path / "calls.jsonl")
    client = make_chat_client(config(llm_stub.base_url, tmp_path / "cache"), log=log)
    client.chat(MSG, max_tokens=8, role="proposer", tag="cut")
    client.chat_many([ChatRequest(MSG, 9, role="validator", tag="slice"), ChatRequest(MSG, 10, role="validator")])
    log.close()
    lines = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert lines[0]["tag"] == "cut" and sorted(str(x.get("tag")) for x in lines[1:]) == ["None", "slice"]
