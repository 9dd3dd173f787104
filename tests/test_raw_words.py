"""The whole chain on a benchmark written as people write: raw words, British spellings, plurals, parts with
their own properties, unknown materials, banned dynamic words (tests/data/raw_mini, hand-written).

validate -> induce -> coverage -> play with every symbolic player, with no manual step: every word is read into
one vocabulary (stored in the KB database), players ask only questions the Checker accepts as they are, never
twice, and Optimal's successes are earned by the answers (it guesses the belief's argmax).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from kari.bench.reader import load_benchmark
from kari.cli import app
from kari.domain.objects import has_property, object_view
from kari.vocab.vocabulary import Vocabulary
from kari.game.checker import SymbolicChecker
from kari.game.setup import SetupBuilder
from kari.game.types import structured

RAW = Path(__file__).parent / "data" / "raw_mini"
PLAYERS = ("optimal", "greedy-ig", "fix20q", "rules")


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("raw")
    db, rules = root / "kari.duckdb", root / "rules.kari"
    _invoke("induce", "--bench", str(RAW), "--db", str(db), "--out", str(rules))
    _invoke("coverage", "--rules", str(rules), "--db", str(db), "--bench", str(RAW))
    runs = {}
    for name in PLAYERS:
        runs[f"play:{name}"] = root / name
        _invoke("play", "--bench", str(RAW), "-q", name, "--out", str(root / name), "--rules", str(rules),
                "--match", "exact", "--db", str(db), "--quiet")
    return {"db": db, "rules": rules, **runs}


def test_validate_reads_raw_words_as_notes_not_errors() -> None:
    out = _invoke("bench", "validate", str(RAW))
    assert "ok (" in out and "added as new values" in out
    assert "MADE_OF:aluminium -> aluminum" in out  # a British spelling, mapped
    assert "banned (never a fact): SHAPE:foldable" in out


def test_words_are_canonical_and_raw_words_are_kept() -> None:
    vocab = Vocabulary.load()
    bench = load_benchmark(RAW, vocab)
    props = [p for o in bench.objects.values() for p in o.properties]
    assert all(vocab.has_value(p.predicate, p.value) for p in props)
    assert any(p.raw == "aluminium" and p.value == "aluminum" for p in props)
    assert not any(p.value == "foldable" for p in props)  # banned: kept aside, never a fact
    assert any(p.value == "foldable" for o in bench.objects.values() for p in o.ignored)
    bicycle = bench.objects["bicycle"]
    assert has_property(bicycle, "SHAPE", "wheel", vocab)  # a part is a SHAPE fact: "wheels" -> wheel
    assert ("SHAPE", "wheel") in object_view(bicycle, vocab).parts["wheels"]


def test_an_objects_view_is_kept_per_object_and_forgotten_when_the_vocabulary_changes() -> None:
    """Games ask for the same objects' views on every turn: the same object gets the same view, an equal copy an
    equal one, and a new is-a link (which can change what an object's facts imply) empties both memos."""
    vocab = Vocabulary.load()
    bicycle = load_benchmark(RAW, vocab).objects["bicycle"]
    copy = replace(bicycle, parts=tuple(bicycle.parts))
    view = object_view(bicycle, vocab)
    assert object_view(bicycle, vocab) is view and object_view(copy, vocab) == view
    assert ("SHAPE", "kari_test_parent") not in view.whole
    vocab.add_value("SHAPE", "kari_test_parent")
    vocab.add_isa("SHAPE", "wheel", "kari_test_parent")
    assert ("SHAPE", "kari_test_parent") in object_view(bicycle, vocab).whole
    assert ("SHAPE", "kari_test_parent") in object_view(copy, vocab).whole


def test_every_pool_question_is_accepted_as_it_is() -> None:
    vocab = Vocabulary.load()
    bench = load_benchmark(RAW, vocab)
    checker = SymbolicChecker(vocab)
    builder = SetupBuilder(bench, vocab)
    for game in bench.games:
        setup, _, _ = builder.build(game, 0)
        for question in setup.pool:
            verdict = checker.check(structured(question), setup.candidates)
            assert verdict.accepted and verdict.pairs == (question,), (question, verdict)


def test_the_store_holds_benchmark_words_with_provenance(chain: dict[str, Path]) -> None:
    con = duckdb.connect(str(chain["db"]), read_only=True)
    rows = dict(con.execute("SELECT term, provenance FROM vocabulary WHERE kind = 'value' AND predicate = 'MADE_OF' "
                            "AND term = 'kevlar'").fetchall())
    assert "raw_mini/objects.jsonl:" in rows["kevlar"]  # FILE:LINE of the object that wrote it
    out = _invoke("rules", "check", str(chain["rules"]), "--db", str(chain["db"]), "--strict")
    assert "0 error(s)" in out or out.strip() == ""


@pytest.mark.parametrize("player", PLAYERS)
def test_players_ask_only_accepted_questions_and_never_twice(chain: dict[str, Path], player: str) -> None:
    records = [json.loads(line) for line in (chain[f"play:{player}"] / "games.jsonl").read_text().splitlines()]
    assert records
    assert sum(1 for r in records for t in r["turns"] if not t["checker"]["accepted"]) == 0
    assert sum(r["repeated_questions"] for r in records) == 0
    for r in records:
        asked = [t["checker"]["pairs"][0] for t in r["turns"]]
        assert len(asked) == len(set(asked))


def test_optimal_successes_are_earned(chain: dict[str, Path]) -> None:
    records = [json.loads(line) for line in (chain["play:optimal"] / "games.jsonl").read_text().splitlines()]
    assert sum(r["success"] for r in records) / len(records) >= 0.9
    for r in records:
        final = r["turns"][-1]["b"] if r["turns"] else r["b0"]
        if r["success"]:  # the guess is the argmax of the belief the answers left, never the target by fiat
            assert final is not None and r["guess_belief"] == max(final.values())
            assert sorted(final.values())[-1] > sorted(final.values())[-2]
