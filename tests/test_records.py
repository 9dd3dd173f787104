"""Typed records read the files an earlier kari wrote and write them back byte for byte.

tests/data/old_runs holds files written by kari before its records were typed (a bundled ``kari pipeline``
run and a ``kari creativity solve`` run): game records of four players, two run summaries and a run's
config.json, cv.json, a cross-fitted rule file, one affordance's induction result and creativity answers
(``answers.jsonl`` in the layout of the three modes, one sample per temperature; ``answers_v1.jsonl`` in the
layout before them, which this kari refuses line by line).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from kari.creativity.answers import read_answer
from kari.errors import KariError
from kari.game.metrics import summarise
from kari.core.game_records import GameRecord, read_games
from kari.core.game_settings import PlayConfig, PlayerSettings
from kari.game.summary import RunSummary
from kari.induce.records import CVSummary, InductionResult
from kari.io.runlog import load_log
from kari.rules import dump_rules_jsonl, load_rules

OLD = Path(__file__).parent / "data" / "old_runs"


def _indented(data: dict) -> str:
    """What ``kari.io.atomic.atomic_write_json`` writes."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _lines(records) -> str:
    return "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)


def test_game_records_round_trip() -> None:
    records, dirty = read_games(OLD / "games.jsonl")
    assert not dirty and len(records) == 9 and all(isinstance(r, GameRecord) for r in records)
    assert _lines(records) == (OLD / "games.jsonl").read_text(encoding="utf-8")
    fold = [r for r in records if r.questioner == "rules"][0]
    assert fold.rules is not None and isinstance(fold.rules["fold"], int) and fold.target_has_rule is not None
    assert {r.run for r in records if r.questioner == "fix20q"} == {0, 1}
    assert all(t.checker.accepted == (t.answer is not None) for r in records for t in r.turns)
    assert records[0]["success"] == records[0].success and records[0] == json.loads(
        (OLD / "games.jsonl").read_text().splitlines()[0])


def test_run_summaries_and_config_round_trip() -> None:
    for name in ("summary_rules.json", "summary_fix20q.json"):
        text = (OLD / name).read_text(encoding="utf-8")
        summary = RunSummary.from_json(json.loads(text))
        assert _indented(summary.to_json()) == text, name
    ruled = RunSummary.from_json(json.loads((OLD / "summary_rules.json").read_text()))
    assert ruled.by_rule_coverage and ruled.by_rule_coverage["covered"].games > 0 and ruled.config["rules"]
    text = (OLD / "config.json").read_text(encoding="utf-8")
    data = json.loads(text)
    config = PlayConfig(**{**data, "game_ids": tuple(data["game_ids"])})
    assert isinstance(config.bench, Path) and isinstance(config.extra, PlayerSettings)
    assert _indented(config.to_json()) == text


def test_a_summary_computed_from_the_old_records_is_the_one_written() -> None:
    records, _ = read_games(OLD / "games.jsonl")
    fix20q = [r for r in records if r.questioner == "fix20q"]
    summary = summarise(fix20q)
    assert summary.records == 3 and summary.runs == 2 and summary.games == 2
    assert list(summary.to_json())[:5] == ["games", "success_rate", "avg_turns_solved", "records", "runs"]
    assert "config" not in summary.to_json() and "by_rule_coverage" not in summary.to_json()


def test_cv_summary_induction_result_and_rules_round_trip() -> None:
    text = (OLD / "cv.json").read_text(encoding="utf-8")
    cv = CVSummary.from_json(json.loads(text))
    assert _indented(cv.to_json()) == text and cv.k == 5 and 0 < cv.macro_f1[0] <= 1
    text = (OLD / "induce_result.json").read_text(encoding="utf-8")
    result = InductionResult.from_json(json.loads(text))
    assert _indented(result.to_json()) == text and result.body is not None and result.affordance == "break"
    rules = load_rules(OLD / "rules.jsonl")
    assert len(rules) == 2 and dump_rules_jsonl(rules) == (OLD / "rules.jsonl").read_text(encoding="utf-8")


def test_creativity_answers_round_trip() -> None:
    records, dirty = load_log(OLD / "answers.jsonl", read_answer)
    assert not dirty and len(records) == 12 and all(r.task_id for r in records)
    assert _lines(records) == (OLD / "answers.jsonl").read_text(encoding="utf-8")


def test_creativity_answers_of_the_layout_before_samples_are_refused_by_line() -> None:
    with pytest.raises(KariError) as failure:
        load_log(OLD / "answers_v1.jsonl", read_answer)
    assert failure.value.code == "run-corrupt" and failure.value.line == 1


def test_a_record_whose_text_holds_a_line_separator_is_one_record(tmp_path: Path) -> None:
    """kari writes its logs with the characters as they are: an LLM question holding U+2028 or U+0085 made
    str.splitlines cut the record in two, and the resume refused the log as corrupt."""
    record = {"game": "g1", "target": "cut", "success": True, "n_turns": 1, "run": 0,
              "turns": [{"turn": 1, "ig": 0, "question": "is it\u2028sharp\u0085?", "checker": {"pairs": [],
                                                                                             "accepted": False}}]}
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n" + json.dumps({**record, "game": "g2"},
                                                                             ensure_ascii=False) + "\n",
                    encoding="utf-8")
    records, dirty = read_games(path)
    assert [r.game for r in records] == ["g1", "g2"] and not dirty
    assert records[0].to_json()["turns"][0]["question"] == "is it\u2028sharp\u0085?"


def test_an_older_or_newer_record_keeps_its_keys(tmp_path: Path) -> None:
    # a record of an older kari (no object, no b0_soft, ...) with a key this one does not know
    old = {"game": "g1", "target": "cut", "success": True, "n_turns": 1, "from_the_future": [1, 2],
           "turns": [{"turn": 1, "ig": 0, "checker": {"pairs": ["MATERIAL:metal"], "accepted": True}}]}
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(old) + "\n")
    [record], _ = read_games(path)
    assert record.run == 0 and record.success and record.turns[0].checker.pairs == ("MATERIAL:metal",)
    assert record.to_json() == old and list(record.to_json()) == list(old)
    assert summarise([record]).success_rate == 1.0
    fresh = replace(record, layout=None, turns=())
    assert list(fresh.to_json()) == [k for k in GameRecord.KEYS if k not in GameRecord.OPTIONAL]


def test_reading_a_records_keys_builds_its_json_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A report reads a few keys of thousands of records many times: each read must not rebuild the whole
    object (with its turns); what is read is still the record's JSON object, and ``to_json`` a fresh copy."""
    record = read_games(OLD / "games.jsonl")[0][0]
    built = []
    original = GameRecord.to_json
    monkeypatch.setattr(GameRecord, "to_json", lambda self: built.append(1) or original(self))
    values = [record[key] for key in ("success", "n_turns", "target", "game")] + [len(record), list(record)]
    assert len(built) == 1 and values[:4] == [record.success, record.n_turns, record.target, record.game]
    monkeypatch.undo()
    fresh = record.to_json()
    fresh["success"] = "changed"
    assert record["success"] == record.success and dict(record) == record.to_json()
    assert replace(record, success=not record.success)["success"] == (not record.success)
