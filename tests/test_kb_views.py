"""The SQL views (object properties with parts, affordance evidence) and their typed Python readers."""

from __future__ import annotations

import pytest
from test_kb_helpers import DATA

from kari.core.benchmark import Property
from kari.errors import KariError
from kari.kb import load_files, open_db
from kari.kb.graph import graph_view
from kari.kb.views import affordance_evidence, objects_from_db


@pytest.fixture(scope="module")
def con():
    connection = open_db(":memory:", lexicon=DATA / "lexicon.tsv")
    load_files(connection, [DATA / "views_kb.tsv"])
    yield connection
    connection.close()


def rows(con, sql):
    return set(con.execute(sql).fetchall())


def test_object_property_whole_parts_and_untyped(con):
    got = rows(con, "SELECT object, part, predicate, value, edge_id FROM object_property WHERE object = 'knife'")
    assert got == {
        ("knife", "blade", "SHAPE", "sharp_edge", "v3"),     # blade HasProperty sharp, knife HasA blade
        ("knife", "blade", "MADE_OF", "steel", "v4"),
        ("knife", "handle", "MADE_OF", "wood", "v5"),        # handle PartOf knife
        ("knife", "whole", None, "shiny_thing", "v6"),       # not in the lexicon: kept, untyped
    }


def test_object_specific_part_encoding(con):
    # 'spoon/bowl HasProperty round' is a property of the spoon's bowl only, and makes bowl a part of spoon
    assert rows(con, "SELECT object, part, predicate, value FROM object_property WHERE object = 'spoon'") == {
        ("spoon", "bowl", "SHAPE", "round"), ("spoon", "whole", "MADE_OF", "steel")}
    assert ("spoon", "bowl") in rows(con, "SELECT object, part FROM object_parts")


def test_provenance_columns(con):
    row = con.execute("SELECT relation, source, file, line, part_edge_id FROM object_property "
                      "WHERE object = 'knife' AND part = 'handle'").fetchone()
    assert row == ("/r/MadeOf", "CN", str((DATA / "views_kb.tsv").resolve()), 6, "v2")


def test_objects_from_db_typed_rows_only(con):
    objects = {o.id: o for o in objects_from_db(con)}
    knife = objects["knife"]
    assert set(knife.parts) == {"blade", "handle"}
    assert set(knife.properties) == {Property("blade", "SHAPE", "sharp_edge"), Property("blade", "MADE_OF", "steel"),
                                     Property("handle", "MADE_OF", "wood")}
    assert knife.values("MADE_OF") == {"steel", "wood"}
    assert objects["spoon"].parts == ("bowl",)
    assert "bread" not in objects                   # no typed property


def test_affordance_evidence(con):
    got = {(e.verb, e.object, e.polarity, e.relation) for e in affordance_evidence(con)}
    assert got == {("cut_bread", "knife", "positive", "/r/UsedFor"),
                   ("cut", "knife", "positive", "/r/CapableOf"),
                   ("cut", "spoon", "negative", "/r/NotCapableOf"),
                   ("sliced", "bread", "positive", "/r/ReceivesAction")}
    only = affordance_evidence(con, verbs=["cut"])
    assert {e.object for e in only} == {"knife", "spoon"} and all(e.line > 1 for e in only)


def test_aristo_equivalents(tmp_path):
    path = tmp_path / "aristo.tsv"
    base = "0.9\tmost\t{a}\t{p}\t{b}\tS.\t0.8\tn\tn\tn\tx_n1\ty_n1\t1\n"
    path.write_text(base.format(a="hammer", p="have", b="handle") + base.format(a="handle", p="make of", b="wood")
                    + base.format(a="hammer", p="use for", b="driving nails"), encoding="utf-8")
    con = open_db(":memory:", lexicon=DATA / "lexicon.tsv")
    load_files(con, [path])
    assert [(o.id, o.properties) for o in objects_from_db(con) if o.id == "hammer"] == [
        ("hammer", (Property("handle", "MADE_OF", "wood"),))]
    evidence = [(e.verb, e.object, e.polarity) for e in affordance_evidence(con)]
    assert evidence == [("driving_nails", "hammer", "positive")]


def test_graph_view_needs_a_filter(con):
    with pytest.raises(KariError, match="graph_view needs"):
        graph_view(con)
    everything = graph_view(con, all_edges=True)
    assert everything.number_of_edges() == 12


