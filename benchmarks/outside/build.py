"""Build the outside benchmark: an Affordance20Q benchmark directory whose property values are the sources' own words.

    python benchmarks/outside/build.py --sources DIR --out DIR [--games 500] [--seed 0]

``--sources`` is a folder holding the public data sets described in benchmarks/outside/README.md. The build
writes ``objects.jsonl``, ``affordances.jsonl``, ``labels.jsonl`` and ``games.jsonl`` into ``--out`` (each
file written to a temporary file and renamed). Standard library only, independent of kari: no value is
mapped to or typed by kari's vocabulary. Outputs are sorted and game sampling is seeded, so a rebuild from the
same sources is byte-identical. The design (which source gives which field) is in README.md next to this file.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

WHOLE = "whole"
PREDICATES = ("MADE_OF", "SHAPE", "SIZE", "SURFACE")
N_CANDIDATES = 8
MIN_POSITIVES = 10
MIN_NEGATIVES = 10
MIN_PROPERTIES = 2

# --- Forbes et al. (2019) abstract annotations ------------------------------------------------------------------
# Appearance columns become properties (value 1 only); the column name is the raw value. The predicate is the
# kind of quality the column asks about: size and weight -> SIZE, form -> SHAPE, what is seen or felt on the
# outside -> SURFACE, how the stuff behaves when it is dropped -> MADE_OF.
FORBES_PROPERTY_COLUMNS = {
    "large": "SIZE", "tall": "SIZE", "heavy": "SIZE", "light_weight": "SIZE", "hand_held": "SIZE",
    "sharp": "SHAPE",
    "shiny": "SURFACE", "smooth": "SURFACE", "slimy": "SURFACE", "wet": "SURFACE", "words_on_it": "SURFACE",
    "hard": "SURFACE", "squishy": "SURFACE",
    "fragile": "MADE_OF",
}
# Label columns: every column Forbes et al. categorise as "functional" (properties.tsv), plus the columns whose
# wording is something the object does or is used for. 1 = true, 0 = false, -2 (annotators unsure) = no label.
FORBES_LABEL_COLUMNS = ("a_tool", "a_toy", "edible", "used_for_eating", "used_for_cooking", "used_for_cleaning",
                        "used_by_children", "used_for_holding_things", "used_for_killing", "used_for_music",
                        "used_for_transportation", "worn_for_warmth", "worn_on_feet",
                        "produces_noise", "decorative", "found_on_walls", "electrical", "requires_gasoline")

# --- AI2-THOR object types ---------------------------------------------------------------------------------------
# Types that are room structure, parts of another type or generic decor placeholders, not free-standing objects.
AI2THOR_NOT_OBJECTS = {"Floor", "Window", "CounterTop", "LightSwitch", "StoveKnob", "StoveBurner", "ShowerHead",
                       "ShowerDoor", "ShowerGlass", "BathtubBasin", "SinkBasin", "RoomDecor", "TableTopDecor"}
AI2THOR_FLAGS = {
    "pickupable": "The object can be picked up and carried (AI2-THOR: pickupable).",
    "receptacle": "Other objects can be placed in or on the object (AI2-THOR: receptacle).",
    "moveable": "The object can be pushed or moved but is not picked up (AI2-THOR: moveable).",
    "breakable": "The object breaks when it is dropped or hit hard (AI2-THOR: breakable; PROST: break).",
    "openable": "The object can be opened and closed (AI2-THOR: openable).",
    "toggleable": "The object can be switched on and off (AI2-THOR: toggleable).",
    "canFillWithLiquid": "The object can be filled with a liquid (AI2-THOR: canFillWithLiquid).",
    "dirtyable": "The object can get dirty and be cleaned (AI2-THOR: dirtyable).",
    "sliceable": "The object can be sliced (AI2-THOR: sliceable).",
    "cookable": "The object can be cooked (AI2-THOR: cookable).",
}
MATERIAL_SHARE = 0.25  # a salient material listed by at least a quarter of a type's instances

# --- gloss reading (WordNet 3.0) ---------------------------------------------------------------------------------
# Word lists written for this benchmark by reading the glosses of its objects and parts; they decide which
# predicate a descriptive gloss word belongs to. They are not kari's vocabulary and map nothing: the value is
# always the word as the gloss writes it (hyphens become underscores).
GLOSS_SHAPE = {
    "angled", "arched", "bent", "bladed", "bladelike", "bowed", "branched", "circular", "coiled", "collapsible",
    "concave", "conical", "convex", "crooked", "cruciform", "curved", "cylindrical", "domed", "flared", "flat",
    "folding", "forked", "hemispherical", "hinged", "hollow", "hooked", "looped", "oblong", "oval", "perforated",
    "pointed", "pronged", "rectangular", "round", "rounded", "serrated", "sharp", "sharpened", "spherical",
    "spiral", "square", "straight", "tapered", "tapering", "threaded", "toothed", "triangular", "tubular",
    "twisted", "wheeled", "stringed", "barbed", "boxlike", "fencelike", "cushioned", "padded", "telescopic",
    "retractable", "detachable", "adjustable", "movable", "swiveling", "pivoting", "crossed", "open", "closed",
    "endless", "solid", "upright", "vertical", "horizontal", "double", "single", "tined", "ridged", "cupped",
}
GLOSS_SIZE = {
    "small", "large", "little", "big", "tiny", "huge", "massive", "long", "short", "tall", "thick", "thin",
    "narrow", "wide", "broad", "deep", "shallow", "heavy", "lightweight", "stout", "slender", "portable",
    "handheld", "hand_held", "low", "high", "miniature", "compact", "bulky", "oversized", "giant",
}
GLOSS_SURFACE = {
    "smooth", "rough", "coarse", "polished", "shiny", "glossy", "transparent", "translucent", "opaque", "soft",
    "hard", "plush", "upholstered", "printed", "inked", "colored", "coloured", "ornate", "grooved", "knitted",
    "knit", "woven", "crocheted", "stitched", "quilted", "luminescent", "sheer", "dull", "red",
    "green", "blue", "yellow", "brown", "gray", "grey", "painted", "glazed", "enameled", "varnished", "embroidered",
    "furry", "hairy", "fuzzy", "sticky", "slippery", "waterproof", "striped", "checkered", "patterned",
}
GLOSS_MATERIAL_ADJECTIVES = {
    "wooden", "woolen", "woollen", "metallic", "earthen", "silken", "leathern", "golden", "rigid", "nonrigid",
    "flexible", "stiff", "tough", "elastic", "resilient", "synthetic", "absorbent", "brittle", "fragile",
}
# Where the lowest-numbered artifact synset named after an object is plainly another thing than the object the
# sources annotate (a couch is not "a flat coat of paint", a spade not a playing card), the synset is chosen here
# (None: no artifact sense fits). Checked by hand against the Forbes and AI2-THOR objects.
SENSES: dict[str, str | None] = {
    "barrel": "barrel.n.02", "beehive": "beehive.n.04", "blinds": "window_blind.n.01", "bolts": "bolt.n.06",
    "cake": None, "catapult": "catapult.n.03", "closet": "cupboard.n.01", "couch": "sofa.n.01",
    "cushion": "cushion.n.03", "desktop": "desktop_computer.n.01", "drapes": "curtain.n.01",
    "hammer": "hammer.n.02", "hook": "hook.n.05", "hose": "hose.n.03", "house_plant": None, "mixer": "mixer.n.04",
    "plate": "plate.n.04", "radio": "radio_receiver.n.01", "shell": None, "spade": "spade.n.02",
    "tie": "necktie.n.01", "toilet": "toilet.n.02", "toy": "plaything.n.01", "van": "van.n.05",
}
SHAPE_SUFFIXES = ("_shaped", "like", "_legged", "_wheeled", "_barreled", "_edged", "_sided", "_handled",
                  "_pointed", "_topped", "_bottomed")
# Nouns that name a portion of something, not the thing: "a row of free reeds" -> the part is "reeds".
QUANTITY_NOUNS = {"row", "series", "pair", "number", "set", "bank", "bundle", "piece", "strip", "sheet", "length",
                  "kind", "type", "sort", "collection", "group", "cluster", "bunch", "network", "system", "lot"}
GENERIC_MATERIAL_HEADS = {"material", "materials", "substance", "fabric", "stuff"}
DETERMINERS = {"a", "an", "the", "its", "their", "his", "her", "one", "two", "three", "four", "five", "six",
               "seven", "eight", "ten", "twelve", "several", "many", "some", "each", "every", "any", "both",
               "either", "usually", "typically", "often", "sometimes", "generally", "normally", "mostly",
               "relatively", "very", "fairly", "rather", "especially", "chiefly", "commonly", "frequently",
               "extremely", "highly", "more", "less", "most", "least", "quite", "partly", "wholly", "other",
               "another", "single"}
STOP = {
    "of", "for", "in", "on", "at", "to", "from", "into", "by", "with", "without", "that", "which", "who", "whose",
    "where", "when", "while", "is", "are", "was", "were", "be", "been", "being", "can", "may", "might", "will",
    "would", "should", "must", "and", "or", "but", "as", "than", "so", "like", "such", "via", "through",
    "across", "over", "under", "above", "below", "between", "around", "about", "against", "along", "behind",
    "beyond", "near", "onto", "upon", "within", "until", "if", "it", "they", "you", "has", "have", "having",
    "not", "no", "etc", "e.g", "i.e", "set", "back", "up", "down", "out", "off", "away", "together", "apart",
    "either", "used", "use", "made", "worn", "held", "driven", "consisting", "containing",
    "forming", "resembling", "covering", "serving", "providing", "allowing", "enabling",
    "consists", "consist", "comprises", "resembles", "holds", "carries", "shows", "covers", "provides",
    "contains", "serves", "encloses", "supports", "includes", "including", "incorporating", "stands", "sits",
    "lies", "hangs", "moves", "runs", "fits", "slides", "rests", "rotates", "turns", "opens", "closes",
}
PART_FRAMES = {"has", "have", "having", "with", "incorporating", "includes", "including"}
# "with" after these verbs introduces contents, an instrument or a partner, not a part.
NOT_PART_WITH = {"engages", "engage", "deal", "deals", "together", "along", "communicate", "play", "plays",
                 "contact", "interfere", "interferes", "hit", "strike", "strikes", "fill", "fills", "use", "cover",
                 "covers", "line", "done", "struck", "worn", "held", "driven", "blown", "sewn", "drawn", "shaken"}
PART_WITH_PARTICIPLES = {"fitted", "equipped", "furnished", "provided", "supplied"}


def part_with(words: list[str], i: int, described: int) -> bool:
    """Whether the "with" at ``i`` names parts: it must follow a described phrase (ending at ``described``), a
    comma, "and" or an adverb, and not a participle ("filled with gas", "played with the fingers") or a listed
    verb ("engages with"), unless the participle is "fitted", "equipped" ..."""
    previous = words[i - 1] if i else ""
    if previous in PART_WITH_PARTICIPLES:
        return True
    if previous in NOT_PART_WITH or previous.endswith("ed"):
        return False
    return i == described or previous in (",", "and") or previous in ADVERBS


MATERIAL_FRAMES = (("made", "of"), ("made", "from"), ("made", "out", "of"), ("composed", "of"),
                   ("constructed", "of"), ("formed", "of"), ("built", "of"))
# "consisting of X": materials when X is a material ("of thick heavy fabric"), else parts ("of a stick with ...")
CONSIST_FRAMES = (("consisting", "of"), ("consists", "of"), ("consist", "of"))
WORD = re.compile(r"[a-z0-9]+(?:[_'][a-z0-9]+)*|[,;()]")


def snake(text: str) -> str:
    """Lower-case snake_case of a phrase: "free-reed" -> "free_reed", "AlarmClock" -> "alarm_clock"."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", text.strip())
    text = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return text


