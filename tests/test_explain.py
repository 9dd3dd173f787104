"""``kari explain``: proofs of rule verdicts agree with the solver, cite the facts, is-a steps and KB edges, and
say why a failing atom fails (exclusive, closed view, nothing stated)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solver_fixtures import a, obj, objects, rules, vocab

from kari.core.benchmark import ObjectRecord, Property
from kari.cli import run
from kari.domain.objects import evaluate_rule, object_view
from kari.vocab.vocabulary import Vocabulary
from kari.explain.proof import explain
from kari.explain.render import proof_text
from kari.rules.ast import And, Atom, Or, Part, Rule
from kari.solver.coverage import compute_coverage

V = vocab()
KB_DATA = Path(__file__).parent / "data" / "kb"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(rules(), min_size=1, max_size=3), st.lists(objects(), min_size=1, max_size=3),
       st.sampled_from(["strict", "any-part"]))
def test_the_proof_verdict_is_the_solver_coverage_row(rule_list, objs, semantics):
    objs = [ObjectRecord(f"o{i}", o.description, o.parts, o.properties) for i, o in enumerate(objs)]
    rows = compute_coverage(rule_list, objs, V, semantics)
    for row in rows:
        proof = explain(rule_list[row.rule], objs[int(row.object[1:])], V, semantics)
        assert proof.verdict() == (row.covered, row.branch, row.part), (row, proof.rule)
        assert [b.holds for b in proof.branches].index(True) == row.branch if row.covered else \
            not any(b.holds for b in proof.branches)
        _check_atoms(proof, objs[int(row.object[1:])])


def _check_atoms(proof, o):
    """Every atom's claim is true of the object: a true atom's support is stated and climbs the taxonomy to it;
    an unknown one has nothing of its predicate stated where it is read."""
    view = object_view(o, V)
    stated = {(p.part, p.predicate, p.value) for p in o.properties}
    for branch in proof.branches:
        for node in branch.tree.atoms():
            predicate, value = node.atom.split(":")
            facts = view.whole if node.on == "whole" else view.parts[node.on]
            assert node.holds == ((predicate, value) in facts)
            if node.holds:
                assert node.support
                for s in node.support:
                    assert s.isa[0] == s.value and s.isa[-1] == value
                    assert all(V.satisfies(predicate, lo, hi) for lo, hi in zip(s.isa, s.isa[1:], strict=False))
                    assert (s.part, predicate, s.value) in stated or s.origin == "part-name"
                    assert node.on == "whole" or s.part == node.on
            elif node.status == "unknown":
                assert not any(f[1] == predicate and (node.on == "whole" or f[0] == node.on) for f in stated)


def test_a_branch_that_holds_through_a_part_and_an_isa_chain():
    fork = obj("fork", ("tines", "MADE_OF", "steel"), ("handle", "MADE_OF", "wood"), parts=("tines", "handle"))
    rule = Rule("pierce_through", Or((Part("x", And((a("MADE_OF:rigid_material", "x"), a("SHAPE:pointed", "x")))),
                                      Part("x", a("MADE_OF:metal", "x")))))
    proof = explain(rule, fork, V, "strict")
    assert proof.verdict() == (True, 1, "tines") == evaluate_rule(rule, object_view(fork, V), "strict")
    first, second = proof.branches
    assert not first.holds and second.holds and second.binding == {"x": "tines"}
    atom = next(second.tree.atoms())
    assert atom.on == "tines" and [s.isa for s in atom.support] == [("steel", "metal")]
    # branch 0 fails on every part: tines is not pointed (it states no SHAPE but its name), the handle's wood
    tried = dict(first.tree.tried)
    assert set(tried) == {"tines", "handle"}
    failing = {n.atom: n for n in tried["tines"].atoms()}
    assert failing["SHAPE:pointed"].status == "false" and failing["SHAPE:pointed"].reason == "closed-view"
    assert failing["SHAPE:pointed"].stated == ("tine",)  # the part's name (its lemma) is its SHAPE fact
    chain = explain(Rule("r", a("MADE_OF:material")), fork, V).branches[0].tree.support
    assert {s.isa for s in chain} == {("steel", "metal", "rigid_material", "material"),
                                     ("wood", "rigid_material", "material")}


def test_failing_atoms_are_false_by_exclusion_false_by_the_closed_view_or_unknown():
    v = Vocabulary.from_rows(values=[("SIZE", "small"), ("SIZE", "large"), ("SIZE", "tiny"), ("MADE_OF", "metal"),
                                     ("MADE_OF", "wood"), ("SURFACE", "smooth")],
                             isa=[("SIZE", "tiny", "small")],
                             exclusive=[("SIZE", "size_class", "small"), ("SIZE", "size_class", "large")])
    awl = ObjectRecord("awl", properties=(Property("whole", "SIZE", "tiny"), Property("whole", "MADE_OF", "wood")))
    rule = Rule("r", And((Atom("SIZE", "large"), Atom("MADE_OF", "metal"), Atom("SURFACE", "smooth"))))
    proof = explain(rule, awl, v)
    assert not proof.covered
    nodes = {n.atom: n for n in proof.branches[0].tree.atoms()}
    assert (nodes["SIZE:large"].status, nodes["SIZE:large"].reason) == ("false", "exclusive")
    assert nodes["SIZE:large"].conflict == ("tiny (is-a small)", "size_class")
    assert (nodes["MADE_OF:metal"].status, nodes["MADE_OF:metal"].reason, nodes["MADE_OF:metal"].stated) == \
        ("false", "closed-view", ("wood",))
    assert (nodes["SURFACE:smooth"].status, nodes["SURFACE:smooth"].reason) == ("unknown", "nothing-stated")
    text = proof_text(proof)
    assert "NOT COVERED" in text and "exclusive" in text and "unknown: the object states nothing" in text


def test_strict_and_needs_distinct_parts():
    o = obj("o", ("blade", "MADE_OF", "steel"), parts=("blade",))
    rule = Rule("r", And((Part("x", a("MADE_OF:metal", "x")), Part("y", a("MADE_OF:steel", "y")))))
    proof = explain(rule, o, V, "strict")
    assert proof.verdict() == (False, None, None) == evaluate_rule(rule, object_view(o, V), "strict")
    assert proof.branches[0].tree.reason == "parts-must-differ"
    assert explain(rule, o, V, "any-part").covered


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    from kari.kb import load_into

    root = tmp_path_factory.mktemp("explain")
    load_into(root / "kb.duckdb", [KB_DATA / "views_kb.tsv"])
    (root / "rules.kari").write_text("cut := PART(x, AND(MADE_OF:metal, SHAPE:sharp_edge))\n")
    return root


def test_kb_objects_cite_their_edges_with_file_and_line(kb):
    from kari.explain.sources import open_objects, read_rules

    with open_objects(db=kb / "kb.duckdb") as source:
        rule = read_rules(source.vocab, kb / "rules.kari", affordance="cut")[0]
        proof = explain(rule, source.get("knife"), source.vocab, "strict", source.evidence)
    assert proof.verdict() == (True, 0, "blade")
    metal, sharp = list(proof.branches[0].tree.atoms())
    (support,) = metal.support
    assert support.isa[0] == "steel" and support.isa[-1] == "metal"
    (edge,) = support.evidence
    assert (edge["edge_id"], edge["relation"], edge["line"]) == ("v4", "/r/MadeOf", 5)
    assert edge["file"].endswith("views_kb.tsv") and edge["part_edge"]["edge_id"] == "v1"
    assert edge["part_edge"]["line"] == 2
    assert sharp.support[0].evidence[0]["raw"] == "sharp"  # the KB's word, typed by the value lexicon


def test_cli_explain_text_and_json(kb, capsys):
    assert run(["explain", "cut", "knife", "--db", str(kb / "kb.duckdb"), "--rules", str(kb / "rules.kari")]) == 0
    text = capsys.readouterr().out
    assert "cut on knife" in text and "strict reading: COVERED by branch 0, part blade" in text
    assert "KB edge v4" in text and "views_kb.tsv:5" in text
    assert run(["explain", "cut", "spoon", "--db", str(kb / "kb.duckdb"), "--rule", "SHAPE:round",
                "--semantics", "any-part", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["covered"] and data["semantics"] == "any-part"
    assert data["branches"][0]["proof"]["support"][0]["evidence"][0]["edge_id"] == "v11"
    assert run(["explain", "cut", "nothing", "--db", str(kb / "kb.duckdb"), "--rule", "SHAPE:round"]) == 2
    assert "unknown-object" in capsys.readouterr().err
    assert run(["explain", "cut", "knife", "--rule", "SHAPE:round"]) == 2  # no --bench or --db
    assert run(["explain", "nope", "knife", "--db", str(kb / "kb.duckdb"), "--rules", str(kb / "rules.kari")]) == 2


def test_cli_explain_bench_objects_cite_their_line(capsys):
    bench = Path(__file__).parent / "data" / "raw_mini"
    objects_file = bench / "objects.jsonl"
    first = json.loads(objects_file.read_text().splitlines()[0])
    prop = first["properties"][0]
    rule = f"{prop['predicate']}:{prop['value']}"
    assert run(["explain", "r", first["id"], "--bench", str(bench), "--rule", rule, "--json"]) == 0
    proofs = json.loads(capsys.readouterr().out)
    assert [p["semantics"] for p in proofs] == ["any-part", "strict"]
    assert proofs[0]["covered"] and proofs[0]["object_source"].endswith("objects.jsonl:1")
    evidence = proofs[0]["branches"][0]["proof"]["support"][0]["evidence"][0]
    assert evidence["line"] == 1 and evidence["file"].endswith("objects.jsonl")


def test_coverage_explain_writes_one_checked_proof_per_row(kb, tmp_path, capsys):
    import shutil

    import duckdb

    db = tmp_path / "kb.duckdb"
    shutil.copy(kb / "kb.duckdb", db)
    out = tmp_path / "proofs.jsonl"
    assert run(["coverage", "--rules", str(kb / "rules.kari"), "--db", str(db), "--semantics", "strict",
                "--explain", str(out)]) == 0
    assert "proofs into" in capsys.readouterr().out
    proofs = [json.loads(line) for line in out.read_text().splitlines()]
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT object, covered, branch, part FROM coverage ORDER BY rule, object").fetchall()
    assert [(p["object"], p["covered"], p["branch"], p["part"]) for p in proofs] == rows
    assert {p["semantics"] for p in proofs} == {"strict"} and any(p["covered"] for p in proofs)
    assert run(["coverage", "--rules", str(kb / "rules.kari"), "--db", str(db), "--explain", str(tmp_path)]) == 2
