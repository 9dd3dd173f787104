"""Word forms the vocabulary tries when a term is not one of its values (``holes`` -> ``hole``).

:func:`variants` yields candidate forms of a normalised term, most faithful first: British spellings
(``fibre`` -> ``fiber``, ``colour`` -> ``color``), singulars of plurals (``holes`` -> ``hole``, ``boxes`` ->
``box``, ``batteries`` -> ``battery``), the term without a leading phrase (``made_of_metal`` -> ``metal``,
``has_a_handle`` -> ``handle``) or a trailing dimension word (``light_weight`` -> ``light``, ``round_shape`` ->
``round``), and adjective forms of nouns and back (``wooden`` -> ``wood``, ``metallic`` -> ``metal``,
``handle`` -> ``handled``, ``ring`` -> ``ring_shaped``). The vocabulary accepts a variant only when it is a
known value or synonym of the same predicate; a term none of whose variants is known becomes a new value in
its :func:`lemma` form (the singular of a plural), so ``wheel`` and ``wheels`` are one value.

>>> lemma("holes"), lemma("glass"), lemma("batteries"), lemma("has_wheels")
('hole', 'glass', 'battery', 'wheel')
>>> "light" in list(variants("light_weight"))
True
"""

from __future__ import annotations

from collections.abc import Iterator

_PREFIXES = ("made_of_", "made_from_", "made_out_of_", "has_a_", "has_an_", "has_", "have_", "with_a_",
             "with_an_", "with_", "is_", "it_is_", "a_", "an_", "the_")
_SUFFIXES = ("_weight", "_weighted", "_sized", "_size", "_shaped", "_shape", "_surface", "_surfaced",
             "_material", "_texture", "_textured", "_colored", "_coloured", "_like", "_looking")
# Plural endings that are not plurals: glass, canvas, bus, cactus, chassis, lens, gas, species ...
_NOT_PLURAL = ("ss", "us", "is", "as", "os", "ys", "series", "species", "lens", "news", "ics")
_BRITISH = (("aluminium", "aluminum"), ("fibre", "fiber"), ("centre", "center"), ("metre", "meter"),
            ("colour", "color"), ("mould", "mold"), ("grey", "gray"), ("tyre", "tire"), ("woollen", "woolen"),
            ("jewellery", "jewelry"), ("moustache", "mustache"), ("plough", "plow"), ("storey", "story"))
_ADJECTIVE_ENDINGS = ("en", "ic", "y", "ed", "al", "ish", "ous", "ern")
_IRREGULAR = {"knives": "knife", "leaves": "leaf", "shelves": "shelf", "halves": "half", "loaves": "loaf",
              "wolves": "wolf", "lives": "life", "wives": "wife", "calves": "calf", "hooves": "hoof",
              "scarves": "scarf", "feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose"}


def singular(word: str) -> str | None:
    """The singular of an English plural ``word`` (one token), or None when it does not look plural."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.endswith("s") or word.endswith(_NOT_PLURAL):
        return None
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    return _IRREGULAR.get(word, word[:-1])


def _last_token_singular(term: str) -> str | None:
    head, _, last = term.rpartition("_")
    one = singular(last)
    if one is None:
        return None
    return f"{head}_{one}" if head else one


def _british(term: str) -> Iterator[str]:
    for british, american in _BRITISH:
        if british in term:
            yield term.replace(british, american)
    if term.endswith("re") and len(term) > 4 and term[-3] not in "aeiou":
        yield term[:-2] + "er"
    if "our" in term:
        yield term.replace("our", "or")
    if "ise" in term:
        yield term.replace("ise", "ize")


def _adjective_forms(term: str) -> Iterator[str]:
    """Noun <-> adjective forms: wooden -> wood, metallic -> metal, handle -> handled, ring -> ring_shaped."""
    for ending in _ADJECTIVE_ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= 3:
            stem = term[: -len(ending)]
            yield stem
            if ending in ("ed", "en", "y", "ic") and len(stem) > 3 and stem[-1] == stem[-2]:
                yield stem[:-1]  # legged -> leg, furry -> fur, metallic -> metal
            if ending in ("ed", "y", "ish", "ous"):
                yield stem + "e"  # bladed -> blade, stony -> stone
    yield term + "ed"
    yield term + "d"
    if len(term) >= 3 and term[-1] not in "aeiouwxy" and term[-2] in "aeiou" and term[-3] not in "aeiou":
        yield term + term[-1] + "ed"  # leg -> legged
        yield term + term[-1] + "y"  # fur -> furry
    yield term + "y"
    yield term + "_shaped"
    yield term + "_like"


def _stripped(term: str) -> Iterator[str]:
    for prefix in _PREFIXES:
        if term.startswith(prefix) and len(term) > len(prefix):
            yield term[len(prefix):]
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) > len(suffix):
            yield term[: -len(suffix)]


def variants(term: str) -> Iterator[str]:
    """Candidate forms of the normalised ``term``, most faithful first (may repeat; never ``term`` itself)."""
    base = [term]
    base += list(_british(term))
    for form in list(base):
        one = _last_token_singular(form)
        if one:
            base.append(one)
    stripped = [s for form in base for s in _stripped(form)]
    for form in list(stripped):
        one = _last_token_singular(form)
        if one:
            stripped.append(one)
    for form in (*base[1:], *stripped):
        yield form
    for form in (*base, *stripped):
        if form and "_" not in form:
            yield from _adjective_forms(form)


def lemma(term: str) -> str:
    """The form a new value is stored in: leading phrases (``has_``, ``made_of_``) dropped and the last word
    made singular."""
    for prefix in _PREFIXES:
        if term.startswith(prefix) and len(term) > len(prefix):
            term = term[len(prefix):]
            break
    return _last_token_singular(term) or term