def singulars(word: str) -> list[str]:
    """Candidate singular forms of a plural noun (for looking words up in singular-only word lists)."""
    forms = []
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("ves") and len(word) > 4:
        forms += [word[:-3] + "f", word[:-3] + "fe"]  # shelves, knives
    if word.endswith(("ches", "shes", "sses", "xes", "oes")):
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        forms.append(word[:-1])
    return forms


# --- data holders ------------------------------------------------------------------------------------------------
@dataclass
class Evidence:
    """Everything the sources say about the candidate objects."""

    names: set[str] = field(default_factory=set)
    natural: set[str] = field(default_factory=set)  # Forbes: edible and not man-made
    ai2thor: set[str] = field(default_factory=set)  # AI2-THOR object types
    properties: dict[str, set[tuple[str, str, str]]] = field(default_factory=lambda: defaultdict(set))
    parts: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    labels: dict[tuple[str, str], set[bool]] = field(default_factory=lambda: defaultdict(set))
    descriptions: dict[str, str] = field(default_factory=dict)
    affordances: dict[str, str] = field(default_factory=dict)

    def prop(self, obj: str, part: str, predicate: str, value: str) -> None:
        value = snake(value)
        if value and part != value:
            self.properties[obj].add((part, predicate, value))
            if part != WHOLE:
                self.parts[obj].add(part)

    def part(self, obj: str, part: str) -> None:
        part = snake(part)
        if part and part != WHOLE and part != obj:
            self.parts[obj].add(part)

    def label(self, obj: str, affordance: str, truth: bool) -> None:
        self.labels[(obj, affordance)].add(truth)


