"""English for rules, as the Questioner's system prompt shows them (method.md 2, "Inference").

Atoms become predicates of a subject ("is pointed", "is made of metal", "has a sharp edge"); AND joins them
("is pointed, made of rigid material and thin"); OR lists alternatives (", or "; "either ... or ..." when nested
inside an AND); PART(x, ...) becomes "has a part that ...". Atoms about another role than the current subject
follow with "while" and name it ("while the whole object is small", "while part y is flat").

>>> from kari.rules.parser import parse_rule
>>> verbalise(parse_rule("OR(PART(x, AND(SHAPE:pointed, MADE_OF:rigid_material, SIZE:thin)), SURFACE:smooth)"))
'the object has a part that is pointed, made of rigid material and thin, or is smooth'
"""

from __future__ import annotations

from kari.core.terms import WHOLE
from kari.rules.ast import And, Atom, Node, Or, Part, Rule

# a SHAPE/SIZE/SURFACE value reads as an adjective ("is pointed") unless its last word looks like a noun
_ADJECTIVE_ENDINGS = ("ed", "al", "ar", "ic", "y", "ous", "ive", "ish", "ent", "ant", "ful", "less", "ible", "able",
                      "ing", "ular", "ose", "ile", "ern")
_ADJECTIVES = frozenset(
    ["flat", "round", "long", "short", "thin", "thick", "wide", "narrow", "broad", "small", "large", "big", "tiny", "huge", "smooth", "rough", "soft", "hard", "sharp", "blunt", "hollow", "solid", "light", "heavy", "tall", "deep", "shallow", "straight", "square", "oval", "open", "closed", "dense", "porous", "sticky", "slick", "firm", "stiff", "rigid", "elastic", "flexible", "compact", "slim", "slender", "fine", "coarse", "matte", "glossy", "clear", "opaque", "transparent", "even", "uneven", "uniform", "level", "sleek", "warm", "cold", "dry", "wet", "hot", "medium", "tapered"])


def verbalise(rule: Rule | Node) -> str:
    """One English sentence for a rule ("pierce through: the object has a part that ...") or a rule body."""
    if isinstance(rule, Rule):
        return f"{rule.affordance.replace('_', ' ')}: the object {_phrase(rule.body, WHOLE, top=True)}"
    return f"the object {_phrase(rule, WHOLE, top=True)}"


def _words(value: str) -> str:
    return value.replace("_", " ")


def _atom(atom: Atom) -> tuple[str, str]:
    """(verb, complement) of an atom about its own subject."""
    words = _words(atom.value)
    if atom.predicate == "MADE_OF":
        return "is", f"made of {words}"
    last = words.rsplit(" ", 1)[-1]
    if last in _ADJECTIVES or last.endswith(_ADJECTIVE_ENDINGS) or atom.predicate == "SIZE":
        return "is", words
    if last.endswith("s") and not last.endswith("ss"):
        return "has", words
    return "has", f"{'an' if words[0] in 'aeiou' else 'a'} {words}"


def _subject(role: str) -> str:
    return "the whole object" if role == WHOLE else f"part {role}"


def _phrase(node: Node, subject: str, top: bool = False) -> str:
    """A verb phrase about ``subject`` (a role)."""
    if isinstance(node, Atom):
        verb, complement = _atom(node)
        clause = f"{verb} {complement}"
        return clause if node.role == subject else f"while {_subject(node.role)} {clause}"
    if isinstance(node, Part):
        body = _phrase(node.body, node.var)
        return f"has a part, {body}" if body.startswith("while ") else f"has a part that {body}"
    if not node.args:
        return "(always)" if isinstance(node, And) else "(never)"
    if isinstance(node, Or):
        alternatives = [_phrase(arg, subject) for arg in node.args]
        if len(alternatives) == 1:
            return alternatives[0]
        return ", or ".join(alternatives) if top else f"either {', or '.join(alternatives)}"
    return _conjunction(node, subject)


def _conjunction(node: And, subject: str) -> str:
    """Merge the subject's own atoms into one "is A, B and C" / "has a D and an E"; other arguments follow."""
    merged: dict[str, list[str]] = {"is": [], "has": []}
    others: list[str] = []
    foreign: list[str] = []
    for arg in node.args:
        if isinstance(arg, Atom):
            verb, complement = _atom(arg)
            if arg.role == subject:
                merged[verb].append(complement)
            else:
                foreign.append(f"{_subject(arg.role)} {verb} {complement}")
        else:
            others.append(_phrase(arg, subject))
    clauses = [f"{verb} {_join(items)}" for verb, items in merged.items() if items] + others
    text = _join(clauses, ", and " if len(clauses) > 2 or any("," in c for c in clauses) else " and ") if clauses else ""
    if foreign:
        text = f"{text} while {_join(foreign)}".strip()
    return text


def _join(items: list[str], last: str = " and ") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + last + items[-1]
