"""A task's scene as candidates: every (entity, part) the task scores, with the part's atoms and state.

A scene offers every part the task names for an entity (its description's parts, then any ``judge_output`` key the
description lacks) and, when the part-level KB (``kari creativity load``) holds the entity, the KB's other parts of
it too. A part's facts come from the KB when it holds the part, else from the task's own description of the part
(``"part: physical — ...; state — ..."``), read by the same lexicon.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from kari.core.benchmark import ObjectRecord, Property
from kari.creativity.attributes import AtomReading, PartState, part_object, part_state, read_attributes
from kari.creativity.model import PartAffordance, Task
from kari.creativity.store import KBPart
from kari.domain.objects import evaluate_rule, object_view
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import Rule


@dataclass(frozen=True, slots=True)
class Candidate:
    """One (entity, part) of a scene and what kari knows of it; ``source`` is ``kb`` or ``description``."""

    entity: str
    part: str
    readings: tuple[AtomReading, ...]
    state: PartState
    affordances: tuple[PartAffordance, ...]
    source: str
    order: int
    state_texts: Mapping[str, str] = field(default_factory=dict)
    physical_texts: Mapping[str, str] = field(default_factory=dict)

    @property
    def object(self) -> ObjectRecord:
        return part_object(self.entity, self.part, self.readings)


def tie_break(task_id: str, entity: str, part: str, seed: int = 0) -> int:
    """A seeded rank in [0, 1000) that does not depend on where the task lists the entity."""
    digest = hashlib.sha256(f"{seed}\x1f{task_id}\x1f{entity}\x1f{part}".encode()).hexdigest()
    return int(digest[:8], 16) % 1000


def scene(task: Task, vocab: Vocabulary, kb: Mapping[tuple[str, str], KBPart] | None = None,
          seed: int = 0) -> list[Candidate]:
    """The candidates of ``task`` in the task's order (an entity's KB-only parts after its listed ones)."""
    out = []
    for entity in task.entities:
        texts = entity.part_texts()
        extra = [p for (e, p) in (kb or {}) if e == entity.name and p not in entity.parts]
        for part in (*entity.parts, *extra):
            known = kb.get((entity.name, part)) if kb else None
            order = tie_break(task.id, entity.name, part, seed)
            if known is not None:
                out.append(Candidate(entity.name, part, known.readings, known.state, known.affordances, "kb", order,
                                     known.state_texts, known.physical_texts))
                continue
            physical, state = texts.get(part, ("", ""))
            readings = read_attributes({"description": physical, "moisture": state}, vocab,
                                       f"{task.source} ({entity.name})")
            out.append(Candidate(entity.name, part, tuple(readings), part_state({"summary": state}), (),
                                 "description", order, {"summary": state} if state else {},
                                 {"summary": physical} if physical else {}))
    return out


def entity_object(entity: str, candidates: list[Candidate]) -> ObjectRecord:
    """The entity as a whole: its candidate parts, each with its own facts."""
    props = tuple(Property(c.part, r.predicate, r.value) for c in candidates for r in c.readings)
    return ObjectRecord(entity, parts=tuple(c.part for c in candidates), properties=tuple(dict.fromkeys(props)))


def check_strict(candidate: Candidate, rule: Rule, vocab: Vocabulary) -> bool:
    """The domain core's strict reading of ``rule`` on the part alone (the ASP query must agree)."""
    return evaluate_rule(rule, object_view(candidate.object, vocab), "strict")[0]
