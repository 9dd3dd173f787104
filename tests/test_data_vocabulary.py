"""The shipped vocabulary, value lexicon and bundled data agree with each other."""

from __future__ import annotations

import csv

import pytest

from kari.bench.reader import load_benchmark
from kari.resources import asset_path, bundled_bench_dir
from kari.core.terms import PREDICATES
from kari.vocab.vocabulary import Vocabulary


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load()


def test_vocabulary_loads_with_paper_values(vocab: Vocabulary) -> None:
    for predicate, value in [("MADE_OF", "metal"), ("MADE_OF", "rigid_material"), ("MADE_OF", "flexible_material"),
                             ("SHAPE", "pointed"), ("SHAPE", "tapered"), ("SHAPE", "cylindrical"), ("SIZE", "thin"),
                             ("SIZE", "long"), ("SIZE", "broad"), ("SURFACE", "smooth"), ("SURFACE", "transparent")]:
        assert value in vocab.values(predicate)
    assert vocab.satisfies("MADE_OF", "stainless_steel", "rigid_material")
    assert vocab.satisfies("MADE_OF", "porcelain", "brittle_material")
    assert not vocab.satisfies("MADE_OF", "metal", "steel")
    assert vocab.normalise("MADE_OF", "Metallic") == "metal"
    assert vocab.normalise("SHAPE", "sharp") == "sharp_edge"
    assert vocab.banned_reason("absorbent") == "affordance_adjective"
    assert vocab.banned_reason("foldable") == "dynamic"


def test_no_banned_term_is_a_value(vocab: Vocabulary) -> None:
    clashes = [(p, v) for p in PREDICATES for v in vocab.values(p) if vocab.banned_reason(v)]
    clashes += [(p, s) for p, s, _ in vocab.synonym_pairs() if vocab.banned_reason(s)]
    assert clashes == []


def test_every_object_value_is_in_the_vocabulary(vocab: Vocabulary) -> None:
    bench = load_benchmark(bundled_bench_dir(), None)
    unknown = {(p.predicate, p.value) for o in bench.objects.values() for p in o.properties
               if p.value not in vocab.values(p.predicate)}
    assert unknown == set()
    assert all(len(o.properties) >= 3 for o in bench.objects.values())


def test_lexicon_targets_are_vocabulary_values(vocab: Vocabulary) -> None:
    with asset_path("kb", "value_lexicon.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["raw", "predicate", "value"]
    raws = [r[0] for r in rows[1:]]
    assert len(raws) == len(set(raws)), "a raw term maps to one value only"
    bad = [r for r in rows[1:] if r[2] not in vocab.values(r[1])]
    assert bad == []
    lexicon = {r[0]: (r[1], r[2]) for r in rows[1:]}
    assert lexicon["sharp"] == ("SHAPE", "sharp_edge") and lexicon["hard"] == ("MADE_OF", "rigid_material")
