"""The vocabulary in the KB database (DuckDB table ``vocabulary``) and its consistency checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from kari.errors import KariError
from kari.vocab.vocabulary import Vocabulary, load_vocabulary
from kari.resources import asset_path


def test_shipped_vocabulary_is_consistent() -> None:
    vocab = Vocabulary.load()
    assert vocab.validate() == []
    assert vocab.normalise("MADE_OF", "Metallic") == "metal"
    assert {"metal", "wood"} <= vocab.values("MADE_OF")


def test_db_round_trip(tmp_path: Path) -> None:
    vocab = Vocabulary.load()
    vocab.add_value("SHAPE", "zigzag", "auditor")
    db = tmp_path / "kb.duckdb"
    with duckdb.connect(str(db)) as con:
        assert vocab.to_db(con) == len(vocab.rows())
        assert vocab.to_db(con) == len(vocab.rows())  # replaces, never appends
        kinds = dict(con.execute("SELECT kind, count(*) FROM vocabulary GROUP BY kind").fetchall())
    assert set(kinds) == {"value", "synonym", "isa", "banned", "exclusive"}
    again = load_vocabulary(db)
    assert again.rows() == vocab.rows()
    assert again.provenance("SHAPE", "zigzag") == "auditor"
    assert again.satisfies("MADE_OF", "steel", "metal")


def test_validate_finds_problems() -> None:
    vocab = Vocabulary.from_rows(values=[("MADE_OF", "a"), ("MADE_OF", "b"), ("MADE_OF", "foldable")],
                                 isa=[("MADE_OF", "a", "b")], banned=[("foldable", "dynamic")])
    assert any("banned" in p for p in vocab.validate())


def test_an_isa_cycle_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(KariError, match=r"is-a c -> a would close a cycle \(c -> a -> b -> c\)") as err:
        Vocabulary.from_rows(values=[("MADE_OF", v) for v in "abc"],
                             isa=[("MADE_OF", "a", "b"), ("MADE_OF", "b", "c"), ("MADE_OF", "c", "a")])
    assert err.value.code == "vocab-isa-cycle"
    with pytest.raises(KariError, match="would close a cycle"):
        Vocabulary.from_rows(values=[("MADE_OF", "a")], isa=[("MADE_OF", "a", "a")])
    folder = tmp_path / "vocab"
    shutil.copytree(asset_path("data", "vocabulary"), folder)
    with (folder / "isa.tsv").open("a", encoding="utf-8") as handle:
        handle.write("MADE_OF\tmaterial\tmetal\n")
    lines = len((folder / "isa.tsv").read_text(encoding="utf-8").splitlines())
    with pytest.raises(KariError) as err:
        Vocabulary.load(folder)
    assert str(err.value).startswith(f"{folder / 'isa.tsv'}:{lines}: vocab-isa-cycle: MADE_OF: is-a material -> "
                                     "metal would close a cycle (material -> metal")


def test_vocabulary_files_name_file_and_line_and_accept_a_bom(tmp_path: Path) -> None:
    folder = tmp_path / "vocab"
    shutil.copytree(asset_path("data", "vocabulary"), folder)
    values = folder / "values.tsv"
    values.write_bytes(b"\xef\xbb\xbf" + values.read_bytes())
    assert Vocabulary.load(folder).values("MADE_OF") == Vocabulary.load().values("MADE_OF")
    synonyms = folder / "synonyms.tsv"
    synonyms.write_text(synonyms.read_text(encoding="utf-8") + "MADE_OF\tshiny_stuff\tunobtainium\n",
                        encoding="utf-8")
    lines = len(synonyms.read_text(encoding="utf-8").splitlines())
    with pytest.raises(KariError) as err:
        Vocabulary.load(folder)
    assert str(err.value) == (f"{synonyms}:{lines}: vocab-synonym: synonym 'shiny_stuff' points to unknown MADE_OF "
                              "value 'unobtainium'")
    values.write_bytes(values.read_bytes() + b"SHAPE\t\xff\n")
    with pytest.raises(KariError, match=r"values.tsv:\d+:7: encoding: not UTF-8 \(byte 0xff\)"):
        Vocabulary.load(folder)


def test_bad_sources(tmp_path: Path) -> None:
    with pytest.raises(KariError, match="not found"):
        load_vocabulary(tmp_path / "nope")
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    assert load_vocabulary(empty).values("MADE_OF") == Vocabulary.load().values("MADE_OF")  # stores none yet
    junk = tmp_path / "junk.duckdb"
    junk.write_text("not a database")
    with pytest.raises(KariError):
        load_vocabulary(junk)
