"""The one writer of ASP facts: every program in ``solver/*.lp`` reads objects, the taxonomy and marks through it,
and every fact any module hands clingo is written by :func:`asp_fact` (strings quoted and escaped, numbers and
:class:`Constant` symbols as they are, a name or argument that is neither refused).

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

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import base_facts, object_parts
from kari.core.terms import PREDICATES
from kari.vocab.vocabulary import Vocabulary

ASP_PREDICATE: dict[str, str] = {p: p.lower() for p in PREDICATES}
"""Predicate name -> ASP constant (``MADE_OF`` -> ``made_of``)."""

PREDICATE_OF_ASP: dict[str, str] = {c: p for p, c in ASP_PREDICATE.items()}
"""ASP constant -> predicate name."""


_IDENTIFIER = re.compile(r"_*[a-z][A-Za-z0-9_']*")


@dataclass(frozen=True, slots=True)
class Constant:
    """An ASP constant written as it is (``made_of``): a predicate in the facts' spelling."""

    name: str

    def __post_init__(self) -> None:
        if not _IDENTIFIER.fullmatch(self.name):
            raise ValueError(f"not an ASP constant: {self.name!r}")


Term = int | str | Constant
"""A fact's argument: a number, a string (written as an ASP string) or a constant."""


def asp_string(text: str) -> str:
    """An ASP string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def asp_term(value: Term) -> str:
    """One argument as ASP writes it."""
    if isinstance(value, bool):
        raise TypeError("an ASP fact takes no bool (write 0 or 1)")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Constant):
        return value.name
    if isinstance(value, str):
        return asp_string(value)
    raise TypeError(f"not an ASP term: {value!r}")


def asp_fact(name: str, *args: Term) -> str:
    """The fact ``name(args).`` (``name.`` without arguments).

    >>> print(asp_fact("fact", 0, "blade", Constant("made_of"), 'steel "hard"'))
    fact(0,"blade",made_of,"steel \\"hard\\"").
    """
    if not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"not an ASP predicate name: {name!r}")
    return f"{name}({','.join(asp_term(a) for a in args)})." if args else f"{name}."


def predicate_constant(predicate: str) -> Constant:
    """A predicate (``MADE_OF``) as the facts' constant (``made_of``)."""
    return Constant(ASP_PREDICATE[predicate])


def taxonomy_facts(vocab: Vocabulary, predicates: Iterable[str] = PREDICATES) -> str:
    """``isa(pred,"child","parent").`` for every direct edge of the taxonomy of ``predicates``."""
    wanted = set(predicates)
    return "\n".join(asp_fact("isa", predicate_constant(p), c, a) for p, c, a in vocab.isa_pairs() if p in wanted)


def value_facts(name: str, pairs: Iterable[tuple[str, str]]) -> str:
    """``name(pred,"value").`` for each ``(PREDICATE, value)`` (e.g. the Proposer's ``avoid/2``)."""
    return "\n".join(asp_fact(name, predicate_constant(p), v) for p, v in pairs)


def exclusive_facts(vocab: Vocabulary) -> str:
    """``exclusive(pred,"group","value").`` for every membership of an exclusive group."""
    return "\n".join(asp_fact("exclusive", predicate_constant(p), g, v) for p, g, v in vocab.exclusive_pairs())


def object_facts(objects: Sequence[ObjectRecord], vocab: Vocabulary, ids: Iterable[int] | None = None,
                 keep: Callable[[str, str], bool] | None = None) -> str:
    """``obj(I). part(I,P). part_index(I,P,K). fact(I,Part,pred,V).`` with objects interned to integers.

    Objects are numbered by their index unless ``ids`` is given; ``K`` is the 1-based position of part ``P`` in
    :func:`~kari.domain.objects.object_parts` (the compact coverage output refers to parts by it). With
    ``keep``, only the facts ``(predicate, value)`` it accepts are written.
    """
    lines: list[str] = []
    for number, obj in zip(ids if ids is not None else range(len(objects)), objects):
        lines.append(asp_fact("obj", number))
        lines.extend(f"{asp_fact('part', number, name)} {asp_fact('part_index', number, name, k)}"
                     for k, name in enumerate(object_parts(obj), start=1))
        lines.extend(asp_fact("fact", number, part, predicate_constant(p), v)
                     for part, p, v in base_facts(obj, vocab) if keep is None or keep(p, v))
    return "\n".join(lines)


def marks(name: str, numbers: Iterable[int]) -> str:
    """``name(I).`` for each object number (``target(3).``, ``negative(7).``)."""
    return "\n".join(asp_fact(name, n) for n in numbers)
