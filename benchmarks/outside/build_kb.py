"""Build the outside KB: a KGTK KB for the outside benchmark's objects from sources that are not its label sources.

    python benchmarks/outside/build_kb.py --sources DIR [--bench tests/data/outside_bench] [--out tests/data/outside_kb]

The outside benchmark's labels come from Forbes et al.'s functional columns, AI2-THOR's type flags and PROST's
breaking lexicons. This KB's affordance evidence comes from ConceptNet (the CKBC evaluation triples judged true,
the CSKG sample), ATOMIC-2020's physical triples and WordNet 3.0 (glosses, morphosemantic links), read by
data/build/kb_sources.py; its objects are the benchmark's, named as the benchmark names them (``boots``,
``arm_chair``), and described by the benchmark's own property rows (its words, its parts, its part properties).
An edge naming a benchmark label's object and affordance with the same verb is held out (``broom UsedFor
cleaning`` for the label ``broom used_for_cleaning``).

Writes ``outside_kb.tsv`` (KGTK, 10 columns), ``affordance_words.tsv`` (each benchmark affordance's key words,
for the overlap census) and prints the census that benchmarks/outside/README.md reports. Standard library
only (with kari's standard-library word-form module); outputs sorted and written through a temporary file, so
a rebuild is byte-identical.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "data" / "build"))

import kb_census  # noqa: E402
import kb_sources  # noqa: E402
from kb_sources import Statement, Universe, verb_key  # noqa: E402
from kgtk import KGTK_HEADER, kb_rows, tsv, write_text  # noqa: E402
from sources import Fact, WordNet  # noqa: E402

BENCH_SOURCE = "outside-bench-objects"
# Each outside affordance's key words (head first) for the overlap census: its ids are column names and
# adjectives ("edible", "found_on_walls"), so the word a KB verb would use is named here.
AFFORDANCE_WORDS = {
    "a_tool": ("tool",), "a_toy": ("toy",), "breakable": ("break",), "decorative": ("decorate",),
    "edible": ("eat",), "electrical": ("electricity",), "found_on_walls": ("wall",), "moveable": ("move",),
    "pickupable": ("pick", "up"), "produces_noise": ("noise",), "receptacle": ("hold",),
    "requires_gasoline": ("gasoline",), "used_by_children": ("child",), "used_for_cleaning": ("clean",),
    "used_for_cooking": ("cook",), "used_for_eating": ("eat",), "used_for_holding_things": ("hold",),
    "used_for_killing": ("kill",), "used_for_music": ("music",), "used_for_transportation": ("transport",),
    "worn_for_warmth": ("warm",), "worn_on_feet": ("foot",),
}
PROPERTY_RELATION = {"MADE_OF": "MadeOf", "SHAPE": "HasProperty", "SIZE": "HasProperty", "SURFACE": "HasProperty"}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def senses(objects: list[dict], wn: WordNet) -> dict[str, list[str]]:
    """The WordNet sense the benchmark gave each object: the synset whose gloss its description quotes
    (``name: gloss`` or ``name, a kind of word: gloss``), preferring one named after the object."""
    by_gloss: dict[str, list[str]] = {}
    for synset, gloss in sorted(wn.gloss.items()):
        by_gloss.setdefault(gloss, []).append(synset)
    out = {}
    for obj in objects:
        _, sep, gloss = obj["description"].partition(": ")
        found = by_gloss.get(gloss) if sep else None
        if found:
            named = [s for s in found if obj["id"].replace("_", "") in
                     {lemma.lower().replace("_", "") for lemma in wn.lemmas[s]}]
            out[obj["id"]] = [(named or found)[0]]
    return out


def universe(objects: list[dict], wn: WordNet) -> Universe:
    ids = {o["id"] for o in objects}
    found = senses(objects, wn)
    by_synset = {s: obj for obj, group in sorted(found.items()) for s in group}
    aliases = {kb_sources.snake(lemma): obj for synset, obj in sorted(by_synset.items(), key=lambda t: (t[1], t[0]))
               for lemma in wn.lemmas.get(synset, ()) if kb_sources.snake(lemma) not in ids}
    return Universe([ids], found, by_synset, aliases)


def property_facts(objects: list[dict]) -> list[Fact]:
    """The benchmark's own property rows as KB edges: whole-object rows on the object, part rows on
    ``object/part`` (an object-specific part property, as kari's KB view reads it), parts as HasA."""
    facts = []
    for obj in objects:
        for part in obj["parts"]:
            facts.append(Fact(obj["id"], "HasA", part, BENCH_SOURCE,
                              f"outside benchmark object {obj['id']}: part {part}"))
        for p in obj["properties"]:
            node = obj["id"] if p["part"] == "whole" else f"{obj['id']}/{p['part']}"
            facts.append(Fact(node, PROPERTY_RELATION[p["predicate"]], p["value"], BENCH_SOURCE,
                              f"outside benchmark object {obj['id']}: {p['part']} {p['predicate']} {p['value']}"))
    return facts


def affordance_statements(sources_dir: Path, wn: WordNet, world: Universe) -> tuple[list[Fact], Counter[str]]:
    """Affordance edges of the KB sources whose head is a benchmark object (property statements are not read:
    the objects are described by the benchmark's rows)."""
    edges: list[Fact] = []
    unresolved: Counter[str] = Counter()

    def add(head: str, st: Statement) -> None:
        obj = world.resolve(head)
        if obj is None:
            unresolved[st.source] += 1
        elif st.relation not in ("HasA", "MadeOf", "HasProperty") and verb_key(st.words):
            edges.append(Fact(obj, st.relation, verb_key(st.words), st.source, st.sentence, st.words))

    for _, st in kb_sources.ckbc(sources_dir):
        add(st.head, st)
    for st in [*kb_sources.cskg(sources_dir), *kb_sources.atomic(sources_dir)]:
        add(st.head, st)
    for obj, synsets in sorted(world.senses.items()):
        for synset in synsets:
            gloss = wn.gloss[synset]
            for relation, words, frame in kb_sources.gloss_uses(gloss):
                edges.append(Fact(obj, relation, verb_key(words), kb_sources.WORDNET,
                                  f"WordNet {synset} ({frame}): {gloss}", words))
    for link in kb_sources.morphosemantic(sources_dir):
        prefix = link.noun_gloss.removesuffix("...")
        for synset in wn.by_lemma.get(link.noun, []):
            if wn.gloss[synset].startswith(prefix) and synset in world.by_synset:
                verb = link.verb.replace("_", " ")
                edges.append(Fact(world.by_synset[synset], "UsedFor", verb_key(verb), kb_sources.MORPHOSEMANTIC,
                                  link.sentence, verb))
                break
    return edges, unresolved


def build(sources_dir: Path, bench: Path, only: frozenset[str] | None = None
          ) -> tuple[list[tuple[str, ...]], dict[str, object]]:
    """The KB's KGTK rows and the build's figures; ``only``: keep the affordance edges of these sources only."""
    objects = read_jsonl(bench / "objects.jsonl")
    labels = [(r["object"], r["affordance"], r["label"]) for r in read_jsonl(bench / "labels.jsonl")]
    wn = WordNet(sources_dir)
    world = universe(objects, wn)
    edges, unresolved = affordance_statements(sources_dir, wn, world)
    if only is not None:
        edges = [f for f in edges if f.source in only]
    by_object: dict[str, list[tuple[str, bool]]] = {}
    for o, a, t in labels:
        by_object.setdefault(o, []).append((a, t))
    kept, held = [], []
    for f in edges:
        hit = [a for a, _ in by_object.get(f.node1, ()) if kb_census.same_verb(f.relation, f.node2, a)]
        (held.append((f.node1, f.relation, f.label, hit[0])) if hit else kept.append(f))
    rows = kb_rows(property_facts(objects) + kept)
    figures = {"objects": len(objects), "objects_with_wordnet_sense": len(world.senses), "kb_edges": len(rows),
               "held_out_same_verb": len(held), **{f"unresolved_heads_{k}": v for k, v in sorted(unresolved.items())}}
    for obj, relation, words, affordance in sorted(held):
        figures[f"held_out {obj} {relation} {words!r}"] = f"label {affordance}"
    return rows, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, required=True, help="folder of the public data sets")
    parser.add_argument("--bench", type=Path, default=ROOT / "tests" / "data" / "outside_bench",
                        help="the outside benchmark directory")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "outside_kb", help="output folder")
    parser.add_argument("--only", default=None, help="keep the affordance edges of these sources only (comma-separated,"
                        " e.g. ATOMIC-2020: the ATOMIC pair of tests/data/atomic_kb)")
    parser.add_argument("--name", default="outside_kb.tsv", help="the KB file's name in --out")
    args = parser.parse_args(argv)
    for folder in (args.sources, args.bench):
        if not folder.is_dir():
            print(f"build_kb: {folder}: not a folder", file=sys.stderr)
            return 2
    affordances = sorted(r["id"] for r in read_jsonl(args.bench / "affordances.jsonl"))
    missing = [a for a in affordances if a not in AFFORDANCE_WORDS]
    if missing:
        print(f"build_kb: no key words for the affordance {missing[0]!r} (AFFORDANCE_WORDS)", file=sys.stderr)
        return 2
    rows, figures = build(args.sources, args.bench, frozenset(args.only.split(",")) if args.only else None)
    write_text(args.out / args.name, tsv(KGTK_HEADER, rows))
    write_text(args.out / "affordance_words.tsv",
               tsv(("affordance", "key_words"), ((a, " ".join(AFFORDANCE_WORDS[a])) for a in affordances)))
    for key, value in figures.items():
        print(f"{key}\t{value}")
    print(kb_census.report(args.out / args.name, args.bench, args.out / "affordance_words.tsv"), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
