"""Affordance statements from commonsense sources that are not the benchmarks' label sources.

Standard library only (and kari's standard-library word-form module, :mod:`kari.vocab.morphology`): both
data/build/build_all.py (kari's bundled KB) and benchmarks/outside/build_kb.py (the outside KB) read the public
data sets through these readers, then name the objects their own way.

A :class:`Statement` keeps the source's own name of the thing (``head``), kari's KB relation, the source's own
words for the tail (``words``: "cut bread", "cutting", "hold the swing", "worn on the head"), the source and one
sentence of provenance. Relations: ``UsedFor``, ``CapableOf``, ``ReceivesAction`` (affordance evidence, as
ConceptNet names them) and ``NotCapableOf`` (only where a source states it); ``HasA`` / ``MadeOf`` /
``HasProperty`` for the few property statements of these sources. Readers:

- ConceptNet through the CKBC evaluation triples (:func:`ckbc_triples`, :func:`ckbc`): the triples judged true
  (label 1). Label-0 triples are corrupted samples made for the evaluation, not statements, and are never read.
- ConceptNet through the CSKG sample (:func:`cskg`): its ``/r/`` edges whose head is a ``/c/en/`` concept.
- ATOMIC-2020 physical triples (:func:`atomic`): ``ObjectUse`` -> ``UsedFor``, ``CapableOf``, ``MadeUpOf`` ->
  ``HasA`` (a part or a material; the build decides), ``HasProperty``. ``AtLocation`` is where a thing is, not
  what it affords, and is not read.
- WordNet 3.0 glosses (:func:`gloss_uses`): purpose and capability frames, documented there.
- WordNet morphosemantic links (:func:`morphosemantic`): a noun that is the ``instrument``, ``vehicle`` or
  ``by-means-of`` of a verb, for artifact nouns (lexicographer file 06).
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

try:  # kari's word forms: a standard-library module, importable from the checkout without installing kari
    from kari.vocab.morphology import singular
except ImportError:
    sys.path.append(str(Path(__file__).resolve().parents[2]))
    from kari.vocab.morphology import singular

CONCEPTNET = "ConceptNet"
CSKG = "CSKG"
ATOMIC = "ATOMIC-2020"
WORDNET = "WordNet-3.0"
MORPHOSEMANTIC = "WordNet-morphosemantic"

AFFORDANCE_RELATIONS = ("UsedFor", "CapableOf", "ReceivesAction")
NEGATIVE_RELATIONS = ("NotCapableOf", "NotUsedFor")
CKBC_FILES = ("new_omcs_dev1.txt", "new_omcs_dev2.txt", "new_omcs_test.txt")


class Statement(NamedTuple):
    head: str
    relation: str
    words: str
    source: str
    sentence: str


class Triple(NamedTuple):
    """One CKBC evaluation line: ``relation head tail label`` from ``file``."""

    file: str
    relation: str
    head: str
    tail: str
    label: str

    def sentence(self, head: str | None = None) -> str:
        return f"ConceptNet (CKBC {self.file}): {self.relation}({head or self.head}, {self.tail}) = {self.label}"


def clean_words(text: str) -> str:
    """The source's words on one line: whitespace collapsed, no trailing full stop, no KGTK-special characters."""
    text = " ".join(text.replace("|", "/").replace("\\", " ").split())
    return text.strip(" .'\"")


def verb_key(words: str) -> str:
    """The snake_case verb kari's KB view reads from a tail's words: lower-case, a leading 'to' / 'be' dropped,
    every run of other characters one '_' (``"To cut bread."`` -> ``cut_bread``)."""
    text = re.sub(r"^(to|be) ", "", words.lower().strip())
    return re.sub(r"[\W_]+", "_", text).strip("_")


# --- naming objects ------------------------------------------------------------------------------------------------
def snake(name: str) -> str:
    """``'fire extinguisher'`` -> ``'fire_extinguisher'`` (lower case, every other run of characters one '_')."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


@dataclass
class Universe:
    """The object ids the KB may name, in order of preference, and the WordNet senses each id stands for."""

    tiers: list[set[str]]
    senses: dict[str, list[str]] = field(default_factory=dict)
    by_synset: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # another WordNet lemma of an id's sense -> the id

    def resolve(self, words: str) -> str | None:
        """The id a source's name denotes: the name itself, else its singular or plural, tier by tier (a
        benchmark object first, so 'shoe' is the benchmark's 'shoes')."""
        name = snake(words)
        if not name:
            return None
        head, _, last = name.rpartition("_")
        one = singular(last)
        forms = [name, *([f"{head}_{one}".strip("_")] if one else []), name + "s", name + "es"]
        forms += [f.replace("_", "") for f in forms if "_" in f]  # "door knob" -> doorknob
        for tier in self.tiers:
            for form in forms:
                if form in tier:
                    return form
        return next((self.aliases[form] for form in forms if form in self.aliases), None)


