"""``kari play --concurrency N``: N games in flight, the same records in the same order as a sequential run."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import pytest
from llm_server import scripted_questioner
from test_game_support import RULES_TEXT, write_bench, write_questions, write_vocab

from kari.errors import KariError
from kari.game.parallel import ordered_map
from kari.game.run import PlayConfig, play


def test_ordered_map_keeps_input_order_and_bounds_work_in_flight():
    running, peak, lock = [0], [0], threading.Lock()

    def work(i: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(random.Random(i).uniform(0, 0.01))
        with lock:
            running[0] -= 1
        return i * i

    assert list(ordered_map(work, range(40), 4)) == [(i, i * i) for i in range(40)]
    assert 1 < peak[0] <= 4
    assert list(ordered_map(work, range(5), 1)) == [(i, i * i) for i in range(5)]


def test_ordered_map_raises_the_first_failure_in_input_order():
    def work(i: int) -> int:
        if i in (3, 5):
            time.sleep(0.02 if i == 3 else 0)
            raise ValueError(f"boom {i}")
        return i

    seen = []
    with pytest.raises(ValueError, match="boom 3"):
        for item, _ in ordered_map(work, range(10), 4):
            seen.append(item)
    assert seen == [0, 1, 2]


def _world(tmp_path: Path) -> dict[str, str]:
    rules = tmp_path / "rules.kari"
    rules.write_text(RULES_TEXT)
    questions = write_questions(tmp_path / "q.tsv", [("SHAPE", "flat"), ("MATERIAL", "metal"), ("SIZE", "small")])
    return {"bench": str(write_bench(tmp_path / "bench")), "vocab": str(write_vocab(tmp_path / "vocab")),
            "rules": str(rules), "questions": str(questions)}


def _records(out: Path) -> list[dict]:
    """games.jsonl without wall times (the only field that differs between runs)."""
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    for record in records:
        record.pop("time_s")
    return records


@pytest.mark.parametrize("questioner", ["greedy-ig", "fix20q", "rules"])
def test_symbolic_players_give_the_sequential_records(tmp_path, questioner):
    world = _world(tmp_path)
    config = PlayConfig(bench=world["bench"], vocab=world["vocab"], questioner=questioner, games=16,
                        runs=2 if questioner == "fix20q" else None, rules=world["rules"], rule_match="exact",
                        questions=world["questions"] if questioner == "fix20q" else None)
    one = play(config, tmp_path / "one", progress=False)
    four = play(config, tmp_path / "four", progress=False, concurrency=4)
    assert _records(tmp_path / "four") == _records(tmp_path / "one")
    assert four["success_rate"] == one["success_rate"] and four["ig_by_turn"] == one["ig_by_turn"]


def test_llm_games_in_flight_match_a_sequential_run_and_resume(llm_stub, tmp_path):
    from kari.llm import LLMConfig

    llm_stub.respond = scripted_questioner(questions=2, delay=0.02)
    world = _world(tmp_path)
    config = PlayConfig(bench=world["bench"], vocab=world["vocab"], questioner="llm", games=12, budget=5,
                        model="stub", base_url=llm_stub.base_url)
    llm = LLMConfig(base_url=llm_stub.base_url, model="stub", use_cache=False, timeout=30)
    play(config, tmp_path / "one", llm_config=llm, progress=False)
    assert llm_stub.max_in_flight == 1
    llm_stub.max_in_flight = 0
    half = PlayConfig(**{**config.__dict__, "games": 5})
    play(half, tmp_path / "par", llm_config=llm.with_(concurrency=4), progress=False, concurrency=4)
    summary = play(config, tmp_path / "par", llm_config=llm.with_(concurrency=4), progress=False, concurrency=4)
    assert 1 < llm_stub.max_in_flight <= 4
    assert _records(tmp_path / "par") == _records(tmp_path / "one")
    assert summary["games"] == 12 and summary["llm_usage"]["calls"] == 3 * 7  # the 5 resumed games were not replayed


def test_human_player_is_never_concurrent(tmp_path):
    world = _world(tmp_path)
    config = PlayConfig(bench=world["bench"], vocab=world["vocab"], questioner="human", games=1)
    with pytest.raises(KariError, match="concurrency"):
        play(config, tmp_path / "run", progress=False, concurrency=2)
