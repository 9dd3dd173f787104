"""Object facts shared by the Python evaluator and the ASP fact writer (docs/architecture.md "Object facts").

An object *has* ``PRED:value`` on a part p when it has a property ``(p, PRED, v)`` with
``vocab.satisfies(PRED, v, value)``. Whole-object facts are the union of every part's facts (and the facts
stated on ``whole``). The strict reading binds PART variables to real parts only (never ``whole``).

>>> from kari.bench.model import ObjectRecord, Property
>>> from kari.vocabulary import Vocabulary
>>> v = Vocabulary.from_rows(values=[("MADE_OF", "steel"), ("MADE_OF", "metal")], isa=[("MADE_OF", "steel", "metal")])
>>> knife = ObjectRecord("knife", parts=("blade",), properties=(Property("blade", "MADE_OF", "steel"),))
>>> view = object_view(knife, v)
>>> ("MADE_OF", "metal") in view.whole, ("MADE_OF", "metal") in view.parts["blade"]
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kari.bench.model import ObjectRecord
from kari.rules.ast import PREDICATES, WHOLE
from kari.vocabulary import Vocabulary

Fact = tuple[str, str]
"""``(PREDICATE, value)``."""

ASP_PREDICATE = {p: p.lower() for p in PREDICATES}
"""Predicate name -> ASP constant (``MADE_OF`` -> ``made_of``)."""


@dataclass(frozen=True, slots=True)
class ObjectView:
    """An object's facts with the taxonomy applied: the whole-object union and the facts of each real part."""

    id: str
    whole: frozenset[Fact]
    parts: dict[str, frozenset[Fact]]
    part_names: tuple[str, ...]


def object_parts(obj: ObjectRecord) -> tuple[str, ...]:
    """The object's real parts: its ``parts`` list, then parts only named by properties; never ``whole``."""
    seen: dict[str, None] = {}
    for name in (*obj.parts, *(p.part for p in obj.properties)):
        if name != WHOLE:
            seen.setdefault(name, None)
    return tuple(seen)


def object_view(obj: ObjectRecord, vocab: Vocabulary) -> ObjectView:
    """Close the object's properties under the is-a taxonomy (properties of unknown predicates are ignored).

    Views are memoised per vocabulary (and dropped when its taxonomy changes): games ask for the same
    representatives' views on every turn.
    """
    cache = vocab.memo("object_view")
    view = cache.get(obj)
    if view is None:
        view = cache[obj] = _close_object(obj, vocab)
    return view


def _close_object(obj: ObjectRecord, vocab: Vocabulary) -> ObjectView:
    names = object_parts(obj)
    per_part: dict[str, set[Fact]] = {name: set() for name in names}
    whole: set[Fact] = set()
    for prop in obj.properties:
        if prop.predicate not in ASP_PREDICATE:
            continue
        closed = {(prop.predicate, a) for a in vocab.ancestors(prop.predicate, prop.value)}
        whole |= closed
        if prop.part != WHOLE:
            per_part[prop.part] |= closed
    return ObjectView(obj.id, frozenset(whole), {k: frozenset(v) for k, v in per_part.items()}, names)


def has_property(obj: ObjectRecord, predicate: str, value: str, vocab: Vocabulary) -> bool:
    """Does the object have ``predicate:value`` on any part or the whole, with the taxonomy applied?

    The single truth used by the KB oracle, consistency and the offline Validator.
    """
    return (predicate, value) in object_view(obj, vocab).whole


# --- ASP facts -------------------------------------------------------------------------------------------------

def asp_string(text: str) -> str:
    """An ASP string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def taxonomy_facts(vocab: Vocabulary) -> str:
    """``isa(Pred,Child,Parent).`` for every direct edge of the vocabulary's taxonomy."""
    return "\n".join(f"isa({ASP_PREDICATE[p]},{asp_string(c)},{asp_string(a)})."
                     for p, c, a in vocab.isa_pairs() if p in ASP_PREDICATE)


def object_facts(objects: Sequence[ObjectRecord], ids: Iterable[int] | None = None) -> str:
    """``obj(I). part(I,P). part_index(I,P,K). fact(I,Part,Pred,V).`` with objects interned to integers.

    Objects are numbered by their index unless ``ids`` is given; ``K`` is the 1-based position of part ``P`` in
    :func:`object_parts` (the compact coverage output refers to parts by it).
    """
    lines: list[str] = []
    for number, obj in zip(ids if ids is not None else range(len(objects)), objects):
        lines.append(f"obj({number}).")
        for k, name in enumerate(object_parts(obj), start=1):
            lines.append(f"part({number},{asp_string(name)}). part_index({number},{asp_string(name)},{k}).")
        lines.extend(f"fact({number},{asp_string(p.part)},{ASP_PREDICATE[p.predicate]},{asp_string(p.value)})."
                     for p in obj.properties if p.predicate in ASP_PREDICATE)
    return "\n".join(lines)
