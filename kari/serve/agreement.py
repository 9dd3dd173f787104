"""How far people acting as Oracle agree with the benchmark (``kari serve --mode oracle``): each answered turn
holds the person's answer and the benchmark's own (``kb_answer``: the KB Oracle's reading of the object's
properties); agreement is the share of turns where the two are the same, overall and per question kind
(``MATERIAL``, ``SHAPE``, ``SIZE``, ``SURFACE``), with a Wilson interval over answers and a cluster bootstrap
interval over participants (one person's answers are not independent), Cohen's kappa (agreement beyond what the
two sides' yes rates give by chance) and each participant's own agreement. Written as ``agreement.json`` into
the study's run directory after every game.

>>> turns = [("MATERIAL:metal", "yes", "yes"), ("MATERIAL:wood", "no", "yes"), ("SHAPE:flat", "no", "no")]
>>> round(kappa([(a == "yes", b == "yes") for _, a, b in turns]), 3)
0.4
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from kari.core.game_records import GameRecord
from kari.stats import LEVEL, RESAMPLES, bootstrap_ratio, wilson

AGREEMENT_FILE = "agreement.json"


def answered(records: Iterable[GameRecord]) -> list[tuple[str, str, bool, bool]]:
    """(participant, question kind, person's yes, benchmark's yes) of every turn a person answered."""
    out = []
    for record in records:
        for turn in record.turns:
            if turn.kb_answer is None or turn.answer is None or not turn.checker.pairs:
                continue
            kind = str(turn.checker.pairs[0]).split(":", 1)[0]
            out.append((record.participant or "", kind, turn.answer == "yes", turn.kb_answer == "yes"))
    return out


def kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two yes/no raters (None when chance agreement is 1: both always say the same word)."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    yes_a, yes_b = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    return None if chance >= 1 else (observed - chance) / (1 - chance)


def _cell(rows: Sequence[tuple[str, str, bool, bool]], resamples: int, seed: int) -> dict[str, Any]:
    n = len(rows)
    agree = sum(h == k for _, _, h, k in rows)
    people: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for who, _, h, k in rows:
        people[who][0] += h == k
        people[who][1] += 1
    low_high = bootstrap_ratio([c[0] for c in people.values()], [c[1] for c in people.values()],
                               resamples=resamples, seed=seed) if n else None
    value = kappa([(h, k) for _, _, h, k in rows])
    return {"answers": n, "agree": agree, "agreement": round(agree / n, 6) if n else None,
            "agreement_ci": None if not n else [round(x, 6) for x in wilson(agree, n) or ()],
            "agreement_ci_participants": None if low_high is None else [round(x, 6) for x in low_high],
            "kappa": None if value is None else round(value, 6),
            "person_yes": round(sum(h for _, _, h, _ in rows) / n, 6) if n else None,
            "benchmark_yes": round(sum(k for _, _, _, k in rows) / n, 6) if n else None}


def oracle_agreement(records: Iterable[GameRecord], *, resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """The agreement of people's answers with the benchmark's, overall, per question kind and per participant."""
    rows = answered(records)
    kinds = sorted({kind for _, kind, _, _ in rows})
    people = sorted({who for who, _, _, _ in rows})
    return {"level": LEVEL, "resamples": resamples, "seed": seed, "participants": len(people),
            "overall": _cell(rows, resamples, seed),
            "by_kind": {kind: _cell([r for r in rows if r[1] == kind], resamples, seed) for kind in kinds},
            "by_participant": {who: {"answers": len(mine := [r for r in rows if r[0] == who]),
                                     "agreement": round(sum(h == k for _, _, h, k in mine) / len(mine), 6)}
                               for who in people}}


__all__ = ["AGREEMENT_FILE", "answered", "kappa", "oracle_agreement"]
