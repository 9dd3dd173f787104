"""Build kari's bundled KB, value lexicon and Affordance20Q-format benchmark from the public data sets.

    python data/build/build_all.py --shared ../shared/data [--out .] [--games 1009] [--seed 0]

Reads only ``--shared``; writes (atomically, sorted, so the same inputs give byte-identical files)
``data/kb/kari_kb.tsv``, ``kb/value_lexicon.tsv`` and ``data/bench/{objects,affordances,labels,games}.jsonl``
under ``--out`` (the project root). See data/README.md for the design and provenance. This is the only part of
kari that reads ../shared; kari itself never does.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sources  # noqa: E402
from affordances import AFFORDANCES, VERBS  # noqa: E402
from kb_build import build_kb, iter_label_sources  # noqa: E402
from kgtk import KGTK_HEADER, kb_rows, tsv  # noqa: E402
from lexicon import build_lexicon, lexicon_rows  # noqa: E402
from sources import Fact  # noqa: E402

from kari.bench.build import sample_games  # noqa: E402
from kari.core.benchmark import Label  # noqa: E402
from kari.io.atomic import atomic_write_jsonl, atomic_write_text  # noqa: E402
from kari.core.terms import PREDICATES  # noqa: E402
from kari.vocab.vocabulary import Vocabulary  # noqa: E402

LABEL_SOURCES_HEADER = ("object", "affordance", "label", "source", "sentence")
MIN_PROPERTIES = 3
MIN_POSITIVES = 10
MIN_NEGATIVES = 10


def collect(shared: Path, wn: sources.WordNet) -> tuple[list[Fact], set[str]]:
    """Every fact from every source, and the candidate object ids (things some source names as an object)."""
    base: list[Fact] = [*sources.ai2thor(shared), *sources.forbes(shared), *sources.situated(shared),
                        *sources.prost(shared), *sources.kmi(shared)]
    candidates = {f.node1 for f in base}
    candidates = {o for o in candidates
                  if o not in sources.NOT_OBJECTS and not ((s := wn.synset(o)) and wn.excluded(s))}
    facts = base + [f for f in sources.conceptnet(shared, VERBS) if f.node1 in candidates]
    facts += list(sources.wordnet(sorted(candidates), wn))
    return facts, candidates


def resolve_labels(facts: Iterable[Fact]) -> tuple[dict[tuple[str, str], bool], int]:
    """(object, affordance) -> truth; pairs that sources disagree on are dropped (their count is returned)."""
    votes: dict[tuple[str, str], set[bool]] = defaultdict(set)
    for f in facts:
        if f.relation in ("CapableOf", "NotCapableOf") and f.node2 in AFFORDANCES:
            votes[(f.node1, f.node2)].add(f.relation == "CapableOf")
    resolved = {key: next(iter(v)) for key, v in votes.items() if len(v) == 1}
    return resolved, len(votes) - len(resolved)


def typed(node: str, facts_by_node: dict[str, list[Fact]], lexicon: dict[str, tuple[str, str]]) -> set[tuple[str, str]]:
    """(predicate, value) pairs a node's MadeOf / HasProperty facts denote through the value lexicon."""
    return {lexicon[f.node2] for f in facts_by_node.get(node, []) if f.relation in ("MadeOf", "HasProperty")
            and f.node2 in lexicon}


def object_record(obj: str, facts_by_node: dict[str, list[Fact]], lexicon: dict[str, tuple[str, str]],
                  descriptions: dict[str, str]) -> dict:
    """The objects.jsonl record the KB's object-property view derives: own properties on 'whole', each HasA part's
    own properties on that part."""
    parts = sorted({f.node2 for f in facts_by_node.get(obj, []) if f.relation == "HasA"})
    order = {p: i for i, p in enumerate(PREDICATES)}
    props = [("whole", p, v) for p, v in typed(obj, facts_by_node, lexicon)]
    for part in parts:
        props += [(part, p, v) for p, v in typed(part, facts_by_node, lexicon)]
    props.sort(key=lambda t: (t[0] != "whole", t[0], order[t[1]], t[2]))
    return {"id": obj, "description": descriptions[obj], "parts": parts,
            "properties": [{"part": a, "predicate": p, "value": v} for a, p, v in props]}


