"""The LLM solver: CreativityBench's static protocol through kari's LLM client, optionally with KARI rules.

The prompt (``prompts/creativity_static.md``, kari's own wording of the benchmark's static setting) shows the
request, the scene, every entity part by part (the gold mark removed) and the interactable items, and asks for
reasoning followed by one JSON object ``{"gold_entity", "gold_part", "how_to_use"}``. The ``llm+rules`` mode
appends the matched KARI rule of the goal's affordance, verbalised, and the parts of the scene that satisfy it
under the strict PART reading: the Affordance20Q idea of rules in the prompt, carried to tool choice.

A reply without a readable answer object is an empty answer (scored wrong), with the reason recorded.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kari.creativity.model import GOLD_MARK, Task
from kari.creativity.scene import Candidate
from kari.creativity.symbolic import Answer, check_strict
from kari.domain.vocabulary import Vocabulary
from kari.errors import KariError
from kari.rules.ast import Rule

PROMPTS = Path(__file__).with_name("prompts")


def entity_block(task: Task) -> str:
    lines = []
    for entity in task.entities:
        lines.append(f"[{entity.name}]")
        texts = entity.part_texts()
        for part in entity.parts:
            physical, state = texts.get(part, ("", ""))
            body = "; ".join(x for x in (f"physical: {physical}" if physical else "",
                                          f"state: {state}" if state else "") if x)
            lines.append(f"  - {part}: {GOLD_MARK.sub('', body)}" if body else f"  - {part}")
    return "\n".join(lines)


def items_block(task: Task) -> str:
    usable = [it for it in task.items if str(it.get("interactable", "")).lower() == "yes"]
    if not usable:
        return ""
    return "\nOTHER THINGS IN THE SCENE:\n" + "\n".join(f"  - {it.get('name', '')}: {it.get('description', '')}"
                                                       for it in usable) + "\n"


def rules_block(rule: Rule | None, candidates: Sequence[Candidate], vocab: Vocabulary) -> str:
    """The matched rule, verbalised, and the scene's parts that satisfy it ('' without a rule)."""
    from kari.rules import verbalise

    if rule is None:
        return ""
    satisfied = [f"{c.entity} / {c.part}" for c in candidates if check_strict(c, rule, vocab)]
    found = "; ".join(satisfied) if satisfied else "none of the parts above (by their listed attributes)"
    return (f"\nPHYSICAL CONDITION (a KARI rule from KB evidence) for '{rule.affordance.replace('_', ' ')}': "
            f"{verbalise(rule)}\nParts that meet it: {found}\n")


def build_prompt(task: Task, rules_text: str = "") -> str:
    from kari.llm import load_prompt

    return load_prompt("creativity_static", PROMPTS).render(
        task=task.task, environment=task.environment or "(not described)", entities=entity_block(task),
        items=items_block(task), rules=rules_text)


def parse_answer(text: str) -> tuple[dict[str, str], str | None]:
    """The answer fields of a reply, and why none could be read (None when they could)."""
    from kari.llm import extract_json_object

    try:
        data = extract_json_object(text)
    except KariError as exc:
        return {}, exc.message
    fields = {k: data.get(k) for k in ("gold_entity", "gold_part", "how_to_use")}
    if not all(isinstance(v, str) for v in fields.values()):
        return {}, "the answer object lacks gold_entity, gold_part or how_to_use as text"
    return {k: str(v) for k, v in fields.items()}, None


class LLMSolver:
    """Answers a task with one chat call; ``with_rules`` adds the goal's matched rule to the prompt."""

    def __init__(self, client: Any, vocab: Vocabulary, rules: Sequence[Rule] = (), *, with_rules: bool = False,
                 max_tokens: int = 512) -> None:
        if with_rules and not rules:
            raise KariError("the llm+rules solver needs a rules file (--rules FILE)", code="creativity-config")
        self.client = client
        self.vocab = vocab
        self.rules = {r.affordance: r for r in rules}
        self.with_rules = with_rules
        self.max_tokens = max_tokens
        self.name = "llm+rules" if with_rules else "llm"

    def prompt(self, task: Task, candidates: Sequence[Candidate], affordance: str | None) -> str:
        rule = self.rules.get(affordance) if (self.with_rules and affordance) else None
        return build_prompt(task, rules_block(rule, candidates, self.vocab))

    def answer(self, task: Task, candidates: Sequence[Candidate], affordance: str | None) -> Answer:
        prompt = self.prompt(task, candidates, affordance)
        reply = self.client.chat([{"role": "user", "content": prompt}], max_tokens=self.max_tokens,
                                 role=self.name)
        fields, problem = parse_answer(reply.text)
        extra: dict[str, Any] = {"reply": reply.text[-4000:], "rules_in_prompt": "PHYSICAL CONDITION" in prompt}
        if problem:
            extra["reason"] = problem
        return Answer(fields.get("gold_entity", ""), fields.get("gold_part", ""), fields.get("how_to_use", ""),
                      affordance, "llm", None, extra)