# --- ConceptNet: CKBC evaluation triples ------------------------------------------------------------------------
def ckbc_triples(root: Path) -> Iterator[Triple]:
    """Every well-formed line of the three CKBC evaluation files, in file order."""
    folder = root / "conceptnet_ckbc_eval"
    for name in CKBC_FILES:
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) == 4:
                yield Triple(name, parts[0], parts[1].strip(), parts[2].strip().lower(), parts[3].strip())


def ckbc(root: Path) -> Iterator[tuple[Triple, Statement]]:
    """Affordance statements judged true: UsedFor / CapableOf / ReceivesAction, and NotCapableOf (label 1)."""
    for t in ckbc_triples(root):
        if t.label == "1" and t.relation in (*AFFORDANCE_RELATIONS, "NotCapableOf"):
            yield t, Statement(t.head, t.relation, clean_words(t.tail), CONCEPTNET, t.sentence())


# --- ConceptNet: the CSKG sample --------------------------------------------------------------------------------
CSKG_RELATIONS = {"/r/UsedFor": "UsedFor", "/r/CapableOf": "CapableOf", "/r/ReceivesAction": "ReceivesAction",
                  "/r/NotCapableOf": "NotCapableOf", "/r/NotUsedFor": "NotUsedFor", "/r/HasA": "HasA",
                  "/r/MadeOf": "MadeOf", "/r/HasProperty": "HasProperty", "/r/PartOf": "PartOf"}


def _cskg_value(field: str) -> str:
    return field[1:-1].replace('""', '"') if field.startswith('"') and field.endswith('"') else field


def _cskg_concept(node: str) -> str | None:
    """The words of the English ConceptNet concept of a (possibly merged) CSKG node id, or None."""
    for part in re.split(r"\+(?=/c/|[a-z]+:)", node):
        if part.startswith("/c/en/"):
            return part.split("/")[3].replace("_", " ")
    return None


def cskg(root: Path) -> Iterator[Statement]:
    """Affordance and part/property edges of the CSKG sample whose head and tail are English concepts
    (``PartOf`` reversed into ``HasA``)."""
    path = root / "kgtk_cskg_sample" / "cskg_sample.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            relation = CSKG_RELATIONS.get(row["label"])
            head, tail = _cskg_concept(_cskg_value(row["node1"])), _cskg_concept(_cskg_value(row["node2"]))
            if relation is None or head is None or tail is None:
                continue
            sentence = (f"CSKG sample: {_cskg_value(row['node1'])} {row['label']} {_cskg_value(row['node2'])} "
                        f"({row['datasource']}, weight {row['weight']})")
            if relation == "PartOf":
                yield Statement(tail, "HasA", clean_words(head), CSKG, sentence)
            else:
                yield Statement(head, relation, clean_words(tail), CSKG, sentence)


# --- ATOMIC-2020 physical triples -------------------------------------------------------------------------------
ATOMIC_RELATIONS = {"ObjectUse": "UsedFor", "CapableOf": "CapableOf", "MadeUpOf": "HasA", "HasProperty": "HasProperty"}


def atomic(root: Path) -> Iterator[Statement]:
    """ObjectUse (as UsedFor), CapableOf, MadeUpOf (as HasA) and HasProperty rows; AtLocation is not read."""
    path = root / "atomic2020_sample" / "physical_triples.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            relation = ATOMIC_RELATIONS.get(row["relation"])
            words = clean_words(row["tail"])
            if relation and words and words.lower() != "none":
                yield Statement(row["head"].strip(), relation, words, ATOMIC,
                                f"ATOMIC-2020 {row['relation']}({row['head'].strip()}, {row['tail'].strip()})")


