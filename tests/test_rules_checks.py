"""Static checks, simplification, subsumption and the English verbaliser."""

from __future__ import annotations

import pytest

from kari.rules import (
    CHECKS,
    And,
    Atom,
    Or,
    Part,
    Rule,
    check_rule,
    parse_rule,
    simplify,
    subsumed_branches,
    to_text,
    verbalise,
)
from kari.rules.normalise import normalise_values
from kari.vocab.vocabulary import Vocabulary

SMALL = Vocabulary.from_rows(
    values=[("MADE_OF", "metal"), ("MADE_OF", "steel"), ("SHAPE", "cylinder"), ("SHAPE", "pointed"),
            ("SIZE", "thin"), ("SURFACE", "smooth")],
    synonyms=[("MADE_OF", "metallic", "metal")],
    isa=[("MADE_OF", "steel", "metal")],
    banned=[("compressible", "dynamic"), ("reflective", "affordance_adjective")],
)


def codes(text: str, vocab: Vocabulary = SMALL, affordance: str = "pierce", **kw) -> list[str]:
    return [d.code for d in check_rule(Rule(affordance, parse_rule(text)), vocab, **kw)]


@pytest.mark.parametrize("text, expected", [
    ("PART(x, AND(SHAPE:pointed, MADE_OF:metal))", []),
    ("AND(SHAPE:pointed, y.SIZE:thin)", ["free-variable"]),
    ("PART(x, PART(x, SHAPE:pointed))", ["part-not-fresh"]),
    ("AND(PART(x, SHAPE:pointed), OR(PART(x, SIZE:thin), SIZE:thin))", ["part-not-fresh"]),
    ("OR(PART(x, SHAPE:pointed), PART(x, SIZE:thin))", []),  # alternatives may reuse x
    ("PART(whole, SHAPE:pointed)", ["reserved-variable"]),
    ("PART(x, whole.SHAPE:pointed)", ["unused-part"]),
    ("AND()", ["empty-and"]),
    ("OR(SHAPE:pointed, OR())", ["empty-or"]),
    ("OR(AND(SHAPE:pointed, SIZE:thin), AND(SIZE:thin, SHAPE:pointed))", ["duplicate-branch"]),
    ("OR(PART(x, AND(SHAPE:pointed, SIZE:thin)), PART(y, AND(SIZE:thin, SHAPE:pointed)))", ["duplicate-branch"]),
    # a PART about no atom of its part still needs a part (strict): not the branch without it, but a repeat of itself
    ("OR(SHAPE:pointed, PART(x, whole.SHAPE:pointed))", ["unused-part"]),
    ("OR(PART(x, whole.SHAPE:pointed), PART(y, whole.SHAPE:pointed))", ["unused-part", "unused-part",
                                                                        "duplicate-branch"]),
    ("AND(SHAPE:pointed, SHAPE:pointed)", ["duplicate-conjunct"]),
    ("OR(SHAPE:pointed, AND(SHAPE:pointed, SIZE:thin))", ["subsumed-branch"]),
    ("SIZE:compressible", ["dynamic-value"]),
    ("SURFACE:reflective", ["affordance-value"]),
    ("SURFACE:reflective_coating", ["affordance-value"]),
    ("SHAPE:pierceable", ["affordance-value"]),
    ("SHAPE:pierce", ["affordance-value"]),
    ("MADE_OF:cylinder", ["ill-typed-value"]),
    ("MADE_OF:metallic", ["non-canonical-value"]),
    ("MADE_OF:unobtainium", ["unknown-value"]),
])
def test_each_check(text: str, expected: list[str]) -> None:
    assert codes(text) == expected


def test_every_code_is_documented_with_a_severity() -> None:
    assert all(severity in ("error", "warning") for severity, _ in CHECKS.values())
    found = check_rule(parse_rule("AND(SHAPE:pointed, y.SIZE:thin, MADE_OF:unobtainium)"), SMALL)
    assert [(d.code, d.severity, d.path) for d in found] == [("free-variable", "error", (1,)),
                                                             ("unknown-value", "warning", (2,))]


def test_other_affordances_verbs_are_banned_when_given() -> None:
    assert codes("SHAPE:cuttable") == ["unknown-value"]
    assert codes("SHAPE:cuttable", affordances=["cut"]) == ["affordance-value"]


def test_checks_against_the_shipped_vocabulary() -> None:
    vocab = Vocabulary.load()
    paper = ("OR(PART(x,AND(SHAPE:pointed,MADE_OF:rigid_material,SIZE:thin)), PART(x,AND(SHAPE:tapered,"
             "MADE_OF:metal)), PART(x,AND(SHAPE:cylindrical,MADE_OF:metal,SIZE:long)))")
    assert codes(paper, vocab, "pierce_through") == []
    assert codes("MADE_OF:cylinder", vocab) == ["ill-typed-value"]
    assert codes("AND(MADE_OF:foam, SIZE:compressible)", vocab) == ["dynamic-value"]
    assert codes("SHAPE:foldable", vocab) == ["dynamic-value"]
    assert codes("SURFACE:absorbent", vocab, "absorb_water") == ["affordance-value"]
    assert codes("MADE_OF:metallic", vocab) == ["non-canonical-value"]


def test_simplify() -> None:
    node = parse_rule("OR(AND(SHAPE:pointed, AND(SIZE:thin, SHAPE:pointed)), OR(SIZE:thin, AND(SIZE:thin)), "
                      "PART(x, AND(AND(SHAPE:pointed))))")
    assert to_text(simplify(node)) == "OR(AND(SHAPE:pointed, SIZE:thin), SIZE:thin, PART(x, SHAPE:pointed))"
    assert to_text(simplify(node, drop_subsumed=True)) == "OR(SIZE:thin, PART(x, SHAPE:pointed))"
    assert simplify(And(())) == And(())


def test_subsumed_branches() -> None:
    rule = parse_rule("OR(PART(x, AND(SHAPE:pointed, MADE_OF:metal)), PART(y, SHAPE:pointed), "
                      "AND(SHAPE:pointed, MADE_OF:metal), PART(z, SHAPE:pointed), OR(SIZE:thin, SHAPE:pointed))")
    # branch 0 includes branch 1's atoms (after renaming), branch 3 repeats branch 1; whole-object atoms differ
    # from part atoms; a branch with an OR inside is never compared
    assert subsumed_branches(rule) == [0, 3]
    assert subsumed_branches(Atom("SHAPE", "flat")) == []


def test_normalise_values() -> None:
    node = normalise_values(parse_rule("PART(x, AND(MADE_OF:metallic, SURFACE:zorgy))"), SMALL)
    assert node == Part("x", And((Atom("MADE_OF", "metal", "x"), Atom("SURFACE", "zorgy", "x"))))


def test_verbalise() -> None:
    rule = Rule("pierce_through", parse_rule("OR(PART(x, AND(SHAPE:pointed, MADE_OF:rigid_material, SIZE:thin)), "
                                             "AND(SHAPE:sharp_edge, SURFACE:smooth))"))
    assert verbalise(rule) == ("pierce through: the object has a part that is pointed, made of rigid material and "
                               "thin, or is smooth and has a sharp edge")
    assert verbalise(Or((Atom("SIZE", "thin"), Part("y", Atom("SIZE", "long", "whole"))))) == \
        "the object is thin, or has a part, while the whole object is long"
    node = parse_rule("PART(x, AND(SHAPE:pointed, whole.SIZE:small, y.SIZE:thin))")
    assert verbalise(node) == "the object has a part that is pointed while the whole object is small and part y is thin"
