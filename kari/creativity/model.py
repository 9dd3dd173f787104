"""The part-level KB and the tasks of CreativityBench as typed records, parsed from its JSON formats.

KB hierarchy (CreativityBench's assembled entity files): an :class:`Entity` has non-overlapping :class:`Part` s
(with the parts they connect to); each part has free-text physical attributes (shape, size, thickness,
local_features, material, rigidity, durability, elasticity, surface, weight, others, summary), state attributes
(visibility, availability, moisture, temperature, internal, others, summary) and :class:`PartAffordance` s
(action, use / environment / recipient conditions, enabling attributes, typicality ``Normal 0`` or
``Emergency 1-5``).

A :class:`Task` is a first-person scene: several :class:`TaskEntity` s (name, a part-by-part description, the
part names the benchmark scores against), items, the environment text, the goal text and its golds (entity,
part, affordance). Every record keeps the FILE:LINE it came from; a malformed one is a one-line
:class:`~kari.errors.KariError` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.creativity.records import Located, read_records
from kari.errors import KariError

NORMAL_TYPICALITY = 6
"""Typicality score of a part's normal (intended) use; an emergency use of level k scores k (1-5); none 0."""

GOLD_MARK = re.compile(r"\s*\[gold part\]")
_LEVEL = re.compile(r"^\s*(normal|emergency)\s*(\d)?", re.IGNORECASE)
_NAME = r"[A-Za-z0-9_][A-Za-z0-9_'-]*"
# A part segment ends with ".." (a summary ending in "." plus the segment's own "."), or with "." when the next
# segment opens with "name: physical —" (a summary without its full stop).
_PART_SPLIT = re.compile(rf"\.\.\s+(?={_NAME}(?:\s\[gold part\])?:)"
                         rf"|\.\s+(?={_NAME}(?:\s\[gold part\])?:\s*physical —)")
