"""A real ``kari serve`` for the study tests: the command started as a process on a free port of 127.0.0.1 (its
printed link read back), spoken to over HTTP with the standard library, stopped with SIGTERM or killed with
SIGKILL (a crash), started again on the same folder.

:class:`Participant` plays as a person would through the JSON API, keeping every response so a test can look
for the hidden object in them; :func:`play_session` plays a whole study, :func:`play_questioner` with a fixed list
of questions (it never reads the hidden object), :func:`play_oracle` with an answering rule.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE_BENCH = ROOT / "tests" / "data" / "outside_bench"
QUESTIONS = ("Is it made of metal?", "Is it made of wood?", "Is it made of plastic?", "Is it made of fabric?",
             "Is it made of glass?", "Is it round?", "Is it flat?", "Is it large?", "Is it small?",
             "Is its surface smooth?", "Is it sharp?", "Is it hollow?", "What is it used for?",
             "Is it made of paper?", "Is it soft?", "Is it heavy?", "Is it made of stone?", "Is it long?")
"""What a simulated Questioner asks, in order (one a rejected FUNCTION question)."""


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str]

    @property
    def data(self) -> Any:
        return json.loads(self.body)


def request(base: str, path: str, body: Any = None, *, raw: bytes | None = None, method: str | None = None,
            headers: dict[str, str] | None = None, timeout: float = 30.0) -> Reply:
    """One HTTP request; a JSON ``body`` is sent with its content type."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = {"Content-Type": "application/json"} if body is not None else {}
    req = urllib.request.Request(base + path, data=data, headers={**sent, **(headers or {})}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as reply:
            return Reply(reply.status, reply.read(), {k.lower(): v for k, v in reply.headers.items()})
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.read(), {k.lower(): v for k, v in error.headers.items()})


@dataclass
class StudyServer:
    """``kari serve`` on ``out`` with ``args``; :meth:`start` (again after :meth:`stop` or :meth:`kill`)."""

    out: Path
    args: Sequence[str]
    port: int = 0
    proc: subprocess.Popen[str] | None = None
    base: str = ""
    lines: list[str] = field(default_factory=list)

    def start(self) -> StudyServer:
        """Start ``kari serve`` (port 0: any free port, read from its first line)."""
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "kari", "serve", "--out", str(self.out), "--port", str(self.port), *self.args]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                     env=env)
        first = self.proc.stdout.readline() if self.proc.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:\d+", first)
        if found is None:
            self.proc.kill()
            raise AssertionError(f"kari serve did not start: {first}{self.proc.communicate()[1]}")
        self.base = found.group(0)
        self.lines = [first]
        return self

    @property
    def links(self) -> dict[str, Any]:
        return json.loads((self.out / "serve" / "links.json").read_text())

    def participant(self, index: int) -> Participant:
        return Participant(self, self.links["participants"][index])

    def coordinator(self) -> Any:
        return request(self.base, f"/api/c/{self.links['coordinator']}").data

    def stop(self) -> tuple[int, str, str]:
        """SIGTERM: a graceful stop; (exit code, stdout, stderr)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=60)
        code, self.proc = self.proc.returncode, None
        return code, "".join(self.lines) + out, err

    def kill(self) -> None:
        """SIGKILL: the server dies on the spot, as in a crash or a power cut."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.proc = None

    def __enter__(self) -> StudyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=30)
            self.proc = None


@dataclass
class Participant:
    """One participant's link; every reply is kept in :attr:`seen`, with the game in play when it came.
    ``keep_alive``: one persistent HTTP connection for every request, as a browser keeps one."""

    server: StudyServer
    token: str
    seen: list[tuple[int | None, Reply]] = field(default_factory=list)
    keep_alive: bool = False
    _connection: http.client.HTTPConnection | None = field(default=None, repr=False)

    @property
    def api(self) -> str:
        return f"/api/p/{self.token}"

    def _send(self, path: str, body: Any = None) -> Reply:
        if not self.keep_alive:
            return request(self.server.base, path, body)
        for attempt in range(2):  # the server may have closed an idle connection: open a new one once
            if self._connection is None:
                self._connection = http.client.HTTPConnection(urlsplit(self.server.base).netloc, timeout=30)
            try:
                data = None if body is None else json.dumps(body).encode()
                headers = {} if body is None else {"Content-Type": "application/json"}
                self._connection.request("GET" if body is None else "POST", path, data, headers)
                reply = self._connection.getresponse()
                return Reply(reply.status, reply.read(), {k.lower(): v for k, v in reply.getheaders()})
            except (http.client.HTTPException, ConnectionError):
                self._connection.close()
                self._connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def state(self) -> Any:
        reply = self._send(self.api)
        assert reply.status == 200, reply.body
        view = reply.data
        self.seen.append(((view.get("game") or {}).get("number"), reply))
        return view

    def step(self, name: str, body: dict[str, Any], game: int | None = None) -> Reply:
        reply = self._send(f"{self.api}/{name}", body)
        self.seen.append((game, reply))
        return reply


def play_session(person: Participant, move: Callable[[Any], tuple[str, dict[str, Any]]], *,
                 on_step: Callable[[str, float], None] = lambda name, seconds: None,
                 before: Callable[[], None] = lambda: None) -> Any:
    """Consent, then every game of ``person`` to the end of the study: ``move(game)`` says the step to take in
    the game in play (its name and body); ``before()`` runs before each step (a pause), ``on_step(name,
    seconds)`` gets each step's round trip. Returns the last state."""
    def step(name: str, body: dict[str, Any], game: int | None = None) -> Any:
        before()
        started = time.perf_counter()
        reply = person.step(name, body, game)
        on_step(name, time.perf_counter() - started)
        assert reply.status == 200, reply.body
        return reply.data

    state = person.state()
    if state["status"] == "consent":
        state = step("consent", {})
    while state["status"] in ("playing", "ready"):
        if state["status"] == "ready":
            state = step("start", {"game": state["next"]})
            continue
        name, body = move(state["game"])
        state = step(name, body, state["game"]["number"])
    return state


def questioner_move(game: Any) -> tuple[str, dict[str, Any]]:
    """A simulated Questioner's step: 4 to 6 questions of :data:`QUESTIONS`, then a guess of a candidate picked by
    the game's number (never by the answers: the point is to play whole games, not to win them)."""
    number, asked = game["number"], len(game["turns"])
    if not game["forced"] and asked < 4 + number % 3:
        return "ask", {"game": number, "turn": game["next_turn"],
                       "question": QUESTIONS[(asked + number) % len(QUESTIONS)]}
    return "guess", {"game": number, "candidate": game["candidates"][(number * 3) % len(game["candidates"])]["id"]}


def play_questioner(person: Participant, *, on_turn: Callable[[float], None] = lambda s: None) -> Any:
    """Play every game of ``person`` as the Questioner (:func:`questioner_move`); ``on_turn(seconds)`` gets each
    question's round trip."""
    return play_session(person, questioner_move,
                        on_step=lambda name, seconds: on_turn(seconds) if name == "ask" else None)


def play_oracle(person: Participant, answer: Callable[[str], str]) -> Any:
    """Play every game of ``person`` as the Oracle, answering each question with ``answer(question)``."""
    def move(game: Any) -> tuple[str, dict[str, Any]]:
        pending = game["pending"]
        assert pending is not None, game
        return "answer", {"game": game["number"], "turn": pending["turn"], "answer": answer(pending["question"])}

    return play_session(person, move)

def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on now (for a server that must come back on the same port)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
