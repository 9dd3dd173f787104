"""Reading a benchmark directory once: the one parser's pass (:mod:`kari.bench.parser`), its words read into a
vocabulary, the typed :class:`~kari.core.benchmark.Benchmark` with its diagnostics.

>>> from kari.resources import bundled_bench_dir
>>> read = read_benchmark(bundled_bench_dir(), None)
>>> read.report.ok, len(read.benchmark.games) > 0
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from kari.core.benchmark import BENCH_FILES, Benchmark
from kari.bench.parser import Parser
from kari.bench.records import ValidationReport, read_jsonl
from kari.domain.canon import canonical_objects
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.io.outputs import Input

__all__ = ["LoadedBenchmark", "bench_inputs", "canonical_benchmark", "load_benchmark", "read_benchmark", "read_jsonl",
           "read_labelled"]


def bench_inputs(root: str | Path | None, what: str = "--bench", names: tuple[str, ...] = BENCH_FILES) -> list[Input]:
    """The files of the benchmark directory ``root`` a command reads (:mod:`kari.io.outputs`): ``names``, each
    named as the benchmark's file (none when ``root`` is None)."""
    if root is None:
        return []
    return [Input(Path(root) / name, f"the benchmark's {name} ({what})") for name in names]


@dataclass(frozen=True)
class LoadedBenchmark:
    """A benchmark directory read once: its records (words canonical when read with a vocabulary, else as
    written) and the report of every problem found (``report.ok``: none)."""

    benchmark: Benchmark
    report: ValidationReport

    def checked(self, *, fatal_only: bool = False, lenient: tuple[str, ...] = ()) -> Benchmark:
        """The benchmark, or the first problem as a :class:`KariError` (:meth:`ValidationReport.raise_first`)."""
        self.report.raise_first(fatal_only=fatal_only, lenient=lenient)
        return self.benchmark


def read_benchmark(root: str | Path, vocab: Vocabulary | None, *, games: bool = True) -> LoadedBenchmark:
    """Parse ``root`` in one pass (``games=False`` skips ``games.jsonl``) and, with a vocabulary, read its words
    into ``vocab`` once (``report.words`` says how; ``vocab`` learns the new ones)."""
    root = Path(root)
    if not root.is_dir():
        raise KariError("benchmark directory not found", file=str(root), code="missing-file")
    parser = Parser(root)
    parser.read_objects()
    parser.read_affordances()
    parser.read_labels()
    if games:
        parser.read_games()
    raw = Benchmark(root=root, objects=parser.objects, affordances=parser.affordances, labels=parser.labels,
                    games=parser.games)
    if vocab is None:
        return LoadedBenchmark(raw, parser.report)
    if not any(Path(p.file).name == "objects.jsonl" for p in parser.report.problems):
        canonical = canonical_benchmark(raw, vocab)  # one object per line: the notes are the records' words
        parser.report.words = canonical.canon
        return LoadedBenchmark(canonical, parser.report)
    parser.report.words = canonical_objects(parser.lines, vocab)[1]  # the notes of a broken objects.jsonl
    return LoadedBenchmark(raw, parser.report)


def read_labelled(root: str | Path, vocab: Vocabulary | None) -> Benchmark:
    """The benchmark as a command that judges rules on its objects and labels reads it (``kari induce
    --bench``, ``kari coverage --bench``): any problem of its objects, affordances and labels is an error;
    ``games.jsonl``, when there, is read too and only a line that cannot be read is one."""
    root = Path(root)
    read = read_benchmark(root, vocab, games=(root / "games.jsonl").exists())
    return read.checked(lenient=("games.jsonl",))


def canonical_benchmark(bench: Benchmark, vocab: Vocabulary) -> Benchmark:
    """``bench`` with every object read into ``vocab`` (:func:`kari.domain.canon.canonical_objects`); ``canon``
    reports how."""
    objects, report = canonical_objects(list(bench.objects.values()), vocab)
    return replace(bench, objects={obj.id: obj for obj in objects}, canon=report)


def load_benchmark(root: str | Path, vocab: Vocabulary | None, *, with_games: bool = True) -> Benchmark:
    """The records of a benchmark directory; the first line that cannot be read into a record raises a
    :class:`KariError` with FILE:LINE (other problems are left to ``kari bench validate``).

    With a vocabulary every object is read into canonical values and ``vocab`` learns the benchmark's new words
    (``Benchmark.canon`` reports how); ``None`` keeps the words as written (only for tools that never evaluate
    properties). ``with_games=False`` skips ``games.jsonl`` (read only when it is there).
    """
    root = Path(root)
    read = read_benchmark(root, None, games=with_games and (root / "games.jsonl").exists())
    bench = read.checked(fatal_only=True)
    return canonical_benchmark(bench, vocab) if vocab is not None else bench