# --- readers -----------------------------------------------------------------------------------------------------
def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def read_forbes(src: Path, ev: Evidence) -> None:
    """Objects (not animals), appearance properties and functional labels from the abstract annotations."""
    base = src / "forbes_physical_commonsense"
    sentences = {r["uid"]: r["sentence"] for r in read_tsv(base / "properties.tsv")}
    with (base / "abstract.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for column in FORBES_LABEL_COLUMNS:
        ev.affordances[column] = f"The object {sentences[column]}."
    for row in rows:
        # an_animal: 1 = animal, -2 = unsure; an unsure object is kept only when it is man-made (teddy_bear)
        if row["an_animal"] == "1" or (row["an_animal"] == "-2" and row["man_made"] != "1"):
            continue
        obj = snake(row["objectUID"])
        ev.names.add(obj)
        if row["man_made"] == "0" and row["edible"] == "1":
            ev.natural.add(obj)
        for column, predicate in FORBES_PROPERTY_COLUMNS.items():
            if row[column] == "1":
                ev.prop(obj, WHOLE, predicate, column)
        for column in FORBES_LABEL_COLUMNS:
            if row[column] in ("0", "1"):
                ev.label(obj, column, row[column] == "1")


def read_ai2thor(src: Path, ev: Evidence) -> None:
    """Object types, their salient materials and their type-level affordance flags."""
    path = src / "ai2thor_object_types" / "ai2thor_objecttype_summary_DERIVED.json"
    for record in json.loads(path.read_text(encoding="utf-8")):
        kind = record["objectType"]
        if kind in AI2THOR_NOT_OBJECTS:
            continue
        obj = snake(kind)
        ev.names.add(obj)
        ev.ai2thor.add(obj)
        n = record["n_instances"]
        for material, count in sorted(record["salientMaterials"].items()):
            if n and count / n >= MATERIAL_SHARE:
                ev.prop(obj, WHOLE, "MADE_OF", material)
        flags = record["affordance_flags"]
        for flag, description in AI2THOR_FLAGS.items():
            ev.affordances[snake(flag)] = description
            share = flags.get(flag, 0.0)
            if share in (0.0, 1.0):  # set for every instance = true, for none = false, mixed = no label
                ev.label(obj, snake(flag), share == 1.0)


def read_prost(src: Path, ev: Evidence) -> None:
    """PROST's breaking lexicons: objects that break when dropped and objects that do not."""
    lists: dict[str, list[str]] = {}
    current = None
    for line in (src / "prost_lexicons" / "lexicons.yml").read_text(encoding="utf-8").splitlines():
        if re.match(r"^[a-z_]+:\s*$", line):
            current = line.split(":")[0]
            lists[current] = []
        elif current and line.strip().startswith("- "):
            lists[current].append(line.strip()[2:].strip())
    for word in lists.get("break_obj", []):
        ev.label(snake(word), "breakable", True)
    for word in lists.get("nonbreak_obj", []):
        ev.label(snake(word), "breakable", False)


def read_kmi(src: Path, ev: Evidence) -> None:
    """The KMi catalogue's size class and thinness, when a single value is given."""
    data = json.loads((src / "kmi_size_catalogue" / "KMi_obj_catalogue.json").read_text(encoding="utf-8"))
    for name, record in sorted(data.items()):
        obj = snake(name)
        if isinstance(record.get("has_size"), str):
            ev.prop(obj, WHOLE, "SIZE", record["has_size"])
        if isinstance(record.get("thinness"), str):
            ev.prop(obj, WHOLE, "SHAPE", record["thinness"])


# Aristo types whose members are physical things (a part named in a gloss or by ConceptNet must be one of
# these, or a WordNet artifact lemma).
PHYSICAL_TYPES = {"artifact_n1", "device_n1", "body_part_n1", "plant_part_n1", "shape_n2", "clothing_n1",
                  "equipment_n1", "tool_n1", "measuring_instrument_n1", "transport_n1", "building_n1"}
MATERIAL_TYPES = {"material_n1", "element_n2", "substance_n1"}
# Substances that name contents, fuel or food rather than what a thing is made of when they modify a noun
# ("water pipe", "gas tank", "air holes", "food processor").
NOT_MODIFIER_MATERIALS = {"water", "air", "gas", "oil", "fuel", "gasoline", "petrol", "food", "liquid", "steam",
                          "smoke", "coffee", "tea", "wine", "milk", "salt", "sugar", "blood", "ink", "powder",
                          "mixture", "fluid", "vapor", "vapour", "waste", "garbage", "trash", "rubbish", "dust",
                          "dirt", "mud", "soap", "bread", "meat", "fruit", "vegetable", "grain", "page", "card",
                          "conductor", "insulator", "filling", "spindle", "stuff", "material", "matter",
                          "substance", "particle", "debris", "cigarette", "cigar", "log", "firework", "cleaner",
                          "plant", "ice", "snow", "sand"}


class Lexicon:
    """Which nouns name a material and which name a physical thing, from the sources' own typing."""

    def __init__(self, src: Path, wordnet: WordNet) -> None:
        self.materials: set[str] = set()
        self.physical: set[str] = set(wordnet.all_lemmas)
        for row in read_tsv(src / "aristo_tuplekb_meta" / "aristo-tuples-jan2017-46-types.tsv"):
            members = {snake(w) for w in row["Members"].split("|")}
            if row["Type"] in MATERIAL_TYPES:
                self.materials |= members
            if row["Type"] in PHYSICAL_TYPES:
                self.physical |= members
        # textiles and ceramics: WordNet artifact synsets under fabric.n.01 and ceramic_ware.n.01
        self.materials |= wordnet.lemmas_under({"fabric.n.01", "ceramic_ware.n.01", "ceramic.n.01"})
        self.nouns = self.materials | self.physical
        self.nouns |= {snake(r["Word"]) for r in read_tsv(src / "aristo_tuplekb_meta" /
                                                          "aristo-tuples-jan2017-entities.txt")}

    @staticmethod
    def _has(words: set[str], word: str) -> bool:
        return word in words or any(s in words for s in singulars(word))

    def is_material(self, word: str) -> bool:
        return self._has(self.materials, word)

    def is_modifier_material(self, word: str) -> bool:
        return self.is_material(word) and word not in NOT_MODIFIER_MATERIALS

    def is_noun(self, word: str) -> bool:
        return self._has(self.nouns, word)

    def is_part_noun(self, word: str) -> bool:
        return self._has(self.physical, word) or self._has(self.materials, word)


def gloss_predicate(word: str) -> str | None:
    """The predicate a descriptive gloss word belongs to (None: not a descriptive word)."""
    if word in GLOSS_MATERIAL_ADJECTIVES:
        return "MADE_OF"
    if word in GLOSS_SIZE:
        return "SIZE"
    if word in GLOSS_SURFACE:
        return "SURFACE"
    if word in GLOSS_SHAPE or word.endswith(SHAPE_SUFFIXES):
        return "SHAPE"
    return None


@dataclass
class GlossReading:
    """What one gloss says: properties of the whole, and parts with their own properties."""

    whole: set[tuple[str, str]] = field(default_factory=set)
    parts: dict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))


