"""kari's bundled KB: objects described by the property sources, affordance evidence from sources that are not
data/bench's label sources (data/README.md, "The KB").

The property facts of every node of data/bench (its objects and their part nodes) are exactly the facts the
benchmark's objects.jsonl is derived from, so the KB's view of those objects stays the benchmark's. Every other
object the affordance sources name (a build candidate, or a WordNet artifact) is described by the same property
readers; it enters the KB when the value lexicon types at least one of its (or its parts') properties.

Affordance edges come from ConceptNet (CKBC, CSKG sample), ATOMIC-2020 and WordNet (glosses, morphosemantic
links) through :mod:`kb_sources`, the verb as the source writes it (``node2;label``). Two hold-outs keep the
benchmark's labels out of the KB: a CKBC triple the benchmark's label reader turned into one of its labels
(sources.conceptnet), and any edge naming a benchmark label's object and affordance with the same verb
(:func:`kb_census.same_verb`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import kb_census
import kb_sources
import sources
from kb_sources import Statement, Universe, verb_key
from sources import Fact


PROPERTY_RELATIONS = ("MadeOf", "HasProperty", "HasA")
_MERONYM = re.compile(r"^WordNet part meronym \S+ -> (\S+)$")


def universe(wn: sources.WordNet, bench: set[str], parts: set[str], candidates: set[str],
             facts: Iterable[Fact]) -> Universe:
    """Benchmark objects, their part nodes, the other candidates, then every WordNet artifact whose sense no
    earlier id has taken, named by its head lemma (the lowest-numbered sense of that lemma only; other sources'
    names resolve to it only when it is the lemma's first noun sense)."""
    senses: dict[str, list[str]] = {}
    for obj in sorted(bench | candidates):
        synset = wn.synset(obj)
        if synset:
            senses[obj] = [synset]
    meronyms: dict[str, set[str]] = defaultdict(set)
    for f in facts:
        match = _MERONYM.match(f.sentence) if f.relation == "HasA" else None
        if match:
            meronyms[f.node2].add(match.group(1))
    all_parts = set(meronyms) | parts
    for part in sorted(all_parts - set(senses)):
        if meronyms.get(part):
            senses[part] = sorted(meronyms[part])
    taken = {s for group in senses.values() for s in group}
    known = bench | parts | candidates | all_parts
    artifacts: set[str] = set()
    for synset in sorted(wn.gloss):
        head = sources.lemma_of(synset)
        if synset in taken or head in known or head in artifacts or wn.synset(head) != synset or wn.excluded(synset):
            continue
        artifacts.add(head)
        senses[head] = [synset]
    by_synset: dict[str, str] = {}
    for obj, group in sorted(senses.items()):
        for synset in group:
            by_synset.setdefault(synset, obj)
    # Another source's name means a WordNet artifact only when the artifact is the name's first noun sense:
    # ConceptNet's pig is the animal, not pig.n.06 (a block of metal); its heart is not heart.n.10 (a card).
    first = {head for head in artifacts if senses[head][0].endswith(".n.01")}
    ids = known | artifacts
    aliases = {sources.snake(lemma): obj for synset, obj in sorted(by_synset.items(), key=lambda t: (t[1], t[0]))
               for lemma in wn.lemmas.get(synset, ())
               if sources.snake(lemma) not in ids and (obj not in artifacts or obj in first)}
    return Universe([bench, parts, candidates - bench, all_parts - parts, first], senses, by_synset, aliases)


# --- affordance statements, named -------------------------------------------------------------------------------
@dataclass
class Named:
    """Affordance and property edges of the KB sources, with the objects resolved; what was not resolved."""

    edges: list[Fact] = field(default_factory=list)
    unresolved: Counter[str] = field(default_factory=Counter)


def _edge(obj: str, st: Statement) -> Fact:
    return Fact(obj, st.relation, verb_key(st.words), st.source, st.sentence, st.words)


def named_statements(shared: Path, wn: sources.WordNet, world: Universe, label_triples: set[str]) -> Named:
    """Every statement of the KB sources whose head is a known object, CKBC triples the benchmark read as its
    labels left out (``label_triples``: their provenance sentences)."""
    out = Named()

    def add(head: str, st: Statement) -> None:
        obj = world.resolve(head)
        if obj is None:
            out.unresolved[st.source] += 1
        elif st.relation in PROPERTY_RELATIONS:
            out.edges.append(Fact(obj, st.relation, sources.snake(st.words), st.source, st.sentence))
        elif verb_key(st.words):
            out.edges.append(_edge(obj, st))

    for triple, st in kb_sources.ckbc(shared):
        if triple.sentence(sources.snake(triple.head)) not in label_triples:
            add(triple.head, st)
    for st in kb_sources.cskg(shared):
        add(st.head, st)
    for st in kb_sources.atomic(shared):
        add(st.head, st)
    for obj, synsets in sorted(world.senses.items()):
        for synset in synsets:
            gloss = wn.gloss.get(synset, "")
            for relation, words, frame in kb_sources.gloss_uses(gloss):
                out.edges.append(_edge(obj, Statement(synset, relation, words, kb_sources.WORDNET,
                                                      f"WordNet {synset} ({frame}): {gloss}")))
    for link in kb_sources.morphosemantic(shared):
        prefix = link.noun_gloss.removesuffix("...")
        for synset in wn.by_lemma.get(link.noun, []):
            if wn.gloss[synset].startswith(prefix) and synset in world.by_synset:
                verb = link.verb.replace("_", " ")
                out.edges.append(_edge(world.by_synset[synset],
                                       Statement(link.noun, "UsedFor", verb, kb_sources.MORPHOSEMANTIC, link.sentence)))
                break
    return out


# --- the KB -----------------------------------------------------------------------------------------------------
@dataclass
class KB:
    facts: list[Fact]
    held_out_triples: int
    held_out_same_verb: Counter[tuple[str, bool]]   # (source, agrees with the label)
    dropped_undescribed: int
    unresolved: Counter[str]
    described_objects: int
    held_out_edges: list[tuple[str, str, str, str, bool]]  # (object, relation, words, affordance, agrees)


def typed_property(f: Fact, lexicon: dict[str, tuple[str, str]]) -> bool:
    if f.node2 not in lexicon:
        return False
    return f.relation == "HasProperty" or lexicon[f.node2][0] == "MADE_OF"


def property_facts(shared: Path, wn: sources.WordNet, facts: list[Fact], objects: set[str], world: Universe,
                   named: Named, lexicon: dict[str, tuple[str, str]]) -> list[Fact]:
    """MadeOf / HasProperty / HasA facts of ``objects`` (and their parts' own properties), from the same readers
    as the benchmark's; a KB-source HasA whose tail the lexicon types as a material is a MadeOf. The WordNet
    reader runs on the objects the benchmark build did not read (part nodes keep their meronyms' senses)."""
    bench, parts, candidates, other_parts, _ = world.tiers
    others = sorted(objects - bench - parts - candidates - other_parts)
    pool = [f for f in facts if f.relation in PROPERTY_RELATIONS]
    pool += [f for f in sources.conceptnet(shared, {}) if f.relation in PROPERTY_RELATIONS]
    pool += list(sources.wordnet(others, wn))
    for f in named.edges:
        if f.relation == "HasA" and f.node2 in lexicon and lexicon[f.node2][0] == "MADE_OF":
            pool.append(f._replace(relation="MadeOf"))
        elif f.relation in PROPERTY_RELATIONS:
            pool.append(f)
    has_a = [f for f in pool if f.relation == "HasA" and f.node1 in objects and f.node2 != f.node1]
    nodes = objects | {f.node2 for f in has_a}
    props = [f for f in pool if f.relation in ("MadeOf", "HasProperty") and f.node1 in nodes
             and typed_property(f, lexicon)]
    return has_a + props


def build_kb(shared: Path, wn: sources.WordNet, facts: list[Fact], candidates: set[str], bench_objects: set[str],
             bench_parts: set[str], bench_property_facts: list[Fact], labels: list[tuple[str, str, bool]],
             lexicon: dict[str, tuple[str, str]]) -> KB:
    """The KB's facts: the benchmark nodes' property facts unchanged, the other objects' property facts, and the
    affordance edges of the KB sources without the two hold-outs (module docstring)."""
    label_set = {(o, a) for o, a, _ in labels}
    label_triples = {f.sentence for f in facts if f.source == "ConceptNet" and f.relation == "CapableOf"
                     and (f.node1, f.node2) in label_set}
    world = universe(wn, bench_objects, bench_parts, candidates, facts)
    named = named_statements(shared, wn, world, label_triples)
    affordance = [f for f in named.edges if f.relation not in PROPERTY_RELATIONS]
    frozen = bench_objects | bench_parts
    subjects = {f.node1 for f in affordance} - frozen
    extra = [f for f in property_facts(shared, wn, facts, subjects, world, named, lexicon) if f.node1 not in frozen]
    described = set(bench_objects) | {f.node1 for f in bench_property_facts if f.relation != "HasA"}
    typed_nodes = {f.node1 for f in extra if f.relation != "HasA"} | described
    parts_of: dict[str, set[str]] = defaultdict(set)
    for f in extra:
        if f.relation == "HasA":
            parts_of[f.node1].add(f.node2)
    new_objects = {o for o in subjects if o in typed_nodes or parts_of[o] & typed_nodes}
    has_a = [f for f in extra if f.relation == "HasA" and f.node1 in new_objects]
    nodes = new_objects | {f.node2 for f in has_a}
    extra = has_a + [f for f in extra if f.relation != "HasA" and f.node1 in nodes]
    described |= new_objects

    truth = {(o, a): t for o, a, t in labels}
    by_object: dict[str, list[str]] = defaultdict(list)
    for o, a, _ in labels:
        by_object[o].append(a)
    kept, held, dropped, held_edges = [], Counter(), 0, []
    for f in affordance:
        if f.node1 not in described:
            dropped += 1
            continue
        hit = next((a for a in by_object.get(f.node1, ()) if kb_census.same_verb(f.relation, f.node2, a)), None)
        if hit is not None:
            agrees = truth[(f.node1, hit)] == (f.relation in kb_census.POSITIVE)
            held[(f.source, agrees)] += 1
            held_edges.append((f.node1, f.relation, f.label, hit, agrees))
            continue
        kept.append(f)
    return KB(bench_property_facts + extra + kept, len(label_triples), held, dropped, named.unresolved,
              len(described), sorted(held_edges))


def iter_label_sources(facts: Iterable[Fact], labels: list[tuple[str, str, bool]]) -> Iterator[tuple[str, ...]]:
    """``(object, affordance, label, source, sentence)``: one row per source fact behind a benchmark label,
    sorted (a label several sources state has several rows)."""
    truth = {(o, a): t for o, a, t in labels}
    rows = set()
    for f in facts:
        key = (f.node1, f.node2)
        if f.relation in ("CapableOf", "NotCapableOf") and key in truth and truth[key] == (f.relation == "CapableOf"):
            rows.add((f.node1, f.node2, "true" if truth[key] else "false", f.source,
                      " ".join(f.sentence.replace("|", "/").split())))
    yield from sorted(rows)
