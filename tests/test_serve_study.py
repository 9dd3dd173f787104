"""The parts of ``kari serve`` below HTTP: the assignment (k participants per game, counterbalanced), the plan that
lists each participant's games, a study's steps and their journal replayed after a stop, the repairs a crash
may need, people as Oracle, and the report's intervals over participant clusters."""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from kari.errors import KariError
from kari.report.comparisons import Settings, paired, row_scores
from kari.game.run import checked_records
from kari.io.plan import Plan
from kari.serve.assignment import assign
from kari.serve.settings import StudySettings
from kari.serve.store import open_study, study_config

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = ROOT / "tests" / "data" / "outside_bench"


@pytest.mark.parametrize("games,participants,per_game", [(40, 20, 3), (7, 3, 2), (12, 12, 12), (50, 7, 1), (9, 4, 4)])
def test_every_game_gets_k_participants_and_nobody_plays_one_twice(games: int, participants: int,
                                                                   per_game: int) -> None:
    ids = [f"g{i:02d}" for i in range(games)]
    sessions = assign(ids, {g: g for g in ids}, participants=participants, per_game=per_game, seed=3)
    assert len(sessions) == participants
    plays = Counter(g for session in sessions for g in session)
    assert plays == {g: per_game for g in ids}
    assert all(len(s) == len(set(s)) for s in sessions)
    sizes = {len(s) for s in sessions}
    assert max(sizes) - min(sizes) <= 1
    assert sessions == assign(ids, {g: g for g in ids}, participants=participants, per_game=per_game, seed=3)


def test_the_order_is_counterbalanced_by_copy() -> None:
    # copy c of each game sits, on average, in the c-th third of its participant's session
    ids = [f"g{i:03d}" for i in range(120)]
    sessions = assign(ids, {g: g for g in ids}, participants=20, per_game=3, seed=0)
    seen: dict[str, list[float]] = defaultdict(list)
    for session in sessions:
        for rank, game in enumerate(session):
            seen[game].append(rank / (len(session) - 1))
    by_copy = [sum(sorted(p)[c] for p in seen.values()) / len(seen) for c in range(3)]
    assert [round(x, 1) for x in by_copy] == pytest.approx([1 / 6, 1 / 2, 5 / 6], abs=0.1)
    first = Counter(session[0] for session in sessions)
    assert len(first) == 20  # twenty different first games, not one game first for everybody


def test_nobody_meets_the_same_hidden_object_twice_when_there_are_enough_participants() -> None:
    ids = [f"g{i}" for i in range(30)]
    objects = {g: f"o{i // 3}" for i, g in enumerate(ids)}  # three games per object
    sessions = assign(ids, objects, participants=6, per_game=2, seed=1)
    assert all(len({objects[g] for g in s}) == len(s) for s in sessions)


def test_an_assignment_that_cannot_be_made_is_refused() -> None:
    with pytest.raises(KariError, match="1..3 participants"):
        assign(["a", "b"], {}, participants=3, per_game=4)
    with pytest.raises(KariError, match="fewer plays than the 5 participants"):
        assign(["a", "b"], {}, participants=5, per_game=2)
    with pytest.raises(KariError, match="--per-game"):
        StudySettings(participants=2, per_game=3)
    with pytest.raises(KariError, match="oracle mode the Questioner"):
        StudySettings(mode="oracle", questioner="optimal")


def test_a_plan_lists_its_items_and_refuses_a_record_of_another(tmp_path: Path) -> None:
    plan = Plan("game", ("g1", "g2", "g3"), 2, ("g1", "g2"), (("g2", 0), ("g1", 1)))
    assert plan.order == (("g2", 0), ("g1", 1))
    assert plan.problem(("g2", 0), None) is None
    assert plan.problem(("g1", 0), None) == "game 'g1' is not assigned to run 0 in this run's plan"
    path = tmp_path / "plan.json"
    assert Plan.from_json(json.loads(json.dumps(plan.to_json())), path) == plan
    assert "items" not in Plan("game", ("g1",), 1, ("g1",)).to_json()  # a plain run's plan.json is unchanged
    for broken in ([["g3", 0]], [["g1", 2]], [["g1"]], [[1, 0]]):
        with pytest.raises(KariError, match="broken plan"):
            Plan.from_json({**plan.to_json(), "items": broken}, path)


