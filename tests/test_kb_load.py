"""Loading the supported formats into the DuckDB KB: values, labels, provenance, dedupe."""

from __future__ import annotations

import gzip
import shutil

import pytest
from test_kb_helpers import DATA, edge_set

from kari.errors import KariError
from kari.kb import load_files, open_db
from kari.kb.query import show_node, stats


@pytest.fixture
def con():
    connection = open_db(":memory:")
    yield connection
    connection.close()


def test_cskg_excerpt_loads_with_provenance_and_labels(con):
    report = load_files(con, [DATA / "cskg_excerpt.tsv"])
    lines = len((DATA / "cskg_excerpt.tsv").read_text(encoding="utf-8").splitlines()) - 1
    assert report.files[0].format == "cskg5"
    assert report.files[0].lines == lines == report.edges_added
    row = con.execute("SELECT node1, relation, node2, source, weight, file, line, kari_label(node1) FROM edges "
                      "WHERE node1 = '/c/en/0_12_0s/n'").fetchone()
    assert row[:5] == ("/c/en/0_12_0s/n", "/r/FormOf", "/c/en/0_12_0", "CN", 1.0)
    assert row[5] == str((DATA / "cskg_excerpt.tsv").resolve()) and row[6] == 2
    assert row[7] == "0 12 0s"
    # CSV-style quoting of the early CSKG file is decoded; a trailing backslash is plain text there
    nodes = {r[0] for r in con.execute("SELECT node1 FROM edges UNION SELECT node2 FROM edges").fetchall()}
    assert 'vg:"10"' in nodes and 'vg:"woman' in nodes and "vg:neck\\" in nodes
    assert 'at:tell_you\'ve_tried_to_help_with_"the_attempt"' in nodes


@pytest.mark.parametrize(("node", "label"), [
    ("/c/en/knife/n", "knife"), ("/c/en/bread_knife", "bread knife"),
    ("/c/en/keyboard+vg:keyboard+rg:keyboard", "keyboard"), ("vg:ass+/c/en/ass+rg:ass", "ass"),
    ("wn:volt.n.01+/c/en/volt/n/wn/quantity", "volt"), ("wn:abvolt.n.01", "abvolt"),
    ("at:playing_golf", "playing golf"), ("grass seed", "grass seed"), ("/r/UsedFor", "UsedFor"),
])
def test_readable_labels(con, node, label):
    assert con.execute("SELECT kari_label(?)", [node]).fetchone()[0] == label


def test_relation_labels(con):
    got = [con.execute("SELECT kari_relation_label(?)", [r]).fetchone()[0] for r in ("/r/UsedFor", "at:xWant")]
    assert got == ["used for", "x want"]


def test_kgtk_value_rules(con):
    load_files(con, [DATA / "kgtk_values.tsv"])
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT id, node1, node2, kari_node_label(node2, node2_label), kari_node_label(node1, node1_label), line "
        "FROM edges").fetchall()}
    # a '|' list in node2 gives one edge per value, with the matching label
    assert rows["k1-1"] == ("/c/en/knife/n", "/c/en/cut", "cut", "knife", 2)
    assert rows["k1-2"] == ("/c/en/knife/n", "/c/en/slice", "slice", "knife", 2)
    assert rows["k2"][1:3] == ("sharp", "sharp")                      # 'sharp'@en
    assert rows["k3"][1] == 'a "quoted" text\twith tab'               # "..." with escapes
    assert rows["k4"][0] == "/c/en/pipe|bar"                          # escaped bar in a symbol


def test_escapes_in_a_later_node2_list_member_are_decoded_and_checked(con, tmp_path):
    """The escape test reads the raw node2 and node2;label (before a list is split): an escape or quote in
    the second member only is decoded, and a bad one refused at its line."""
    kb = tmp_path / "members.tsv"
    kb.write_text('id\tnode1\trelation\tnode2\tnode2;label\n'
                  'e1\t/c/en/a\t/r/IsA\t/c/en/b|"c \\"d\\""\tb|\'see\'@en\n', encoding="utf-8")
    load_files(con, [kb])
    rows = con.execute("SELECT id, node2, node2_label FROM edges ORDER BY id").fetchall()
    assert rows == [("e1-1", "/c/en/b", "b"), ("e1-2", 'c "d"', "'see'@en")]
    bad = tmp_path / "bad_member.tsv"
    bad.write_text('id\tnode1\trelation\tnode2\n'
                   'e1\t/c/en/a\t/r/IsA\t/c/en/b\n'
                   'e2\t/c/en/a\t/r/IsA\t/c/en/b|/c/en/c\\q\n', encoding="utf-8")
    with pytest.raises(KariError) as err:
        load_files(con, [bad])
    assert err.value.line == 3 and "bad backslash escape" in str(err.value)


