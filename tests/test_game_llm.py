"""LLM players against the real local OpenAI-compatible server (SmolLM2): the protocol and robustness to junk.

SmolLM2-135M's questions and guesses are mostly junk; the engine must still finish every game with a valid
record (rejections, forced guesses, invalid guess = failure).
"""

from __future__ import annotations

import json

import pytest
from llm_server import LLM_SERVER_MODEL
from test_game_support import RULES_TEXT, write_bench, write_vocab

from kari.game.run import PlayConfig, play

pytestmark = pytest.mark.llm_server


def test_llm_questioner_oracle_and_checker_finish_games(llm_server, tmp_path):
    from kari.llm import LLMConfig

    rules = tmp_path / "rules.kari"
    rules.write_text(RULES_TEXT)
    config = PlayConfig(bench=str(write_bench(tmp_path / "bench")), vocab=str(write_vocab(tmp_path / "vocab")),
                        questioner="llm", oracle="llm", checker="llm", games=2, budget=3, max_tokens=48, rules=str(rules),
                        rule_match="exact", model=LLM_SERVER_MODEL, base_url=llm_server)
    llm = LLMConfig(base_url=llm_server, model=LLM_SERVER_MODEL, cache_dir=tmp_path / "cache", timeout=120)
    summary = play(config, tmp_path / "run", llm_config=llm, progress=False)
    records = [json.loads(x) for x in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2 and summary["games"] == 2
    for record in records:
        assert record["n_turns"] <= 3
        assert record["guess"] is None or record["guess"] in record["candidates"]
        assert record["success"] == (record["guess"] == record["target"])
        for turn in record["turns"]:
            assert "raw" in turn["checker"]
            assert turn["answer"] in (None, "yes", "no")
    assert summary["llm_usage"]["calls"] >= 2
    assert list((tmp_path / "run").glob("llm_calls-*.jsonl"))


def test_symbolic_checker_with_llm_questioner(llm_server, tmp_path):
    from kari.llm import LLMConfig

    config = PlayConfig(bench=str(write_bench(tmp_path / "bench")), vocab=str(write_vocab(tmp_path / "vocab")),
                        questioner="llm", games=1, budget=3, max_tokens=48, model=LLM_SERVER_MODEL, base_url=llm_server)
    llm = LLMConfig(base_url=llm_server, model=LLM_SERVER_MODEL, cache_dir=tmp_path / "cache", timeout=120)
    summary = play(config, tmp_path / "run", llm_config=llm, progress=False)
    assert summary["games"] == 1 and 0.0 <= summary["success_rate"] <= 1.0
