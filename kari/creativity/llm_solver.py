"""The LLM solver: CreativityBench's three protocols through kari's LLM client, optionally with KARI rules.

Modes (``--mode``), each with its system prompt and a versioned prompt file in ``prompts/`` (kari's own wording,
structured as the benchmark's):

- ``static`` (``creativity_static.md``): the request, the scene, every entity part by part (the gold mark
  removed) and the interactable items, then "reason, then one JSON object with gold_entity, gold_part,
  how_to_use";
- ``cot`` (``creativity_cot.md``): the same input and a fixed reasoning procedure; the reply is one JSON object
  holding a structured ``reasoning`` and the three answer fields;
- ``interactive`` (``creativity_interactive.md``, :mod:`kari.creativity.interactive`): the model sees only the
  names of the things in the scene and inspects one per turn, within a turn budget, before it answers.

The ``llm+rules`` solver appends the matched KARI rule of the goal's affordance, verbalised, and the parts of the
scene that satisfy it under the strict PART reading: the Affordance20Q idea of rules in the prompt, carried to
tool choice. A reply without a readable answer object is an empty answer (scored wrong), the reason recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kari.core.creativity_names import DEFAULT_MAX_TOKENS, DEFAULT_TURNS, MODES
from kari.creativity.interactive import explore
from kari.creativity.model import Task
from kari.creativity.prompting import (REPLY_KEPT, build_prompt, load_mode_prompt, parse_answer, prompt_id,
                                       reasoning_before, rules_block, system_prompt)
from kari.creativity.scene import Candidate
from kari.creativity.symbolic import Answer
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.rules.ast import Rule


class LLMSolver:
    """Answers a task in one of :data:`MODES`; ``with_rules`` adds the goal's matched rule to the prompt."""

    def __init__(self, client: Any, vocab: Vocabulary, rules: Sequence[Rule] = (), *, with_rules: bool = False,
                 mode: str = "static", max_tokens: int = DEFAULT_MAX_TOKENS, max_turns: int = DEFAULT_TURNS,
                 seed: int = 0) -> None:
        if with_rules and not rules:
            raise KariError("the llm+rules solver needs a rules file (--rules FILE)", code="creativity-config")
        if mode not in MODES:
            raise KariError(f"unknown mode {mode!r} (expected one of {', '.join(MODES)})", code="creativity-config")
        self.client = client
        self.vocab = vocab
        self.rules = {r.affordance: r for r in rules}
        self.with_rules = with_rules
        self.mode = mode
        self.max_tokens = max_tokens
        self.max_turns = max_turns
        self.seed = seed
        self.name = "llm+rules" if with_rules else "llm"
        self.prompt = load_mode_prompt(f"creativity_{mode}")

    def rules_text(self, candidates: Sequence[Candidate], affordance: str | None) -> str:
        rule = self.rules.get(affordance) if (self.with_rules and affordance) else None
        return rules_block(rule, candidates, self.vocab)

    def answer(self, task: Task, candidates: Sequence[Candidate], affordance: str | None,
               temperature: float = 0.0) -> Answer:
        rules_text = self.rules_text(candidates, affordance)
        if self.mode == "interactive":
            return explore(self, task, rules_text, affordance, temperature)
        messages = [{"role": "system", "content": system_prompt(self.prompt)},
                    {"role": "user", "content": build_prompt(task, rules_text, self.mode)}]
        reply = self.client.chat(messages, max_tokens=self.max_tokens, temperature=temperature,
                                 role=f"creativity-{self.mode}")
        fields, problem = parse_answer(reply.text)
        reasoning = fields.get("reasoning") if self.mode == "cot" else None
        extra: dict[str, Any] = {"reply": reply.text[-REPLY_KEPT:], "rules_in_prompt": bool(rules_text),
                                 "reasoning": reasoning if reasoning is not None else reasoning_before(reply.text),
                                 "prompt": prompt_id(self.prompt), "finish_reason": reply.finish_reason}
        if problem:
            extra["reason"] = problem
        return Answer(fields.get("gold_entity", ""), fields.get("gold_part", ""), fields.get("how_to_use", ""),
                      affordance, "llm", None, extra)
