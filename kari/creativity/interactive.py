"""CreativityBench's interactive protocol: the model explores the scene one thing per turn, then answers.

The first message lists the names of the scene's entities and interactable items (in a seeded order, not the task
file's, which lists the gold entity first), with the request and the scene text. Each turn the model writes its
reasoning and ends with one JSON action:

- ``{"action": "explore", "target": NAME}``: the reply is that thing's full description (an entity's part-by-part
  description, the gold mark removed, or an item's description; names match case-insensitively), or a note that
  nothing has that name;
- ``{"action": "answer", "gold_entity", "gold_part", "how_to_use"}``: the session ends with that answer;
- no readable action, or another action: a correction message. Every message back states the turns left.

When the budget runs out the answer is the last readable action's answer fields (empty when that was an
exploration), as in the benchmark. Every turn is recorded: the reply, its reasoning, the action read, the message
sent back and a note (``unreadable``, ``unknown action``, ``not found``).
"""

from __future__ import annotations

import random
import string
from typing import Any

from kari.creativity.model import GOLD_MARK, Task
from kari.creativity.prompting import (ANSWER_FIELDS, REPLY_KEPT, interactable_items, load_mode_prompt, prompt_id,
                                       reasoning_before, system_prompt)
from kari.creativity.symbolic import Answer
from kari.errors import KariError
from kari.llm import extract_json_object

MESSAGES = "creativity_interactive_turn"


def scene_names(task: Task, seed: int) -> list[str]:
    """Entity and interactable item names in a seeded order that does not depend on the task file's order."""
    names = sorted([e.name for e in task.entities] + [str(it.get("name", "")) for it in interactable_items(task)])
    random.Random(f"{seed}\x1f{task.id}").shuffle(names)
    return names


def describe(task: Task, target: str) -> str | None:
    """The description the model gets for ``target``, None when the scene has no such thing."""
    wanted = str(target).strip().lower()
    for entity in task.entities:
        if entity.name.lower() == wanted:
            return GOLD_MARK.sub("", entity.description)
    for item in interactable_items(task):
        if str(item.get("name", "")).lower() == wanted:
            return str(item.get("description", ""))
    return None


def _action(text: str) -> dict[str, Any] | None:
    try:
        data = extract_json_object(text)
    except KariError:
        return None
    return data if "action" in data else None


def explore(solver: Any, task: Task, rules_text: str, affordance: str | None, temperature: float) -> Answer:
    """One interactive session of ``solver`` (an :class:`~kari.creativity.llm_solver.LLMSolver`) on ``task``."""
    turns_prompt = load_mode_prompt(MESSAGES)
    budget = solver.max_turns
    first = solver.prompt.render(task=task.task, environment=task.environment or "(not described)",
                                 things="\n".join(f"  - {n}" for n in scene_names(task, solver.seed)),
                                 rules=rules_text)
    messages = [{"role": "system", "content": system_prompt(solver.prompt, turns=budget)},
                {"role": "user", "content": first}]
    log: list[dict[str, Any]] = []
    last: dict[str, Any] | None = None
    for turn in range(1, budget + 1):
        reply = solver.client.chat(messages, max_tokens=solver.max_tokens, temperature=temperature,
                                   role="creativity-interactive")
        messages.append({"role": "assistant", "content": reply.text})
        action = _action(reply.text)
        entry: dict[str, Any] = {"turn": turn, "reply": reply.text[-REPLY_KEPT:],
                                 "reasoning": reasoning_before(reply.text), "action": action}
        log.append(entry)
        if action is not None:
            last = action
        if action is not None and action.get("action") == "answer":
            return _answer(action, affordance, turn, log, solver, bool(rules_text), None)
        if action is None:
            message, entry["note"] = turns_prompt.meta["unreadable"], "unreadable"
        elif action.get("action") == "explore":
            target = str(action.get("target", ""))
            found = describe(task, target)
            template = turns_prompt.meta["found" if found is not None else "missing"]
            message = _fill(template, target=target, description=found or "")
            entry["found"] = found is not None
            if found is None:
                entry["note"] = "not found"
        else:
            message, entry["note"] = turns_prompt.meta["unknown"], "unknown action"
        left = budget - turn
        status = _fill(turns_prompt.meta["turns_left"], left=left) if left > 1 else turns_prompt.meta["last_turn"]
        feedback = turns_prompt.render(message=message, budget=status)
        entry["feedback"] = feedback
        messages.append({"role": "user", "content": feedback})
    answer = {k: last.get(k, "") for k in ANSWER_FIELDS} if last is not None else {}
    return _answer(answer, affordance, budget, log, solver, bool(rules_text),
                   "the turn budget ran out before a final answer")


def _fill(template: str, **values: Any) -> str:
    return string.Template(template).safe_substitute({k: str(v) for k, v in values.items()})


def _answer(action: dict[str, Any], affordance: str | None, turns: int, log: list[dict[str, Any]], solver: Any,
            with_rules: bool, problem: str | None) -> Answer:
    fields = {k: action.get(k, "") for k in ANSWER_FIELDS}
    if not all(isinstance(v, str) for v in fields.values()):
        fields, problem = {k: "" for k in ANSWER_FIELDS}, "the answer action lacks its fields as text"
    extra: dict[str, Any] = {"turns": turns, "conversation": log, "rules_in_prompt": with_rules,
                             "reasoning": log[-1]["reasoning"] if log else "",
                             "prompt": prompt_id(solver.prompt)}
    if problem:
        extra["reason"] = problem
    return Answer(fields["gold_entity"], fields["gold_part"], fields["how_to_use"], affordance, "llm", None, extra)