ADVERBS = {"usually", "typically", "often", "sometimes", "generally", "normally", "mostly", "relatively", "very",
           "fairly", "rather", "especially", "chiefly", "commonly", "frequently", "extremely", "highly", "quite",
           "partly", "wholly", "is", "are", "being"}


def tokens(gloss: str) -> list[list[str]]:
    """Clauses (split at ';') of lower-case words; hyphenated words joined with '_', parentheses kept inline."""
    text = gloss.lower().replace("-", "_").replace("(", " ").replace(")", " ")
    return [WORD.findall(clause) for clause in text.split(";")]


@dataclass(frozen=True)
class Phrase:
    """A noun phrase: its modifiers, its head, where it ends, and whether it followed a quantity ("a row of")."""

    modifiers: tuple[str, ...]
    head: str | None
    end: int
    counted: bool = False


def noun_phrase(words: list[str], start: int) -> Phrase:
    """The noun phrase at ``start``: leading determiners and adverbs skipped, ended by a stop word."""
    i = start
    while i < len(words) and (words[i] in DETERMINERS or words[i].isdigit()):
        i += 1
    if i + 2 < len(words) and words[i] in QUANTITY_NOUNS and words[i + 1] == "of":
        inner = noun_phrase(words, i + 2)  # "a row of free reeds": the part is "reeds"
        return Phrase(inner.modifiers, inner.head, inner.end, True)
    phrase: list[str] = []
    while i < len(words) and words[i] not in STOP and words[i] not in DETERMINERS and words[i] not in ",;()":
        if phrase and words[i].endswith("ed") and i + 1 < len(words) and words[i + 1] in STOP:
            break  # "a water basin fixed to a wall": the participle starts a new phrase
        phrase.append(words[i])
        i += 1
    if not phrase:
        return Phrase((), None, i)
    return Phrase(tuple(phrase[:-1]), phrase[-1], i)