def build(shared: Path, out: Path, n_games: int, seed: int) -> dict[str, int]:
    """Build everything; returns the scale figures."""
    vocab = Vocabulary.load(out / "data" / "vocabulary")
    lexicon = build_lexicon(vocab)
    wn = sources.WordNet(shared)
    facts, candidates = collect(shared, wn)
    labels, conflicts = resolve_labels(facts)
    by_node: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        by_node[f.node1].append(f)
    descriptions = {o: sources.description(o, wn) for o in candidates}
    records = {o: object_record(o, by_node, lexicon, descriptions) for o in sorted(candidates)}
    objects = sorted(o for o, r in records.items() if len(r["properties"]) >= MIN_PROPERTIES)
    # affordances need enough real positives and negatives among the kept objects
    kept = set(objects)
    count: dict[tuple[str, bool], int] = defaultdict(int)
    for (o, a), truth in labels.items():
        if o in kept:
            count[(a, truth)] += 1
    affs = sorted(a for a in AFFORDANCES if count[(a, True)] >= MIN_POSITIVES and count[(a, False)] >= MIN_NEGATIVES)
    final_labels = sorted((o, a, t) for (o, a), t in labels.items() if o in kept and a in affs)
    objects = sorted({o for o, _, _ in final_labels})  # an object without any label plays no part in a game
    kept = set(objects)

    parts = sorted({p for o in objects for p in records[o]["parts"]})
    nodes = kept | set(parts)
    bench_facts = [f for f in facts if (f.relation in ("MadeOf", "HasProperty") and f.node1 in nodes
                                        and f.node2 in lexicon) or (f.relation == "HasA" and f.node1 in kept)]
    kb = build_kb(shared, wn, facts, candidates, kept, set(parts), bench_facts, final_labels, lexicon)
    rows = kb_rows(kb.facts)
    atomic_write_text(out / "data" / "kb" / "kari_kb.tsv", tsv(KGTK_HEADER, rows))
    atomic_write_text(out / "kb" / "value_lexicon.tsv", tsv(("raw", "predicate", "value"), lexicon_rows(lexicon)))

    bench = out / "data" / "bench"
    atomic_write_text(bench / "label_sources.tsv", tsv(LABEL_SOURCES_HEADER, iter_label_sources(facts, final_labels)))
    atomic_write_jsonl(bench / "objects.jsonl", (records[o] for o in objects))
    atomic_write_jsonl(bench / "affordances.jsonl", ({"id": a, "description": AFFORDANCES[a]} for a in affs))
    atomic_write_jsonl(bench / "labels.jsonl", ({"object": o, "affordance": a, "label": t} for o, a, t in final_labels))
    games = sample_games(objects, affs, [Label(o, a, t) for o, a, t in final_labels], n_games=n_games, seed=seed,
                         min_positives=MIN_POSITIVES)
    atomic_write_jsonl(bench / "games.jsonl", ({"id": g.id, "object": g.object, "target": g.target,
                                               "candidates": list(g.candidates)} for g in games))
    return {"candidate_objects": len(candidates), "objects": len(objects), "affordances": len(affs),
            "labels": len(final_labels), "positive_labels": sum(t for _, _, t in final_labels),
            "label_conflicts_dropped": conflicts, "games": len(games), "parts": len(parts),
            "objects_with_parts": sum(1 for o in objects if records[o]["parts"]), "kb_edges": len(rows),
            "kb_described_objects": kb.described_objects,
            "kb_held_out_label_triples": kb.held_out_triples,
            "kb_held_out_same_verb": sum(kb.held_out_same_verb.values()),
            "kb_held_out_same_verb_agreeing": sum(n for (_, agree), n in kb.held_out_same_verb.items() if agree),
            "kb_affordance_edges_of_undescribed_objects": kb.dropped_undescribed,
            **{f"kb_unresolved_heads_{k}": v for k, v in sorted(kb.unresolved.items())}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"), help="folder of the public data sets")
    parser.add_argument("--out", type=Path, default=Path("."), help="project root to write into")
    parser.add_argument("--games", type=int, default=1009, help="number of games to sample")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    args = parser.parse_args(argv)
    if not args.shared.is_dir():
        print(f"build_all: {args.shared}: not a folder", file=sys.stderr)
        return 2
    for key, value in build(args.shared, args.out, args.games, args.seed).items():
        print(f"{key}\t{value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
