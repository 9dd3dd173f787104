"""What a rules file says of a branch's origin: the metadata ``kari induce`` writes per branch (``covers``,
``edges``, ``provenance``: :mod:`kari.explain.provenance`), read back for one object's proof (``kari explain``,
``kari coverage --explain``, the HTML report). Files written before kari recorded ``provenance`` still read: they
give the counts without an object's entry.

>>> meta = {"covers": ["knife", "axe"], "edges": ["e1", "e2"],
...         "provenance": [{"object": "knife", "atoms": {"MADE_OF:metal": [{"part": "blade", "value": "steel",
...                                                                       "origin": "property", "edges": ["e1"]}]}}]}
>>> induced_from(meta, "knife").entry["atoms"]["MADE_OF:metal"][0]["edges"], induced_from(meta, "spoon").entry
(['e1'], None)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class InducedFrom:
    """What a rule file says of one branch's origin (its metadata, written by ``kari induce``): the positives it
    was induced from and covers, the KB edges it cites, whether one object is among those positives, and that
    object's provenance entry (None when it is not one, and in files written before kari recorded provenance)."""

    positives: int
    edges: int
    member: bool  # the object is one of the branch's positives
    entry: Mapping[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"positives": self.positives, "edges": self.edges, "member": self.member, "object": self.entry}


def induced_from(meta: Mapping[str, Any], object_id: str) -> InducedFrom | None:
    """:class:`InducedFrom` of a branch's metadata for ``object_id``; None for a branch with no induction
    record (a hand-written rule). Reads old files too: ``covers`` and ``edges`` without ``provenance``."""
    if not meta or not any(k in meta for k in ("provenance", "covers", "edges")):
        return None
    entries = [e for e in meta.get("provenance") or () if isinstance(e, Mapping)]
    covers = meta.get("covers") or [e.get("object") for e in entries]
    entry = next((e for e in entries if e.get("object") == object_id), None)
    return InducedFrom(len(covers), len(meta.get("edges") or ()), entry is not None or object_id in covers, entry)
