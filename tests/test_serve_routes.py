"""Every route of ``kari serve`` while a participant's game is in play: none of the responses names that game's
hidden object (its id, its name, its description) or its benchmark game id, whatever the route, the token or the
step; and a participant's text is sent back as JSON text, never as markup. On a synthetic benchmark whose game ids
spell their objects (``g_cut_obj0``) and on one kari did not build (tests/data/outside_bench); a description
several objects share ("a metal thing") is not looked for, since another game's result may show it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from serve_support import OUTSIDE_BENCH, StudyServer, request
from test_game_support import write_bench, write_vocab

from kari.serve.app import ROUTES, STATIC, STEPS


@pytest.fixture(scope="module", params=["synthetic", "outside"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("routes")
    if request.param == "synthetic":
        bench = write_bench(root / "bench")
        extra = ["--vocab", str(write_vocab(root / "vocab"))]
    else:
        bench, extra = OUTSIDE_BENCH, []
    server = StudyServer(root / "study", ["--bench", str(bench), *extra, "--participants", "3", "--games", "6"]).start()
    try:
        yield server, bench
    finally:
        server.__exit__()


def _hidden(bench: Path, game_id: str) -> list[str]:
    games = {g["id"]: g for g in map(json.loads, (bench / "games.jsonl").read_text().splitlines())}
    objects = {o["id"]: o for o in map(json.loads, (bench / "objects.jsonl").read_text().splitlines())}
    obj = objects[games[game_id]["object"]]
    shared = sum(o["description"] == obj["description"] for o in objects.values()) > 1  # "a metal thing"
    return [game_id, obj["id"], obj["id"].replace("_", " ")] + ([] if shared else [obj["description"]])


def test_no_route_names_the_hidden_object_of_a_game_in_play(served) -> None:
    server, bench = served
    a, b = server.participant(0), server.participant(1)
    coordinator = server.links["coordinator"]
    plan = json.loads((server.out / "plan.json").read_text())
    first = next(game for game, run in plan["items"] if run == 0)
    hidden = _hidden(bench, first)
    script = "<b>bold</b><script>alert(1)</script>"
    assert a.step("consent", {}).status == 200
    assert a.step("ask", {"game": 1, "turn": 1, "question": "Is it made of glass?"}).status == 200
    assert a.step("ask", {"game": 1, "turn": 2, "question": script}).status == 200
    state = b.step("consent", {}).data  # b finishes a game, so the coordinator's report has one
    b.step("guess", {"game": 1, "candidate": state["game"]["candidates"][0]["id"]})

    replies: dict[tuple[str, str], list[Any]] = {}

    def call(method: str, template: str, path: str, body: Any = None) -> None:
        replies.setdefault((method, template), []).append(request(server.base, path, body if method == "POST"
                                                                  else None))

    for method, template in ROUTES:
        if template == "/api/p/{token}/{step}":
            bodies = {"consent": {}, "start": {"game": 1}, "ask": {"game": 1, "turn": 1, "question": "again"},
                      "answer": {"game": 1, "turn": 3, "answer": "yes"}, "guess": {"game": 1, "candidate": "nope"},
                      "withdraw": {}}
            assert set(bodies) == set(STEPS)
            for step, body in bodies.items():
                call(method, template, f"/api/p/{a.token}/{step}", body)
        elif template == "/static/{name}":
            for name in STATIC:
                call(method, template, f"/static/{name}")
        else:
            token = coordinator if template.startswith(("/c/", "/api/c/")) else a.token
            for who in (token, b.token, "nobody"):
                call(method, template, template.replace("{token}", who), {})
    assert set(replies) == set(ROUTES)  # every route was called
    statuses = [r.status for rs in replies.values() for r in rs]
    assert statuses.count(200) > 10 and 500 not in statuses
    for (method, template), answers in replies.items():
        for reply in answers:
            text = reply.body.decode("utf-8")
            for needle in hidden:
                assert not re.search(r"(?<![\w])" + re.escape(needle) + r"(?![\w])", text), (template, needle)
    view = request(server.base, a.api).data
    assert view["game"]["turns"][1]["question"] == script  # sent back as the text it is
    assert request(server.base, a.api).headers["content-type"].startswith("application/json")
    assert view["status"] == "playing" and "game" in view and view["game"]["number"] == 1
    assert not any(k in view["game"] for k in ("id", "object", "target", "b", "b0"))