def read_gloss(gloss: str, lex: Lexicon) -> GlossReading:
    """Properties and parts a WordNet gloss states, by a few fixed frames (documented in README.md).

    Each clause's leading noun phrase describes the object itself: its typed modifiers are whole-object
    properties ("a small rectangular free-reed instrument"). "of MATERIAL" right after a described phrase, and
    "made of / made from / consisting of MATERIAL" anywhere, give MADE_OF. "has / having / with / incorporating
    X and Y" name parts; the modifiers of a part are that part's properties ("a pointed blade"). A typed word
    after "usually", "typically", "is" ... describes the object ("typically cylindrical").
    "without X" is skipped.
    """
    out = GlossReading()

    def describe(target: set[tuple[str, str]], modifiers: Iterable[str]) -> None:
        for word in modifiers:
            predicate = gloss_predicate(word)
            if predicate:
                target.add((predicate, word))
            elif lex.is_modifier_material(word):
                target.add(("MADE_OF", word))

    def materials(target: set[tuple[str, str]], words: list[str], i: int) -> int:
        """Material nouns "X, Y or Z" from ``i`` into ``target``; returns the index after the last one."""
        end = i
        while i < len(words):
            phrase = noun_phrase(words, i)
            if phrase.head is None:
                break
            if phrase.head in GENERIC_MATERIAL_HEADS and phrase.modifiers:
                target.add(("MADE_OF", "_".join([*phrase.modifiers, phrase.head])))
            elif lex.is_material(phrase.head):
                target.add(("MADE_OF", phrase.head))
                describe(target, phrase.modifiers)
            elif any(lex.is_modifier_material(m) for m in phrase.modifiers):
                describe(target, phrase.modifiers)  # "metal links"
            else:
                break
            i = end = phrase.end
            if i < len(words) and words[i] in ("or", "and", ","):
                i += 1
            else:
                break
        return end

    def follow(target: set[tuple[str, str]], words: list[str], i: int) -> int:
        """'of MATERIAL' right after a described phrase."""
        if i < len(words) and words[i] == "of":
            return max(i, materials(target, words, i + 1))
        return i

    for words in tokens(gloss):
        target = out.whole
        phrase = noun_phrase(words, 0)
        i = phrase.end
        while phrase.head is not None:  # "a glass or plastic vessel": alternatives joined by "or"
            describe(out.whole, phrase.modifiers)
            head = phrase.head
            if lex.is_material(head) and (phrase.counted or (i < len(words) and words[i] == "or")):
                out.whole.add(("MADE_OF", head))  # "bundle of straws", "glass or plastic"
            elif gloss_predicate(head) and not lex.is_noun(head):
                describe(out.whole, [head])
            i = follow(out.whole, words, i)
            if i < len(words) and words[i] == "or":
                phrase = noun_phrase(words, i + 1)
                i = phrase.end if phrase.head is not None else i
                continue
            break
        described = i  # where the phrase described last ends
        while i < len(words):
            word = words[i]
            frame = next((f for f in MATERIAL_FRAMES if tuple(words[i:i + len(f)]) == f), None)
            consist = next((f for f in CONSIST_FRAMES if tuple(words[i:i + len(f)]) == f), None)
            if frame:
                i = described = max(i + len(frame), materials(target, words, i + len(frame)))
            elif consist and materials(target, words, i + 2) > i + 2:
                i = described = materials(target, words, i + 2)
            elif word == "without":
                i = described = max(i + 1, noun_phrase(words, i + 1).end)
            elif consist or (word in PART_FRAMES and not (word == "with" and not part_with(words, i, described))):
                i += 2 if consist else 1
                while i < len(words):
                    part = noun_phrase(words, i)
                    if part.head is None or not lex.is_part_noun(part.head) or gloss_predicate(part.head) \
                            or lex.is_material(part.head):
                        break
                    target = out.parts[part.head]
                    describe(target, part.modifiers)
                    i = described = follow(target, words, part.end)
                    if i < len(words) and words[i] in ("and", "or", ","):
                        i += 1
                        continue
                    break
            elif word in ADVERBS and i + 1 < len(words) and gloss_predicate(words[i + 1]):
                i += 1
                while i < len(words) and gloss_predicate(words[i]):
                    describe(out.whole, [words[i]])
                    i += 1
                    if i + 1 < len(words) and words[i] in ("and", "or") and gloss_predicate(words[i + 1]):
                        i += 1
                described = i
            else:
                i += 1
    return out


