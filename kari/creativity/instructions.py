"""The symbolic solver's ``how_to_use``: instructions built from what the solver knows of the chosen part.

The text is assembled, clause by clause, from facts only (nothing is said that the KB, the task or the proof does
not give):

1. how to get at the part, from its state words (visibility, availability: "partially blocked" -> free it by hand,
   hidden or blocked -> uncover it first);
2. why it fits: each rule atom the proof satisfies, with the attribute and the words it was read from;
3. the conditions of the part's own KB affordance that names the goal, when the KB has one (use, environment and
   recipient conditions, the failure case);
4. what to apply it to: the task's interactable items that the request names;
5. a warning from the state when the part is not safe (hot, sharp edges, electrical hazard).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kari.creativity.goals import content_words
from kari.creativity.model import PartAffordance, Task, normalise_na
from kari.creativity.prompting import interactable_items
from kari.creativity.scene import Candidate

_HAZARD_WORDS = ("hot", "sharp", "electric", "live wire", "burning")
_ACCESS_WORDS = ("visible", "hidden", "blocked", "free", "accessible", "reach", "covered", "exposed")


def _words(text: str) -> set[str]:
    return set(content_words(text))


def access(candidate: Candidate) -> str:
    """How to get at the part, from its state words ('' when the state says nothing)."""
    state = candidate.state_texts
    said = [state[k] for k in ("visibility", "availability") if not normalise_na(state.get(k, ""))]
    first = state.get("summary", "").split(";")[0]
    if not said and any(w in first.lower() for w in _ACCESS_WORDS):
        said = [first]
    text = ", ".join(s.strip().rstrip(".") for s in said if s.strip())
    if candidate.state.accessible is False:
        return f"It is {text or 'not freely reachable'}: uncover or detach it first."
    if "partially" in text.lower():
        return f"It is {text}: free it by hand before use."
    return f"It is {text}." if text else ""


def grounds(support: Sequence[Mapping[str, Any]], rule_name: str, branch_text: str) -> str:
    """Why the part fits: the proof's atoms, each with the attribute words that make it true."""
    named = [(f"it is described as '{s['raw']}'" if s["attribute"] in ("description", "summary") else
              f"its {s['attribute'].replace('_', ' ')} '{s['raw']}'") + f" ({s['atom']})" for s in support
             if s.get("raw") and s.get("attribute")]
    if not named:
        return ""
    return (f"It fits because {', '.join(dict.fromkeys(named))}, which the rule for "
            f"{rule_name.replace('_', ' ')} asks for ({branch_text}).")


def kb_use(candidate: Candidate, goal_words: set[str]) -> PartAffordance | None:
    """The part's KB affordance that shares the most words with the goal (most typical first), if any does."""
    best, best_key = None, (0, 0)
    for aff in candidate.affordances:
        overlap = len(goal_words & _words(aff.action))
        key = (overlap, aff.typicality)
        if overlap and key > best_key:
            best, best_key = aff, key
    return best


def conditions(aff: PartAffordance) -> str:
    """The KB affordance's non-NA conditions as one sentence."""
    said = [(label, text) for label, text in (("before use", aff.use_condition),
                                              ("it needs", aff.environment_condition),
                                              ("it works on", aff.recipient_condition),
                                              ("it fails when", aff.failure_case)) if not normalise_na(text)]
    if not said:
        return ""
    level = "normal use" if aff.kind == "normal" else f"emergency use (level {aff.level})"
    return (f"As the KB's {level} '{aff.action}' says: " + "; ".join(f"{label}: {text.strip().rstrip('.')}"
                                                                    for label, text in said) + ".")


def recipients(task: Task) -> list[str]:
    """The interactable items whose names the request mentions."""
    asked = _words(task.task)
    return [str(it.get("name", "")) for it in interactable_items(task)
            if _words(str(it.get("name", ""))) & asked]


def warning(candidate: Candidate) -> str:
    """A warning from the state when it says the part is not safe ('' otherwise)."""
    if candidate.state.safe is not False:
        return ""
    texts = [t for t in candidate.state_texts.values() if any(w in t.lower() for w in _HAZARD_WORDS)]
    return f"Take care: {texts[0].strip().rstrip('.')}." if texts else "Take care: its state says it is not safe."


def how_to_use(candidate: Candidate, task: Task, affordance: str, proof: Mapping[str, Any] | None) -> str:
    """The instructions for using ``candidate`` for ``task`` (see the module docstring)."""
    part, entity = candidate.part.replace("_", " "), candidate.entity
    targets = recipients(task)
    opening = f"Use the {part} of the {entity}" + (f" on the {' and the '.join(targets)}" if targets else "")
    opening += f" to {affordance.replace('_', ' ')}."
    fit = grounds(proof["attributes"], proof["rule"], proof["branch_text"]) if proof else ""
    if not fit and candidate.physical_texts.get("summary"):
        fit = f"What the scene says of it: {candidate.physical_texts['summary'].strip().rstrip('.')}."
    use = kb_use(candidate, _words(task.task) | _words(affordance.replace("_", " ")))
    clauses = [opening, access(candidate), fit, conditions(use) if use else "", warning(candidate)]
    return " ".join(c for c in clauses if c)
