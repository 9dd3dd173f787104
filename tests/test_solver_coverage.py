"""Coverage: compilation to ASP, the two PART semantics, witnesses, errors, limits, and ASP == Python."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solver_fixtures import VALUES, a, obj, objects, rules, vocab

from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.rules.ast import And, Atom, Or, Part, Rule
from kari.solver import compile_rules, compute_coverage, has_property, python_coverage
from kari.solver.control import solve
from kari.solver.facts import object_facts, taxonomy_facts

V = vocab()
KNIFE = obj("knife", ("blade", "SHAPE", "sharp_edge"), ("blade", "MADE_OF", "steel"), ("handle", "MADE_OF", "wood"),
            parts=("blade", "handle"))
# the sharp edge is on the tip, the metal on the handle: a single part has both only in the any-part reading
SPLIT = obj("split", ("tip", "SHAPE", "sharp_edge"), ("handle", "MADE_OF", "metal"), parts=("tip", "handle"))
NAIL = obj("nail", ("whole", "SHAPE", "pointed"), ("whole", "MADE_OF", "steel"))
CUT = Rule("cut", Or((Part("x", And((a("SHAPE:sharp_edge", "x"), a("MADE_OF:metal", "x")))),
                     And((a("SHAPE:pointed"), a("MADE_OF:rigid_material"))))))


def rows(rule_list, objs, semantics):
    return [(r.object, r.covered, r.branch, r.part) for r in compute_coverage(rule_list, objs, V, semantics)]


def test_taxonomy_makes_steel_metal() -> None:
    assert has_property(NAIL, "MADE_OF", "metal", V) and has_property(NAIL, "MADE_OF", "material", V)
    assert not has_property(NAIL, "MADE_OF", "steel_alloy", V)
    assert not has_property(obj("w", ("whole", "MADE_OF", "metal")), "MADE_OF", "steel", V)


def test_strict_and_any_part_differ_where_atoms_split_over_parts() -> None:
    assert rows([CUT], [KNIFE, SPLIT, NAIL], "strict") == [
        ("knife", True, 0, "blade"), ("split", False, None, None), ("nail", True, 1, None)]
    assert rows([CUT], [KNIFE, SPLIT, NAIL], "any-part") == [
        ("knife", True, 0, None), ("split", True, 0, None), ("nail", True, 1, None)]


def test_whole_properties_count_for_parts_only_any_part() -> None:
    rule = Rule("pierce", Part("x", a("SHAPE:pointed", "x")))
    assert rows([rule], [NAIL], "strict") == [("nail", False, None, None)]
    assert rows([rule], [NAIL], "any-part") == [("nail", True, 0, None)]


def test_distinct_part_variables_need_distinct_parts() -> None:
    rule = Rule("grip", Part("x", And((a("MADE_OF:metal", "x"), Part("y", a("MADE_OF:wood", "y"))))))
    one = obj("one", ("blade", "MADE_OF", "steel"), ("blade", "MADE_OF", "wood"), parts=("blade",))
    two = obj("two", ("blade", "MADE_OF", "steel"), ("handle", "MADE_OF", "wood"))
    assert rows([rule], [one, two], "strict") == [("one", False, None, None), ("two", True, 0, "blade")]
    assert rows([rule], [one, two], "any-part") == [("one", True, 0, None), ("two", True, 0, None)]


def test_witness_is_lowest_branch_and_smallest_part() -> None:
    rule = Rule("r", Or((a("SIZE:long"), Part("x", a("MADE_OF:metal", "x")))))
    forks = obj("forks", ("tip", "MADE_OF", "steel"), ("handle", "MADE_OF", "metal"), ("blade", "MADE_OF", "steel"))
    assert rows([rule], [forks], "strict") == [("forks", True, 1, "blade")]


def test_compile_one_body_per_branch_with_taxonomy_and_synonyms() -> None:
    rule = Rule("cut", Or((Part("x", And((a("SHAPE:sharp_edge", "x"), a("MADE_OF:metallic", "x")))),
                           a("SHAPE:pointed"))))
    text = compile_rules([rule], V, "strict")
    bodies = [line for line in text.splitlines() if line.startswith("branch(")]
    assert bodies == ['branch(0,0,O,X1) :- prop(O,X1,shape,"sharp_edge"), prop(O,X1,made_of,"metal"), part(O,X1).',
                      'branch(0,1,O,#sup) :- prop(O,"whole",shape,"pointed").']
    assert 'isa(made_of,"steel","metal").' in text
    assert "part(O," not in compile_rules([rule], V, "any-part")


def test_fixed_encoding_runs_on_its_own_and_agrees_with_the_fast_path() -> None:
    objs = [KNIFE, SPLIT, NAIL]
    for semantics in ("strict", "any-part"):
        out = solve([compile_rules([CUT, CUT], V, semantics), object_facts(objs, V), taxonomy_facts(V)],
                    ["facts.lp", "coverage.lp"], time_limit=10)
        standalone = {(r, o): (b, w) for _, r, o, b, w in out.atoms}
        fast = compute_coverage([CUT, CUT], objs, V, semantics)
        assert {(row.rule, objs.index(next(x for x in objs if x.id == row.object))): (row.branch, row.part)
                for row in fast if row.covered} == standalone


@pytest.mark.parametrize("atom, code", [(Atom("COLOUR", "red"), "unknown-predicate"),
                                        (Atom("MADE_OF", "sharp_edge"), "ill-typed-value"),
                                        (Atom("SHAPE", "foldable"), "banned-value")])
def test_unknown_predicate_ill_typed_or_banned_value_names_the_rule(atom: Atom, code: str) -> None:
    with pytest.raises(KariError) as err:
        compute_coverage([CUT, Rule("bad_rule", atom)], [NAIL], V)
    assert err.value.code == code and "bad_rule" in str(err.value)
    with pytest.raises(KariError):
        compile_rules([Rule("bad_rule", atom)], V, "strict")


def test_a_new_rule_value_is_added_to_the_vocabulary_not_an_error() -> None:
    vocab = Vocabulary.load()
    rule = Rule("protect", a("MADE_OF:Kevlar"), origin=("rules.kari", 3))
    rows = compute_coverage([rule], [NAIL, obj("vest", ("whole", "MADE_OF", "kevlar"))], vocab)
    assert [r.covered for r in rows] == [False, True]
    assert vocab.provenance("MADE_OF", "kevlar") == "rules.kari:3"


def test_free_variable_and_unknown_semantics_are_errors() -> None:
    with pytest.raises(KariError, match="undeclared PART variable"):
        compute_coverage([Rule("free", a("SHAPE:flat", "x"))], [NAIL], V, "strict")
    with pytest.raises(KariError, match="unknown semantics"):
        compute_coverage([CUT], [NAIL], V, "loose")


def test_time_limit_gives_a_clear_error() -> None:
    with pytest.raises(KariError, match="time limit") as err:
        compute_coverage([CUT] * 50, [KNIFE, NAIL], V, time_limit=0.0)
    assert err.value.code == "time-limit"


def test_batches_do_not_change_the_answer() -> None:
    many = [CUT, Rule("flat", a("SHAPE:flat")), Rule("pierce", Part("x", a("SHAPE:pointed", "x")))] * 5
    objs = [KNIFE, SPLIT, NAIL]
    for semantics in ("strict", "any-part"):
        assert compute_coverage(many, objs, V, semantics, max_bodies=1) == compute_coverage(many, objs, V, semantics)


def test_one_row_per_rule_and_object_in_order() -> None:
    out = compute_coverage([CUT, Rule("flat", a("SHAPE:flat"))], [KNIFE, NAIL], V)
    assert [(r.rule, r.affordance, r.object) for r in out] == [
        (0, "cut", "knife"), (0, "cut", "nail"), (1, "flat", "knife"), (1, "flat", "nail")]
    assert compute_coverage([], [KNIFE], V) == [] and compute_coverage([CUT], [], V) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rules(), min_size=1, max_size=4), st.lists(objects(), min_size=1, max_size=4),
       st.sampled_from(["strict", "any-part"]))
def test_asp_and_python_evaluator_agree(rule_list: list[Rule], objs: list, semantics: str) -> None:
    objs = [type(o)(f"o{i}", o.description, o.parts, o.properties) for i, o in enumerate(objs)]
    assert compute_coverage(rule_list, objs, V, semantics) == python_coverage(rule_list, objs, V, semantics)


@settings(max_examples=60, deadline=None)
@given(objects(), st.sampled_from(sorted((p, v) for p, vs in VALUES.items() for v in vs)))
def test_has_property_agrees_with_the_asp_whole_object_reading(o, question) -> None:
    rule = Rule("q", Atom(*question))
    assert compute_coverage([rule], [o], V)[0].covered == has_property(o, *question, V)


def test_covered_pairs_are_the_covered_rows_of_the_coverage() -> None:
    from kari.solver.coverage import covered_pairs

    voc = Vocabulary.load()
    rules = [Rule("cut", Or((a("SHAPE:sharp_edge"), a("MADE_OF:metal")))), Rule("float", a("MADE_OF:wood")),
             Rule("none", a("SIZE:huge"))]
    things = [obj("knife", ("whole", "SHAPE", "sharp_edge"), ("whole", "MADE_OF", "metal")),
              obj("raft", ("whole", "MADE_OF", "wood")), obj("pebble", ("whole", "SIZE", "tiny"))]
    rows = compute_coverage(rules, things, voc)
    pairs = covered_pairs(rules, things, voc)
    assert pairs == {(r.affordance, r.object) for r in rows if r.covered} == {("cut", "knife"), ("float", "raft")}