class WordNet:
    """The WordNet 3.0 artifact extract: senses, glosses, part and substance meronyms."""

    def __init__(self, src: Path) -> None:
        base = src / "wordnet30_extract"
        self.synsets = {r["synset"]: r for r in read_tsv(base / "artifact_glosses_DERIVED.tsv")}
        self.by_lemma: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        self.children: dict[str, set[str]] = defaultdict(set)
        for name, row in self.synsets.items():
            for position, lemma in enumerate(row["lemmas"].split("|")):
                head = name.rsplit(".", 2)[0]
                rank = 0 if snake(lemma) == snake(head) else 1
                self.by_lemma[snake(lemma)].append((rank, int(name.rsplit(".", 1)[1]), name))
            for parent in row["hypernyms"].split("|"):
                self.children[parent].add(name)
        self.all_lemmas = set(self.by_lemma)
        self.meronyms: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for row in read_tsv(base / "artifact_meronyms_DERIVED.tsv"):
            lemma = snake(row["target_lemmas"].split("|")[0])
            self.meronyms[row["synset"]].append((row["relation"], lemma, row["target_synset"]))
            self.all_lemmas.add(lemma)

    def sense(self, obj: str) -> tuple[str, str] | None:
        """(synset, the word found) for an object id: the lowest-numbered artifact synset named after the id, else
        one with the id as a synonym; the id is also tried singular and without underscores ("arm_chair")."""
        forms = [obj, *singulars(obj), obj.replace("_", "")]
        for form in forms:
            if form in self.by_lemma:
                return min(self.by_lemma[form])[2], form
        return None

    def lemmas_under(self, roots: set[str]) -> set[str]:
        found: set[str] = set()
        stack = list(roots)
        seen: set[str] = set()
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            if name in self.synsets:
                found |= {snake(lemma) for lemma in self.synsets[name]["lemmas"].split("|")}
            stack.extend(self.children.get(name, ()))
        return found


