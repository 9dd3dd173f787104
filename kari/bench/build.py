"""Sample Affordance20Q games from a benchmark directory's objects and labels.

A game is a hidden object ``o``, a target affordance labelled TRUE for ``o`` and seven distractors labelled
FALSE for ``o`` (never unknown, never true). Targets are balanced across affordances: games are dealt
round-robin over the affordances (sorted), one per affordance per round, until the requested number is
reached or every (object, target) pair is used. Everything random comes from one ``random.Random(seed)``,
so the same inputs and seed give byte-identical ``games.jsonl``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kari.core.benchmark import Benchmark, Game, Label

from kari.bench.reader import bench_inputs, load_benchmark
from kari.errors import ExitCode, KariError
from kari.io.atomic import atomic_write_jsonl
from kari.io.outputs import Output, check_outputs

N_CANDIDATES = 8


@dataclass(frozen=True, slots=True)
class BuildStats:
    """What :func:`build_games` produced."""

    games: int
    affordances: int
    objects: int
    eligible_pairs: int


def _label_sets(labels: Iterable[Label]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``object -> affordances labelled true`` and ``object -> affordances labelled false``."""
    pos: dict[str, set[str]] = {}
    neg: dict[str, set[str]] = {}
    for lab in labels:
        (pos if lab.label else neg).setdefault(lab.object, set()).add(lab.affordance)
    return pos, neg


def eligible_pairs(objects: Iterable[str], affordances: Iterable[str], labels: Iterable[Label],
                   min_positives: int = 1) -> dict[str, list[str]]:
    """``target -> sorted hidden objects`` for every eligible (object, target) pair.

    A pair is eligible when the target is labelled true for the object, the object has at least 7 affordances
    labelled false, and the target has at least ``min_positives`` positive objects. Labels outside
    ``objects`` / ``affordances`` are ignored; a pair labelled both true and false is an error.
    """
    object_ids, aff_ids = set(objects), set(affordances)
    pos, neg = _label_sets(lab for lab in labels if lab.object in object_ids and lab.affordance in aff_ids)
    conflicts = sorted((o, a) for o in pos for a in pos[o] & neg.get(o, set()))
    if conflicts:
        o, a = conflicts[0]
        raise KariError(f"{len(conflicts)} (object, affordance) pairs are labelled both true and false, "
                        f"e.g. {o} / {a}", code="bench-label-conflict")
    pairs: dict[str, list[str]] = {}
    for a in sorted(aff_ids):
        positives = sorted(o for o in pos if a in pos[o])
        hidden = [o for o in positives if len(neg.get(o, ())) >= N_CANDIDATES - 1]
        if len(positives) >= min_positives and hidden:
            pairs[a] = hidden
    return pairs


def sample_games(objects: Iterable[str], affordances: Iterable[str], labels: Iterable[Label],
                 n_games: int | None = None, seed: int = 0, min_positives: int = 1) -> list[Game]:
    """Sample up to ``n_games`` games balanced over targets (every eligible pair when None)."""
    object_ids, aff_ids, labels = set(objects), set(affordances), list(labels)
    queues = eligible_pairs(object_ids, aff_ids, labels, min_positives)
    neg = _label_sets(lab for lab in labels if lab.object in object_ids and lab.affordance in aff_ids)[1]
    rng = random.Random(seed)
    for a in sorted(queues):
        rng.shuffle(queues[a])
    total = sum(len(q) for q in queues.values())
    limit = total if n_games is None else min(n_games, total)
    chosen: list[tuple[str, str]] = []
    depth = 0
    while len(chosen) < limit:
        for a in sorted(queues):
            if depth < len(queues[a]) and len(chosen) < limit:
                chosen.append((queues[a][depth], a))
        depth += 1
    width = max(4, len(str(len(chosen))))
    games = []
    for index, (obj, target) in enumerate(chosen, start=1):
        candidates = [target, *rng.sample(sorted(neg[obj]), N_CANDIDATES - 1)]
        rng.shuffle(candidates)
        games.append(Game(id=f"g{index:0{width}d}", object=obj, target=target, candidates=tuple(candidates)))
    return games


def game_to_json(game: Game) -> dict[str, object]:
    """The ``games.jsonl`` form of a game."""
    return {"id": game.id, "object": game.object, "target": game.target, "candidates": list(game.candidates)}


def write_games(path: str | Path, games: Iterable[Game]) -> None:
    """Write ``games.jsonl`` atomically."""
    atomic_write_jsonl(path, (game_to_json(g) for g in games))


def build_games(bench_dir: str | Path, n_games: int | None = None, seed: int = 0, min_positives: int = 10,
                out: str | Path | None = None) -> BuildStats:
    """Sample games from ``bench_dir``'s objects and labels and write them to ``out`` (default: its games.jsonl).

    Only affordances with at least ``min_positives`` positive objects are targets or distractors (the
    representative-object baselines need 10 per candidate).
    """
    target = Path(out) if out is not None else Path(bench_dir) / "games.jsonl"
    # before any work: an input, folder, FIFO or database is never replaced
    check_outputs([Output(target, "--out")],
                  bench_inputs(bench_dir, "DIRECTORY", ("objects.jsonl", "affordances.jsonl", "labels.jsonl")))
    bench: Benchmark = load_benchmark(bench_dir, None, with_games=False)  # labels only
    n_pos: Mapping[str, int] = {a: len(set(bench.positives(a)) & set(bench.objects)) for a in bench.affordances}
    usable = [a for a, n in n_pos.items() if n >= min_positives]
    pairs = eligible_pairs(bench.objects, usable, bench.labels)
    games = sample_games(bench.objects, usable, bench.labels, n_games=n_games, seed=seed)
    if not games:
        raise KariError("no eligible (object, target) pair: need an object with a true label and 7 false labels",
                        file=str(bench_dir), code="bench-empty", exit_code=ExitCode.FINDINGS)
    write_games(target, games)
    return BuildStats(games=len(games), affordances=len({g.target for g in games}),
                      objects=len({g.object for g in games}),
                      eligible_pairs=sum(len(v) for v in pairs.values()))
