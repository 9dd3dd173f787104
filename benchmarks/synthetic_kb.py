"""A deterministic CSKG-shaped KGTK KB for KB-scale induction benchmarks (``bench_induce_kb.py``).

    python benchmarks/synthetic_kb.py OUT.tsv [--verbs 2000] [--objects 3000] [--seed 0]

Shaped like the real KB kari reads (data/kb/kari_kb.tsv): ConceptNet-style node ids, the 10-column KGTK header,
``MadeOf`` / ``HasProperty`` / ``HasA`` property and part edges whose values are the vocabulary's own words (so
every property is typed), shared part nodes with properties of their own (``handle``, ``blade``), and ``UsedFor`` / ``CapableOf`` affordance edges
with free-text verb phrases the way the sources write them (``cutting``, ``cut bread``, ``used to cut wood``):
``--verbs`` distinct phrases built from about a tenth as many head verbs (WordNet verb lemmas), with a skewed number of positive
objects per phrase (about 70% one, 20% two to four, 10% five to forty, as in CSKG and ATOMIC-2020). Each head
verb has a hidden enabling profile (two or three property values); its positives are drawn mostly among objects
that have the profile, so a rule exists to be found, with noise. No negative edges (sources state none).
Standard library only; the same arguments give the same file.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = "id\tnode1\trelation\tnode2\tnode1;label\tnode2;label\trelation;label\trelation;dimension\tsource\tsentence\n"
RELATION = {"MADE_OF": ("MadeOf", "made of"), "SHAPE": ("HasProperty", "has property"),
            "SIZE": ("HasProperty", "has property"), "SURFACE": ("HasProperty", "has property")}
FORMS = ("{v}", "{g}", "{v} {o}", "{g} {o}", "used to {v} {o}", "{v} the {o}", "for {g} {o}", "{v} {o} with")
PARTS = ("handle", "blade", "lid", "leg", "wheel", "strap", "base", "tip", "frame", "spout", "cover", "edge")


def _values() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in (ROOT / "data" / "vocabulary" / "values.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        predicate, value, *_ = line.split("\t")
        if value not in ("material",):
            out.setdefault(predicate, []).append(value)
    return out


def _verbs() -> list[str]:
    """One-word WordNet verb lemmas with a tagged sense (``data/wordnet/verb_senses.tsv``): KB phrases must name an
    action to become rule targets (kari.induce.targets), so the heads are real verbs."""
    lines = (ROOT / "data" / "wordnet" / "verb_senses.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return sorted({lemma for lemma, _, _, tags in (line.split("\t") for line in lines)
                   if int(tags) >= 3 and "_" not in lemma and lemma.isalpha()})


def _gerund(verb: str) -> str:
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    if len(verb) >= 3 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
        return verb + verb[-1] + "ing"
    return verb + "ing"


def generate(path: Path, verbs: int = 2000, objects: int = 3000, seed: int = 0) -> dict[str, int]:
    """Write the KB; return its counts."""
    rng = random.Random(f"kari-synthetic-kb:{seed}")
    values = _values()
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa", "do", "fe", "gu", "hi", "ja", "bo"]
    names = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(objects * 3)})
    rng.shuffle(names)
    names = names[:objects]
    lines: list[str] = []
    facts: dict[str, set[tuple[str, str]]] = {}
    part_facts: dict[str, set[tuple[str, str]]] = {}
    for part in PARTS:  # part nodes are concepts shared by every object with that part, as in ConceptNet
        part_facts[part] = {(p, rng.choice(values[p])) for p in rng.sample(("MADE_OF", "SHAPE"), rng.choice((1, 2)))}
        for predicate, value in sorted(part_facts[part]):
            relation, label = RELATION[predicate]
            lines.append(f"{part}-{relation}-{value}\t/c/en/{part}/n\t{relation}\t/c/en/{value}\t{part}\t"
                         f"{value.replace('_', ' ')}\t{label}\tproperty\tsynthetic\t\n")
    for name in names:
        held: set[tuple[str, str]] = set()
        for predicate, pool in values.items():
            for _ in range(rng.choice((0, 1, 1, 2))):
                held.add((predicate, rng.choice(pool)))
        for predicate, value in sorted(held):
            relation, label = RELATION[predicate]
            lines.append(f"{name}-{relation}-{value}\t/c/en/{name}/n\t{relation}\t/c/en/{value}\t{name}\t"
                         f"{value.replace('_', ' ')}\t{label}\tproperty\tsynthetic\t\n")
        for part in rng.sample(PARTS, rng.choice((0, 0, 1, 2))):
            lines.append(f"{name}-HasA-{part}\t/c/en/{name}/n\t/r/HasA\t/c/en/{part}\t{name}\t{part}\thas a\t"
                         f"part-whole\tsynthetic\t\n")
            held |= part_facts[part]
        facts[name] = held
    heads = sorted(rng.sample(_verbs(), max(verbs // 10, 1)))
    profiles = {h: {(p, rng.choice(values[p])) for p in rng.sample(sorted(values), rng.choice((2, 3)))}
                for h in heads}
    phrases: set[str] = set()
    edges = 0
    attempts = 0
    while len(phrases) < verbs and attempts < verbs * 50:
        attempts += 1
        head = rng.choice(heads)
        form = rng.choice(FORMS)
        phrase = form.format(v=head, g=_gerund(head), o=rng.choice(names))
        if phrase in phrases:
            continue
        phrases.add(phrase)
        draw = rng.random()
        count = 1 if draw < 0.7 else rng.randint(2, 4) if draw < 0.9 else rng.randint(5, 40)
        fitting = [n for n in names if len(facts[n] & profiles[head]) >= 2] or names
        chosen = {rng.choice(fitting) if rng.random() < 0.8 else rng.choice(names) for _ in range(count)}
        relation = rng.choice(("UsedFor", "CapableOf"))
        for obj in sorted(chosen):
            key = phrase.replace(" ", "_")
            lines.append(f"{obj}-{relation}-{key}\t/c/en/{obj}/n\t/r/{relation}\t/c/en/{key}\t{obj}\t{phrase}\t"
                         f"{'used for' if relation == 'UsedFor' else 'capable of'}\tutility\tsynthetic\t\n")
            edges += 1
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return {"objects": len(names), "verbs": len(phrases), "heads": len(heads), "affordance_edges": edges,
            "edges": len(lines)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--verbs", type=int, default=2000)
    parser.add_argument("--objects", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(generate(args.out, args.verbs, args.objects, args.seed), file=sys.stderr)


if __name__ == "__main__":
    main()