def test_gzip_and_dedupe_on_reload(con, tmp_path):
    gz = tmp_path / "excerpt.tsv.gz"
    with open(DATA / "cskg_excerpt.tsv", "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    first = load_files(con, [DATA / "cskg_excerpt.tsv"]).edges_added
    before = edge_set(con)
    again = load_files(con, [gz, DATA / "cskg_excerpt.tsv"])
    assert first > 200 and again.edges_added == 0 and edge_set(con) == before
    assert [f.lines for f in again.files] == [first, first]


def test_duplicates_inside_one_file_keep_the_first_line(con, tmp_path):
    path = tmp_path / "dup.tsv"
    path.write_text("node1\tlabel\tnode2\tdatasource\tweight\n/c/en/a\t/r/IsA\t/c/en/b\tCN\t1.0\n"
                    "/c/en/a\t/r/IsA\t/c/en/b\tCN\t2.0\n/c/en/a\t/r/IsA\t/c/en/b\tVG\t1.0\n", encoding="utf-8")
    assert load_files(con, [path]).edges_added == 2
    assert con.execute("SELECT source, weight, line FROM edges ORDER BY line").fetchall() == [
        ("CN", 1.0, 2), ("VG", 1.0, 4)]


def test_an_edge_without_source_is_one_edge_across_files_and_inside_one(con, tmp_path):
    """No key is stored: a load compares content, a missing source as an empty one."""
    one, two = tmp_path / "one.tsv", tmp_path / "two.tsv"
    one.write_text("knife\tUsedFor\tcut\nknife\tUsedFor\tcut\nspoon\tUsedFor\tstir\n", encoding="utf-8")
    two.write_text("spoon\tUsedFor\tstir\t1.0\t\nspoon\tUsedFor\tstir\t1.0\tnorms\ncup\tUsedFor\tdrink\t1.0\t\n",
                   encoding="utf-8")
    assert load_files(con, [one]).edges_added == 2
    assert load_files(con, [two]).edges_added == 2       # spoon-stir is in the KB already; with a source it is new
    rows = con.execute("SELECT node1, node2, coalesce(source, ''), line FROM edges ORDER BY node1, line").fetchall()
    assert rows == [("cup", "drink", "", 3), ("knife", "cut", "", 1), ("spoon", "stir", "norms", 2),
                    ("spoon", "stir", "", 3)]


def test_a_kb_made_when_edges_had_a_stored_key_is_upgraded_on_open(tmp_path):
    """Before the content comparison, every edge stored ``edge_key`` (md5 of its content), NOT NULL: a writable
    open of such a KB drops the column, so that the next load inserts and dedupes as in a new KB."""
    db = tmp_path / "old.duckdb"
    con = open_db(db)
    load_files(con, [DATA / "cskg_excerpt.tsv"])
    con.execute("ALTER TABLE edges ADD COLUMN edge_key UHUGEINT DEFAULT 0")
    con.execute("ALTER TABLE edges ALTER COLUMN edge_key SET NOT NULL")
    con.execute("UPDATE kari_meta SET value = 'an older schema' WHERE key = 'sql_sha256'")
    before = edge_set(con)
    con.close()
    con = open_db(db)
    try:
        assert "edge_key" not in [row[0] for row in con.execute("DESCRIBE edges").fetchall()]
        assert load_files(con, [DATA / "cskg_excerpt.tsv"]).edges_added == 0 and edge_set(con) == before
    finally:
        con.close()


@pytest.mark.parametrize("name", ["aristo_readme_rows.tsv", "aristo_headerless.tsv"])
def test_aristo_readme_rows(con, name):
    report = load_files(con, [DATA / name])
    assert report.files[0].format == "aristo" and report.edges_added == 8
    row = con.execute("SELECT node1, relation, node2, qstrength, quantifier, score, weight, tuple_provenance, "
                      "sentence, source FROM edges WHERE relation = 'destroy'").fetchone()
    assert row == ("acid", "destroy", "bacterium", 0.5, "some", 0.93, 0.93, "816424  (acid, kill, bacterium)",
                   "Some acid destroys bacteria.", "aristo")
    assert con.execute("SELECT count(*) FROM edges WHERE node1 = 'grass seed'").fetchone()[0] == 1


@pytest.mark.parametrize("name", ["triples.csv", "triples.jsonl", "triples_headerless.tsv"])
def test_plain_triples(con, name):
    report = load_files(con, [DATA / name])
    assert report.files[0].format == "triples" and report.edges_added == 2
    assert con.execute("SELECT count(*) FROM edges WHERE node1 IN ('knife', 'bread knife', 'spoon')").fetchone()[0] == 2


def test_triples_weight_and_source(con):
    load_files(con, [DATA / "triples.csv"])
    assert con.execute("SELECT weight, source, line FROM edges WHERE node1 = 'knife'").fetchone() == (1.5, "hand", 2)


def test_stats_and_show(con):
    load_files(con, [DATA / "cskg_excerpt.tsv"])
    result = stats(con)
    assert result["edges"] == sum(result["relations"].values()) == sum(result["sources"].values())
    assert result["nodes"] > 0 and result["files"][0]["format"] == "cskg5"
    edges = show_node(con, "/c/en/keyboard")          # matched by readable label
    assert edges and all("keyboard" in e["node1"] or "keyboard" in e["node2"] for e in edges)
    assert show_node(con, "no such node at all") == []


def test_show_of_a_name_without_letters_names_no_node(con, tmp_path):
    """'' and '#' have no label key, and matched every node whose label has none either (`@`)."""
    kb = tmp_path / "kb.jsonl"
    kb.write_text('{"subject": "obj15", "relation": "MadeOf", "object": "@"}\n', encoding="utf-8")
    load_files(con, [kb])
    assert show_node(con, "") == [] and show_node(con, "#") == []
    assert [e["node2"] for e in show_node(con, "@")] == ["@"]      # an exact node id still is one


def test_forced_format_mismatch_is_reported(con):
    from kari.errors import KariError

    with pytest.raises(KariError, match="CSKG header"):
        load_files(con, [DATA / "kgtk_values.tsv"], fmt="cskg5")


def test_a_kgtk_header_in_a_csv_file_is_named_with_the_mend(con, tmp_path):
    """A KGTK header written with commas was detected as KGTK, read with TABs and failed with "expected 3
    columns, found 1" on line 2; --format triples loads it."""
    from kari.errors import KariError

    path = tmp_path / "kb.csv"
    path.write_text("node1,label,node2\nknife,MadeOf,steel\n", encoding="utf-8")
    for fmt in ("auto", "kgtk"):
        with pytest.raises(KariError) as caught:
            load_files(con, [path], fmt=fmt)
        assert (caught.value.line, caught.value.code) == (1, "kb-header") and "--format triples" in caught.value.message
    assert load_files(con, [path], fmt="triples").edges_added == 1


def test_line_numbers_stay_exact_on_a_file_larger_than_one_read_buffer(con, tmp_path):
    """The parallel load must number lines in file order, on a file (~80 MB) larger than DuckDB's CSV read buffer
    (64 MiB with kari's reader options), which parallel scans would read out of order (~3 s)."""
    path = tmp_path / "big.tsv"
    with open(path, "w", encoding="utf-8") as out:
        out.write("id\tnode1\tlabel\tnode2\tsentence\n")
        out.writelines(f"{n}\t/c/en/a{n}\t/r/IsA\t/c/en/b{n}{'|/c/en/x' if n % 1000 == 0 else ''}\t{'x' * 140}\n"
                       for n in range(2, 450_002))
    report = load_files(con, [path])
    assert path.stat().st_size > 2**26 and report.files[0].lines == 450_000
    assert report.edges_added == 450_000 + 450
    wrong = con.execute("SELECT count(*) FROM edges WHERE line != CAST(split_part(id, '-', 1) AS BIGINT)")
    assert wrong.fetchone()[0] == 0


def test_load_restores_connection_settings(con, tmp_path):
    settings = "SELECT current_setting('preserve_insertion_order'), current_setting('memory_limit')"
    before = con.execute(settings).fetchone()
    load_files(con, [DATA / "cskg_excerpt.tsv"])
    bad = tmp_path / "bad.tsv"
    bad.write_text("node1\tlabel\tnode2\n/c/en/a\t/r/IsA\t\"unterminated\n", encoding="utf-8")
    with pytest.raises(KariError):
        load_files(con, [bad])
    assert con.execute(settings).fetchone() == before


@pytest.mark.parametrize(("body", "line", "col", "what"), [
    (b"".join(b"o%d\tMadeOf\tsteel\n" % i for i in range(5000)) + b"x\tMadeOf\tsteel\r\ny\tMadeOf\tglass\n",
     5002, None, "ends in CRLF where the file's first line ends in LF"),
    (b"o1\tMadeOf\tst\reel\n", 2, 13, "carriage return (CR) inside the line"),
])
def test_a_stray_carriage_return_is_named_at_its_line(tmp_path, body, line, col, what):
    """One CRLF line in an LF file, or a CR inside a value, stopped the load with DuckDB's own words ("The CSV
    Parser state machine reached an invalid state") and no line; a file that is CRLF throughout loads."""
    path = tmp_path / "kb.tsv"
    for data in (b"node1\tlabel\tnode2\n" + body, gzip.compress(b"node1\tlabel\tnode2\n" + body)):
        path.write_bytes(data)
        con = open_db(":memory:")
        try:
            with pytest.raises(KariError) as caught:
                load_files(con, [path])
            assert con.execute("SELECT count(*) FROM edges").fetchone() == (0,)
        finally:
            con.close()
        assert (caught.value.line, caught.value.col, caught.value.code) == (line, col, "kb-line-ending")
        assert what in caught.value.message
    path.write_bytes(b"node1\tlabel\tnode2\r\n" + b"".join(b"o%d\tMadeOf\tsteel\r\n" % i for i in range(50)))
    con = open_db(":memory:")
    try:
        assert load_files(con, [path]).edges_added == 50
    finally:
        con.close()
