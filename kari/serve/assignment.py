"""Which participant plays which game, in which order (the study's plan).

Every game is played by ``per_game`` participants, none plays a game twice, and every participant gets the same
number of games give or take one. The plays (a game and its copy 0..k-1) are dealt round-robin to the
participants with the copies of a game, and the games of one hidden object, next to each other, so a game's
copies go to ``per_game`` different participants (``per_game`` <= participants) and, as long as an object's
plays are no more than the participants, nobody meets the same hidden object twice either.

The order is counterbalanced by stratification: copy ``c`` of a game is placed at the relative position
``(c + u) / k`` of its participant's session (``u`` drawn once per game from the seed), and each participant
plays their games by that position. Every game is thus played early by some participants and late by others,
one copy in each k-th of a session, so practice and fatigue do not fall on the same games.

>>> assign(["g1", "g2", "g3", "g4"], {"g1": "a", "g2": "a", "g3": "b", "g4": "c"}, participants=3, per_game=2)
(('g4', 'g1', 'g2'), ('g3', 'g4', 'g1'), ('g2', 'g3'))
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from kari.errors import KariError


def assign(games: Sequence[str], objects: Mapping[str, str], *, participants: int, per_game: int,
           seed: int = 0) -> tuple[tuple[str, ...], ...]:
    """The games of each participant (index 0..participants-1), in the order they play them. ``objects`` gives
    each game's hidden object. Fewer plays than participants is an error (someone would have no game)."""
    if not 1 <= per_game <= participants:
        raise KariError(f"each game needs 1..{participants} participants (got {per_game})", code="bad-option")
    if len(games) * per_game < participants:
        raise KariError(f"{len(games)} games x {per_game} per game give fewer plays than the {participants} "
                        "participants: lower --participants or raise --per-game or --games", code="bad-option")
    if len(set(games)) != len(games):
        raise KariError("a game is listed twice", code="bad-option")
    rank = {game: index for index, game in enumerate(games)}
    by_object = sorted(games, key=lambda g: (objects.get(g, ""), rank[g]))
    shift = {game: random.Random(f"kari-serve-order:{seed}:{game}").random() for game in games}
    sessions: list[list[tuple[float, int, str]]] = [[] for _ in range(participants)]
    slot = 0
    for game in by_object:
        for copy in range(per_game):
            sessions[slot % participants].append(((copy + shift[game]) / per_game, rank[game], game))
            slot += 1
    return tuple(tuple(game for _, _, game in sorted(session)) for session in sessions)


__all__ = ["assign"]
