"""Export to KGTK and back: the same edges."""

from __future__ import annotations

import pytest
from test_kb_helpers import DATA, edge_set

from kari.kb import load_files, open_db
from kari.kb.export import KGTK_HEADER, export_kgtk

FILES = ["cskg_excerpt.tsv", "kgtk_values.tsv", "aristo_readme_rows.tsv", "triples.csv", "views_kb.tsv"]


@pytest.mark.parametrize("out_name", ["out.tsv", "out.tsv.gz"])
def test_load_export_load_gives_the_same_edges(tmp_path, out_name):
    first = open_db(":memory:")
    load_files(first, [DATA / name for name in FILES])
    out = tmp_path / out_name
    assert export_kgtk(first, out) == len(edge_set(first))
    second = open_db(":memory:")
    report = load_files(second, [out])
    assert report.files[0].format == "kgtk"
    assert edge_set(second) == edge_set(first)
    # and once more: the export of the reloaded KB is byte-identical
    again = tmp_path / ("again-" + out_name)
    export_kgtk(second, again)
    if out_name.endswith(".tsv"):
        assert again.read_bytes() == out.read_bytes()


def test_export_header_and_atomicity(tmp_path):
    con = open_db(":memory:")
    load_files(con, [DATA / "kgtk_values.tsv"])
    out = tmp_path / "edges.tsv"
    export_kgtk(con, out)
    header = out.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert tuple(header[: len(KGTK_HEADER)]) == KGTK_HEADER
    assert [p.name for p in tmp_path.iterdir()] == ["edges.tsv"]       # no temporary leftovers
