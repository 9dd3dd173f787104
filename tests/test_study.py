"""One loaded study: a benchmark read once and checked first; a fork of the vocabulary keeps its words. (That the
whole pipeline reads each input once is tested on its run in tests/test_pipeline.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from call_counts import counting

from kari.bench.parser import Parser
from kari.vocab.vocabulary import Vocabulary
from kari.resources import bundled_bench_dir
from kari.study import Study


def test_a_study_reads_its_benchmark_once_and_checks_it_first(tmp_path: Path) -> None:
    with counting({"parses": (Parser, "read_objects")}) as counts:
        study = Study.open(bundled_bench_dir())
        assert study.raw.objects and study.raw.games and study.bench.report.ok
    assert counts["parses"] == 1
    broken = tmp_path / "bench"
    broken.mkdir()
    for name in ("objects.jsonl", "affordances.jsonl", "labels.jsonl", "games.jsonl"):
        (broken / name).write_text((bundled_bench_dir() / name).read_text())
    (broken / "labels.jsonl").write_text('{"object": "nothing", "affordance": "cut", "label": true}\n')
    with pytest.raises(Exception, match="is not in objects.jsonl"):
        Study.open(broken)


def test_a_fork_of_the_vocabulary_keeps_its_new_words_to_itself() -> None:
    vocab = Vocabulary.load()
    fork = vocab.copy()
    fork.canonicalise("MADE_OF", "unobtainium", "test")
    assert fork.has_value("MADE_OF", "unobtainium") and not vocab.has_value("MADE_OF", "unobtainium")
    assert fork.rows() != vocab.rows() and vocab.copy().rows() == vocab.rows()
