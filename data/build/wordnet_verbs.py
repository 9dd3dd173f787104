"""Build ``data/wordnet/``: the WordNet 3.0 verb facts kari's verb grouping reads (``kari.induce.grouping``).

    python data/build/wordnet_verbs.py [--wordnet /usr/share/wordnet] [--out data/wordnet]

Reads a WordNet 3.0 database folder (the ``dict`` files: Debian's ``wordnet-base`` package puts them in
/usr/share/wordnet) and writes three sorted TSV files, standard library only, deterministic:

* ``verbs.tsv``       ``lemma  synset``: every verb lemma with the offset of its first (most frequent) sense;
* ``verb_forms.tsv``  ``form  lemma``: WordNet's irregular verb forms (``verb.exc``: ``worn`` -> ``wear``);
* ``noun_verbs.tsv``  ``noun  verb``: a noun lemma and the verb its first sense is derivationally related to
  (WordNet's ``+`` pointers: ``decoration`` -> ``decorate``, ``storage`` -> ``store``); nouns whose senses
  have no such pointer are left out.

Multi-word lemmas keep WordNet's underscores (``put_away``). Nothing else of WordNet is copied.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

HEADERS = {"verbs.tsv": "lemma\tsynset", "verb_forms.tsv": "form\tlemma", "noun_verbs.tsv": "noun\tverb"}


def data_lines(path: Path) -> list[str]:
    """The data lines of a WordNet file (the licence header lines start with two spaces)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith(" ")]


def index_offsets(path: Path) -> dict[str, list[str]]:
    """``lemma -> synset offsets`` in sense order, from an ``index.<pos>`` file."""
    out: dict[str, list[str]] = {}
    for line in data_lines(path):
        fields = line.split()
        synsets, pointers = int(fields[2]), int(fields[3])
        out[fields[0]] = fields[4 + pointers + 2:][:synsets]
    return out


def _verb_words(path: Path) -> dict[str, list[str]]:
    """``verb synset offset -> its words`` in order, from ``data.verb``."""
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith(" "):
            continue
        fields = line.split()
        count = int(fields[3], 16)
        out[fields[0]] = [fields[4 + 2 * i].lower() for i in range(count)]
    return out


def _noun_derivations(path: Path, verb_words: dict[str, list[str]]) -> dict[str, list[tuple[str, str]]]:
    """``noun synset offset -> [(noun word, verb word)]`` for its ``+`` pointers to verbs, from ``data.noun``."""
    out: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith(" "):
            continue
        fields = line.split()
        count = int(fields[3], 16)
        words = [fields[4 + 2 * i].lower() for i in range(count)]
        at = 4 + 2 * count
        pointers = int(fields[at])
        pairs = []
        for k in range(pointers):
            symbol, offset, pos, numbers = fields[at + 1 + 4 * k: at + 5 + 4 * k]
            if symbol != "+" or pos != "v" or offset not in verb_words:
                continue
            source, target = int(numbers[:2], 16), int(numbers[2:], 16)
            if source and target and source <= len(words) and target <= len(verb_words[offset]):
                pairs.append((words[source - 1], verb_words[offset][target - 1]))
        if pairs:
            out[fields[0]] = pairs
    return out


def build(wordnet: Path) -> dict[str, list[tuple[str, str]]]:
    """The rows of the three files."""
    verb_index = index_offsets(wordnet / "index.verb")
    verbs = sorted((lemma, offsets[0]) for lemma, offsets in verb_index.items() if offsets)
    forms = sorted({tuple(line.split()[:2]) for line in (wordnet / "verb.exc").read_text(encoding="utf-8").splitlines()
                    if len(line.split()) >= 2})
    derived = _noun_derivations(wordnet / "data.noun", _verb_words(wordnet / "data.verb"))
    noun_verbs = []
    for noun, offsets in sorted(index_offsets(wordnet / "index.noun").items()):
        for offset in offsets:  # the first sense with a derivationally related verb of this very word
            verbs_of = sorted({v for n, v in derived.get(offset, ()) if n == noun})
            if verbs_of:
                noun_verbs.append((noun, verbs_of[0]))
                break
    return {"verbs.tsv": verbs, "verb_forms.tsv": forms, "noun_verbs.tsv": noun_verbs}  # type: ignore[dict-item]


def write_table(path: Path, header: str, rows: list[tuple[str, ...]]) -> None:
    """One sorted TSV table, written to a temporary file and renamed."""
    text = header + "\n" + "".join("\t".join(row) + "\n" for row in rows)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    os.replace(tmp, path)


def build_tables(description: str, files: str, headers: dict[str, str],
                 build_from: Callable[[Path], dict[str, list[tuple[str, ...]]]]) -> None:
    """The command line of a WordNet table builder: ``--wordnet`` (the database folder, reading ``files``) and
    ``--out``; writes each table ``build_from`` makes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"),
                        help=f"WordNet 3.0 database folder ({files})")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "wordnet")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in build_from(args.wordnet).items():
        write_table(args.out / name, headers[name], rows)
        print(f"{args.out / name}: {len(rows)} rows")


def main() -> None:
    build_tables(__doc__.splitlines()[0], "index.verb, data.verb, verb.exc, index.noun, data.noun", HEADERS,
                 build)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
