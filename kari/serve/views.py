"""What each response holds: the one place that decides what a participant and the coordinator see.

A participant sees only their own games. In Questioner mode a game in play shows its number in their session
(never the benchmark's game id, which may name its object), the candidates with their descriptions, the turns
(the question as typed, the Checker's reading and verdict, the answer) and the turns left: nothing built from the
hidden object, and no belief (b_t, computed over representatives, is the records' and not the player's). Only a
game's result, after its guess, names the target and the hidden object. In Oracle mode the object is shown by
design (its name and description), with the player's questions in words.

The coordinator sees the study's progress, each participant's link and state, SR so far with its intervals
(over games and over participants) and, in Oracle mode, the agreement; never a game in play.
"""

from __future__ import annotations

from typing import Any

from kari.report.comparisons import Settings, row_scores
from kari.game.oracle import question_text
from kari.core.game_records import GameRecord
from kari.serve.agreement import oracle_agreement
from kari.serve.game import ActiveGame, game_view_object
from kari.serve.settings import Mode
from kari.serve.study import Participant, Study

LIVE_RESAMPLES = 2000
"""Bootstrap resamples of the coordinator's live figures (``kari report`` draws 10,000)."""


def participant_view(study: Study, person: Participant) -> dict[str, Any]:
    """The participant's page state."""
    view: dict[str, Any] = {"mode": str(study.mode), "participant": person.id, "games_total": len(person.games),
                            "games_done": len(person.done), "budget": study.config.budget}
    if person.withdrawn:
        return {**view, "status": "withdrawn", "games_done": 0}
    if not person.consented:
        return {**view, "status": "consent", "consent": study.consent}
    last = person.last
    view["last"] = None if last is None else result_view(study, person, last)
    if person.active is not None:
        return {**view, "status": "playing", "game": game_view(study, person.active)}
    if person.next_game is None:
        return {**view, "status": "done"}
    return {**view, "status": "ready", "next": person.games.index(person.next_game) + 1}


def game_view(study: Study, game: ActiveGame) -> dict[str, Any]:
    """A game in play as its participant sees it."""
    if study.mode == Mode.ORACLE:
        pending = game.pending
        return {"number": game.number, "object": dict(game_view_object(game.hidden)),
                "turns": [{"turn": t.index, "question": question_text(t.question, t.check.pairs[0]),
                           "answer": "yes" if t.answer else "no"} for t in game.turns if t.check.accepted],
                "pending": None if pending is None else {"turn": pending.turn, "question": pending.shown}}
    setup = game.setup
    return {"number": game.number,
            "candidates": [{"id": c, "description": setup.descriptions.get(c, "")} for c in setup.candidates],
            "turns": [{"turn": t.index, "question": t.question, "accepted": t.check.accepted,
                       "reading": [p.replace(":", ": ") for p in t.check.record().pairs], "flag": t.check.flag,
                       "reason": t.check.reason,
                       "answer": None if t.answer is None else ("yes" if t.answer else "no")} for t in game.turns],
            "turns_left": setup.budget - len(game.turns), "next_turn": len(game.turns) + 1,
            "forced": game.play.forced}


def result_view(study: Study, person: Participant, record: GameRecord) -> dict[str, Any]:
    """A finished game's result (after its guess: the target and the hidden object may be named)."""
    descriptions = {a.id: a.description for a in study.bench.affordances.values()}
    hidden = study.bench.objects.get(record.object)
    result: dict[str, Any] = {
        "number": person.games.index(record.game) + 1, "success": record.success, "guess": record.guess,
        "target": record.target, "target_description": descriptions.get(record.target, ""),
        "turns": record.n_turns, "forced": record.forced}
    if study.mode == Mode.QUESTIONER and hidden is not None:
        result["object"] = dict(game_view_object(hidden))
    return result


def coordinator_view(study: Study, report_url: str | None, report_command: str) -> dict[str, Any]:
    """The coordinator's page state: progress, participants, SR so far, agreement (Oracle mode), the report."""
    with study.lock:
        records = list(study.run.records)
        people = [{"id": p.id, "link": f"/p/{study.links.participants[p.index]}", "claimed": p.claimed,
                   "consented": p.consented, "withdrawn": p.withdrawn, "games_done": len(p.done),
                   "games_total": len(p.games), "in_game": None if p.active is None else p.active.number}
                  for p in study.participants]
        progress = dict(study.progress())
    settings = Settings(resamples=LIVE_RESAMPLES)
    view: dict[str, Any] = {"mode": str(study.mode), "questioner": study.config.questioner,
                            "per_game": study.settings.per_game, "progress": progress, "participants": people,
                            "scores": row_scores(records, settings) if records else None,
                            "report": {"url": report_url, "command": report_command}}
    if study.mode == Mode.ORACLE:
        view["agreement"] = oracle_agreement(records, resamples=LIVE_RESAMPLES) if records else None
    return view


__all__ = ["LIVE_RESAMPLES", "coordinator_view", "game_view", "participant_view", "result_view"]
