"""``kari play --interactive``: a person plays as Questioner in the terminal; games are recorded in the same
``games.jsonl`` format as every other player (the human baseline).

When the questions come from a pipe or a file rather than a terminal, each line read is echoed after its prompt,
so the transcript shows what was asked. End of input ends the session after the current game.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from kari.errors import KariError
from kari.core.game_names import Player
from kari.game.questioners.human import END_OF_INPUT
from kari.game.run import GAMES_FILE, load_records, play_loaded, read_inputs

if TYPE_CHECKING:
    from kari.core.benchmark import Benchmark
    from kari.core.game_settings import PlayConfig
    from kari.core.game_records import GameRecord


def next_game_id(bench: Benchmark, out: Path) -> str:
    """The first game of the benchmark (in file order) not yet played in ``out``."""
    done = {r.game for r in load_records(out / GAMES_FILE)[0]}
    for game in bench.games:
        if game.id not in done:
            return game.id
    raise KariError("every game of this benchmark has been played in this run directory", file=str(out),
                    code="game-config")


def terminal_reader(stream: TextIO | None = None, write: Callable[[str], None] = print) -> Callable[[str], str]:
    """``input``, echoing each line read when ``stream`` (default stdin) is not a terminal. A line that is not
    UTF-8 text is a one-line error naming its line (``<stdin>:N``)."""
    stream = sys.stdin if stream is None else stream
    lines = [0]

    def checked(line: str) -> str:
        lines[0] += 1
        if any("\ud800" <= c <= "\udfff" for c in line):   # undecodable bytes, kept by Python as surrogates
            raise KariError("not UTF-8 text", file="<stdin>", line=lines[0], code="encoding")
        return line

    if stream.isatty():
        def ask(prompt: str) -> str:
            try:
                return checked(input(prompt))
            except UnicodeDecodeError:
                raise KariError("not UTF-8 text", file="<stdin>", line=lines[0] + 1, code="encoding") from None
        return ask

    def read(prompt: str) -> str:
        sys.stdout.write(prompt)
        try:
            line = stream.readline()
        except UnicodeDecodeError:
            raise KariError("not UTF-8 text", file="<stdin>", line=lines[0] + 1, code="encoding") from None
        if not line:
            write("")
            raise EOFError
        checked(line)
        write(line.rstrip("\n"))
        return line

    return read


def play_interactive(config: PlayConfig, out: str | Path, *, games: int = 1,
                     read: Callable[[str], str] | None = None,
                     write: Callable[[str], None] = print) -> list[GameRecord]:
    """Play ``games`` games (or the ones in ``config.game_ids``) with a person; returns their records.

    ``read`` defaults to :func:`terminal_reader`; a game that input ended stops the session."""
    read = read if read is not None else terminal_reader(write=write)

    out = Path(out)
    config = replace(config, questioner=Player.HUMAN)
    ids = list(config.game_ids) or None
    bench, vocab, rules = read_inputs(replace(config, game_ids=(), games=None))  # read once for every game
    played = []
    for number in range(len(ids) if ids else games):
        game_id = ids[number] if ids else next_game_id(bench, out)
        play_loaded(replace(config, game_ids=(game_id,), games=None), out, bench=bench, vocab=vocab, rules=rules,
                    progress=False, read=read, write=write)
        record = next(r for r in reversed(load_records(out / GAMES_FILE)[0]) if r.game == game_id)
        verdict = "Correct!" if record.success else f"Wrong: the answer was {record.target}."
        plural = "" if record.n_turns == 1 else "s"
        write(f"{verdict} The hidden object was {record.object}. ({record.n_turns} question{plural})")
        played.append(record)
        if record.guess_raw == END_OF_INPUT:
            break
    return played
