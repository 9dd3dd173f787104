"""Typed records of a benchmark directory (read by :mod:`kari.bench.reader`).

A benchmark directory holds four JSONL files (docs/formats.md):
``objects.jsonl``, ``affordances.jsonl``, ``labels.jsonl`` and ``games.jsonl``.
Objects are the shared data model of kari: the SQL object-property view, the Python evaluator and the ASP
compiler all consume :class:`ObjectRecord`. Read with a vocabulary, every property value is a canonical value
(the word as written kept in ``raw``; :mod:`kari.domain.canon`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_FILES = ("objects.jsonl", "affordances.jsonl", "labels.jsonl", "games.jsonl")


@dataclass(frozen=True, slots=True)
class Property:
    """``predicate:value`` holding of ``part`` (``"whole"`` or a part name) of an object; ``raw`` is the word as
    the input wrote it when it differs from the canonical ``value``. A fact read from a KB carries the ids of the
    edges that state it (``edges``: the property edge, and for a part's property the edge that makes it a part);
    an ``inferred`` fact was not stated but completed from other facts, ``edges`` naming those it came from.
    Neither takes part in equality: the same fact from two sources is one fact."""

    part: str
    predicate: str
    value: str
    raw: str | None = None
    edges: tuple[str, ...] = field(default=(), compare=False)
    inferred: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class ObjectRecord:
    """An object with its parts and static physical properties."""

    id: str
    description: str = ""
    parts: tuple[str, ...] = ()
    properties: tuple[Property, ...] = ()
    ignored: tuple[Property, ...] = ()  # read but never facts (banned terms), kept for the record
    source: str = field(default="", compare=False)  # FILE:LINE the object came from
    part_edges: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), compare=False)  # part -> KB edge ids

    def edges_of_part(self, part: str) -> tuple[str, ...]:
        """The KB edges that make ``part`` a part of the object (HasA / PartOf; empty outside a KB)."""
        return next((edges for name, edges in self.part_edges if name == part), ())

    def values(self, predicate: str) -> frozenset[str]:
        """Every value of ``predicate`` on any part (the paper's any-part reading)."""
        return frozenset(p.value for p in self.properties if p.predicate == predicate)


@dataclass(frozen=True, slots=True)
class Affordance:
    id: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Label:
    object: str
    affordance: str
    label: bool


@dataclass(frozen=True, slots=True)
class Game:
    """One Affordance20Q game: hidden ``object``, ``target`` affordance among 8 ``candidates``."""

    id: str
    object: str
    target: str
    candidates: tuple[str, ...]


@dataclass
class Benchmark:
    """A loaded benchmark directory; ``canon`` reports how its words were read (None when loaded raw)."""

    root: Path
    objects: dict[str, ObjectRecord]
    affordances: dict[str, Affordance]
    labels: list[Label]
    games: list[Game]
    canon: Any = None
    _positives: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False)
    _negatives: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for lab in self.labels:
            bucket = self._positives if lab.label else self._negatives
            bucket.setdefault(lab.affordance, []).append(lab.object)

    def positives(self, affordance: str) -> list[str]:
        """Objects labelled true for ``affordance``, in file order."""
        return list(self._positives.get(affordance, []))

    def negatives(self, affordance: str) -> list[str]:
        """Objects labelled false for ``affordance``, in file order."""
        return list(self._negatives.get(affordance, []))


def object_to_json(obj: ObjectRecord) -> dict[str, Any]:
    """The ``objects.jsonl`` form of an object."""
    return {
        "id": obj.id,
        "description": obj.description,
        "parts": list(obj.parts),
        "properties": [{"part": p.part, "predicate": p.predicate, "value": p.value, **({"raw": p.raw} if p.raw else {})}
                       for p in obj.properties],
    }
