"""Readers for the public data sets in ../shared/data: each yields plain facts about objects.

Facts are ``Fact(node1, relation, node2, source, sentence)`` with kari's KB relations: ``MadeOf``,
``HasProperty``, ``HasA`` (object -> part) and ``CapableOf`` / ``NotCapableOf`` (object -> affordance id,
the affordance labels). Every reader is a pure function of its input files.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import glosses
import kb_sources


class Fact(NamedTuple):
    node1: str
    relation: str
    node2: str
    source: str
    sentence: str
    label: str = ""  # node2's words as the source wrote them (affordance verbs); empty: node2 with spaces


def snake(name: str) -> str:
    """``'AlarmClock'`` / ``'fire extinguisher'`` -> ``'alarm_clock'`` / ``'fire_extinguisher'``."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip())
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# --- AI2-THOR object types (simulator metadata aggregated over 120 scenes) ----------------------------------
AI2THOR = "AI2-THOR"
AI2THOR_NAMES = {"basket_ball": "basketball", "cd": "compact_disc", "tv_stand": "tv_stand", "desktop": "desktop_computer",
                 "house_plant": "potted_plant", "dish_sponge": "sponge", "keychain": "key_chain"}
AI2THOR_SKIP = {"Floor", "BathtubBasin", "SinkBasin", "RoomDecor", "TableTopDecor", "StoveBurner", "StoveKnob",
                "CounterTop", "LightSwitch", "ShowerGlass", "ShowerDoor", "Window"}
AI2THOR_MATERIAL_SHARE = 0.25  # a salient material counts when at least this share of instances lists it
AI2THOR_FLAGS = {"pickupable": "pick_up", "openable": "open", "breakable": "break", "receptacle": "hold_things",
                 "toggleable": "switch_on", "canFillWithLiquid": "contain_liquid", "sliceable": "slice"}


def size_terms(dims: list[float], mass: float | None) -> list[str]:
    """Size and shape words from a bounding box (metres, sorted largest first) and a mass (kg)."""
    big, mid, low = dims
    terms = ["tiny" if big < 0.05 else "small" if big < 0.30 else "medium" if big < 1.0 else "large" if big < 2.5 else "huge"]
    if 0.05 <= big <= 0.25 and mid <= 0.12:
        terms.append("hand_sized")
    if low <= 0.02 or (low / big < 0.1 and low <= 0.05):
        terms.append("thin")
    if mid > 0 and low / mid < 0.25:
        terms.append("flat")
    if mid > 0 and big / mid >= 3:
        terms += ["elongated", "long"] if big >= 0.25 else ["elongated"]
    if mass is not None:
        terms += ["heavy"] if mass > 5 else ["light"] if mass < 1 else []
    return terms


def ai2thor(root: Path) -> Iterator[Fact]:
    data = json.loads((root / "ai2thor_object_types" / "ai2thor_objecttype_summary_DERIVED.json").read_text())
    for entry in data:
        kind = entry["objectType"]
        if kind in AI2THOR_SKIP:
            continue
        obj = AI2THOR_NAMES.get(snake(kind), snake(kind))
        n = entry["n_instances"]
        where = f"AI2-THOR object type {kind} ({n} instances)"
        for material, count in sorted(entry["salientMaterials"].items()):
            if count / n >= AI2THOR_MATERIAL_SHARE:
                yield Fact(obj, "MadeOf", material.lower(), AI2THOR, f"{where}: salient material {material} in {count}")
        dims = entry.get("bbox_dims_m_median_sorted")
        if dims:
            for term in size_terms(dims, entry.get("mass_kg_median")):
                yield Fact(obj, "HasProperty", term, AI2THOR,
                           f"{where}: median box {'x'.join(map(str, dims))} m, mass {entry.get('mass_kg_median')} kg")
        flags = entry.get("affordance_flags", {})
        for flag, aff in AI2THOR_FLAGS.items():
            value = flags.get(flag, 0.0)
            if value in (0.0, 1.0):  # mixed types (some instances only) are left unlabelled
                yield Fact(obj, "CapableOf" if value else "NotCapableOf", aff, AI2THOR, f"{where}: {flag}={bool(value)}")