def read_wordnet(wn: WordNet, lex: Lexicon, ev: Evidence) -> None:
    """Descriptions, parts (meronyms and gloss-named parts) and gloss properties for every candidate object.

    Objects Forbes et al. mark as edible and not man-made (fruit, vegetables) have no artifact sense: an
    artifact synset with their name is a homonym (grape -> grapeshot, lemon -> a defective car). An AI2-THOR
    compound type with no synset of its own takes its head noun's (DeskLamp -> lamp).
    """
    for obj in sorted(ev.names - ev.natural):
        if obj in SENSES:
            found = (SENSES[obj], obj) if SENSES[obj] else None
        else:
            found = wn.sense(obj)
            if found is None and obj in ev.ai2thor and "_" in obj:
                found = wn.sense(obj.rsplit("_", 1)[1])
        if found is None:
            continue
        synset, word = found
        gloss = wn.synsets[synset]["gloss"]
        kind = "" if word.replace("_", "") in (obj.replace("_", ""), *singulars(obj)) else f", a kind of {word}"
        ev.descriptions[obj] = f"{obj.replace('_', ' ')}{kind}: {gloss}"
        reading = read_gloss(gloss, lex)
        for predicate, value in sorted(reading.whole):
            ev.prop(obj, WHOLE, predicate, value)
        for part, props in sorted(reading.parts.items()):
            ev.part(obj, part)
            for predicate, value in sorted(props):
                ev.prop(obj, snake(part), predicate, value)
        for relation, lemma, target in wn.meronyms.get(synset, []):
            if relation == "substance_meronym":
                ev.prop(obj, WHOLE, "MADE_OF", lemma)
            elif relation == "part_meronym":
                ev.part(obj, lemma)
                part_reading = read_gloss(wn.synsets[target]["gloss"], lex) if target in wn.synsets else None
                if part_reading:
                    for predicate, value in sorted(part_reading.whole):
                        ev.prop(obj, lemma, predicate, value)
                for sub_relation, sub_lemma, _ in wn.meronyms.get(target, []):
                    if sub_relation == "substance_meronym":
                        ev.prop(obj, lemma, "MADE_OF", sub_lemma)


NUMBER_WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "many", "several"}


def strip_count(phrase: str) -> str:
    words = [w for w in phrase.split() if w not in NUMBER_WORDS and not w.isdigit()]
    return "_".join(words)


def read_conceptnet(src: Path, lex: Lexicon, ev: Evidence) -> None:
    """ConceptNet (CKBC) triples judged true (label 1): MadeOf -> MADE_OF; HasA / PartOf -> parts."""
    base = src / "conceptnet_ckbc_eval"
    for name in ("new_omcs_dev1.txt", "new_omcs_dev2.txt", "new_omcs_test.txt"):
        for line in (base / name).read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if len(fields) != 4 or fields[3].strip() != "1":
                continue
            relation, head, tail = fields[0], snake(fields[1]), fields[2]
            if relation == "MadeOf" and head in ev.names:
                ev.prop(head, WHOLE, "MADE_OF", tail)
            elif relation == "HasA" and head in ev.names and lex.is_part_noun(strip_count(tail)):
                ev.part(head, strip_count(tail))
            elif relation == "PartOf" and snake(tail) in ev.names and lex.is_part_noun(snake(fields[1])):
                ev.part(snake(tail), fields[1])


def read_atomic(src: Path, lex: Lexicon, ev: Evidence) -> None:
    """ATOMIC-2020 MadeUpOf triples: a material noun -> MADE_OF, another known noun -> a part."""
    for row in read_tsv(src / "atomic2020_sample" / "physical_triples.tsv"):
        head, tail = snake(row["head"]), snake(row["tail"])
        if row["relation"] != "MadeUpOf" or head not in ev.names or not tail:
            continue
        if lex.is_material(tail):
            ev.prop(head, WHOLE, "MADE_OF", tail)
        elif lex.is_part_noun(tail):
            ev.part(head, tail)


# --- assembly ----------------------------------------------------------------------------------------------------
def collect(src: Path) -> Evidence:
    ev = Evidence()
    read_forbes(src, ev)
    read_ai2thor(src, ev)
    read_prost(src, ev)
    read_kmi(src, ev)
    wn = WordNet(src)
    lex = Lexicon(src, wn)
    read_wordnet(wn, lex, ev)
    read_conceptnet(src, lex, ev)
    read_atomic(src, lex, ev)
    return ev


