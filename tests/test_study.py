"""One loaded study: the pipeline reads each input once and hands the library cores loaded objects.

The counts are taken by wrapping the loaders wherever a module holds them (the readers are imported both at the
top of modules and inside functions), so a second parse of the benchmark or a second build of the vocabulary
from the database anywhere in the pipeline fails the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from call_counts import counting

from kari.bench.parser import Parser
from kari.vocab.vocabulary import Vocabulary
from kari.resources import bundled_bench_dir
from kari.study import Study


def loaders() -> dict[str, tuple[Any, str]]:
    import kari.domain.canon as canon
    import kari.induce.folds as folds
    import kari.rules.rulefile as rulefile
    import kari.solver.run  # noqa: F401  (its loaders are imported, so that they are wrapped too)
    import kari.pipeline  # noqa: F401
    import kari.study  # noqa: F401

    return {"benchmark parses": (Parser, "read_objects"), "object canonicalisations": (canon, "canonical_objects"),
            "vocabulary from files": (Vocabulary, "load"), "vocabulary from a database": (Vocabulary, "from_db"),
            "vocabulary copies": (Vocabulary, "copy"), "rules files read": (rulefile, "load_rules"),
            "cross-fitted sets read": (folds, "load_cross_fitted")}


@pytest.mark.slow
def test_the_pipeline_loads_each_input_once(tmp_path: Path) -> None:
    from kari.pipeline import run_pipeline

    players = ("optimal", "greedy-ig+rules", "rules")
    with counting(loaders()) as counts:
        run_pipeline(tmp_path / "run", questioners=players, games=2)
    assert counts["benchmark parses"] == 1
    assert counts["vocabulary from a database"] == 1  # once, after kb load stored it
    assert counts["vocabulary from files"] == 1  # the KB loader's, before the database holds a vocabulary
    assert counts["vocabulary copies"] == len(players)  # each player reads its rules' words into its own copy
    assert counts["cross-fitted sets read"] == 1
    # the KB's objects (kb load, induce), the benchmark's for the benchmark-supervised induction (a step of its
    # own since the KB rules are induced from the KB: it reads the benchmark's words as the database then holds
    # them), for coverage and once more for the games
    assert counts["object canonicalisations"] == 5
    # the five fold files once, rules.kari once (coverage), and the report's look at the folder it names
    assert counts["rules files read"] == 5 + 1 + 1


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
