"""The domain core's word handling: one normaliser (Python == the KB's SQL macro), word forms, open vocabulary."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kari.vocab.morphology import lemma, singular
from kari.core.terms import Question, normalise_term
from kari.vocab.vocabulary import Vocabulary
from kari.resources import asset_path


@pytest.fixture(scope="module")
def sql() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(asset_path("kb", "macros.sql").read_text(encoding="utf-8"))
    return con


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), max_size=30))
def test_python_and_sql_normalise_alike(sql: duckdb.DuckDBPyConnection, text: str) -> None:
    assert normalise_term(text) == sql.execute("SELECT kari_snake(?)", [text]).fetchone()[0]


def test_the_normaliser_on_words_people_write(sql: duckdb.DuckDBPyConnection) -> None:
    for raw, key in [("Crow's nest", "crow_s_nest"), (" Sharp-Edge ", "sharp_edge"), ("light weight", "light_weight"),
                     ("6-string", "6_string"), ("__x__", "x")]:
        assert normalise_term(raw) == key == sql.execute("SELECT kari_snake(?)", [raw]).fetchone()[0]


@pytest.mark.parametrize("word, one", [("holes", "hole"), ("boxes", "box"), ("batteries", "battery"),
                                       ("knives", "knife"), ("glass", None), ("canvas", None), ("bus", None)])
def test_singulars(word: str, one: str | None) -> None:
    assert singular(word) == one


@pytest.mark.parametrize("predicate, raw, value, how", [
    ("MADE_OF", "metal", "metal", "exact"),
    ("MADE_OF", "Metallic", "metal", "synonym"),
    ("MADE_OF", "aluminium", "aluminum", "synonym"),
    ("SIZE", "light_weight", "light", "synonym"),
    ("SIZE", "Light-Weight", "light", "synonym"),
    ("MADE_OF", "wooden", "wood", "synonym"),
    ("SHAPE", "handles", "handled", "variant"),  # a part name: "has a handle-like part"
    ("SHAPE", "rounded", "round", "synonym"),
    ("SHAPE", "bristles", "bristled", "variant"),
    ("MADE_OF", "made of steel", "steel", "variant"),
])
def test_known_words_are_read_into_canonical_values(predicate: str, raw: str, value: str, how: str) -> None:
    found = Vocabulary.load().canonicalise(predicate, raw, "test:1")
    assert (found.value, found.how) == (value, how)


def test_unknown_words_are_added_in_lemma_form_with_provenance_never_dropped() -> None:
    vocab = Vocabulary.load()
    assert vocab.canonicalise("SHAPE", "holes", "objects.jsonl:7") == ("hole", "added", "holes")
    assert vocab.canonicalise("SHAPE", "hole", "objects.jsonl:9").how == "exact"
    assert vocab.provenance("SHAPE", "hole") == "objects.jsonl:7"
    assert vocab.canonicalise("MADE_OF", "Kevlar", "x:1").value == "kevlar"
    assert vocab.canonicalise("SHAPE", "foldable", "x:2") == (None, "banned", "foldable")
    assert ("SHAPE", "hole", "objects.jsonl:7") in vocab.added_values()


def test_a_new_compound_is_a_its_head_word() -> None:
    vocab = Vocabulary.load()
    assert vocab.canonicalise("MADE_OF", "forged iron", "x:1").value == "forged_iron"
    assert vocab.satisfies("MADE_OF", "forged_iron", "metal")
    vocab.canonicalise("SHAPE", "bicycle_wheel", "x:2")
    vocab.canonicalise("SHAPE", "wheels", "x:3")  # the head word arrives later
    vocab.link_compounds()
    assert vocab.satisfies("SHAPE", "bicycle_wheel", "wheel")


def test_lemma_and_questions() -> None:
    assert lemma("has_wheels") == "wheel" and lemma("light_weight") == "light_weight"
    assert Question("SHAPE", "wheel").structured == "SHAPE:wheel" and Question("MADE_OF", "x") == ("MADE_OF", "x")
