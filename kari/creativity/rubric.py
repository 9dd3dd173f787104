"""CreativityBench's how-to-use rubric: its six fields, the reading of a judge's reply, and kari's symbolic scorer.

Fields (each with a ``*_reason``): ``environment_condition_covered``, ``use_condition_covered``,
``recipient_condition_covered`` (0 / 1 / 2 / ``"NA"``), ``attributes_grounding``, ``prediction_correctness``,
``action_feasibility`` (0 / 1 / 2). As the benchmark's judge reads a reply: a condition field outside
0/1/2/NA counts 0, or NA when the gold affordance's condition is NA (then it is NA whatever the reply says); the
three others count 0 outside 0/1/2. ``prediction_correctness`` is asked only of gold answers; a non-gold answer
records 0, as the benchmark's judge does.

The **symbolic scorer** scores what words can show and says plainly what it cannot (``None`` with the reason):

- a condition: the share of the condition's content words the how-to-use names (0 none, 1 under half, 2 at least
  half); the conditions are the gold affordance's for a gold answer and, for another answer, those of the
  benchmark's own annotation of how the predicted part would do the job (the task's ``judge_output``); with no
  such annotation it is not scored;
- attributes grounding: how many enabling attributes the how-to-use names (an attribute is named when at least
  half of its content words occur): 0 none, 1 under half, 2 at least half; for another answer without an
  annotation, the predicted part's own attribute texts (0 none named, 1 one, 2 two or more);
- prediction correctness and action feasibility need a judgement of the procedure: not scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kari.creativity.goals import content_words
from kari.creativity.model import normalise_na

CONDITIONS = ("environment_condition_covered", "use_condition_covered", "recipient_condition_covered")
GRADES = ("attributes_grounding", "prediction_correctness", "action_feasibility")
FIELDS = (*CONDITIONS, *GRADES)
CONDITION_KEYS = {"environment_condition_covered": "environment_condition",
                  "use_condition_covered": "use_condition", "recipient_condition_covered": "recipient_condition"}
NOT_ASKED = "not asked for a non-gold answer (0, as the benchmark's judge records it)"


def forced_na(affordance: Mapping[str, Any]) -> dict[str, bool]:
    """Which condition fields are NA because the gold affordance gives that condition as NA."""
    return {f: normalise_na(str(affordance.get(key, ""))) for f, key in CONDITION_KEYS.items()}


def normalise(reply: Mapping[str, Any], na: Mapping[str, bool], gold: bool) -> tuple[dict[str, Any],
                                                                                        dict[str, str], list[str]]:
    """``(scores, reasons, invalid fields)`` of a judge's reply object, read as the benchmark reads it."""
    scores: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    invalid = []
    for name in FIELDS:
        value, reason = reply.get(name, ""), str(reply.get(f"{name}_reason", "") or "")
        allowed = ("0", "1", "2", "NA") if name in CONDITIONS else ("0", "1", "2")
        if name == "prediction_correctness" and not gold:
            scores[name], reasons[name] = 0, NOT_ASKED
            continue
        if na.get(name):
            scores[name], reasons[name] = "NA", "NA: the gold affordance gives this condition as NA"
            continue
        if str(value) not in allowed:
            invalid.append(name)
            value = 0
        scores[name] = "NA" if str(value) == "NA" else int(str(value))
        reasons[name] = reason
    return scores, reasons, invalid


def _words(text: str) -> list[str]:
    return list(dict.fromkeys(content_words(text)))


def coverage(condition: str, text: str) -> tuple[int, str]:
    """0 / 1 / 2 by the share of the condition's content words ``text`` names, and the reason."""
    need = _words(condition)
    have = set(_words(text))
    named = [w for w in need if w in have]
    share = len(named) / len(need) if need else 0.0
    grade = 0 if not named else 2 if share >= 0.5 else 1
    return grade, f"names {len(named)} of the condition's {len(need)} content words" + \
        (f" ({', '.join(named)})" if named else "")


def statement_named(statement: str, have: set[str]) -> bool:
    """An attribute statement is named when at least half of its content words (its 'key:' label dropped) occur."""
    head = statement.split()[0] if statement.split() else ""
    body = statement.split(":", 1)[1] if ":" in head else statement
    words = _words(body)
    return bool(words) and sum(w in have for w in words) * 2 >= len(words)


def grounding(statements: Sequence[str], text: str) -> tuple[int, str]:
    """0 / 1 / 2 by how many of ``statements`` the how-to-use names, and the reason."""
    have = set(_words(text))
    named = [s for s in statements if statement_named(s, have)]
    grade = 0 if not named else 2 if len(named) * 2 >= len(statements) else 1
    return grade, f"names {len(named)} of {len(statements)} enabling attributes" + \
        (f": {'; '.join(named)}" if named else "")


def part_grounding(texts: Mapping[str, str], text: str) -> tuple[int, str]:
    """0 / 1 / 2 by how many of the part's own attribute texts the how-to-use names (0, 1, 2 or more)."""
    have = set(_words(text))
    named = [f"{k}: {v}" for k, v in texts.items() if k != "summary" and not normalise_na(v)
             and statement_named(f"{k}: {v}", have)]
    return min(2, len(named)), f"names {len(named)} of the part's attributes" + \
        (f": {'; '.join(named)}" if named else "")


def symbolic(how_to_use: str, gold: bool, reference: Mapping[str, Any] | None,
             part_texts: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The symbolic scores and reasons (module docstring); ``reference`` is the gold affordance for a gold answer,
    else the benchmark's annotation of the predicted part's use (None when there is none)."""
    scores: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    for name, key in CONDITION_KEYS.items():
        if reference is None:
            scores[name], reasons[name] = None, "not scored: no annotation of how this part would do the job"
        elif normalise_na(str(reference.get(key, ""))):
            scores[name], reasons[name] = "NA", f"NA: the reference gives {key} as NA"
        else:
            scores[name], reasons[name] = coverage(str(reference[key]), how_to_use)
    statements = [a[0] if isinstance(a, list) and a else str(a) for a in (reference or {}).get("attribute", [])
                  if a] if isinstance((reference or {}).get("attribute"), list) else []
    if statements:
        scores["attributes_grounding"], reasons["attributes_grounding"] = grounding(statements, how_to_use)
    elif part_texts:
        scores["attributes_grounding"], reasons["attributes_grounding"] = part_grounding(part_texts, how_to_use)
    else:
        scores["attributes_grounding"] = None
        reasons["attributes_grounding"] = "not scored: no enabling attributes or part attributes known"
    if gold:
        scores["prediction_correctness"] = None
        reasons["prediction_correctness"] = "not scored symbolically: comparing the procedure with the reference " \
                                            "solution needs a judge"
    else:
        scores["prediction_correctness"], reasons["prediction_correctness"] = 0, NOT_ASKED
    scores["action_feasibility"] = None
    reasons["action_feasibility"] = "not scored symbolically: whether the action works needs a judge"
    return scores, reasons


def empty_scores() -> tuple[dict[str, Any], dict[str, str]]:
    """What the benchmark's judge records for an answer without a how-to-use: every field 0."""
    return {f: 0 for f in FIELDS}, {f: "no how_to_use to grade (0, as the benchmark's judge records it)"
                                    for f in FIELDS}
