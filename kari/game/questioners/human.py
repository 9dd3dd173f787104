"""The human Questioner: a person plays in the terminal (the paper's human baseline).

They see the candidates, type one question a turn and read the answer; ``guess <candidate>`` (or
``FINAL_GUESS: <candidate>``) ends the game. A guess that names no candidate (``guess 9`` with 8 candidates) is
asked again; ``help`` prints the instructions and costs no turn; end of input ends the game with no guess (a
loss, ``guess_raw`` :data:`END_OF_INPUT`). Input and output functions are injectable for tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kari.game.questioners.base import Questioner, QuestionerOptions, resolve_guess
from kari.game.types import Action, Ask, GameSetup, GameState, Guess
from kari.core.game_names import Player

_GUESS = re.compile(r"^\s*(?:guess|final[_ ]guess)\s*:?\s*(.*)$", re.IGNORECASE)
_HELP = re.compile(r"^\s*(?:help|\?)\s*$", re.IGNORECASE)
END_OF_INPUT = "(end of input)"
HELP = ("Ask one yes/no question a turn about ONE material, shape, size or surface property of the hidden object,\n"
        "e.g. 'Is it made of metal?', 'Is it flat?' or 'SHAPE:pointed'. Questions about use, function or what kind of\n"
        "thing it is are rejected and still cost a turn. 'guess <candidate or number>' ends the game; 'help' shows\n"
        "this again (free).")


class HumanQuestioner(Questioner):
    name = Player.HUMAN

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> HumanQuestioner:
        return cls(options.read, options.write)

    def start(self, setup: GameSetup) -> None:
        super().start(setup)
        self.write(f"\nGame {setup.game_id}: which affordance does the hidden object have? Candidates:")
        for number, cand in enumerate(setup.candidates, 1):
            desc = setup.descriptions.get(cand)
            self.write(f"  {number}. {cand}" + (f" - {desc}" if desc else ""))
        self.write(f"Ask up to {setup.budget} yes/no questions about ONE material, shape, size or surface property.\n"
                   "Type 'guess <candidate or number>' to finish, 'help' for help.")

    def _report_last(self, state: GameState) -> None:
        if not state.turns:
            return
        turn = state.turns[-1]
        if turn.answer is None:
            why = turn.check.flag and f"asks about {turn.check.flag.lower()}" or turn.check.reason
            self.write(f"  -> rejected: {why}")
        else:
            self.write(f"  -> {'Yes' if turn.answer else 'No'}   ({state.turns_left} questions left)")

    def _read(self, prompt: str) -> str | None:
        """One line, or None at end of input."""
        try:
            return self.read(prompt)
        except EOFError:
            return None

    def _resolve(self, raw: str) -> str | None:
        """The candidate a guess names (by number or by name), else None."""
        raw = raw.strip()
        if raw.isdigit():
            number = int(raw)
            return self.setup.candidates[number - 1] if 1 <= number <= len(self.setup.candidates) else None
        return resolve_guess(raw, self.setup.candidates)

    def _guess(self, text: str) -> Guess:
        """Ask until ``text`` names a candidate (or input ends)."""
        while True:
            if text.strip():
                chosen = self._resolve(text)
                if chosen is not None:
                    return Guess(chosen, raw=text)
                self.write(f"  '{text.strip()}' is not a candidate: give a number from 1 to "
                           f"{len(self.setup.candidates)} or a candidate's name.")
            line = self._read("Your guess> ")
            if line is None:
                return Guess(None, raw=END_OF_INPUT)
            prefixed = _GUESS.match(line)
            text = prefixed.group(1) if prefixed else line

    def act(self, state: GameState) -> Action:
        self._report_last(state)
        while True:
            line = self._read(f"Q{len(state.turns) + 1}> ")
            if line is None:
                return Guess(None, raw=END_OF_INPUT)
            line = line.strip()
            if not line:
                continue
            if _HELP.match(line):
                self.write(HELP)
                continue
            guess = _GUESS.match(line)
            if guess:
                return self._guess(guess.group(1))
            return Ask(line)

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        self._report_last(state)
        self.write("No more questions" + (" (too many rejected questions)." if reason == "rejections" else "."))
        return self._guess("")
