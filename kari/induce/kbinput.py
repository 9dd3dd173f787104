"""KB input for ``kari induce --db``: the KB's verbs read, completed, filtered, grouped and pooled.

1. the evidence per KB verb (:func:`kari.induce.inputs.from_db`, with the CreativityBench part affordances of
   :mod:`kari.induce.partkb`) and what the KB says beside it (:mod:`kari.induce.kbcontext`);
2. every object's properties completed from its KB classes (:mod:`kari.induce.completion`; ``complete``);
3. only verb phrases that name an action become targets (:mod:`kari.induce.targets`); the rest is recorded with
   its reason (the run report lists it);
4. verbs grouped (:mod:`kari.induce.grouping`; ``wordnet``: each phrase's sense chosen from its sentences and
   positives, :mod:`kari.induce.senses`);
5. each group's thin positives pooled with their KB kin and its implicit negatives weighed
   (:mod:`kari.induce.pooling`; ``pool``);
6. a group resting on fewer than ``min_kb_objects`` KB objects (positives and pooled kin) is left out, its verbs
   recorded with the reason ``thin-evidence`` (:func:`kari.induce.pooling.split_thin`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from kari.core.benchmark import ObjectRecord
from kari.vocab.vocabulary import Vocabulary
from kari.core.induce_config import InduceConfig, InputKind
from kari.induce.inputs import Evidence
from kari.induce.completion import complete
from kari.induce.grouping import group_evidence
from kari.induce.inputs import from_db
from kari.induce.kbcontext import read_context
from kari.induce.kinship import kinship
from kari.induce.partkb import from_part_kb
from kari.induce.pooling import base_weights, pool, split_thin
from kari.induce.senses import kb_domain
from kari.induce.targets import select_targets


def kb_evidence(db: str | Path, vocab: Vocabulary, config: InduceConfig) -> tuple[dict[str, Evidence], dict[str, Any]]:
    """The grouped evidence of the KB database ``db`` (module docstring) and the manifest's description of it
    (with ``left_out``: one record per verb that names no action or whose group rests on too few KB objects)."""
    verbs = {**from_part_kb(db), **from_db(db, vocab)}
    universe = _universe(verbs)
    context = replace(read_context(db), domain=kb_domain(o.id for o in universe))
    kin = kinship(universe, context)
    inferred_count = 0
    if config.complete:
        completed, inferred = complete(universe, kin)
        universes: dict[int, tuple[ObjectRecord, ...]] = {}
        verbs = {v: _with_objects(ev, completed, inferred, universes) for v, ev in verbs.items()}
        universe = [completed[o.id] for o in universe]
        inferred_count = sum(len(f) for f in inferred.values())
    targets, left_out = select_targets(verbs)
    grouped = group_evidence(targets, config.grouping, threshold=config.group_threshold, context=context)
    if config.pool:
        by_id = {o.id: o for o in universe}
        base = base_weights(universe, context.verb_counts)
        grouped = {g: pool(ev, kin, by_id, base) if not ev.part_level else ev for g, ev in grouped.items()}
    grouped, thin = split_thin(grouped, config.min_kb_objects)
    left_out += thin
    info: dict[str, Any] = {"kind": InputKind.DB, "path": str(db), "grouping": config.grouping,
                            "kb_verbs": str(len(verbs)), "targets": str(len(targets)), "groups": str(len(grouped)),
                            "inferred_facts": str(inferred_count), "left_out": left_out}
    return grouped, info


def _universe(verbs: Mapping[str, Evidence]) -> list[ObjectRecord]:
    """Every object of the KB input once (KB objects and CreativityBench parts). The verbs of one source share
    one universe tuple, each read once here (thousands of verbs x thousands of objects otherwise)."""
    out: dict[str, ObjectRecord] = {}
    walked: set[int] = set()
    for ev in verbs.values():
        if id(ev.universe) not in walked:
            walked.add(id(ev.universe))
            out.update((o.id, o) for o in ev.universe)
        out.update((o.id, o) for o in ev.positives)
    return list(out.values())


def _with_objects(ev: Evidence, objects: Mapping[str, ObjectRecord], inferred: Mapping[str, tuple[Any, ...]],
                  universes: dict[int, tuple[ObjectRecord, ...]]) -> Evidence:
    """``ev`` with its objects replaced by their completed records and the inferred facts of its objects; the
    verbs that share one universe tuple share its completed tuple (``universes``, by identity)."""
    def swap(group: tuple[ObjectRecord, ...]) -> tuple[ObjectRecord, ...]:
        return tuple(objects.get(o.id, o) for o in group)

    if id(ev.universe) not in universes:
        universes[id(ev.universe)] = swap(ev.universe)
    return replace(ev, positives=swap(ev.positives), labelled_negatives=swap(ev.labelled_negatives),
                   universe=universes[id(ev.universe)], inferred=inferred)
