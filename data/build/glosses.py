"""Pattern-based extraction of static physical properties from WordNet 3.0 glosses.

Honest scope: this is a small lexicon matcher, not a parser. It reads a gloss clause by clause (split on
``;``), keeps each clause only up to its first purpose/relative word (``for``, ``used``, ``that``, ``which``,
``to``, ...) so that "a box for holding small objects" does not make the box small, and stops at negations
(``without``, ``not``, ``no``). In what is left it takes
- materials only in material contexts: "made/consisting/composed/... of|from X (or|and Y)", a parenthesis such
  as "(usually steel)", or a material word used attributively ("a metal container", "a wooden box");
- shape, size and surface adjectives from fixed allow-lists anywhere in the kept text.
The raw words are returned as found (``wooden``, ``sharp``); ``kb/value_lexicon.tsv`` types them.
"""

from __future__ import annotations

import re

MATERIAL_WORDS = frozenset("""
metal metallic steel iron aluminum aluminium copper brass bronze silver gold chrome tin wood wooden timber bamboo
cork wicker plastic glass ceramic porcelain earthenware pottery clay stone marble granite brick concrete cement
rubber latex fabric cloth textile cotton wool woolen woollen silk linen felt canvas nylon leather suede fur
feathers paper cardboard paperboard foam sponge wax
""".split())
SHAPE_WORDS = frozenset("""
pointed sharp flat round rounded circular spherical cylindrical hollow curved tapered tapering conical
rectangular oblong oval tubular hooked serrated concave convex coiled spiral triangular domed elongated slender
blunt straight forked cone_shaped disk_shaped disc_shaped cup_shaped bowl_shaped wedge_shaped ring_shaped
""".split())
SIZE_WORDS = frozenset("small large big long short thin thick heavy narrow broad wide tall tiny huge lightweight".split())
SURFACE_WORDS = frozenset("smooth rough shiny glossy polished transparent translucent soft hard sticky porous fuzzy furry ridged grooved".split())
ADJECTIVES = SHAPE_WORDS | SIZE_WORDS | SURFACE_WORDS

_CUT = re.compile(r"\b(for|used|that|which|who|whom|where|when|to|so|by|designed|intended|as|like|resembling|"
                  r"without|not|no|except)\b")
_MADE = re.compile(r"\b(?:made|consisting|composed|constructed|formed|cast|woven|carved|built|fashioned)\s+"
                   r"(?:of|from|out of|in)\s+((?:\w+(?:,|\s+or|\s+and)?\s*){1,6})")
_PAREN = re.compile(r"\(([^)]*)\)")
_TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*")
_JOINERS = frozenset({"or", "and", ","})


def _tokens(text: str) -> list[str]:
    return [t.replace("-", "_") for t in _TOKEN.findall(text.lower())]


def _kept_text(gloss: str) -> str:
    """The descriptive head of every clause (cut at purpose / relative / negation words)."""
    kept = []
    for clause in gloss.lower().split(";"):
        clause = _PAREN.sub(" ", clause)
        match = _CUT.search(clause)
        kept.append(clause[: match.start()] if match else clause)
    return " ; ".join(kept)


def materials(gloss: str) -> list[str]:
    """Material words of ``gloss`` found in material contexts, in order of first appearance."""
    text = gloss.lower()
    found: list[str] = []
    for match in _MADE.finditer(text):
        found += [t for t in _tokens(match.group(1)) if t in MATERIAL_WORDS]
    for match in _PAREN.finditer(text):
        found += [t for t in _tokens(match.group(1)) if t in MATERIAL_WORDS]
    words = _tokens(_kept_text(gloss))
    for word, following in zip(words, words[1:]):
        if word in MATERIAL_WORDS and following not in _JOINERS and following not in MATERIAL_WORDS and following != "of":
            found.append(word)
    return list(dict.fromkeys(found))


def adjectives(gloss: str) -> list[str]:
    """Shape, size and surface words in the descriptive head of ``gloss``, in order of first appearance."""
    return list(dict.fromkeys(t for t in _tokens(_kept_text(gloss)) if t in ADJECTIVES))


def properties(gloss: str) -> tuple[list[str], list[str]]:
    """``(materials, adjectives)`` of a gloss."""
    return materials(gloss), adjectives(gloss)
