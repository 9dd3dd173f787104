"""The pieces of the LLM solver's prompts, shared by its three modes (:mod:`kari.creativity.llm_solver`,
:mod:`kari.creativity.interactive`) and the answer instructions (:mod:`kari.creativity.instructions`): the modes,
the prompt files of ``prompts/``, the blocks a prompt is made of (entities, items, the matched rule) and the reading
of a reply's answer object."""

from __future__ import annotations

import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kari.core.creativity_names import DEFAULT_MAX_TOKENS, DEFAULT_TURNS, Mode
from kari.creativity.model import GOLD_MARK, Task
from kari.creativity.scene import Candidate, check_strict
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError, choice
from kari.llm import Prompt, extract_json_object, load_prompt
from kari.rules import verbalise
from kari.rules.ast import Rule

PROMPTS = Path(__file__).with_name("prompts")


ANSWER_FIELDS = ("gold_entity", "gold_part", "how_to_use")
REPLY_KEPT = 4000
"""Characters of a reply kept in the answer record (its end, where the answer object is)."""


def check_sampling(solver: str, mode: str, temperatures: Sequence[float]) -> None:
    """Refuse a mode or sampling setting the solver cannot use (a ``creativity-config`` error)."""
    choice(mode, Mode, "mode", code="creativity-config")
    if not temperatures or len(set(temperatures)) != len(temperatures) or \
            not all(0.0 <= t <= 2.0 for t in temperatures):
        raise KariError("--temperature takes distinct values from 0 to 2", code="creativity-config")
    if solver == "symbolic" and (mode != Mode.STATIC or list(temperatures) != [0.0]):
        raise KariError("the symbolic solver is deterministic and has no prompt: --mode and --temperature are for "
                        "the llm and llm+rules solvers", code="creativity-config")


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


def interactable_items(task: Task) -> list[dict[str, Any]]:
    """The task's items marked ``interactable: Yes`` (the others are scenery)."""
    return [dict(it) for it in task.items if str(it.get("interactable", "")).strip().lower() == "yes"]


def items_block(task: Task) -> str:
    usable = interactable_items(task)
    if not usable:
        return ""
    return "\nOTHER THINGS IN THE SCENE:\n" + "\n".join(f"  - {it.get('name', '')}: {it.get('description', '')}"
                                                       for it in usable) + "\n"


def rules_block(rule: Rule | None, candidates: Sequence[Candidate], vocab: Vocabulary,
                similarity: float | None = None, threshold: float | None = None) -> str:
    """The matched rule, verbalised, and the scene's parts that satisfy it ('' without a rule). A rule matched
    below the threshold (``similarity < threshold``) is marked as a weak match in the prompt itself."""
    if rule is None:
        return ""
    satisfied = [f"{c.entity} / {c.part}" for c in candidates if check_strict(c, rule, vocab)]
    found = "; ".join(satisfied) if satisfied else "none of the parts in the scene (by their listed attributes)"
    weak = similarity is not None and threshold is not None and similarity < threshold
    label = (f"a WEAK match: the nearest KARI rule, similarity {similarity:.2f} to the request, below the "
             f"{threshold:g} threshold; it may not be about this goal" if weak else "a KARI rule from KB evidence")
    return (f"\nPHYSICAL CONDITION ({label}) for '{rule.affordance.replace('_', ' ')}': "
            f"{verbalise(rule)}\nParts that meet it: {found}\n")


def load_mode_prompt(name: str) -> Prompt:
    return load_prompt(name, PROMPTS)


def system_prompt(prompt: Prompt, **values: Any) -> str:
    """The ``system:`` header line of a prompt file, its ``$name`` fields filled."""
    text = prompt.meta.get("system", "")
    if not text:
        raise KariError(f"prompt {prompt.name!r} has no 'system:' header line", file=prompt.path, code="llm-prompt")
    return string.Template(text).substitute({k: str(v) for k, v in values.items()})


def build_prompt(task: Task, rules_text: str = "", mode: str = "static") -> str:
    """The user message of the static or cot mode."""
    return load_mode_prompt(f"creativity_{mode}").render(
        task=task.task, environment=task.environment or "(not described)", entities=entity_block(task),
        items=items_block(task), rules=rules_text)


def reasoning_before(text: str) -> str:
    """The reply's prose before its first JSON object."""
    start = text.find("{")
    return (text if start < 0 else text[:start]).strip()


def parse_answer(text: str) -> tuple[dict[str, Any], str | None]:
    """The answer fields of a reply (plus its ``reasoning`` object when it has one), and why none could be read
    (None when they could)."""
    try:
        data = extract_json_object(text)
    except KariError as exc:
        return {}, exc.message
    fields = {k: data.get(k) for k in ANSWER_FIELDS}
    if not all(isinstance(v, str) for v in fields.values()):
        return {}, "the answer object lacks gold_entity, gold_part or how_to_use as text"
    out: dict[str, Any] = {k: str(v) for k, v in fields.items()}
    if "reasoning" in data:
        out["reasoning"] = data["reasoning"]
    return out, None


KARI_WORDING = "kari"
"""Whose wording a prompt is: ``kari`` (kari's own prompt files, not the benchmark's text) or ``benchmark`` (built
by the benchmark's own code from a checkout, :mod:`kari.creativity.upstream`)."""


def prompt_id(prompt: Any) -> dict[str, Any]:
    """Which wording a record used (kari's own prompt file: its name, version and hash)."""
    return {"name": prompt.name, "version": prompt.version, "sha256": prompt.sha256[:16], "wording": KARI_WORDING}