class Clock:
    """Seconds since the epoch, 1.5 s a step."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.5
        return self.now


CLOCK = Clock()  # one clock for every start of a study: time goes on between a stop and the next start


def _study(out: Path, **settings: Any) -> Any:
    study = StudySettings(**{"participants": 3, "per_game": 1, "games": 6, **settings})
    return open_study(study_config(OUTSIDE, study, budget=20), study, out, clock=CLOCK)


def test_steps_are_idempotent_journaled_and_replayed_with_their_times(tmp_path: Path) -> None:
    out = tmp_path / "study"
    with _study(out) as study:
        study.agree(0)
        study.ask(0, 1, 1, "Is it made of metal?")
        study.ask(0, 1, 1, "Is it made of metal?")  # sent twice (a double click): played once
        study.ask(0, 1, 2, "What is it for?")
        with pytest.raises(KariError, match="turn 5 is not the next turn"):
            study.ask(0, 1, 5, "Is it flat?")
        with pytest.raises(KariError, match="one line of 1 to 300"):
            study.ask(0, 1, 3, "x" * 301)
        with pytest.raises(KariError, match="consent first"):
            study.ask(1, 1, 1, "Is it flat?")
        game = study.participants[0].active
        before = [(t.question, t.answer, t.check.accepted) for t in game.turns]
        assert [round(s, 3) for s in game.times] == [1.5, 1.5]  # start, turn 1, turn 2: one clock step apart
    with _study(out) as study:  # the server stopped and started again: the game stands where it was
        game = study.participants[0].active
        assert [(t.question, t.answer, t.check.accepted) for t in game.turns] == before
        assert [round(s, 3) for s in game.times] == [1.5, 1.5]
        study.guess(0, 1, game.setup.candidates[2])
        study.guess(0, 1, game.setup.candidates[3])  # a repeated guess changes nothing
        [record] = study.run.records
        assert record.guess == game.setup.candidates[2] and record.participant == "P1" and record.n_turns == 2
        assert [t.time_s for t in record.turns] == [1.5, 1.5] and record.time_s == CLOCK.now - game.started


def test_a_record_a_crash_lost_is_written_again_from_the_journal(tmp_path: Path) -> None:
    out = tmp_path / "study"
    with _study(out) as study:
        study.agree(1)
        study.ask(1, 1, 1, "Is it round?")
        study.guess(1, 1, study.participants[1].active.setup.candidates[0])
        [kept] = study.run.records
    (out / "games.jsonl").write_text("")  # the journal has the guess; the record did not reach the disk
    with _study(out) as study:
        [again] = study.run.records
        assert again.to_json() == kept.to_json()
    assert checked_records(out).records == [again]


def test_a_withdrawal_a_crash_interrupted_is_finished_on_start(tmp_path: Path) -> None:
    out = tmp_path / "study"
    with _study(out) as study:
        for index in (0, 2):
            study.agree(index)
            study.guess(index, 1, study.participants[index].active.setup.candidates[0])
        records = list(study.run.records)
    journal = out / "serve" / "journal.jsonl"
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    kept = [e for e in events if e["participant"] != 2] + [{"kind": "withdraw", "participant": 2, "t": 1.0}]
    journal.write_text("".join(json.dumps(e) + "\n" for e in kept))  # the journal was rewritten, games.jsonl not
    with _study(out) as study:
        assert study.participants[2].withdrawn and [r.run for r in study.run.records] == [0]
    assert checked_records(out).records == [r for r in records if r.run == 0]


def test_a_journal_that_does_not_replay_is_one_located_error(tmp_path: Path) -> None:
    out = tmp_path / "study"
    with _study(out) as study:
        study.agree(0)
    journal = out / "serve" / "journal.jsonl"
    with journal.open("a") as handle:
        handle.write(json.dumps({"kind": "turn", "participant": 0, "t": 2.0, "game": "g9999", "text": "x",
                                 "turn": 1}) + "\n")
        handle.write(json.dumps({"kind": "start", "participant": 9, "t": 2.0, "game": "g0001"}) + "\n")
    with pytest.raises(KariError, match="the journal names participant 9") as failure:
        with _study(out):
            pass
    assert failure.value.code == "run-corrupt" and failure.value.file == str(journal)
    journal.write_text('{"kind": "nonsense"}\n')
    with pytest.raises(KariError, match="corrupt journal entry") as failure:
        with _study(out):
            pass
    assert failure.value.line == 1


def test_people_as_oracle_resume_the_question_they_were_asked(tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    with _study(out, mode="oracle", questioner="greedy-ig") as study:
        study.agree(0)
        game = study.participants[0].active
        first = game.pending.text
        study.answer(0, 1, game.pending.turn, "yes")
        second = (game.pending.turn, game.pending.text)
        with pytest.raises(KariError, match="an answer is yes or no"):
            study.answer(0, 1, game.pending.turn, "maybe")
        with pytest.raises(KariError, match="play the oracle, not the questioner"):
            study.ask(0, 1, 1, "Is it red?")
    with _study(out, mode="oracle", questioner="greedy-ig") as study:
        game = study.participants[0].active
        assert game.turns[0].question == first and game.turns[0].answer is True
        assert (game.pending.turn, game.pending.text) == second
        while study.participants[0].active is game:
            study.answer(0, 1, game.pending.turn, "no")
        [record] = study.run.records
    assert record.questioner == "greedy-ig" and record.participant == "P1"
    assert all(t.kb_answer in ("yes", "no") for t in record.turns if t.checker.accepted)
    assert [t.answer for t in record.turns if t.checker.accepted][0] == "yes"


def _record(game: str, success: bool, who: str | None = None, run: int = 0, turns: int = 3) -> dict[str, Any]:
    record = {"game": game, "run": run, "success": success, "n_turns": turns, "target": "t"}
    return record if who is None else {**record, "participant": who}


def test_intervals_treat_a_participant_as_one_cluster() -> None:
    # two participants, one solves every game, the other none: over games SR is 50% with a tight Wilson
    # interval; over participants nothing narrower than [0, 1] can be said
    people = [_record(f"g{i}", who == "P1", who, run) for i in range(30) for run, who in enumerate(("P1", "P2"))]
    row = row_scores(people, Settings(resamples=2000))
    assert row["success_rate"] == 0.5 and row["participants"] == 2
    low, high = row["success_rate_ci"]
    assert high - low < 0.4
    assert row["success_rate_ci_participants"] == [0.0, 1.0]
    assert "participants" not in row_scores([_record("g1", True)], Settings(resamples=100))


def test_a_comparison_with_people_pairs_by_game_and_draws_participants() -> None:
    machine = [_record(f"g{i}", i % 2 == 0) for i in range(4)]  # solves g0, g2
    people = [_record("g0", True, "P1", 0), _record("g0", False, "P2", 1), _record("g1", True, "P1", 0),
              _record("g2", True, "P2", 1), _record("g3", True, "P1", 0), _record("g3", True, "P2", 1)]
    result = paired(machine, people, Settings(resamples=4000))
    # per game: people 0.5, 1, 1, 1 vs the machine 1, 0, 1, 0: mean delta (-0.5 + 1 + 0 + 1) / 4
    assert result["clustered"] == "participants" and result["delta"] == pytest.approx(0.375)
    assert result["games"] == 4 and result["pairs"] == 6 and result["mcnemar_p"] is None
    assert result["a_success_rate"] == 0.5 and result["b_success_rate"] == pytest.approx(0.875)
    low, high = result["delta_ci"]
    assert low <= 0.375 <= high
    # by hand: the two participants' sums of (success - machine mean) / n_game, over their weights
    cells = {"P1": [(1 - 1) / 2 + (1 - 0) / 1 + (1 - 0) / 2, 1 / 2 + 1 + 1 / 2],
             "P2": [(0 - 1) / 2 + (1 - 1) / 1 + (1 - 0) / 2, 1 / 2 + 1 + 1 / 2]}
    ratios = sorted((cells[a][0] + cells[b][0]) / (cells[a][1] + cells[b][1])
                    for a, b in itertools.product(cells, repeat=2))
    assert ratios[0] <= low and high <= ratios[-1]
    flipped = paired(people, machine, Settings(resamples=4000))
    assert flipped["delta"] == pytest.approx(-0.375)
