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
import sys
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from kari.resources import asset_path


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


_WORD_CLASS_MACRO = re.compile(r"CREATE OR REPLACE MACRO kari_word_class\(\) AS\s*((?:'[^']*'\s*)+);")
_RE2_CODE_POINT = re.compile(r"\\x\{([0-9A-Fa-f]+)\}")
# Before lower-casing, the two characters whose Python lower case is not their simple (one-to-one) lower case:
# U+0130 (full mapping: i + combining dot) and capital sigma (a final sigma in context). DuckDB's lower() uses
# the simple mapping.
_SIMPLE_LOWER = str.maketrans({"\u0130": "i", "\u03a3": "\u03c3"})


@lru_cache(maxsize=1)
def _word_class() -> str:
    """kari's word class (letters and digits) as the body of a Python ``[...]`` class, read from kb/macros.sql
    (``kari_word_class``)."""
    match = _WORD_CLASS_MACRO.search(asset_path("kb", "macros.sql").read_text(encoding="utf-8"))
    if match is None:
        raise RuntimeError("kb/macros.sql defines no kari_word_class() macro")
    body = "".join(re.findall(r"'([^']*)'", match.group(1)))
    return _RE2_CODE_POINT.sub(lambda m: f"\\U{int(m.group(1), 16):08x}", body)


@lru_cache(maxsize=1)
def _non_word() -> re.Pattern[str]:
    """Runs of characters outside kari's word class."""
    return re.compile("[^" + _word_class() + "]+")


@lru_cache(maxsize=1)
def term_pattern() -> str:
    """A regular expression for one term as the rule language writes it (a value, an affordance name): one or
    more letters, digits (kari's word class: any script, ``papier_mâché``) or ``_``; what :func:`normalise_term`
    gives is always one."""
    return "[" + _word_class() + "_]+"


def fold_case(text: str) -> str:
    """Lower case as :func:`normalise_term` and DuckDB's ``lower()`` have it (the simple one-to-one mapping)."""
    return text.translate(_SIMPLE_LOWER).lower()


@lru_cache(maxsize=1 << 16)
def normalise_term(raw: str) -> str:
    """The one spelling key of kari: every run of characters that are not letters or digits (Unicode 14.0's
    categories L* and N*, the class ``kari_word_class()`` of kb/macros.sql) becomes one ``_``, then lower case
    (the simple one-to-one mapping), no ``_`` at either end (``' Sharp-Edge '`` -> ``'sharp_edge'``,
    ``'İron'`` -> ``'iron'``). kb/macros.sql's ``kari_snake`` applies the same rule inside DuckDB; a test checks
    they agree on every code point."""
    return fold_case(_non_word().sub("_", raw)).strip("_")


def word_class_from_unicode() -> str:
    """The body of ``kari_word_class()`` from this Python's Unicode tables (general categories L* and N*), as RE2
    ranges, wrapped as the SQL string literals of kb/macros.sql (run ``python -m kari.core.terms``)."""
    ranges: list[tuple[int, int]] = []
    start = None
    for code in range(sys.maxunicode + 2):
        word = code <= sys.maxunicode and unicodedata.category(chr(code))[0] in "LN"
        if word and start is None:
            start = code
        elif not word and start is not None:
            ranges.append((start, code - 1))
            start = None
    pieces = [f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges]
    lines, line = [], ""
    for piece in pieces:
        if len(line) + len(piece) > 100:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n    ".join(f"'{text}'" for text in lines)


if __name__ == "__main__":
    import unicodedata

    print(f"-- Unicode {unicodedata.unidata_version}\nCREATE OR REPLACE MACRO kari_word_class() AS\n    "
          f"{word_class_from_unicode()};")
