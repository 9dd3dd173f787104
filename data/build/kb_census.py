"""What a KB's affordance edges hold, and how they overlap a benchmark's labels (standard library only).

Used by data/build/build_all.py (kari's bundled KB against data/bench), benchmarks/outside/build_kb.py (the
outside KB against tests/data/outside_bench) and their tests. A KB edge is a dict with the KGTK columns
``node1``, ``relation``, ``node2;label`` and ``source``; its verb is read from ``node2;label`` the way kari's KB
view reads it (:func:`kb_sources.verb_key`).

Matching a benchmark label (object, affordance) to the KB edges of the same object:

- **same verb**: the edge's verb, after normalising spelling, is the affordance id (``cut`` / ``cut``), or
  names it with the relation's own words (``UsedFor eating`` / ``use_for_eating``). The builds hold every such
  edge out of the KB, so this count is 0 by construction and a test checks it.
- **head word**: the edge's verb has among its words a form of the affordance's head verb (``cut_bread``,
  ``cutting`` for ``cut``; ``eaten`` for ``eat``; ``cleaner``, ``decoration``: :func:`forms`).
- **all words**: every key word of the affordance appears, in some form (``making_music`` for ``make_music``).

Key words of an affordance are its words without particles and light words (:data:`LIGHT_WORDS`); a benchmark
may name them itself (the outside benchmark's ids are adjectives and column names: ``edible`` -> ``eat``).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kb_sources import verb_key  # noqa: E402

POSITIVE = ("UsedFor", "CapableOf", "ReceivesAction")
NEGATIVE = ("NotCapableOf", "NotUsedFor")
LIGHT_WORDS = frozenset("with on from for to in into of a an the use used things".split())
RELATION_WORDS = {"UsedFor": ("use_for", "used_for"), "NotUsedFor": ("use_for", "used_for"),
                  "CapableOf": ("capable_of",), "NotCapableOf": ("capable_of",)}
IRREGULAR = {"eat": ("ate", "eaten"), "hold": ("held",), "make": ("made",), "break": ("broke", "broken"),
             "wear": ("wore", "worn"), "keep": ("kept",), "hang": ("hung",), "cut": ("cut",),
             "ride": ("rode", "ridden"),
             "throw": ("threw", "thrown"), "sit": ("sat",), "find": ("found",), "drink": ("drank", "drunk"),
             "hit": ("hit",), "swing": ("swung",), "fly": ("flew", "flown", "flies", "flying"),
             "foot": ("feet",), "child": ("children",)}


def forms(word: str) -> set[str]:
    """Inflected forms of an English verb or noun (``cut`` -> cuts, cutting, ...; ``make`` -> making, made); a
    gerund stands for its verb (``eating`` -> eat, eats, ...)."""
    if word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
        bases = {stem, stem + "e"} | ({stem[:-1]} if stem[-1] == stem[-2] else set())
        return {word} | {f for b in bases for f in _forms(b)}
    return _forms(word)


def _forms(word: str) -> set[str]:
    out = {word, word + "s", word + "es", word + "ed", word + "d", word + "ing", *IRREGULAR.get(word, ()),
           word + "er", word + "ers", word + "ion", word + "ation"}  # cleaner, transportation
    if word.endswith("e"):
        out |= {word[:-1] + "ing", word[:-1] + "ed", word[:-1] + "ion"}  # decoration
    if word.endswith("y"):
        out |= {word[:-1] + "ies", word[:-1] + "ied"}
    if len(word) >= 3 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        out |= {word + word[-1] + "ing", word + word[-1] + "ed"}
    return out


def key_words(affordance: str) -> tuple[str, ...]:
    """The affordance's words without particles and light words, head first (``hang_on_wall`` -> hang, wall)."""
    words = tuple(w for w in affordance.split("_") if w not in LIGHT_WORDS)
    return words or tuple(affordance.split("_"))


def edge_verb(edge: Mapping[str, str]) -> str:
    return verb_key(edge["node2;label"])


def same_verb(relation: str, verb: str, affordance: str) -> bool:
    """The edge names the affordance itself, spelling normalised (module docstring)."""
    target = verb_key(affordance.replace("_", " "))
    return verb == target or any(f"{prefix}_{verb}" == target for prefix in RELATION_WORDS.get(relation, ()))


def contains(verb: str, words: Sequence[str]) -> bool:
    """Every one of ``words`` occurs, in some form, among the words of ``verb``."""
    have = set(verb.split("_"))
    return all(have & forms(w) for w in words)