# --- WordNet glosses ---------------------------------------------------------------------------------------------
# Purpose frames: "used for cutting", "used to stir or serve", "designed to ...", "worn for swimming", "for
# storing books" (a gerund), "a cleaning implement" (a gerund before a tool noun). Capability frames: "a clock
# that wakes a sleeper" (CapableOf), "worn on the head", "that is hit or thrown or kicked" (ReceivesAction).
_ADVERB = r"(?:(?:chiefly|mainly|primarily|especially|usually|often|mostly|typically|generally) )?"
_PURPOSE = re.compile(rf"\b(?:used|designed|intended|meant|worn|serves?) {_ADVERB}(for|to|in|as)\b ")
_WORN = re.compile(r"\bworn (on|in|around|over|under|by|at|about|with|inside|outside)\b")
_FOR_GERUND = re.compile(r"(?<!used )(?<!designed )(?<!intended )(?<!meant )(?<!worn )\bfor ([a-z]+ing)\b")
_TOOL_NOUNS = ("tool", "implement", "device", "instrument", "utensil", "vessel", "machine", "appliance", "weapon",
               "equipment", "apparatus", "container", "stick", "gear")
_ATTRIBUTIVE = re.compile(rf"\b([a-z]+ing)(?: or ([a-z]+ing))? (?:{'|'.join(_TOOL_NOUNS)})s?\b")
_NOUN_TO = re.compile(r"^(?:an? |the )?(?:[a-z'-]+ ){0,3}?[a-z]+ to ([a-z]+)\b")
_THAT_VERB = re.compile(r"\bthat (?:can )?([a-z]+s)\b")
_THAT_PASSIVE = re.compile(r"\bthat (?:is|are|can be|may be) (?:usually |often |typically )?([a-z]+)\b")
NOT_GERUNDS = frozenset("""thing something anything everything nothing building clothing ceiling string ring spring
king wing evening morning bedding housing lining padding piping wiring seating flooring roofing railing during
sliding swinging revolving whirling rotating vibrating moving folding floating standing rolling hanging lasting
seagoing oceangoing including according following covering opening fitting setting coating packing stocking
bearing casing tubing binding mounting footing landing""".split())
STATE_VERBS = frozenset("""is has was does goes runs stands fits forms consists resembles serves acts hangs extends
projects represents uses includes comes lies belongs looks seems becomes remains contains rests sits depends
occurs exists differs varies""".split())
HANDLING_PARTICIPLES = frozenset("""worn thrown kicked hit held carried played ridden eaten drunk pushed pulled rolled
opened closed folded blown struck swung shaken pressed turned squeezed lifted sat slept smoked read""".split())
_END = re.compile(r"[;,()\"]|\b(?:while|when|until|so|because|which|that|who|whose|where|without|but|etc|e\.g|"
                  r"in order|such as|as if|especially|usually|often|than|used|designed|of (?:a|an|the|one|your))\b")
_FUNCTION_TAIL = frozenset("""a an the of and or to in on at by for with from as its their his her around over under
into onto about through across""".split())
MAX_WORDS = 6


def _phrase(text: str) -> str:
    """The purpose phrase at the start of ``text``: up to the clause's end, at most MAX_WORDS words."""
    match = _END.search(text)
    words = (text[: match.start()] if match else text).split()[:MAX_WORDS]
    while words and words[-1] in _FUNCTION_TAIL:
        words.pop()
    return " ".join(words)


def _split(phrase: str) -> list[str]:
    """Coordinated purposes: "piercing or stabbing" -> two, "stir or serve or take up food" -> three;
    "holding food or liquids" stays one (only a one-word left conjunct is split off)."""
    out: list[str] = []
    rest = phrase
    while True:
        rest = re.sub(r"^to ", "", rest)
        match = re.match(r"^(\S+) (?:or|and) (.+)$", rest)
        if not match:
            parts = re.split(r" (?:or|and) (?:to|as) ", rest, maxsplit=1)
            out.append(parts[0])
            if len(parts) == 1:
                return [p for p in out if p]
            rest = parts[1]
            continue
        out.append(match.group(1))
        rest = match.group(2)


def _gerund(word: str) -> bool:
    return word.endswith("ing") and len(word) > 5 and word not in NOT_GERUNDS


