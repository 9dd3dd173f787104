"""The vocabulary in the KB database (DuckDB table ``vocabulary``) and its consistency checks."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from kari.errors import KariError
from kari.domain.vocabulary import Vocabulary, load_vocabulary


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
                                 isa=[("MADE_OF", "a", "b"), ("MADE_OF", "b", "a")], banned=[("foldable", "dynamic")])
    problems = vocab.validate()
    assert any("cycle" in p for p in problems) and any("banned" in p for p in problems)


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
