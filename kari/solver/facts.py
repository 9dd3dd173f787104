"""The one writer of ASP facts: every program in ``solver/*.lp`` reads objects, the taxonomy and marks through it.

Facts are written from the domain core (:func:`kari.domain.objects.base_facts`: properties plus parts as
SHAPE facts), so clingo and the Python readings start from the same facts; ``solver/facts.lp`` closes them
under the taxonomy. Predicates are ASP constants (``made_of``), values and part names ASP strings, objects
integers (few symbols: clingo interns every symbol for the life of the process).

>>> from kari.core.benchmark import ObjectRecord, Property
>>> from kari.vocab.vocabulary import Vocabulary
>>> v = Vocabulary.from_rows(values=[("MADE_OF", "steel"), ("SHAPE", "bladed")])
>>> print(object_facts([ObjectRecord("knife", parts=("blade",), properties=(Property("blade", "MADE_OF", "steel"),))], v))
obj(0).
part(0,"blade"). part_index(0,"blade",1).
fact(0,"blade",made_of,"steel").
fact(0,"blade",shape,"bladed").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import base_facts, object_parts
from kari.core.terms import PREDICATES
from kari.vocab.vocabulary import Vocabulary

ASP_PREDICATE: dict[str, str] = {p: p.lower() for p in PREDICATES}
"""Predicate name -> ASP constant (``MADE_OF`` -> ``made_of``)."""

PREDICATE_OF_ASP: dict[str, str] = {c: p for p, c in ASP_PREDICATE.items()}
"""ASP constant -> predicate name."""


def asp_string(text: str) -> str:
    """An ASP string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def taxonomy_facts(vocab: Vocabulary, predicates: Iterable[str] = PREDICATES) -> str:
    """``isa(pred,"child","parent").`` for every direct edge of the taxonomy of ``predicates``."""
    wanted = set(predicates)
    return "\n".join(f"isa({ASP_PREDICATE[p]},{asp_string(c)},{asp_string(a)})."
                     for p, c, a in vocab.isa_pairs() if p in wanted)


def value_facts(name: str, pairs: Iterable[tuple[str, str]]) -> str:
    """``name(pred,"value").`` for each ``(PREDICATE, value)`` (e.g. the Proposer's ``avoid/2``)."""
    return "\n".join(f"{name}({ASP_PREDICATE[p]},{asp_string(v)})." for p, v in pairs)


def exclusive_facts(vocab: Vocabulary) -> str:
    """``exclusive(pred,"group","value").`` for every membership of an exclusive group."""
    return "\n".join(f"exclusive({ASP_PREDICATE[p]},{asp_string(g)},{asp_string(v)})."
                      for p, g, v in vocab.exclusive_pairs())


def object_facts(objects: Sequence[ObjectRecord], vocab: Vocabulary, ids: Iterable[int] | None = None,
                 keep: Callable[[str, str], bool] | None = None) -> str:
    """``obj(I). part(I,P). part_index(I,P,K). fact(I,Part,pred,V).`` with objects interned to integers.

    Objects are numbered by their index unless ``ids`` is given; ``K`` is the 1-based position of part ``P`` in
    :func:`~kari.domain.objects.object_parts` (the compact coverage output refers to parts by it). With
    ``keep``, only the facts ``(predicate, value)`` it accepts are written.
    """
    lines: list[str] = []
    for number, obj in zip(ids if ids is not None else range(len(objects)), objects):
        lines.append(f"obj({number}).")
        lines.extend(f"part({number},{asp_string(name)}). part_index({number},{asp_string(name)},{k})."
                     for k, name in enumerate(object_parts(obj), start=1))
        lines.extend(f"fact({number},{asp_string(part)},{ASP_PREDICATE[p]},{asp_string(v)})."
                     for part, p, v in base_facts(obj, vocab) if keep is None or keep(p, v))
    return "\n".join(lines)


def marks(name: str, numbers: Iterable[int]) -> str:
    """``name(I).`` for each object number (``target(3).``, ``negative(7).``)."""
    return "\n".join(f"{name}({n})." for n in numbers)
