"""Guards on every proposal (offline and LLM): exclusive values, duplicate and implied atoms, lifting up the
taxonomy while precision holds, subsumed branches; the exclusive groups of the shipped vocabulary."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kari.core.benchmark import ObjectRecord, Property
from kari.vocab.vocabulary import Vocabulary
from kari.induce.auditor import Auditor
from kari.core.induce_config import InduceConfig
from kari.induce.guards import Guard, guard_branch, subsumed_by, tidy
from kari.induce.inputs import Evidence
from kari.induce.loop import Components, induce_affordance
from kari.induce.offline import KBValidator, ProposerSettings, best_branch
from kari.induce.proposer import Proposal
from kari.rules import to_text
from kari.rules.ast import And, Atom, Or, Part
from test_induce_units import _ScriptedProposer  # an LLM stand-in that records the feedback it gets


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load()


def obj(name: str, *props: tuple[str, str]) -> ObjectRecord:
    return ObjectRecord(name, properties=tuple(Property("whole", p, v) for p, v in props))


def test_shipped_exclusive_groups_agree_with_the_taxonomy(vocab: Vocabulary) -> None:
    assert vocab.validate() == []
    groups = {(p, g) for p, g, _ in vocab.exclusive_pairs()}
    assert {("SIZE", "size_class"), ("SIZE", "hand_scale"), ("SIZE", "weight"), ("SURFACE", "texture")} <= groups
    assert vocab.exclusive_group("SIZE", "small") == vocab.exclusive_group("SIZE", "large") == "size_class"
    assert vocab.exclusive_group("SIZE", "tiny") is None  # tiny is-a small: it inherits the group


@pytest.mark.parametrize(("first", "second"), [("small", "large"), ("tiny", "medium"), ("heavy", "light"),
                                               ("hand_sized", "larger_than_hand"), ("tiny", "hand_sized")])
def test_exclusive_values_reject_a_branch(vocab: Vocabulary, first: str, second: str) -> None:
    both = obj("both", ("SIZE", first), ("SIZE", second))
    result = guard_branch(And((Atom("SIZE", first), Atom("SIZE", second))), [both], [], vocab)
    assert result.branch is None and "exclusive group" in result.problems[0]


def test_the_offline_proposer_never_combines_exclusive_values(vocab: Vocabulary) -> None:
    # noisy objects that are "heavy" and "light" at once: AND(heavy, light) would separate them perfectly
    positives = [obj(f"p{i}", ("SIZE", "heavy"), ("SIZE", "light")) for i in range(3)]
    negatives = [obj("n1", ("SIZE", "heavy")), obj("n2", ("SIZE", "light"))]
    exact = ProposerSettings(min_support=1, min_objects=1, min_precision=1.0, m_estimate=0)
    assert best_branch(positives, negatives, vocab, exact) is None
    loose = best_branch(positives, negatives, vocab, replace(exact, min_precision=0.5))
    assert loose is not None and len(list(loose.branch.atoms())) == 1


def test_duplicates_and_implied_atoms_are_dropped(vocab: Vocabulary) -> None:
    fuzzy = obj("peach", ("SURFACE", "fuzzy"))
    assert guard_branch(And((Atom("SURFACE", "fuzzy"), Atom("SURFACE", "fuzzy"))), [fuzzy], [], vocab,
                        lift=False).branch == Atom("SURFACE", "fuzzy")
    knife = obj("knife", ("MADE_OF", "steel"), ("SHAPE", "flat"))
    result = guard_branch(And((Atom("MADE_OF", "steel"), Atom("MADE_OF", "metal"), Atom("SHAPE", "flat"))), [knife],
                          [], vocab, lift=False)
    assert result.branch == And((Atom("MADE_OF", "steel"), Atom("SHAPE", "flat")))
    assert "dropped MADE_OF:metal (implied by another atom)" in result.changes


def test_lifting_while_precision_holds(vocab: Vocabulary) -> None:
    can = obj("can", ("MADE_OF", "aluminum"))
    pot = obj("pot", ("MADE_OF", "copper"))
    plank = obj("plank", ("MADE_OF", "wood"))
    # copper is a positive too: aluminum lifts to metal, not to rigid_material (which adds the wooden negative)
    lifted = guard_branch(Atom("MADE_OF", "aluminum"), [can, pot], [plank], vocab)
    assert lifted.branch == Atom("MADE_OF", "metal") and lifted.changes == ["lifted MADE_OF:aluminum to MADE_OF:metal"]
    # copper is a negative: lifting would halve the precision, so the value stays
    kept = guard_branch(Atom("MADE_OF", "aluminum"), [can], [pot, plank], vocab)
    assert kept.branch == Atom("MADE_OF", "aluminum") and kept.changes == []
    # a tolerance of 60 points lets precision fall from 1.0 to 0.5
    loose = guard_branch(Atom("MADE_OF", "aluminum"), [can], [pot, plank], vocab, lift_tolerance=0.6)
    assert loose.branch == Atom("MADE_OF", "metal")
    # a PART branch keeps its form; read strictly, the lifted atoms must hold on one part
    part = guard_branch(Part("x", Atom("MADE_OF", "aluminum", "x")), [can, pot], [plank], vocab)
    assert part.branch == Part("x", Atom("MADE_OF", "metal", "x"))
    tin = ObjectRecord("tin", parts=("lid",), properties=(Property("lid", "MADE_OF", "aluminum"),
                                                          Property("lid", "SHAPE", "flat")))
    kettle = ObjectRecord("kettle", parts=("lid", "body"), properties=(Property("lid", "SHAPE", "flat"),
                                                                      Property("body", "MADE_OF", "copper")))
    board = obj("board", ("MADE_OF", "wood"), ("SHAPE", "flat"))
    branch = Part("x", And((Atom("MADE_OF", "aluminum", "x"), Atom("SHAPE", "flat", "x"))))
    # any-part: metal adds the kettle (a positive); rigid_material would add the wooden board (a negative)
    assert guard_branch(branch, [tin, kettle], [board], vocab).changes == ["lifted MADE_OF:aluminum to MADE_OF:metal"]
    # strict: the kettle's copper and flat lid are different parts, the board has no part: nothing is added, so
    # the most general value stands
    strict = guard_branch(branch, [tin, kettle], [board], vocab, strict=True)
    assert strict.changes == ["lifted MADE_OF:aluminum to MADE_OF:rigid_material"]


def test_subsumed_branches_with_the_taxonomy(vocab: Vocabulary) -> None:
    metal = Atom("MADE_OF", "metal")
    steel_flat = And((Atom("MADE_OF", "steel"), Atom("SHAPE", "flat")))
    assert subsumed_by(steel_flat, [Atom("SHAPE", "round"), metal], vocab) == 1
    assert subsumed_by(metal, [steel_flat], vocab) is None
    branches, meta = tidy([steel_flat, Atom("SHAPE", "round"), metal, metal], [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}],
                          vocab)
    assert branches == [Atom("SHAPE", "round"), metal] and meta == [{"n": 1}, {"n": 2}]


def test_llm_proposals_pass_the_same_guards(vocab: Vocabulary) -> None:
    local = Vocabulary.load()
    knife = obj("knife", ("MADE_OF", "steel"), ("SHAPE", "sharp_edge"), ("SIZE", "small"))
    axe = obj("axe", ("MADE_OF", "iron"), ("SHAPE", "sharp_edge"), ("SIZE", "large"))
    spoon = obj("spoon", ("MADE_OF", "steel"), ("SHAPE", "round"))
    sharp = Atom("SHAPE", "sharp_edge")
    proposer = _ScriptedProposer([Proposal(body, "{}") for body in (
        And((Atom("SIZE", "small"), Atom("SIZE", "large"))),        # excludes itself: rejected, fed back
        And((sharp, sharp)),                                         # duplicate atom: simplified
        Or((sharp, And((sharp, Atom("MADE_OF", "steel"))))),         # round 2: subsumed by branch 1: rejected
        Or((sharp, And((sharp, Atom("MADE_OF", "steel"))))),
        Or((sharp, And((sharp, Atom("MADE_OF", "steel"))))),
    )])
    comps = Components(proposer, KBValidator(local), Auditor(local), local, Guard(local))
    ev = Evidence("cut", "", (knife, axe), (spoon,), ())
    result = induce_affordance(ev, comps, InduceConfig(groups=2, repair_attempts=2, backend="openai"))
    assert result["rounds"][0]["outcome"] == "accepted" and result["rounds"][0]["attempts"] == 2
    assert "exclusive group" in proposer.feedback[1][0]
    assert result["rule"] == {"op": "SHAPE", "role": "whole", "class": "sharp_edge"}
    if result["rounds"][1]["targets"]:
        assert any("adds nothing" in p for d in result["dropped"] for p in d["problems"])
    meta = result["branches"][0]
    assert meta["guard"] == ["simplified"] and meta["evidence"]["support"] == 2
    assert meta["evidence"]["negatives_covered"] == 0 and meta["evidence"]["precision"] == 1.0
    assert to_text(And((sharp, sharp))) == "AND(SHAPE:sharp_edge, SHAPE:sharp_edge)"


@pytest.mark.parametrize("pair", [("heavy", "light"), ("hand_sized", "larger_than_hand"), ("hand_sized", "large")])
def test_the_vectorised_search_never_combines_exclusive_values(vocab: Vocabulary, pair: tuple[str, str]) -> None:
    """The whole-object search (``fastsearch``) blocks exclusive pairs as ``solver/exclusive.lp`` does, also when
    each value is the only member of its group above it (hand_sized / larger_than_hand: a KB object stating both
    made the search propose a branch the guard then refused, attempt after attempt)."""
    from kari.induce.fastsearch import VectorBranchSearch

    first, second = pair
    positives = [obj(f"p{i}", ("SIZE", first), ("SIZE", second)) for i in range(3)]
    negatives = [obj("n1", ("SIZE", first)), obj("n2", ("SIZE", second))]
    exact = ProposerSettings(min_support=1, min_objects=1, min_precision=1.0, m_estimate=0)
    assert VectorBranchSearch(positives, negatives, vocab, exact).best(positives) is None
    loose = VectorBranchSearch(positives, negatives, vocab, replace(exact, min_precision=0.5)).best(positives)
    assert loose is not None and len(list(loose.branch.atoms())) == 1  # type: ignore[attr-defined]