# --- Forbes et al. 2019, abstract object-property annotations -----------------------------------------------
FORBES = "Forbes2019"
FORBES_PROPERTIES = ("sharp", "smooth", "shiny", "slimy", "hard", "squishy", "fragile", "large", "tall",
                     "hand_held", "heavy", "light_weight", "wet", "words_on_it")
FORBES_AFFORDANCES = {"used_for_cleaning": "clean_with", "used_for_cooking": "cook_with",
                      "used_for_eating": "use_for_eating", "used_for_holding_things": "hold_things",
                      "used_for_killing": "attack_with", "used_for_music": "make_music",
                      "used_for_transportation": "transport", "worn_for_warmth": "keep_warm",
                      "worn_on_feet": "wear_on_feet", "flies": "fly", "edible": "eat", "produces_noise": "make_noise",
                      "a_toy": "play_with", "decorative": "decorate", "found_on_walls": "hang_on_wall", "has_peel": "peel"}


def forbes_rows(root: Path) -> list[dict[str, str]]:
    with (root / "forbes_physical_commonsense" / "abstract.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def forbes(root: Path) -> Iterator[Fact]:
    """1 = true, 0 = false; -2 (unknown / mixed) and -1 are skipped. Animals are skipped."""
    for row in forbes_rows(root):
        obj = row["objectUID"]
        if row["an_animal"] != "0":
            continue
        for prop in FORBES_PROPERTIES:
            if row[prop] == "1":
                yield Fact(obj, "HasProperty", prop, FORBES, f"Forbes et al. abstract annotation: {obj} {prop}=1")
        for column, aff in FORBES_AFFORDANCES.items():
            if row[column] in ("0", "1"):
                yield Fact(obj, "CapableOf" if row[column] == "1" else "NotCapableOf", aff, FORBES,
                           f"Forbes et al. abstract annotation: {obj} {column}={row[column]}")


# --- Forbes et al. 2019, situated affordances (COCO instances, 3 yes / 3 no verbs each) ----------------------
SITUATED_VERBS = {"sit": "sit_on", "open": "open", "throw": "throw", "carry": "carry", "drink": "drink_from",
                  "pour": "pour_from", "fill": "contain_liquid", "hang": "hang", "lift": "pick_up", "pick": "pick_up",
                  "slice": "slice", "eat": "eat", "bite": "eat", "ride": "ride", "peel": "peel", "squeeze": "squeeze",
                  "break": "break", "swing": "swing", "hit": "hit_with", "kick": "kick", "catch": "catch",
                  "read": "read", "type": "type_on", "wear": "wear", "push": "push", "roll": "roll", "stack": "stack",
                  "fold": "fold", "stir": "stir_with", "cut": "cut", "sleep": "sleep_on", "lean": "lean_on"}
COCO_NAMES = {"tv": "television", "couch": "sofa", "remote": "remote_control", "sports_ball": "ball",
              "cell_phone": "cell_phone", "dining_table": "dining_table", "mouse": "computer_mouse",
              "hair_drier": "hair_dryer", "skis": "skis", "bicycle": "bicycle"}
COCO_ANIMALS = {"person", "bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe"}


def situated(root: Path) -> Iterator[Fact]:
    """Per object, a verb is true when some instance lists it as yes and none as no (and vice versa)."""
    yes: dict[str, Counter[str]] = defaultdict(Counter)
    no: dict[str, Counter[str]] = defaultdict(Counter)
    path = root / "forbes_physical_commonsense" / "situated-affordances-sampled.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["objectUID"] in COCO_ANIMALS:
                continue
            obj = COCO_NAMES.get(row["objectUID"], row["objectUID"])
            yes[obj].update(row["affordancesYes"].split(","))
            no[obj].update(row["affordancesNo"].split(","))
    for obj in sorted(yes):
        votes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for verb, count in yes[obj].items():
            if verb in SITUATED_VERBS:
                votes[SITUATED_VERBS[verb]][0] += count
        for verb, count in no[obj].items():
            if verb in SITUATED_VERBS:
                votes[SITUATED_VERBS[verb]][1] += count
        for aff, (n_yes, n_no) in sorted(votes.items()):
            if bool(n_yes) != bool(n_no):
                yield Fact(obj, "CapableOf" if n_yes else "NotCapableOf", aff, "Forbes2019-situated",
                           f"Forbes et al. situated affordances (COCO): {aff} yes {n_yes}, no {n_no}")


# --- PROST lexicons ------------------------------------------------------------------------------------------
PROST_LISTS = {"break_obj": ("break", True), "nonbreak_obj": ("break", False), "roll_obj": ("roll", True),
               "nonroll_obj": ("roll", False), "stack_obj": ("stack", True), "nonstack_obj": ("stack", False),
               "grasp_obj": ("pick_up", True)}
PROST_SINGULAR = {"bottles": "bottle", "balls": "ball", "blocks": "block", "books": "book", "boxes": "box",
                  "plates": "plate", "coins": "coin", "eggs": "egg", "lamps": "lamp", "flowers": "flower"}


def prost(root: Path) -> Iterator[Fact]:
    lists: dict[str, list[str]] = {}
    current = None
    for line in (root / "prost_lexicons" / "lexicons.yml").read_text(encoding="utf-8").splitlines():
        if re.match(r"^\w+:\s*$", line):
            current = line.split(":")[0]
            lists[current] = []
        elif current and line.strip().startswith("- "):
            lists[current].append(line.strip()[2:].strip())
    for name, (aff, truth) in PROST_LISTS.items():
        for word in lists.get(name, []):
            obj = PROST_SINGULAR.get(word, word)
            yield Fact(obj, "CapableOf" if truth else "NotCapableOf", aff, "PROST", f"PROST lexicon {name}: {word}")


# --- ConceptNet (CKBC evaluation triples, label 1 = true) ------------------------------------------------------
CKBC_PROPERTY_RELATIONS = {"MadeOf": "MadeOf", "HasProperty": "HasProperty", "HasA": "HasA"}
CKBC_AFFORDANCE_RELATIONS = ("UsedFor", "CapableOf", "ReceivesAction")


def conceptnet(root: Path, verbs: dict[str, str]) -> Iterator[Fact]:
    """MadeOf / HasProperty / HasA (and PartOf reversed) with label 1; UsedFor / CapableOf / ReceivesAction whose
    phrase is exactly a known verb (optionally followed by 'from', 'on', 'with') become affordance labels."""
    for triple in kb_sources.ckbc_triples(root):
        rel, head, tail, label = triple.relation, snake(triple.head), triple.tail, triple.label
        where = triple.sentence(head)
        if rel in CKBC_PROPERTY_RELATIONS and label == "1":
            yield Fact(head, CKBC_PROPERTY_RELATIONS[rel], snake(tail), "ConceptNet", where)
        elif rel == "PartOf" and label == "1":
            yield Fact(snake(tail), "HasA", head, "ConceptNet", where)
        elif rel in CKBC_AFFORDANCE_RELATIONS:
            words = tail.split()
            if words and words[0] in verbs and (len(words) == 1 or words[1:] in (["from"], ["on"], ["with"])):
                if label == "1":
                    yield Fact(head, "CapableOf", verbs[words[0]], "ConceptNet", where)


# --- KMi object size catalogue ---------------------------------------------------------------------------------
KMI_SIZE = {"XS": "small", "small": "small", "medium": "medium", "large": "large", "XL": "huge"}
KMI_THINNESS = {"flat": "flat", "thin": "thin", "thick": "thick"}


def kmi(root: Path) -> Iterator[Fact]:
    data = json.loads((root / "kmi_size_catalogue" / "KMi_obj_catalogue.json").read_text(encoding="utf-8"))
    for name, entry in sorted(data.items()):
        obj = snake(name)
        where = f"KMi object catalogue: {name} {entry.get('has_size')}, {entry.get('thinness')}"
        size, thinness = entry.get("has_size"), entry.get("thinness")
        for term in (KMI_SIZE.get(size) if isinstance(size, str) else None,  # lists = several classes: skipped
                     KMI_THINNESS.get(thinness) if isinstance(thinness, str) else None):
            if term:
                yield Fact(obj, "HasProperty", term, "KMi", where)


# --- WordNet 3.0 (artifact glosses and meronyms) ---------------------------------------------------------------
WORDNET = "WordNet-3.0"
NOT_OBJECTS = frozenset({"person", "basement", "bedroom", "cellar", "apartment", "building"})
EXCLUDED_HYPERNYMS = ("building.n.01", "room.n.01", "housing.n.01", "place_of_worship.n.01", "area.n.05")


class WordNet:
    """The artifact extract: synset glosses, hypernyms, lemmas and part/substance meronyms."""

    def __init__(self, root: Path) -> None:
        folder = root / "wordnet30_extract"
        self.gloss: dict[str, str] = {}
        self.hypernyms: dict[str, list[str]] = {}
        self.by_lemma: dict[str, list[str]] = defaultdict(list)
        self.lemmas: dict[str, list[str]] = {}
        with (folder / "artifact_glosses_DERIVED.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                self.gloss[row["synset"]] = row["gloss"]
                self.hypernyms[row["synset"]] = [h for h in row["hypernyms"].split("|") if h]
                for lemma in row["lemmas"].split("|"):
                    self.by_lemma[lemma.lower()].append(row["synset"])
                self.lemmas[row["synset"]] = row["lemmas"].split("|")
        self.parts: dict[str, list[tuple[str, str]]] = defaultdict(list)
        with (folder / "artifact_meronyms_DERIVED.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                self.parts[row["synset"]].append((row["relation"], row["target_synset"]))

    def synset(self, name: str) -> str | None:
        """The object's sense: its own head lemma first, then the lowest sense number; plurals fall back."""
        for lemma in (name, re.sub(r"es$", "", name), re.sub(r"s$", "", name)):
            senses = self.by_lemma.get(lemma, [])
            if senses:
                return min(senses, key=lambda s: (s.split(".")[0] != lemma, int(s.split(".")[-1]), s))
        return None

    def ancestors(self, synset: str) -> set[str]:
        seen: set[str] = set()
        stack = [synset]
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self.hypernyms.get(current, []))
        return seen

    def excluded(self, synset: str) -> bool:
        """Rooms, buildings and similar places are not handheld-scale objects."""
        return bool(self.ancestors(synset) & set(EXCLUDED_HYPERNYMS))


def lemma_of(synset: str) -> str:
    return snake(synset.split(".")[0])


def gloss_facts(node: str, synset: str, wn: WordNet) -> Iterator[Fact]:
    gloss = wn.gloss.get(synset)
    if not gloss:
        return
    where = f"WordNet {synset}: {gloss}"
    mats, adjs = glosses.properties(gloss)
    for word in mats:
        yield Fact(node, "MadeOf", word, WORDNET, where)
    for word in adjs:
        yield Fact(node, "HasProperty", word, WORDNET, where)


INHERIT_DEPTH = 2  # hypernym levels searched for a material when the object's own gloss names none


def inherited_materials(node: str, synset: str, wn: WordNet) -> Iterator[Fact]:
    """Materials of the nearest hypernym (up to INHERIT_DEPTH levels) whose gloss names one: a frying pan is a
    pan, 'a cooking utensil consisting of a wide metal vessel'."""
    level = [synset]
    for _ in range(INHERIT_DEPTH):
        level = sorted({h for s in level for h in wn.hypernyms.get(s, [])})
        for hyper in level:
            mats = glosses.materials(wn.gloss.get(hyper, ""))
            for word in mats:
                yield Fact(node, "MadeOf", word, WORDNET, f"WordNet hypernym {hyper} of {synset}: {wn.gloss[hyper]}")
        if any(glosses.materials(wn.gloss.get(h, "")) for h in level):
            return


def wordnet(objects: list[str], wn: WordNet) -> Iterator[Fact]:
    """Gloss properties of each object's synset (materials inherited from a hypernym when the gloss names none),
    its parts (HasA) and the parts' own gloss properties; substance meronyms become MadeOf."""
    for obj in objects:
        synset = wn.synset(obj)
        if synset is None:
            continue
        yield from gloss_facts(obj, synset, wn)
        if not glosses.materials(wn.gloss[synset]):
            yield from inherited_materials(obj, synset, wn)
        for relation, target in sorted(wn.parts.get(synset, [])):
            if relation == "part_meronym":
                part = lemma_of(target)
                yield Fact(obj, "HasA", part, WORDNET, f"WordNet part meronym {synset} -> {target}")
                yield from gloss_facts(part, target, wn)
            elif relation == "substance_meronym":
                yield Fact(obj, "MadeOf", lemma_of(target), WORDNET, f"WordNet substance meronym {synset} -> {target}")


def description(obj: str, wn: WordNet) -> str:
    synset = wn.synset(obj)
    words = obj.replace("_", " ")
    return f"{words}: {wn.gloss[synset]}" if synset else words