_SEGMENT = re.compile(rf"^\s*({_NAME})(?:\s\[gold part\])?:\s*(.*)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class EnablingAttribute:
    """One enabling attribute of an affordance, as CreativityBench lists it: ``[statement, kind, modality,
    explanation]``. ``kind`` is ``physical`` or ``state`` in the annotated entities (in a task's ``judge_output``
    the second field names the attribute the statement came from instead, kept as written); ``modality`` is
    ``visual`` (an image shows it) or ``text`` (only words do), ``explanation`` says why."""

    statement: str
    kind: str = ""
    modality: str = ""
    explanation: str = ""

    def to_json(self) -> list[str]:
        """The list form, without trailing empty fields."""
        fields = [self.statement, self.kind, self.modality, self.explanation]
        while len(fields) > 1 and not fields[-1]:
            fields.pop()
        return fields


@dataclass(frozen=True, slots=True)
class PartAffordance:
    """One functional affordance of a part; ``typicality`` is 6 for ``Normal 0``, k for ``Emergency k``."""

    action: str
    kind: str = "normal"
    level: int = 0
    level_text: str = ""
    use_condition: str = "NA"
    environment_condition: str = "NA"
    recipient_condition: str = "NA"
    attributes: tuple[EnablingAttribute, ...] = ()
    example_recipient: str = ""
    failure_case: str = ""

    @property
    def typicality(self) -> int:
        return NORMAL_TYPICALITY if self.kind == "normal" else self.level

    def to_json(self) -> dict[str, Any]:
        """CreativityBench's affordance form."""
        return {"use_condition": self.use_condition, "environment_condition": self.environment_condition,
                "attribute": [a.to_json() for a in self.attributes], "affordance": self.action,
                "level": self.level_text or ("Normal 0" if self.kind == "normal" else f"Emergency {self.level}"),
                "recipient_condition": self.recipient_condition, "example_recipient": self.example_recipient,
                "failure_case": self.failure_case}


@dataclass(frozen=True, slots=True)
class Part:
    """One part of an entity with its free-text attributes."""

    name: str
    physical: Mapping[str, str] = field(default_factory=dict)
    state: Mapping[str, str] = field(default_factory=dict)
    affordances: tuple[PartAffordance, ...] = ()
    connected_to: tuple[str, ...] = ()
    connection: str = ""


@dataclass(frozen=True, slots=True)
class Entity:
    """An entity of the KB: a name, its scenario and its parts."""

    name: str
    parts: tuple[Part, ...]
    scenario: str = ""
    source: str = ""

    def part(self, name: str) -> Part | None:
        return next((p for p in self.parts if p.name == name), None)


@dataclass(frozen=True, slots=True)
class Gold:
    """A task's gold answer: the entity, its part and the affordance annotation (a dict, as the file gives it)."""

    entity: str
    part: str
    affordance: Mapping[str, Any] = field(default_factory=dict)

    @property
    def action(self) -> str:
        return str(self.affordance.get("affordance", "") or "")


@dataclass(frozen=True, slots=True)
class TaskEntity:
    """An entity as a task shows it: its description, its parts and the benchmark's comparison of each part.

    ``parts`` are the parts the description lists, in order, then any ``judge_output`` key it does not list;
    ``judge_parts`` are the ``judge_output`` keys alone, the candidates CreativityBench's judge snaps a
    predicted part to. In CreativityBench's files the gold entity's ``judge_output`` compares its *other*
    parts with the gold, so the gold part is among ``parts`` but not among ``judge_parts``.
    """

    name: str
    description: str
    parts: tuple[str, ...]
    judge_output: Mapping[str, Any] = field(default_factory=dict)
    judge_parts: tuple[str, ...] = ()

    def part_texts(self) -> dict[str, tuple[str, str]]:
        """``part -> (physical text, state text)`` read from the description (the gold mark removed)."""
        return description_parts(self.description)


@dataclass(frozen=True, slots=True)
class Task:
    """One tool-choice task in CreativityBench's format."""

    id: str
    task: str
    entities: tuple[TaskEntity, ...]
    golds: tuple[Gold, ...]
    scenario: str = ""
    environment: str = ""
    items: tuple[Mapping[str, Any], ...] = ()
    setting: Mapping[str, Any] = field(default_factory=dict)
    solution: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def gold(self) -> Gold:
        return self.golds[0]

    def entity(self, name: str) -> TaskEntity | None:
        return next((e for e in self.entities if e.name == name), None)


# --------------------------------------------------------------------------------------------- parsing helpers


def _text(rec: Located, data: Mapping[str, Any], key: str, *, required: bool = True, where: str = "") -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise rec.error(f"{where}field {key!r} must be a non-empty string" if required else
                        f"{where}field {key!r} must be a string")
    return value


def _list(rec: Located, data: Mapping[str, Any], key: str, *, where: str = "", required: bool = True) -> list[Any]:
    value = data.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise rec.error(f"{where}field {key!r} must be a list")
    return value


def _mapping(rec: Located, data: Mapping[str, Any], key: str, *, where: str = "") -> dict[str, str]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise rec.error(f"{where}field {key!r} must be an object")
    out = {}
    for k, v in value.items():
        if isinstance(v, list):
            v = ", ".join(str(x) for x in v)
        if v is not None and not isinstance(v, (str, int, float)):
            raise rec.error(f"{where}{key}.{k} must be text")
        out[str(k)] = "" if v is None else str(v)
    return out


def normalise_na(text: str) -> bool:
    """True for an empty or ``NA`` field (CreativityBench's "not applicable")."""
    return str(text).strip().upper() in ("", "NA", "N/A")


def parse_level(text: str) -> tuple[str, int]:
    """``"Normal 0 (...)"`` -> ``("normal", 0)``; ``"Emergency 3 (...)"`` -> ``("emergency", 3)``; else ValueError."""
    match = _LEVEL.match(text or "")
    if not match:
        raise ValueError(f"level must start with 'Normal 0' or 'Emergency 1-5', got {text[:40]!r}")
    kind = match.group(1).lower()
    level = int(match.group(2) or 0)
    if kind == "emergency" and not 1 <= level <= 5:
        raise ValueError(f"an emergency level must be 1-5, got {text[:40]!r}")
    return kind, (0 if kind == "normal" else level)


def parse_affordance(rec: Located, data: Any, where: str) -> PartAffordance:
    """One functional affordance record (``functional_affordances`` item or a gold affordance)."""
    if not isinstance(data, dict):
        raise rec.error(f"{where}an affordance must be an object")
    action = _text(rec, data, "affordance", where=where)
    level_text = _text(rec, data, "level", required=False, where=where)
    kind, level = "normal", 0
    if level_text:
        try:
            kind, level = parse_level(level_text)
        except ValueError as exc:
            raise rec.error(f"{where}{exc}") from None
    attributes = []
    listed = data.get("attribute")
    if isinstance(listed, str):  # "NA" or one statement
        listed = [] if normalise_na(listed) else [listed]
    for item in listed if isinstance(listed, list) else _list(rec, data, "attribute", where=where, required=False):
        if isinstance(item, str):
            attributes.append(EnablingAttribute(item))
        elif isinstance(item, list) and item and len(item) <= 4 and all(isinstance(x, str) for x in item):
            attributes.append(EnablingAttribute(*item))
        else:
            raise rec.error(f"{where}each enabling attribute must be a list of 1-4 strings (statement, kind, "
                            "modality, explanation)")
    examples = data.get("example_recipient", "")
    if isinstance(examples, list):
        examples = "; ".join(str(x) for x in examples)
    return PartAffordance(
        action=action, kind=kind, level=level, level_text=level_text,
        use_condition=_text(rec, data, "use_condition", required=False, where=where) or "NA",
        environment_condition=_text(rec, data, "environment_condition", required=False, where=where) or "NA",
        recipient_condition=_text(rec, data, "recipient_condition", required=False, where=where) or "NA",
        attributes=tuple(attributes), example_recipient=str(examples or ""),
        failure_case=_text(rec, data, "failure_case", required=False, where=where))


def parse_entity(rec: Located) -> Entity:
    """An assembled entity record ``{"entity_name", "scenario", "parts": [...]}``."""
    data = rec.data
    name = _text(rec, data, "entity_name")
    parts = []
    seen: set[str] = set()
    for i, item in enumerate(_list(rec, data, "parts")):
        where = f"entity {name!r} part {i + 1}: "
        if not isinstance(item, dict):
            raise rec.error(f"{where}a part must be an object")
        part_name = _text(rec, item, "part_name", where=where)
        if part_name in seen:
            raise rec.error(f"entity {name!r}: part {part_name!r} appears twice (parts must not overlap)")
        seen.add(part_name)
        where = f"entity {name!r} part {part_name!r}: "
        connected = _list(rec, item, "connected_to", where=where, required=False)
        if not all(isinstance(c, str) for c in connected):
            raise rec.error(f"{where}connected_to must be a list of part names")
        affordances = tuple(parse_affordance(rec, a, f"{where}affordance {k + 1}: ")
                            for k, a in enumerate(_list(rec, item, "functional_affordances", where=where,
                                                        required=False)))
        parts.append(Part(part_name, _mapping(rec, item, "physical_attributes", where=where),
                          _mapping(rec, item, "state_attributes", where=where), affordances, tuple(connected),
                          _text(rec, item, "connection", required=False, where=where)))
    if not parts:
        raise rec.error(f"entity {name!r} has no parts")
    return Entity(name, tuple(parts), _text(rec, data, "scenario", required=False), rec.where)


def description_parts(description: str) -> dict[str, tuple[str, str]]:
    """The parts of a task entity's description ``"p: physical — X; state — Y.. q: ..."`` as
    ``{p: (X, Y)}`` (the gold mark removed); text that is not in that form names no part."""
    out: dict[str, tuple[str, str]] = {}
    for segment in _PART_SPLIT.split(description.strip()):
        match = _SEGMENT.match(segment)
        if not match:
            continue
        name, body = match.group(1), GOLD_MARK.sub("", match.group(2)).strip().rstrip(".")
        physical, _, state = body.partition("; state —")
        out[name] = (physical.removeprefix("physical —").strip(), state.strip())
    return out


def parse_task(rec: Located) -> Task:
    """A task record in CreativityBench's format."""
    data = rec.data
    task_id = _text(rec, data, "task_id")
    where = f"task {task_id!r}: "
    entities = []
    for i, item in enumerate(_list(rec, data, "entities", where=where)):
        ew = f"{where}entity {i + 1}: "
        if not isinstance(item, dict):
            raise rec.error(f"{ew}an entity must be an object")
        name = _text(rec, item, "name", where=ew)
        description = _text(rec, item, "description", required=False, where=ew)
        judge = item.get("judge_output") or {}
        if not isinstance(judge, dict):
            raise rec.error(f"{ew}judge_output must be an object")
        judge_parts = tuple(str(k) for k in judge)
        parts = tuple(dict.fromkeys((*description_parts(description), *judge_parts)))
        entities.append(TaskEntity(name, description, parts, judge, judge_parts))
    if not entities:
        raise rec.error(f"{where}no entities")
    names = [e.name for e in entities]
    if len(set(names)) != len(names):
        raise rec.error(f"{where}two entities share a name")
    golds = []
    for i, item in enumerate(_list(rec, data, "golds", where=where)):
        gw = f"{where}gold {i + 1}: "
        if not isinstance(item, dict):
            raise rec.error(f"{gw}a gold must be an object")
        affordance = item.get("gold_affordance") or {}
        if not isinstance(affordance, dict):
            raise rec.error(f"{gw}gold_affordance must be an object")
        golds.append(Gold(_text(rec, item, "gold_entity", where=gw), _text(rec, item, "gold_part", where=gw),
                          affordance))
    if not golds:
        raise rec.error(f"{where}no golds")
    for gold in golds:
        if gold.entity not in names:
            raise rec.error(f"{where}gold entity {gold.entity!r} is not among the task's entities")
    items = _list(rec, data, "items", where=where, required=False)
    if not all(isinstance(it, dict) for it in items):
        raise rec.error(f"{where}each item must be an object")
    setting = data.get("setting") or {}
    solution = data.get("solution") or {}
    if not isinstance(setting, dict) or not isinstance(solution, dict):
        raise rec.error(f"{where}setting and solution must be objects")
    return Task(task_id, _text(rec, data, "task", where=where), tuple(entities), tuple(golds),
                _text(rec, data, "scenario", required=False, where=where),
                _text(rec, data, "environment", required=False, where=where), tuple(items), setting, solution,
                rec.where, data)


def record_kind(rec: Located) -> str:
    """``"task"`` or ``"entity"``, from the record's keys; else a located error."""
    if "task_id" in rec.data:
        return "task"
    if "entity_name" in rec.data:
        return "entity"
    raise rec.error("neither a task (task_id) nor an entity (entity_name) record", "creativity-record")


def read_file(path: str | Path) -> tuple[list[Entity], list[Task]]:
    """Entities and tasks of one CreativityBench file (a file may hold either kind, or both)."""
    entities: list[Entity] = []
    tasks: list[Task] = []
    for rec in read_records(path):
        if record_kind(rec) == "task":
            tasks.append(parse_task(rec))
        else:
            entities.append(parse_entity(rec))
    return entities, tasks


def read_tasks(path: str | Path) -> list[Task]:
    """The tasks of a task file; an entity record in it or a repeated task id is an error."""
    tasks: list[Task] = []
    seen: dict[str, str] = {}
    for rec in read_records(path, "task file"):
        if record_kind(rec) != "task":
            raise rec.error("expected a task record (task_id), got an entity", "creativity-record")
        task = parse_task(rec)
        if task.id in seen:
            raise rec.error(f"task id {task.id!r} repeats (first at {seen[task.id]})", "creativity-duplicate")
        seen[task.id] = rec.where
        tasks.append(task)
    return tasks