def gloss_uses(gloss: str) -> list[tuple[str, str, str]]:
    """``(relation, words, frame)`` for each purpose or capability a WordNet gloss states, in order, distinct.

    Pattern reading, not parsing (the frames are listed above); a frame's phrase ends at the clause's end or a
    subordinating word and keeps at most 6 words, the gloss's words unchanged. Passive purposes
    ("designed to be pulled") and "used in" + a noun ("used in combat") are skipped."""
    text = gloss.lower()
    found: list[tuple[str, str, str]] = []
    for match in _PURPOSE.finditer(text):
        cue = match.group(0).strip()
        phrase = _phrase(text[match.end():])
        if not phrase or phrase.startswith("be "):
            continue
        if match.group(1) == "in" and not _gerund(phrase.split()[0]):
            continue
        if match.group(1) == "as":  # "used as an ornament or to hold flowers": the 'as' holds for the first only
            first, *rest = re.split(r" (?:or|and) to ", phrase)
            found.append(("UsedFor", f"as {first}", cue))
            found += [("UsedFor", p, cue) for r in rest for p in _split(r)]
            continue
        found += [("UsedFor", p, cue) for p in _split(phrase)
                  if match.group(1) != "in" or _gerund(p.split()[0])]
    for match in _FOR_GERUND.finditer(text):
        if _gerund(match.group(1)) and not text[: match.start()].rstrip().endswith(("used", "designed")):
            phrase = _phrase(text[match.start() + 4:])
            found += [("UsedFor", p, "for") for p in _split(phrase) if p]
    for match in _ATTRIBUTIVE.finditer(text):
        for word in match.groups():
            if word and _gerund(word):
                found.append(("UsedFor", word, match.group(0)))
    first_clause = text.split(";")[0]
    match = _NOUN_TO.match(first_clause)
    if (match and match.group(1) not in ("be", "the", "a", "an", "and", "from", "or", "which", "its")
            and not first_clause[: match.start(1)].endswith(" enough to ")):
        found += [("UsedFor", p, "to") for p in _split(_phrase(first_clause[match.start(1):])) if p]
    for match in _THAT_VERB.finditer(first_clause):
        verb = match.group(1)
        if verb not in STATE_VERBS and not verb.endswith(("ss", "us")) and len(verb) > 3:
            phrase = _phrase(first_clause[match.start(1):])
            found += [("CapableOf", p, "that") for p in _split(phrase) if p]
    for match in _THAT_PASSIVE.finditer(first_clause):
        if match.group(1) in HANDLING_PARTICIPLES:
            after = first_clause[match.end(1):].split()
            purpose = after[:1] in (["to"], ["for"], ["as"])  # "worn to keep ...": the purpose frame has it
            phrase = match.group(1) if purpose else _phrase(first_clause[match.start(1):])
            found += [("ReceivesAction", p, "that is") for p in _split(phrase) if p]
    for match in _WORN.finditer(text):
        phrase = _phrase(text[match.start():])
        if phrase:
            found.append(("ReceivesAction", phrase, "worn"))
    seen: set[tuple[str, str]] = set()
    out = []
    for relation, words, frame in found:
        words = clean_words(words)
        if words and (relation, words) not in seen:
            seen.add((relation, words))
            out.append((relation, words, frame))
    return out


# --- WordNet morphosemantic links --------------------------------------------------------------------------------
MORPHOSEMANTIC_RELATIONS = ("instrument", "vehicle", "by-means-of")


class MorphosemanticLink(NamedTuple):
    verb: str           # the verb lemma ("sweep")
    noun: str           # the noun lemma ("sweeper")
    relation: str       # instrument / vehicle / by-means-of
    noun_gloss: str     # the noun's gloss, abbreviated by the source ("a cleaning implement with revolving brus...")
    sentence: str


def morphosemantic(root: Path) -> Iterator[MorphosemanticLink]:
    """Noun-verb links where an artifact noun (sense key lexicographer file 06) is the verb's instrument, vehicle
    or means; the verb is the affordance ("sweeper" -> "sweep")."""
    path = root / "wordnet_morphosemantic" / "MSD_morphosemantic-links.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        for verb_key_, _, relation, noun_key, _, verb_gloss, noun_gloss in rows:
            if relation not in MORPHOSEMANTIC_RELATIONS or ":06:" not in noun_key:
                continue
            verb, noun = verb_key_.split("%")[0], noun_key.split("%")[0]
            yield MorphosemanticLink(verb.lower(), noun.lower(), relation, noun_gloss,
                                     f"WordNet morphosemantic link: {noun_key} ({noun_gloss}) is the {relation} of "
                                     f"{verb_key_} ({verb_gloss})")