class Matcher:
    """Matches KB verbs to one benchmark's affordances; ``heads`` overrides an affordance's key words."""

    def __init__(self, affordances: Iterable[str], heads: Mapping[str, Sequence[str]] | None = None) -> None:
        self.words = {a: tuple(heads[a]) if heads and a in heads else key_words(a) for a in affordances}

    def level(self, relation: str, verb: str, affordance: str) -> str | None:
        """'same', 'all', 'head' (strongest first) or None."""
        words = self.words.get(affordance) or key_words(affordance)
        if same_verb(relation, verb, affordance):
            return "same"
        if contains(verb, words):
            return "all"
        if contains(verb, words[:1]):
            return "head"
        return None


def affordance_edges(edges: Iterable[Mapping[str, str]]) -> list[tuple[str, str, str, bool, str]]:
    """``(object, relation, verb, positive, source)`` of every affordance edge."""
    out = []
    for e in edges:
        if e["relation"] in POSITIVE or e["relation"] in NEGATIVE:
            out.append((e["node1"], e["relation"], edge_verb(e), e["relation"] in POSITIVE, e["source"]))
    return out


def overlap(edges: Iterable[Mapping[str, str]], labels: Iterable[tuple[str, str, bool]],
            matcher: Matcher) -> dict[str, dict[str, int]]:
    """Per matching level ('same', 'all words', 'head word'): how many labels (object, affordance, truth) have
    a KB edge of the same object at that level or stronger, split by the label's truth and the edge's polarity:
    keys ``true~kb+``, ``true~kb-``, ``false~kb+``, ``false~kb-`` and ``labels`` (matched by any edge)."""
    by_object: dict[str, list[tuple[str, str, bool]]] = defaultdict(list)
    for obj, relation, verb, positive, _ in affordance_edges(edges):
        by_object[obj].append((relation, verb, positive))
    rank = {"same": 0, "all": 1, "head": 2}
    out = {level: Counter() for level in ("same", "all words", "head word")}
    names = {"same": "same", "all": "all words", "head": "head word"}
    for obj, aff, truth in labels:
        best: dict[bool, int] = {}
        for relation, verb, positive in by_object.get(obj, ()):
            level = matcher.level(relation, verb, aff)
            if level is not None:
                best[positive] = min(best.get(positive, 9), rank[level])
        for level, r in rank.items():
            hit = [positive for positive, b in best.items() if b <= r]
            for positive in hit:
                out[names[level]][f"{'true' if truth else 'false'}~kb{'+' if positive else '-'}"] += 1
            out[names[level]]["labels"] += bool(hit)
    keys = ("labels", "true~kb+", "true~kb-", "false~kb+", "false~kb-")
    return {level: {k: counts[k] for k in keys} for level, counts in out.items()}


def census(edges: Sequence[Mapping[str, str]], bench_objects: Iterable[str], affordances: Sequence[str],
           matcher: Matcher) -> dict[str, object]:
    """The figures data/README.md reports for a KB (see :func:`markdown`)."""
    per_relation: Counter[tuple[str, str]] = Counter()
    for e in edges:
        for source in e["source"].split("|"):
            per_relation[(e["relation"], source)] += 1
    aff = affordance_edges(edges)
    positives: dict[str, set[str]] = defaultdict(set)
    negatives: dict[str, set[str]] = defaultdict(set)
    for obj, _, verb, positive, _ in aff:
        (positives if positive else negatives)[verb].add(obj)
    verbs = set(positives) | set(negatives)
    bench = set(bench_objects)
    with_edge = {obj for obj, *_ in aff}
    levels = (("same", ("same",)), ("all words", ("same", "all")), ("head word", ("same", "all", "head")))
    covered = {level: sorted(a for a in affordances
                             if any(matcher.level(r, v, a) in allowed for _, r, v, _, _ in aff))
               for level, allowed in levels}
    supported = {(r, v) for _, r, v, p, _ in aff if p and len(positives[v]) >= 3}
    covered_3 = {level: sorted(a for a in affordances if any(matcher.level(r, v, a) in allowed for r, v in supported))
                 for level, allowed in levels}
    return {
        "edges": len(edges),
        "edges_per_relation_source": dict(sorted(per_relation.items())),
        "affordance_edges": len(aff),
        "positive_affordance_edges": sum(1 for *_, p, _ in aff if p),
        "negative_affordance_edges": sum(1 for *_, p, _ in aff if not p),
        "objects_with_affordance_edges": len(with_edge),
        "distinct_verbs": len(verbs),
        "verbs_with_positives": len(positives),
        "verbs_with_3_positive_objects": sum(1 for v in positives.values() if len(v) >= 3),
        "verbs_with_10_positive_objects": sum(1 for v in positives.values() if len(v) >= 10),
        "verbs_with_negatives": len(negatives),
        "bench_objects": len(bench),
        "bench_objects_with_affordance_edges": len(bench & with_edge),
        "bench_affordances": len(affordances),
        "bench_affordances_with_kb_verb": {level: len(v) for level, v in covered.items()},
        "bench_affordances_covered": covered,
        "bench_affordances_with_kb_verb_of_3_positives": {level: len(v) for level, v in covered_3.items()},
        "top_verbs": sorted(((len(v), k) for k, v in positives.items()), reverse=True)[:15],
    }


