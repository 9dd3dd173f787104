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
tool choice. A rule matched below the goal threshold (a ``--goal rules`` fallback) is marked in the prompt as a
weak match, and the answer records what was sent (``rule_in_prompt``: the rule, its similarity, whether it was
below the threshold). A reply without a readable answer object is an empty answer (scored wrong), the reason
recorded.

These prompts are kari's own wording. With a checkout of the benchmark's repository (``code``, a
:class:`~kari.creativity.upstream.BenchmarkCode`) every request is built by the checkout's own functions instead,
and the answer records ``wording: benchmark``; ``llm+rules`` has no place for a rule in the benchmark's prompts and
is refused with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kari.core.creativity_names import DEFAULT_MAX_TOKENS, DEFAULT_TURNS, Mode
from kari.creativity.interactive import explore
from kari.creativity.goals import GoalMatch
from kari.creativity.model import Task
from kari.creativity.prompting import (REPLY_KEPT, build_prompt, load_mode_prompt, parse_answer, prompt_id,
                                       reasoning_before, rules_block, system_prompt)
from kari.creativity.scene import Candidate
from kari.creativity.symbolic import Answer
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError, choice
from kari.rules.ast import Rule

if TYPE_CHECKING:
    from kari.llm.client import ChatClient


class LLMSolver:
    """Answers a task in one of :data:`MODES`; ``with_rules`` adds the goal's matched rule to the prompt."""

    def __init__(self, client: ChatClient, vocab: Vocabulary, rules: Sequence[Rule] = (), *, with_rules: bool = False,
                 mode: str = "static", max_tokens: int = DEFAULT_MAX_TOKENS, max_turns: int = DEFAULT_TURNS,
                 seed: int = 0, threshold: float | None = None, code: Any = None) -> None:
        if with_rules and not rules:
            raise KariError("the llm+rules solver needs a rules file (--rules FILE)", code="creativity-config")
        if with_rules and code is not None:
            raise KariError("--benchmark-repo sends the benchmark's own requests, which have no place for a rule: use "
                            "--solver llm with it (llm+rules adds rules to kari's own prompts)",
                            code="creativity-config")
        choice(mode, Mode, "mode", code="creativity-config")
        self.client = client
        self.vocab = vocab
        self.rules = {r.affordance: r for r in rules}
        self.with_rules = with_rules
        self.mode = mode
        self.max_tokens = max_tokens
        self.max_turns = max_turns
        self.seed = seed
        self.name = "llm+rules" if with_rules else "llm"
        self.threshold = threshold
        self.code = code
        self.prompt = load_mode_prompt(f"creativity_{mode}")

    def rules_text(self, candidates: Sequence[Candidate], affordance: str | None,
                   goal: GoalMatch | None = None) -> str:
        rule = self.rules.get(affordance) if (self.with_rules and affordance) else None
        similarity = goal.score if goal is not None and goal.fallback is not None else None
        return rules_block(rule, candidates, self.vocab, similarity, self.threshold)

    def sent_rule(self, affordance: str | None, goal: GoalMatch | None) -> dict[str, Any] | None:
        """What the prompt said of the rule: its affordance, the similarity of the match and whether it was below
        the threshold (None when no rule was sent)."""
        if not self.with_rules or not affordance or affordance not in self.rules:
            return None
        similarity = goal.score if goal is not None and goal.fallback is not None else None
        below = similarity is not None and self.threshold is not None and similarity < self.threshold
        return {"rule": affordance, "similarity": similarity, "below_threshold": below}

    def answer(self, task: Task, candidates: Sequence[Candidate], affordance: str | None,
               temperature: float = 0.0, goal: GoalMatch | None = None, sample: int = 0) -> Answer:
        if self.code is not None:
            return self.benchmark_answer(task, affordance, temperature, sample)
        rules_text = self.rules_text(candidates, affordance, goal)
        sent = {"rule_in_prompt": self.sent_rule(affordance, goal)} if self.with_rules else {}
        if self.mode == "interactive":
            answer = explore(self, task, rules_text, affordance, temperature)
            return Answer(answer.entity, answer.part, answer.how_to_use, answer.affordance, answer.reading,
                          answer.proof, {**answer.extra, **sent})
        messages = [{"role": "system", "content": system_prompt(self.prompt)},
                    {"role": "user", "content": build_prompt(task, rules_text, self.mode)}]
        reply = self.client.chat(messages, max_tokens=self.max_tokens, temperature=temperature,
                                 role=f"creativity-{self.mode}")
        fields, problem = parse_answer(reply.text)
        reasoning = fields.get("reasoning") if self.mode == "cot" else None
        extra: dict[str, Any] = {"reply": reply.text[-REPLY_KEPT:], "rules_in_prompt": bool(rules_text),
                                 "reasoning": reasoning if reasoning is not None else reasoning_before(reply.text),
                                 "prompt": prompt_id(self.prompt), "finish_reason": reply.finish_reason, **sent}
        if problem:
            extra["reason"] = problem
        return Answer(fields.get("gold_entity", ""), fields.get("gold_part", ""), fields.get("how_to_use", ""),
                      affordance, "llm", None, extra)

    def benchmark_answer(self, task: Task, affordance: str | None, temperature: float, sample: int) -> Answer:
        """The answer the checkout's own code gives (its request, its reading of the reply), as an answer record."""
        result = self.code.solve(task.raw, self.mode, temperature, f"kari:{self.seed}:{task.id}:{sample}")
        answer = result.get("answer", result) if self.mode == "interactive" else result
        fields = {k: str(answer.get(k) or "") if isinstance(answer, dict) else ""
                  for k in ("gold_entity", "gold_part", "how_to_use")}
        reply = self.code.last_reply()
        extra: dict[str, Any] = {"reasoning": answer.get("reasoning") if isinstance(answer, dict) else None,
                                 "prompt": {"name": f"benchmark {self.mode}", "wording": "benchmark",
                                            "commit": self.code.record["commit"]},
                                 "rules_in_prompt": False}
        if reply is not None:
            extra.update(reply=reply.text[-REPLY_KEPT:], finish_reason=reply.finish_reason)
        if self.mode == "interactive":
            log = result.get("conversation_log") or []
            extra["turns"] = result.get("turns", len(log))
            extra["conversation"] = [{"turn": e.get("round"), "reasoning": e.get("model_reasoning", ""),
                                      "action": e.get("model_action"),
                                      **({"feedback": e["feedback"]} if e.get("feedback") else {}),
                                      **({"note": e["note"]} if e.get("note") else {})}
                                     for e in log if isinstance(e, dict)]
        if not any(fields.values()):
            extra["reason"] = "the checkout's code read no answer from the reply"
        return Answer(fields["gold_entity"], fields["gold_part"], fields["how_to_use"], affordance, "llm", None, extra)