def test_graph_view_selection(con):
    g = graph_view(con, relations=["/r/HasA", "/r/PartOf"])
    assert set(g.edges(keys=True)) == {("/c/en/knife/n", "/c/en/blade", "v1"), ("/c/en/handle", "/c/en/knife/n", "v2")}
    assert g.nodes["/c/en/knife/n"]["label"] == "knife" and not g.graph["truncated"]
    g = graph_view(con, nodes=["/c/en/spoon"], limit=1)
    assert g.number_of_edges() == 1 and g.graph["truncated"]
    g = graph_view(con, relations=["/r/MadeOf"], nodes=["/c/en/blade"])
    assert [d["relation"] for _, _, d in g.edges(data=True)] == ["/r/MadeOf"]


def test_untyped_property_rows_stay_visible_on_the_real_excerpt():
    """Every HasProperty / MadeOf edge of the CSKG excerpt shows up on 'whole', typed or not (shipped maps)."""
    con = open_db(":memory:")
    load_files(con, [DATA / "cskg_excerpt.tsv"])
    edges = con.execute("SELECT count(*) FROM edges WHERE relation IN ('/r/HasProperty', '/r/MadeOf')").fetchone()[0]
    shown = con.execute("SELECT count(DISTINCT edge_id) FROM object_property WHERE part = 'whole'").fetchone()[0]
    assert edges > 0 and shown == edges
    parts = con.execute("SELECT count(*) FROM edges WHERE relation IN ('/r/HasA', '/r/PartOf')").fetchone()[0]
    assert con.execute("SELECT count(*) FROM object_parts").fetchone()[0] == parts


def _tsv(path, rows) -> None:
    path.write_text("node1\tlabel\tnode2\n" + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")


def test_a_node_with_parts_only_is_an_object_and_an_unknown_madeof_word_a_material(tmp_path, capfd):
    """A node the KB gives only a part (`doohickey HasA handle`) was no object: a rule on its part never covered
    it and its label counted as missed; a MadeOf word the lexicon does not know (`unobtainium`, `forged_iron`) was
    an untyped row, never read into the vocabulary, so its object was none either."""
    from cli_support import kari

    from kari.kb import load_into
    from kari.vocab.vocabulary import open_vocabulary

    kb, db = tmp_path / "kb.tsv", tmp_path / "kb.duckdb"
    _tsv(kb, [("doohickey", "HasA", "handle"), ("doohickey", "UsedFor", "cut"), ("widget", "MadeOf", "unobtainium"),
              ("widget", "MadeOf", "forged_iron"), ("widget", "UsedFor", "cut"), ("blob", "HasProperty", "zorby")])
    load_into(db, [kb])
    con = open_db(db, read_only=True)
    try:
        objects = {o.id: o for o in objects_from_db(con)}
    finally:
        con.close()
    assert objects["doohickey"].parts == ("handle",) and objects["doohickey"].properties == ()
    assert objects["doohickey"].source == f"{kb.resolve()}:2"
    assert objects["widget"].values("MADE_OF") == {"unobtainium", "forged_iron"}
    assert "blob" not in objects        # a HasProperty word the lexicon does not know says no predicate
    vocab = open_vocabulary(db=db)
    assert vocab.has_value("MADE_OF", "unobtainium") and vocab.is_a("MADE_OF", "forged_iron", "iron")
    assert vocab.provenance("MADE_OF", "unobtainium") == f"{kb.resolve()}:4"
    rules = tmp_path / "r.kari"
    rules.write_text("cut := OR(PART(x, SHAPE:handled), MADE_OF:iron)\n", encoding="utf-8")
    code, _, err = kari(capfd, "coverage", "--rules", rules, "--db", db)
    assert code == 0, err
    con = open_db(db, read_only=True)
    try:
        covered = dict(con.execute("SELECT object, covered FROM coverage").fetchall())
    finally:
        con.close()
    assert covered == {"doohickey": True, "widget": True}


def test_an_objects_source_is_its_own_first_edge(tmp_path):
    """An object's FILE:LINE was the smallest 'file:line' string among its properties' edges: line 10 before line
    9, and for a property it has through a part, the part node's edge in another file."""
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    _tsv(first, [(f"filler{i}", "MadeOf", "steel") for i in range(7)] + [("pan", "MadeOf", "iron"),
                                                                         ("pan", "MadeOf", "steel"),
                                                                         ("blade", "HasProperty", "sharp")])
    _tsv(second, [("gizmo", "HasA", "blade")])
    con = open_db(":memory:")
    try:
        load_files(con, [first, second])
        objects = {o.id: o for o in objects_from_db(con)}
    finally:
        con.close()
    assert objects["pan"].source == f"{first.resolve()}:9"
    assert objects["gizmo"].source == f"{second.resolve()}:2"
