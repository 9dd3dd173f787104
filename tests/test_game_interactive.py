"""Playing in the terminal: bad guesses are asked again, help is free, end of input ends cleanly, piped input is
echoed in the transcript."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from test_game_support import write_bench, write_vocab

from kari.game.interactive import play_interactive, terminal_reader
from kari.game.questioners.human import END_OF_INPUT
from kari.game.run import PlayConfig


@pytest.fixture
def config(tmp_path: Path) -> PlayConfig:
    return PlayConfig(bench=str(write_bench(tmp_path / "bench")), questioner="human",
                      vocab=str(write_vocab(tmp_path / "vocab")), game_ids=("g_cut_obj0",))


def scripted(lines: list[str]):
    answers = iter(lines)

    def read(_prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read


def test_out_of_range_guess_is_asked_again_and_help_costs_no_turn(config, tmp_path):
    out: list[str] = []
    read = scripted(["help", "Is it made of metal?", "?", "guess 9", "guess nonsense", "1"])
    record = play_interactive(config, tmp_path / "run", read=read, write=out.append)[0]
    assert record["n_turns"] == 1 and record["turns"][0]["question"] == "Is it made of metal?"
    assert record["guess"] == record["candidates"][0] and not record["invalid_guess"]
    assert record["guess_raw"] == "1"
    assert sum(line.startswith("Ask one yes/no question a turn") for line in out) == 2
    assert any("'9' is not a candidate: give a number from 1 to 8" in line for line in out)
    assert any("'nonsense' is not a candidate" in line for line in out)


def test_end_of_input_ends_the_session_without_warnings(config, tmp_path):
    config = PlayConfig(**{**config.__dict__, "game_ids": ()})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. matplotlib's "no artists with labels" on a game without questions
        records = play_interactive(config, tmp_path / "run", games=3, read=scripted([]), write=lambda _: None)
    assert len(records) == 1  # the session stopped: no further games were recorded as losses
    assert records[0]["guess_raw"] == END_OF_INPUT and records[0]["invalid_guess"] and not records[0]["success"]
    assert (tmp_path / "run" / "dimensions_by_turn.png").exists()


def test_piped_questions_are_echoed_after_their_prompt():
    shown: list[str] = []
    read = terminal_reader(io.StringIO("Is it flat?\n"), write=shown.append)
    assert read("Q1> ") == "Is it flat?\n" and shown == ["Is it flat?"]
    with pytest.raises(EOFError):
        read("Q2> ")


def test_cli_transcript_of_piped_input(config, tmp_path):
    cmd = [sys.executable, "-m", "kari", "play", "--interactive", "--bench", config.bench, "--vocab", config.vocab,
           "--out", str(tmp_path / "run")]
    result = subprocess.run(cmd, input="Is it made of metal?\nguess 9\nguess 1\n", capture_output=True, text=True,
                            env={**os.environ, "MPLBACKEND": "Agg"}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Q1> Is it made of metal?\n" in result.stdout and "Your guess> guess 1\n" in result.stdout
    assert "Warning" not in result.stderr