def markdown(figures: Mapping[str, object], overlaps: Mapping[str, Mapping[str, int]], n_labels: int) -> str:
    """The census and overlap tables as Markdown (data/README.md and benchmarks/outside/README.md embed them)."""
    f = figures
    rel: dict[str, Counter[str]] = defaultdict(Counter)
    for (relation, source), n in f["edges_per_relation_source"].items():  # type: ignore[union-attr]
        rel[relation][source] = n
    lines = ["| relation | edges by source (an edge several sources state counts for each) |", "| --- | --- |"]
    for relation in sorted(rel):
        parts = ", ".join(f"{s} {n:,}" for s, n in sorted(rel[relation].items(), key=lambda t: (-t[1], t[0])))
        lines.append(f"| {relation} | {parts} |")
    covered = f["bench_affordances_with_kb_verb"]  # type: ignore[index]
    covered3 = f["bench_affordances_with_kb_verb_of_3_positives"]  # type: ignore[index]
    lines += ["", "| | count |", "| --- | --- |",
              f"| KB edges | {f['edges']:,} |",
              f"| affordance edges (positive / negative) | {f['affordance_edges']:,} "
              f"({f['positive_affordance_edges']:,} / {f['negative_affordance_edges']:,}) |",
              f"| objects with an affordance edge | {f['objects_with_affordance_edges']:,} |",
              f"| distinct affordance verbs (with a positive / a negative object) | {f['distinct_verbs']:,} "
              f"({f['verbs_with_positives']:,} / {f['verbs_with_negatives']:,}) |",
              f"| verbs with >= 3 / >= 10 positive objects | {f['verbs_with_3_positive_objects']:,} / "
              f"{f['verbs_with_10_positive_objects']:,} |",
              f"| benchmark objects with an affordance edge | {f['bench_objects_with_affordance_edges']:,} of "
              f"{f['bench_objects']:,} |",
              f"| benchmark affordances with a KB verb: same word / all key words / head word | "
              f"{covered['same']} / {covered['all words']} / {covered['head word']} of {f['bench_affordances']} |",
              f"| the same, counting only verbs with >= 3 positive objects | {covered3['same']} / "
              f"{covered3['all words']} / {covered3['head word']} of {f['bench_affordances']} |",
              "", f"| benchmark labels ({n_labels:,}) with a KB edge of the same object | labels | true label, KB + "
              "| true label, KB - | false label, KB + | false label, KB - |", "| --- | --- | --- | --- | --- | --- |"]
    for level in ("same", "all words", "head word"):
        o = overlaps[level]
        lines.append(f"| {level} verb | {o['labels']:,} | {o['true~kb+']:,} | {o['true~kb-']:,} | "
                     f"{o['false~kb+']:,} | {o['false~kb-']:,} |")
    return "\n".join(lines) + "\n"


# --- command line --------------------------------------------------------------------------------------------------
def read_kb(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def read_bench(folder: Path) -> tuple[list[str], list[str], list[tuple[str, str, bool]]]:
    """(object ids, affordance ids, labels) of a benchmark directory."""
    import json

    def records(name: str) -> list[dict]:
        return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines() if line.strip()]

    return ([r["id"] for r in records("objects.jsonl")], [r["id"] for r in records("affordances.jsonl")],
            [(r["object"], r["affordance"], bool(r["label"])) for r in records("labels.jsonl")])


def read_heads(path: Path | None) -> dict[str, tuple[str, ...]]:
    """``affordance<TAB>key words`` lines (space-separated words, head first); a header line is skipped."""
    if path is None:
        return {}
    out = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if number > 1 and line.strip():
            affordance, words = line.split("\t")
            out[affordance] = tuple(words.split())
    return out


def report(kb: Path, bench: Path, heads: Path | None = None) -> str:
    """The Markdown census of ``kb`` against the benchmark directory ``bench``."""
    edges = read_kb(kb)
    objects, affordances, labels = read_bench(bench)
    matcher = Matcher(affordances, read_heads(heads))
    return markdown(census(edges, objects, affordances, matcher), overlap(edges, labels, matcher), len(labels))


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Census of a KGTK KB's affordance edges against a benchmark.")
    parser.add_argument("kb", type=Path, help="KGTK edge file")
    parser.add_argument("bench", type=Path, help="benchmark directory (objects, affordances, labels .jsonl)")
    parser.add_argument("--heads", type=Path, help="TSV: affordance, its key words (head first)")
    args = parser.parse_args(argv)
    print(report(args.kb, args.bench, args.heads), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
