"""``kari bench validate``: check a benchmark directory and report every problem with its file and line.

The checks are those of the one benchmark parser (:mod:`kari.bench.parser`). Vocabulary findings are not
problems: every value and part name is read through the vocabulary (:mod:`kari.domain.canon`) and the report
counts the words that were canonical, mapped (synonyms, word forms), added as new values, or banned (never
facts); ``kari bench validate`` prints them as notes.

Unreadable input (a missing directory or file, bad UTF-8) raises :class:`KariError` (exit 2); everything else is
collected as a :class:`Problem` so one run shows them all.
"""

from __future__ import annotations

from pathlib import Path

from kari.bench.reader import read_benchmark
from kari.bench.records import Problem, ValidationReport
from kari.vocab.vocabulary import Vocabulary

__all__ = ["Problem", "ValidationReport", "require_valid", "validate_bench"]


def validate_bench(root: str | Path, vocab: Vocabulary | None = None, *, games: bool = True) -> ValidationReport:
    """Check the benchmark directory ``root``, reading its words through ``vocab`` (default: the shipped
    vocabulary, which learns the benchmark's new words); ``games=False`` skips ``games.jsonl`` (for commands
    that never play it)."""
    return read_benchmark(root, vocab if vocab is not None else Vocabulary.load(), games=games).report


def require_valid(root: str | Path, vocab: Vocabulary | None, *, games: bool = True) -> ValidationReport:
    """:func:`validate_bench`, raising the first structural problem (with FILE:LINE and the count) as a
    :class:`KariError`: what every command that reads a benchmark runs first."""
    report = validate_bench(root, vocab, games=games)
    report.raise_first()
    return report
