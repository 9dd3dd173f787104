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

import argparse
import os
import tempfile
from pathlib import Path

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


def _lines(path: Path) -> list[str]:
    """The data lines of a WordNet file (the licence header lines start with two spaces)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith(" ")]


def _index(path: Path) -> dict[str, list[str]]:
    """``lemma -> synset offsets`` in sense order, from an ``index.<pos>`` file."""
    out: dict[str, list[str]] = {}
    for line in _lines(path):
        fields = line.split()
        synsets, pointers = int(fields[2]), int(fields[3])
        out[fields[0]] = fields[4 + pointers + 2:][:synsets]
    return out


def _tags(path: Path, ss_type: str) -> dict[tuple[str, str], int]:
    """``(lemma, synset) -> tagged count`` of one part of speech (``1`` noun, ``2`` verb), from ``index.sense``."""
    out: dict[tuple[str, str], int] = {}
    for line in _lines(path):
        key, offset, _, count = line.split()
        lemma, _, rest = key.partition("%")
        if rest.split(":")[0] == ss_type:
            out[(lemma, offset)] = int(count)
    return out


def _synsets(path: Path, verbs: bool) -> dict[str, tuple[str, list[str], list[str], list[str], str]]:
    """``offset -> (lexname, hypernyms, frames, words, gloss)`` from a ``data.<pos>`` file."""
    out = {}
    for line in _lines(path):
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
    adverbs = sorted((lemma,) for lemma in _index(wordnet / "index.adv"))
    return {
        "verb_senses.tsv": _senses(_index(wordnet / "index.verb"), _tags(wordnet / "index.sense", "2")),
        "verb_synsets.tsv": verb_rows,
        "noun_senses.tsv": [(lemma, ",".join(kept)) for lemma, offsets in sorted(_index(wordnet / "index.noun").items())
                            if (kept := [f"{rank}:{o}" for rank, o in enumerate(offsets, 1) if o in physical])],
        "noun_synsets.tsv": noun_rows,
        "adverbs.tsv": adverbs,
    }


def _write(path: Path, header: str, rows: list[tuple[str, ...]]) -> None:
    text = header + "\n" + "".join("\t".join(row) + "\n" for row in rows)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"),
                        help="WordNet 3.0 database folder (index.verb, data.verb, index.noun, data.noun, index.adv, "
                             "index.sense)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "wordnet")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in build(args.wordnet).items():
        _write(args.out / name, HEADERS[name], rows)
        print(f"{args.out / name}: {len(rows)} rows")


if __name__ == "__main__":
    main()