def sample_games(objects: list[str], affordances: list[str], truth: dict[tuple[str, str], bool], n_games: int,
                 seed: int) -> list[dict]:
    """Every eligible (object, target) pair at most once, dealt round-robin over the targets, seeded."""
    rng = random.Random(seed)
    false_for = {o: sorted(a for a in affordances if truth.get((o, a)) is False) for o in objects}
    queues = {}
    for a in affordances:
        hidden = [o for o in objects if truth.get((o, a)) is True and len(false_for[o]) >= N_CANDIDATES - 1]
        rng.shuffle(hidden)
        queues[a] = hidden
    limit = min(n_games, sum(len(q) for q in queues.values()))
    chosen: list[tuple[str, str]] = []
    depth = 0
    while len(chosen) < limit:
        for a in affordances:
            if depth < len(queues[a]) and len(chosen) < limit:
                chosen.append((queues[a][depth], a))
        depth += 1
    games = []
    for index, (obj, target) in enumerate(chosen, start=1):
        candidates = [target, *rng.sample(false_for[obj], N_CANDIDATES - 1)]
        rng.shuffle(candidates)
        games.append({"id": f"g{index:04d}", "object": obj, "target": target, "candidates": candidates})
    return games


def build(src: Path, n_games: int, seed: int) -> tuple[dict[str, list[dict]], dict[str, int]]:
    """The four files' records and the scale figures."""
    ev = collect(src)
    truth = {key: next(iter(v)) for key, v in ev.labels.items() if len(v) == 1}  # sources disagree: no label
    conflicts = sum(1 for v in ev.labels.values() if len(v) > 1)
    objects = sorted(o for o in ev.names if len(ev.properties[o]) >= MIN_PROPERTIES)
    kept = set(objects)
    counts: dict[tuple[str, bool], int] = defaultdict(int)
    for (o, a), t in truth.items():
        if o in kept:
            counts[(a, t)] += 1
    affordances = sorted(a for a in ev.affordances
                         if counts[(a, True)] >= MIN_POSITIVES and counts[(a, False)] >= MIN_NEGATIVES)
    labels = sorted((o, a, t) for (o, a), t in truth.items() if o in kept and a in affordances)
    objects = sorted({o for o, _, t in labels if t})  # an object with no true label is never hidden nor needed
    labels = [(o, a, t) for o, a, t in labels if o in set(objects)]
    order = {p: i for i, p in enumerate(PREDICATES)}
    object_records = []
    for o in objects:
        props = sorted(ev.properties[o], key=lambda t: (t[0] != WHOLE, t[0], order[t[1]], t[2]))
        object_records.append({
            "id": o, "description": ev.descriptions.get(o, o.replace("_", " ")), "parts": sorted(ev.parts[o]),
            "properties": [{"part": p, "predicate": q, "value": v} for p, q, v in props]})
    truth_kept = {(o, a): t for o, a, t in labels}
    games = sample_games(objects, affordances, truth_kept, n_games, seed)
    n_false = defaultdict(int)
    for (o, _), t in truth_kept.items():
        n_false[o] += not t
    eligible = sum(1 for (o, _), t in truth_kept.items() if t and n_false[o] >= N_CANDIDATES - 1)
    records = {
        "objects.jsonl": object_records,
        "affordances.jsonl": [{"id": a, "description": ev.affordances[a]} for a in affordances],
        "labels.jsonl": [{"object": o, "affordance": a, "label": t} for o, a, t in labels],
        "games.jsonl": games,
    }
    stats = {
        "objects": len(objects), "affordances": len(affordances), "labels": len(labels),
        "positive_labels": sum(1 for _, _, t in labels if t), "label_conflicts_dropped": conflicts,
        "eligible_pairs": eligible, "games": len(games),
        "objects_with_parts": sum(1 for r in object_records if r["parts"]),
        "part_names": sum(len(r["parts"]) for r in object_records),
        "property_rows": sum(len(r["properties"]) for r in object_records),
        "part_property_rows": sum(1 for r in object_records for p in r["properties"] if p["part"] != WHOLE),
        "distinct_values": len({(p["predicate"], p["value"]) for r in object_records for p in r["properties"]}),
    }
    return records, stats


def write_jsonl(path: Path, records: Iterable[dict]) -> None:
    """Write one JSON object per line to a temporary file in the same folder, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual permissions
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, required=True, help="folder holding the public data sets")
    parser.add_argument("--out", type=Path, required=True, help="benchmark directory to write")
    parser.add_argument("--games", type=int, default=500, help="number of games to sample (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    args = parser.parse_args(argv)
    if not args.sources.is_dir():
        print(f"build: {args.sources}: not a folder", file=sys.stderr)
        return 2
    try:
        records, stats = build(args.sources, args.games, args.seed)
    except (OSError, KeyError, ValueError) as error:
        print(f"build: {args.sources}: cannot read the sources: {error}", file=sys.stderr)
        return 2
    for name, rows in records.items():
        write_jsonl(args.out / name, rows)
    for key, value in stats.items():
        print(f"{key}\t{value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
