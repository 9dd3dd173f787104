"""The human Questioner: a person plays in the terminal (the paper's human baseline).

They see the candidates, type one question a turn and read the answer; ``guess <candidate>`` (or
``FINAL_GUESS: <candidate>``) ends the game. Input and output functions are injectable for tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kari.game.questioners.base import Questioner
from kari.game.types import Action, Ask, GameSetup, GameState, Guess

_GUESS = re.compile(r"^\s*(?:guess|final[_ ]guess)\s*:?\s*(.*)$", re.IGNORECASE)


class HumanQuestioner(Questioner):
    name = "human"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    @classmethod
    def from_options(cls, options: Any) -> HumanQuestioner:
        return cls(options.read, options.write)

    def start(self, setup: GameSetup) -> None:
        super().start(setup)
        self.write(f"\nGame {setup.game_id}: which affordance does the hidden object have? Candidates:")
        for number, cand in enumerate(setup.candidates, 1):
            desc = setup.descriptions.get(cand)
            self.write(f"  {number}. {cand}" + (f" - {desc}" if desc else ""))
        self.write(f"Ask up to {setup.budget} yes/no questions about ONE material, shape, size or surface property.\n"
                   "Type 'guess <candidate or number>' to finish.")

    def _report_last(self, state: GameState) -> None:
        if not state.turns:
            return
        turn = state.turns[-1]
        if turn.answer is None:
            why = turn.check.flag and f"asks about {turn.check.flag.lower()}" or turn.check.reason
            self.write(f"  -> rejected: {why}")
        else:
            self.write(f"  -> {'Yes' if turn.answer else 'No'}   ({state.turns_left} questions left)")

    def _read(self, prompt: str) -> str:
        try:
            return self.read(prompt)
        except EOFError:
            return "guess"

    def _resolve(self, raw: str) -> str:
        raw = raw.strip()
        if raw.isdigit() and 1 <= int(raw) <= len(self.setup.candidates):
            return self.setup.candidates[int(raw) - 1]
        return raw

    def act(self, state: GameState) -> Action:
        self._report_last(state)
        while True:
            line = self._read(f"Q{len(state.turns) + 1}> ").strip()
            if not line:
                continue
            guess = _GUESS.match(line)
            if guess:
                text = guess.group(1) or self._read("Your guess> ")
                return Guess(self._resolve(text), raw=text)
            return Ask(line)

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        self._report_last(state)
        self.write("No more questions" + (" (too many rejected questions)." if reason == "rejections" else "."))
        text = self._read("Your guess> ")
        return Guess(self._resolve(text), raw=text)
