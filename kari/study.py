"""One loaded study: what a run of several commands holds, each thing read once and passed on as an object.

A :class:`Study` holds the benchmark (parsed once, its structure checked before any work, its words as written),
the KB database and its vocabulary (built from the database once, then grown by each step that reads new words
into it, as the database's own copy is), the rule sets read (a rules file or the cross-fitted ``RULES.cv``
sets, by path) and the embedder of rule matching (loaded at most once). The library cores take these objects
(:func:`kari.induce.run.induce_loaded`, :func:`kari.solver.run.coverage_loaded`,
:func:`kari.game.run.play_loaded`, :func:`kari.report.writer.report_loaded`); :mod:`kari.pipeline` drives them.

>>> from kari.resources import bundled_bench_dir
>>> study = Study.open(bundled_bench_dir())
>>> len(study.raw.games) > 0, study.vocab is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kari.core.benchmark import Benchmark
from kari.bench.reader import LoadedBenchmark, canonical_benchmark, read_benchmark
from kari.vocab.vocabulary import Vocabulary, db_vocabulary
from kari.errors import KariError
from kari.induce.folds import RuleSets, read_rule_sets

if TYPE_CHECKING:
    from kari.embeddings import Embedder
    from duckdb import DuckDBPyConnection


@dataclass
class Study:
    """The loaded inputs of one study (see the module docstring)."""

    bench: LoadedBenchmark
    db: Path | None = None
    vocab: Vocabulary | None = None
    rule_sets: dict[Path, RuleSets] = field(default_factory=dict)
    embedder: Embedder | None = None
    _canonical: Benchmark | None = field(default=None, repr=False)

    @classmethod
    def open(cls, bench_dir: str | Path) -> Study:
        """Parse the benchmark directory once; its first structural problem is a :class:`KariError` here."""
        loaded = read_benchmark(Path(bench_dir), None)
        loaded.report.raise_first()
        return cls(loaded)

    @property
    def raw(self) -> Benchmark:
        """The benchmark with its words as written (each step reads them into the vocabulary it works with)."""
        return self.bench.benchmark

    def attach_db(self, db: str | Path) -> Vocabulary:
        """Work with the KB database ``db``: its vocabulary is built now, once (the shipped one while it stores
        none)."""
        self.db = Path(db)
        with self.connect(read_only=True) as con:
            self.vocab = db_vocabulary(con)
        return self.vocab

    def database(self) -> Path:
        """The study's KB database (:meth:`attach_db`)."""
        if self.db is None:
            raise KariError("this study has no KB database", code="study")
        return self.db

    @contextmanager
    def connect(self, *, read_only: bool = False) -> Iterator[DuckDBPyConnection]:
        """An open connection to the study's KB database, closed after the block."""
        from kari.kb import open_db

        con = open_db(self.database(), read_only=read_only, create=False)
        try:
            yield con
        finally:
            con.close()

    def canonical(self) -> Benchmark:
        """The benchmark read into the study's vocabulary as it stands now, once (later calls return it)."""
        if self._canonical is None:
            self._canonical = canonical_benchmark(self.raw, self.vocabulary())
        return self._canonical

    def rules(self, path: str | Path) -> RuleSets:
        """The rule sets at ``path`` (a rules file or a ``RULES.cv`` folder), read on first use."""
        where = Path(path)
        if where not in self.rule_sets:
            self.rule_sets[where] = read_rule_sets(where)
        return self.rule_sets[where]

    def fork(self) -> Vocabulary:
        """A copy of the vocabulary for a step whose new words must not reach the others (a player reads its
        rules' words into its own copy, as each ``kari play`` reads the database's vocabulary afresh)."""
        return self.vocabulary().copy()

    def shared_embedder(self) -> Embedder:
        """The sentence embedder every rule matcher of the study shares (the process-wide one,
        :func:`kari.embeddings.shared_embedder`; its model loads on first use)."""
        if self.embedder is None:
            from kari.embeddings import shared_embedder

            self.embedder = shared_embedder()
        return self.embedder

    def vocabulary(self) -> Vocabulary:
        """The study's vocabulary (the KB database's: :meth:`attach_db`)."""
        if self.vocab is None:
            raise KariError("this study has no vocabulary yet (attach a KB database first)", code="study")
        return self.vocab
