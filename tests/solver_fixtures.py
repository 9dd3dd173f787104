"""Shared builders for the solver tests: a small vocabulary with a taxonomy, objects and hypothesis strategies."""

from __future__ import annotations

from hypothesis import strategies as st

from kari.core.benchmark import ObjectRecord, Property
from kari.rules.ast import And, Atom, Node, Or, Part, Rule
from kari.vocab.vocabulary import Vocabulary

VALUES = {
    "MADE_OF": ["material", "rigid_material", "metal", "steel", "wood", "fabric", "flexible_material"],
    "SHAPE": ["pointed", "sharp_edge", "flat", "hollow", "blade", "handle", "tip"],  # part names are SHAPE facts
    "SIZE": ["small", "long", "thin"],
    "SURFACE": ["smooth", "rough"],
}
ISA = [("MADE_OF", "steel", "metal"), ("MADE_OF", "metal", "rigid_material"), ("MADE_OF", "wood", "rigid_material"),
       ("MADE_OF", "rigid_material", "material"), ("MADE_OF", "fabric", "flexible_material"),
       ("MADE_OF", "flexible_material", "material")]
PARTS = ["blade", "handle", "tip"]


def vocab() -> Vocabulary:
    return Vocabulary.from_rows(values=[(p, v) for p, vs in VALUES.items() for v in vs], isa=ISA,
                                synonyms=[("MADE_OF", "metallic", "metal")], banned=[("foldable", "dynamic")])


def obj(name: str, *props: tuple[str, str, str], parts: tuple[str, ...] = ()) -> ObjectRecord:
    """``obj("knife", ("blade", "MADE_OF", "steel"))``."""
    return ObjectRecord(name, parts=parts, properties=tuple(Property(*p) for p in props))


def a(text: str, role: str = "whole") -> Atom:
    """``a("SHAPE:flat", "x")``."""
    pred, value = text.split(":")
    return Atom(pred, value, role)


pairs = st.sampled_from([(p, v) for p, vs in VALUES.items() for v in vs])


@st.composite
def objects(draw: st.DrawFn, name: str = "o") -> ObjectRecord:
    parts = tuple(draw(st.lists(st.sampled_from(PARTS), max_size=3, unique=True)))
    props = draw(st.lists(st.tuples(st.sampled_from(["whole", *parts]), pairs), max_size=6))
    return ObjectRecord(name, parts=parts, properties=tuple(Property(part, p, v) for part, (p, v) in props))


@st.composite
def nodes(draw: st.DrawFn, scope: tuple[str, ...] = (), depth: int = 0) -> Node:
    kind = draw(st.sampled_from(["atom", "atom", "and", "or", "part"] if depth < 3 else ["atom"]))
    if kind == "atom":
        p, v = draw(pairs)
        return Atom(p, v, draw(st.sampled_from(["whole", *scope])))
    if kind == "part":
        var = "xyz"[len(scope)] if len(scope) < 3 else scope[-1]
        inner = scope if var in scope else (*scope, var)
        return Part(var, draw(nodes(inner, depth + 1)))
    args = tuple(draw(st.lists(nodes(scope, depth + 1), min_size=1, max_size=3)))
    return And(args) if kind == "and" else Or(args)


@st.composite
def rules(draw: st.DrawFn, name: str = "r") -> Rule:
    return Rule(name, Or(tuple(draw(st.lists(nodes(), min_size=1, max_size=4)))))
