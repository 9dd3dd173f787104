"""The fixed terms of kari's domain: predicates, question dimensions, the readings of PART, questions, histories
and the one normaliser.

Every module names predicates and dimensions through these enums (both are ``str`` subclasses, so
``Predicate.MADE_OF == "MADE_OF"``), asks and records questions as :class:`Question` and spells every key
with :func:`normalise_term`, the same rule as the KB's SQL macro ``kari_snake`` (kb/macros.sql):

>>> normalise_term("  Crow's nest ")
'crow_s_nest'
>>> Question("MADE_OF", "metal").structured
'MATERIAL:metal'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple


class Predicate(StrEnum):
    """The four atomic predicates of the rule language (and of object properties)."""

    MADE_OF = "MADE_OF"
    SHAPE = "SHAPE"
    SIZE = "SIZE"
    SURFACE = "SURFACE"


class Dimension(StrEnum):
    """The Affordance20Q question dimensions; MATERIAL questions probe MADE_OF facts."""

    MATERIAL = "MATERIAL"
    SHAPE = "SHAPE"
    SIZE = "SIZE"
    SURFACE = "SURFACE"


class Semantics(StrEnum):
    """The two readings of a rule's PART (:func:`kari.domain.objects.evaluate_rule`)."""

    STRICT = "strict"
    ANY_PART = "any-part"


PREDICATES: tuple[str, ...] = tuple(p.value for p in Predicate)
"""The predicate names in their canonical order."""

DIMENSION_OF: dict[str, str] = {
    Predicate.MADE_OF: Dimension.MATERIAL, Predicate.SHAPE: Dimension.SHAPE,
    Predicate.SIZE: Dimension.SIZE, Predicate.SURFACE: Dimension.SURFACE,
}
"""Predicate -> question dimension."""

PREDICATE_OF_DIMENSION: dict[str, str] = {dim: pred for pred, dim in DIMENSION_OF.items()}
"""Question dimension -> predicate."""

WHOLE = "whole"
"""The role of an atom about the entire object (and the part name of whole-object properties)."""


class Question(NamedTuple):
    """One yes/no question about one property: ``(predicate, value)`` with a canonical value.

    A plain ``("MADE_OF", "metal")`` tuple compares and hashes equal to ``Question("MADE_OF", "metal")``.
    """

    predicate: str
    value: str

    @property
    def structured(self) -> str:
        """The ``DIMENSION:value`` form symbolic players ask in."""
        return f"{DIMENSION_OF[self.predicate]}:{self.value}"


History = Sequence[tuple[Question, bool]]
"""Accepted questions with the Oracle's answers, in order."""


def structured(question: tuple[str, str]) -> str:
    """``("MADE_OF", "metal")`` -> ``"MATERIAL:metal"``."""
    return Question(*question).structured


_NON_ALNUM = re.compile(r"[\W_]+")


@lru_cache(maxsize=1 << 16)
def normalise_term(raw: str) -> str:
    """The one spelling key of kari: lower case, every run of characters that are not letters or digits
    becomes one ``_``, no ``_`` at either end (``' Sharp-Edge '`` -> ``'sharp_edge'``). kb/macros.sql's
    ``kari_snake`` applies the same rule inside DuckDB (a test keeps them equal)."""
    return _NON_ALNUM.sub("_", raw.lower()).strip("_")
