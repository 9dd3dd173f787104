"""Build the WordNet 3.0 sense tables of ``data/wordnet/`` that KB verb targets and sense choice read
(``kari.induce.wordnet``, ``kari.induce.senses``, ``kari.induce.completion``).

    python data/build/wordnet_senses.py [--wordnet /usr/share/wordnet] [--out data/wordnet]

Reads a WordNet 3.0 database folder (the ``dict`` files: Debian's ``wordnet-base`` package puts them in
/usr/share/wordnet; the tagged sense counts come from ``index.sense``, Debian's ``wordnet-sense-index``) and
writes five sorted TSV files, standard library only, deterministic:

* ``verb_senses.tsv``   ``lemma  synset  rank  tags``: every sense of every verb lemma (rank 1 is the most
  frequent), with the number of times the sense is tagged in WordNet's semantic concordance;
* ``verb_synsets.tsv``  ``synset  lexname  hypernyms  frames  words  gloss``: each verb synset's lexicographer
  file (``verb.contact``), its hypernym synsets, its sentence frame numbers (``frames.vrb``: 8 is
  "Somebody ----s something"), its words and its gloss (definition and examples, as WordNet writes them);
* ``noun_senses.tsv``   ``lemma  senses``: the senses of every noun lemma that are physical entities (hyponyms
  of ``physical_entity.n.01``: objects, substances, parts, living things) as ``rank:synset``, most frequent
  first (rank is WordNet's sense number: ``knife.n.02`` is rank 2 of ``knife``);
* ``noun_synsets.tsv``  ``synset  lexname  hypernyms  words``: those synsets, their (physical) hypernyms,
  instance hypernyms included, and their words;
* ``adverbs.tsv``       ``lemma``: every adverb lemma (``accurately``).

Lists inside a cell are separated by ``,`` (words keep WordNet's underscores: ``frying_pan``). Nothing else of
WordNet is copied.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wordnet_verbs import build_tables, data_lines, index_offsets  # noqa: E402

LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant", "noun.possession",
    "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition", "verb.consumption",
    "verb.contact", "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession",
    "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
"""WordNet's lexicographer files by number (lexnames(5WN))."""
PHYSICAL_ENTITY = "00001930"
"""physical_entity.n.01: the root of the nouns kept."""
HEADERS = {
    "verb_senses.tsv": "lemma\tsynset\trank\ttags",
    "verb_synsets.tsv": "synset\tlexname\thypernyms\tframes\twords\tgloss",
    "noun_senses.tsv": "lemma\tsenses",
    "noun_synsets.tsv": "synset\tlexname\thypernyms\twords",
    "adverbs.tsv": "lemma",
}


def _tags(path: Path, ss_type: str) -> dict[tuple[str, str], int]:
    """``(lemma, synset) -> tagged count`` of one part of speech (``1`` noun, ``2`` verb), from ``index.sense``."""
    out: dict[tuple[str, str], int] = {}
    for line in data_lines(path):
        key, offset, _, count = line.split()
        lemma, _, rest = key.partition("%")
        if rest.split(":")[0] == ss_type:
            out[(lemma, offset)] = int(count)
    return out


def _synsets(path: Path, verbs: bool) -> dict[str, tuple[str, list[str], list[str], list[str], str]]:
    """``offset -> (lexname, hypernyms, frames, words, gloss)`` from a ``data.<pos>`` file."""
    out = {}
    for line in data_lines(path):
        head, _, gloss = line.partition(" | ")
        fields = head.split()
        count = int(fields[3], 16)
        words = [fields[4 + 2 * i].lower() for i in range(count)]
        at = 4 + 2 * count
        pointers = int(fields[at])
        hypernyms = []
        for k in range(pointers):
            symbol, offset, pos = fields[at + 1 + 4 * k: at + 4 + 4 * k]
            if symbol in ("@", "@i") and pos in ("v", "n"):
                hypernyms.append(offset)
        frames: list[str] = []
        rest = fields[at + 1 + 4 * pointers:]
        if verbs and rest:
            frames = [str(n) for n in sorted({int(rest[2 + 3 * i]) for i in range(int(rest[0]))})]
        out[fields[0]] = (LEXNAMES[int(fields[1])], hypernyms, frames, list(dict.fromkeys(words)),
                          " ".join(gloss.split()))
    return out


def _physical(nouns: dict[str, tuple[str, list[str], list[str], list[str], str]]) -> set[str]:
    """The noun synsets below physical_entity.n.01 (by hypernym and instance-hypernym links)."""
    children: dict[str, list[str]] = {}
    for offset, (_, hypernyms, _, _, _) in nouns.items():
        for parent in hypernyms:
            children.setdefault(parent, []).append(offset)
    seen, todo = {PHYSICAL_ENTITY}, [PHYSICAL_ENTITY]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _senses(index: dict[str, list[str]], tags: dict[tuple[str, str], int]) -> list[tuple[str, ...]]:
    """One row per (lemma, sense): its rank and tagged count."""
    return [(lemma, offset, str(rank), str(tags.get((lemma, offset), 0)))
            for lemma, offsets in sorted(index.items()) for rank, offset in enumerate(offsets, start=1)]


def build(wordnet: Path) -> dict[str, list[tuple[str, ...]]]:
    """The rows of the five files."""
    verbs = _synsets(wordnet / "data.verb", verbs=True)
    nouns = _synsets(wordnet / "data.noun", verbs=False)
    physical = _physical(nouns)
    verb_rows = [(offset, lexname, ",".join(hyp), ",".join(frames), ",".join(words), gloss.replace("\t", " "))
                 for offset, (lexname, hyp, frames, words, gloss) in sorted(verbs.items())]
    noun_rows = [(offset, lexname, ",".join(h for h in hyp if h in physical), ",".join(words))
                 for offset, (lexname, hyp, _, words, _) in sorted(nouns.items()) if offset in physical]
    adverbs = sorted((lemma,) for lemma in index_offsets(wordnet / "index.adv"))
    return {
        "verb_senses.tsv": _senses(index_offsets(wordnet / "index.verb"), _tags(wordnet / "index.sense", "2")),
        "verb_synsets.tsv": verb_rows,
        "noun_senses.tsv": [(lemma, ",".join(kept)) for lemma, offsets in sorted(index_offsets(wordnet / "index.noun").items())
                            if (kept := [f"{rank}:{o}" for rank, o in enumerate(offsets, 1) if o in physical])],
        "noun_synsets.tsv": noun_rows,
        "adverbs.tsv": adverbs,
    }


def main() -> None:
    build_tables(__doc__.splitlines()[0], "index.verb, data.verb, index.noun, data.noun, index.adv, index.sense",
                 HEADERS, build)


if __name__ == "__main__":
    main()
