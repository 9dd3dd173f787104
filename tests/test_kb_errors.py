"""Malformed input: one FILE:LINE error (exit code 2) and the database left exactly as it was."""

from __future__ import annotations

import pytest
from test_kb_helpers import DATA, snapshot

from kari.errors import KariError
from kari.kb import load_files, open_db

CASES = [
    ("bad_columns.tsv", 4, "expected 5 columns, found 6"),
    ("bad_escape.tsv", 3, "column node2: bad backslash escape"),
    ("unterminated_quote.tsv", 5, "column node2: unterminated or malformed \"string\""),
    ("unterminated_quote_cskg5.tsv", 3, "column node1: unterminated or malformed \"quoted\" value"),
    ("empty.tsv", 1, "empty file"),
    ("latin1.tsv", 3, "not UTF-8 (byte 0xe9)"),
    ("blank_line.tsv", 3, "empty line"),
    ("bad_weight.tsv", 3, "weight is not a finite number: heavy"),
    ("bad_lang.tsv", 2, "malformed language-qualified string"),
    ("bad.jsonl", 2, "invalid JSON"),
]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """One KB for the whole module: failed loads must not change it, which every test checks."""
    con = open_db(tmp_path_factory.mktemp("kb") / "kb.duckdb")
    load_files(con, [DATA / "views_kb.tsv"])
    yield con
    con.close()


@pytest.mark.parametrize(("name", "line", "message"), CASES)
def test_malformed_file_reports_file_line_and_changes_nothing(loaded, name, line, message):
    before = snapshot(loaded)
    with pytest.raises(KariError) as info:
        load_files(loaded, [DATA / name])
    err = info.value
    assert (err.file, err.line, err.exit_code) == (str(DATA / name), line, 2)
    assert message in err.message
    assert str(err).startswith(f"{DATA / name}:{line}")
    assert snapshot(loaded) == before


def test_missing_file(loaded, tmp_path):
    before = snapshot(loaded)
    with pytest.raises(KariError, match="file not found") as info:
        load_files(loaded, [tmp_path / "nope.tsv"])
    assert info.value.file == str(tmp_path / "nope.tsv") and info.value.exit_code == 2
    assert snapshot(loaded) == before


def test_error_deep_in_a_large_file_is_located_exactly(loaded, tmp_path):
    """DuckDB reads in parallel chunks; the reported line must still be the first bad one."""
    path = tmp_path / "big.tsv"
    rows = [f"/c/en/a{i}\t/r/IsA\t/c/en/b{i}\tCN\t1.0\n" for i in range(60_000)]
    rows[41_234] = "/c/en/x\t/r/IsA\t/c/en/y\tCN\t1.0\textra\n"
    rows[50_000] = "/c/en/x\t/r/IsA\n"
    path.write_text("node1\tlabel\tnode2\tdatasource\tweight\n" + "".join(rows), encoding="utf-8")
    before = snapshot(loaded)
    with pytest.raises(KariError) as info:
        load_files(loaded, [path])
    assert info.value.line == 41_236 and "found 6" in info.value.message
    assert snapshot(loaded) == before


def test_first_of_several_value_errors(loaded, tmp_path):
    path = tmp_path / "values.tsv"
    rows = [f"/c/en/a{i}\t/r/IsA\t/c/en/b{i}\tCN\t1.0\n" for i in range(30_000)]
    rows[29_000] = "/c/en/x\t/r/IsA\t/c/en/y\tCN\tnan-ish\n"
    rows[12_345] = "/c/en/x\t/r/IsA\t\"/c/en/y\tCN\t1.0\n"
    path.write_text("node1\tlabel\tnode2\tdatasource\tweight\n" + "".join(rows), encoding="utf-8")
    with pytest.raises(KariError) as info:
        load_files(loaded, [path])
    assert info.value.line == 12_347 and "node2" in info.value.message


def test_good_files_before_a_bad_one_stay_loaded(tmp_path):
    con = open_db(tmp_path / "kb.duckdb")
    with pytest.raises(KariError):
        load_files(con, [DATA / "triples.csv", DATA / "bad_columns.tsv"])
    assert con.execute("SELECT count(*) FROM edges").fetchone()[0] == 2
    assert con.execute("SELECT count(*) FROM loads").fetchone()[0] == 1


def test_bad_relation_map_and_lexicon(tmp_path):
    bad_map = tmp_path / "map.tsv"
    bad_map.write_text("relation\trole\n/r/UsedFor\tused_for\n", encoding="utf-8")
    with pytest.raises(KariError, match="unknown role") as info:
        open_db(":memory:", relation_map=bad_map)
    assert info.value.line == 2
    bad_lex = tmp_path / "lex.tsv"
    bad_lex.write_text("raw\tpredicate\tvalue\nsharp\tCOLOUR\tred\n", encoding="utf-8")
    with pytest.raises(KariError, match="unknown predicate"):
        open_db(":memory:", lexicon=bad_lex)
    with pytest.raises(KariError, match="file not found"):
        open_db(":memory:", lexicon=tmp_path / "missing.tsv")


def test_read_only_open_needs_a_kb(tmp_path):
    with pytest.raises(KariError, match="database not found"):
        open_db(tmp_path / "none.duckdb", read_only=True)


@pytest.mark.parametrize(("bad_at", "blank_at", "expected"), [(3, 5, 3), (5, 3, 3)])
def test_blank_line_and_bad_value_report_the_first(loaded, tmp_path, bad_at, blank_at, expected):
    rows = [f"/c/en/a{i}\t/r/IsA\t/c/en/b{i}\tCN\t1.0\n" for i in range(8)]
    rows[bad_at - 2] = "/c/en/x\t/r/IsA\t/c/en/y\tCN\theavy\n"
    rows[blank_at - 2] = "\n"
    path = tmp_path / "mixed.tsv"
    path.write_text("node1\tlabel\tnode2\tdatasource\tweight\n" + "".join(rows), encoding="utf-8")
    with pytest.raises(KariError) as info:
        load_files(loaded, [path])
    assert info.value.line == expected


def test_list_in_node1_is_rejected(loaded, tmp_path):
    path = tmp_path / "list.tsv"
    path.write_text("node1\trelation\tnode2\n/c/en/a|/c/en/b\t/r/IsA\t/c/en/c\n", encoding="utf-8")
    with pytest.raises(KariError, match=r"column node1: a list \(\|\) is not allowed") as info:
        load_files(loaded, [path])
    assert info.value.line == 2
