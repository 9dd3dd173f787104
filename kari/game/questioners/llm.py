"""The LLM Questioner, prompted as in the paper (``kari/llm/prompts/questioner.md``), with matched rules
verbalised at the end of its system prompt. Temperature 0 (``--llm-temperature``), at most 512 tokens a turn;
above temperature 0 every request of run k sends the sampling seed ``seed + k``.

Replies are read leniently: ``FINAL_GUESS: x`` is a guess, anything else is the question (its first line with a
question mark, else its first line). The engine rejects junk and a guess outside the candidates fails the game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from kari.game.questioners.base import Questioner, QuestionerOptions
from kari.game.types import Action, Ask, GameSetup, GameState, Guess, RuleMatch, Turn
from kari.core.game_names import Player
from kari.core.run_model import sampling_seed
from kari.errors import KariError
from kari.llm import load_prompt
from kari.llm.config import DEFAULT_MAX_TOKENS
from kari.rules import verbalise

if TYPE_CHECKING:
    from kari.llm.client import ChatClient

_FINAL = re.compile(r"FINAL[_ ]GUESS\s*:\s*(.+)", re.IGNORECASE)
MAX_QUESTION_CHARS = 300
FORCED_GUESS_REQUEST = ("No more questions. Reply with exactly one line: FINAL_GUESS: <one candidate affordance "
                        "from the list>.")


def rules_section(rules: Mapping[str, Sequence[RuleMatch]], candidates: Sequence[str]) -> str:
    """The verbalised matched rules appended to the system prompt ('' when no candidate has a rule)."""
    lines = []
    for cand in candidates:
        for match in rules.get(cand, ()):
            lines.append(f"- {cand}: {verbalise(match.rule)}")
    if not lines:
        return ""
    return ("\nPhysical conditions that enable some candidates (from KB-anchored rules; any one part of the "
            "object may satisfy a condition):\n" + "\n".join(lines) + "\n")


def system_prompt(setup_candidates: Sequence[str], descriptions: Mapping[str, str], budget: int,
                  rules: Mapping[str, Sequence[RuleMatch]]) -> str:
    """The Questioner's full system prompt for one game."""
    listing = "\n".join(f"- {c}" + (f": {descriptions[c]}" if descriptions.get(c) else "") for c in setup_candidates)
    return load_prompt("questioner").render(candidates=listing, budget=budget,
                                            rules=rules_section(rules, setup_candidates))


def parse_reply(text: str) -> Action:
    """``FINAL_GUESS: x`` -> :class:`Guess`; otherwise the question it asks."""
    final = _FINAL.search(text or "")
    if final:
        return Guess(final.group(1).strip().splitlines()[0].strip(), raw=text)
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    question = next((ln for ln in lines if "?" in ln), lines[0] if lines else "")
    return Ask(question[:MAX_QUESTION_CHARS])


def feedback(turn: Turn, turns_left: int) -> str:
    """The user message that reports a turn's outcome to the model."""
    if turn.answer is not None:
        head = "Yes." if turn.answer else "No."
    else:
        why = turn.check.flag and f"it asks about {turn.check.flag.lower()}" or turn.check.reason or "not allowed"
        head = f"Rejected ({why}). Ask about exactly one physical property."
    return f"{head} {turns_left} questions left."


class LLMQuestioner(Questioner):
    sees_rules = True
    name = Player.LLM

    def __init__(self, client: ChatClient, max_tokens: int = DEFAULT_MAX_TOKENS, temperature: float = 0.0,
                 seed: int | None = None) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.run_seed: int | None = None

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> LLMQuestioner:
        if options.client is None:
            raise KariError("the llm questioner needs an LLM endpoint (--model / --base-url)", code="game-config")
        return cls(options.client, options.max_tokens, options.llm_temperature, options.llm_seed)

    def start(self, setup: GameSetup) -> None:
        super().start(setup)
        self.system = system_prompt(setup.candidates, setup.descriptions, setup.budget, setup.rules)
        self.run_seed = sampling_seed(self.seed, setup.run)

    def _messages(self, state: GameState) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system},
                    {"role": "user", "content": "Ask your first question."}]
        for turn in state.turns:
            left = state.setup.budget - turn.index
            messages += [{"role": "assistant", "content": turn.question},
                         {"role": "user", "content": feedback(turn, left)}]
        return messages

    def _call(self, messages: list[dict[str, str]]) -> str:
        return self.client.chat(messages, max_tokens=self.max_tokens, temperature=self.temperature, role="questioner",
                                seed=self.run_seed).text

    def act(self, state: GameState) -> Action:
        return parse_reply(self._call(self._messages(state)))

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        messages = self._messages(state)
        messages.append({"role": "user", "content": FORCED_GUESS_REQUEST})
        text = self._call(messages)
        action = parse_reply(text)
        if isinstance(action, Guess):
            return action
        first = text.strip().splitlines()[0] if text.strip() else None
        return Guess(first, raw=text)
