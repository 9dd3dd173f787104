"""Build kari's bundled CreativityBench-format KB and tasks from public data (../shared/data).

    python data/build/creativity.py [--shared ../shared/data] [--root .] [--no-rules | --rules-only]

Writes, under ``data/creativity/`` (sorted, seeded: the same inputs give byte-identical files):

- ``entities.jsonl``: the scenes' entities in CreativityBench's assembled-entity form: WordNet 3.0 artifacts with
  their part meronyms; every part with physical attributes (WordNet glosses of the part and its hypernyms, the
  Forbes et al. object properties, the KMi size catalogue, verbphysics comparisons with a person, the PROST
  lexicons, and kari's table of material traits), state attributes read from the gloss, and functional
  affordances (the uses its WordNet sense inherits, see below), each enabling attribute with its modality;
- ``tasks.json``: the tasks (a JSON array in CreativityBench's task format: golds with every affordance field,
  entities with part-by-part descriptions and ``judge_output``, items, environment, request, a four-step
  solution);
- ``heldout.json``: the gold entities and gold part words held out of rule induction;
- ``rules.kari`` / ``rules.jsonl``: ``kari induce --db`` (offline) on the part-level KB of ``entities.jsonl``
  without the held-out gold entities: PART rules from the parts' functional affordances (``--no-rules`` skips
  this, ``--rules-only`` does only this, from the files already built).

**Uses and their senses.** A use is an ATOMIC-2020 ``ObjectUse`` tail of a head word (``chain: lock the bike``)
or a positive Forbes et al. affordance label of an object word. A use belongs to one WordNet sense of its word:
for an ATOMIC head, the artifact sense whose gloss and hypernyms share the most words with everything ATOMIC
says about the head (a strict winner with at least one shared word, else the head is ambiguous and dropped); for
a Forbes word, its only artifact sense, and only when that is the word's first sense.

**Golds.** ``(entity, part, use)`` where the part's sense is a WordNet part meronym of the entity's sense and the
use's sense is the part's own sense or one of its hypernyms (at most two levels up: a car's roof is a protective
covering, a covering keeps out rain), and no other part of the entity is as close a kind of that sense (the gold
dominates its own entity, as CreativityBench requires). A word shared by two senses never carries a use across:
a gown's ``train`` (a piece of cloth) is not the railway train ATOMIC's "transport" uses are about.
:func:`gold_problems` re-checks every bundled gold against these rules.

**Scenes.** Each gold gives tasks of 4, 6 and 8 entities (one use each, request texts from several templates),
the gold entity at a seeded random position. Other entities are drawn from the gold's scenario where there are
enough: entities with no part of the use's sense (``judge_output``: not similar), and for harder scenes entities
whose part is a more distant kind of it (similar, the gold not changed, decision difficulty 1-2); an entity with a
part as close as the gold's is never drawn. The gold entity's ``judge_output`` covers its other parts only, as in
CreativityBench's own files.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import glosses  # noqa: E402
import sources  # noqa: E402

from kari.creativity.goals import content_words  # noqa: E402
from kari.io.atomic import atomic_write_jsonl, atomic_write_text  # noqa: E402

SEED = 19
ENTITY_COUNTS = (4, 6, 8)
USES_PER_GOLD = 3
MAX_DEPTH = 2
"""Hypernym levels a use travels down from its sense to a part's sense."""
MIN_PARTS = 2
NOT_OBJECTS = ("system.n.01", "structure.n.01", "facility.n.01", "way.n.06", "area.n.05", "building.n.01",
               "room.n.01", "geographic_point.n.01", "establishment.n.04", "field.n.13")
PEOPLE = re.compile(r"\bperson[xyz]\b|\bpersony\b|\bpersonx\b", re.IGNORECASE)

SCENARIOS = (
    ("kitchen", ("kitchen_utensil.n.01", "cooking_utensil.n.01", "tableware.n.01", "crockery.n.01",
                 "cutlery.n.02", "kitchen_appliance.n.01", "vessel.n.03")),
    ("garage", ("motor_vehicle.n.01", "wheeled_vehicle.n.01", "self-propelled_vehicle.n.01", "hand_tool.n.01",
                "power_tool.n.01", "engine.n.01", "machine.n.01", "tool.n.01")),
    ("bedroom", ("clothing.n.01", "garment.n.01", "footwear.n.01", "footwear.n.02", "headdress.n.01", "bed.n.01",
                 "jewelry.n.01")),
    ("living_room", ("furniture.n.01", "musical_instrument.n.01", "electronic_equipment.n.01", "lamp.n.01",
                     "timepiece.n.01")),
)
ROOMS = {"kitchen": "Kitchens", "bedroom": "Bedrooms", "living_room": "Living Rooms", "bathroom": "Bathrooms"}
DEFAULT_SCENARIO = "storage_room"

REQUESTS = (
    "I need to {use}, but nothing here is made for that. What can I use?",
    "Right now I have to {use}, and the usual things for it are not around. Is there anything here I could use?",
    "Could something in this room help me {use}? I have none of the tools people normally use.",
    "I am trying to {use} with only what is around me. Which part of something here would do it?",
)
AFFORDANCE_REQUESTS = {
    "decorate": "make this room look festive for a party, but I have no decorations",
    "hang_on_wall": "put something up on the wall to look at, and I have nothing meant for it",
    "hold_things": "keep a handful of small loose things together so they do not get lost",
    "keep_warm": "stay warm in this cold room, and I have nothing warm to wear",
    "make_noise": "make a loud noise so someone in the next room notices me",
    "make_music": "play a short tune for a friend, and there is no instrument here",
    "transport": "move something heavy from here to the other side of the room",
}
USE_AFFORDANCES = (  # an ATOMIC use -> the one of kari's affordance ids (data/bench/affordances.jsonl) it names
    # plainly, as a pattern of its words; a use no pattern fits has no id (an open goal)
    ("make_music", r"\b(music|tune|song|strum|pluck|guitar|blues)\b"),
    ("make_noise", r"\b(noises?|sound|loud)\b"),
    ("clean_with", r"\b(clean|wipe|scrub|wash|dust)\b"),
    ("cook_with", r"\b(cook|bake|boil|stew|soup|fry)\b"),
    ("keep_warm", r"\bwarm\b"),
    ("decorate", r"\bdecorat"),
    ("attack_with", r"\b(hurt|weapon|murder|attack|kill)\b"),
    ("transport", r"\b(transport|tow|haul|move (?!around)\w+)\b"),
    ("hold_things", r"\b(store|contain)\b|\b(keep|put|place)\s+(?:\w+\s+){0,3}in(?:to|side)?\s+(?:a|the|it)\b"),
)
SUPPORT = {  # what a part must have for a use of this affordance (else the use is not its gold use)
    "clean_with": ("material", {"cloth", "paper", "foam"}),
    "keep_warm": ("material", {"cloth", "leather", "foam"}),
    "cook_with": ("material", {"metal", "ceramic", "glass", "stone"}),
    "hold_things": ("kind", {"container.n.01", "receptacle.n.01", "vessel.n.03", "bag.n.01", "box.n.01"}),
    "transport": ("kind", {"wheel.n.01", "vehicle.n.01", "conveyance.n.03", "wheeled_vehicle.n.01"}),
}
BAD_STARTS = {"try", "help", "become", "have", "get", "let", "go", "be", "start", "make"}
MATERIAL_CLASSES = {
    "metal": ("metal", "metallic", "steel", "iron", "aluminum", "aluminium", "copper", "brass", "bronze", "silver",
              "gold", "chrome", "tin"),
    "wood": ("wood", "wooden", "timber", "bamboo", "wicker", "cork"),
    "glass": ("glass",), "plastic": ("plastic", "nylon"), "rubber": ("rubber", "latex"),
    "cloth": ("fabric", "cloth", "textile", "cotton", "wool", "woolen", "woollen", "silk", "linen", "felt",
              "canvas", "fur", "feathers"),
    "leather": ("leather", "suede"), "paper": ("paper", "cardboard", "paperboard"),
    "stone": ("stone", "marble", "granite", "brick", "concrete", "cement"),
    "ceramic": ("ceramic", "porcelain", "earthenware", "pottery", "clay"), "foam": ("foam", "sponge"),
    "wax": ("wax",),
}
MATERIAL_TRAITS = {  # kari's defaults: (rigidity, durability, elasticity, weight) of a material class
    "metal": ("very rigid", "very sturdy", "non-elastic", "heavy"), "wood": ("rigid", "sturdy", "non-elastic",
                                                                          "moderate"),
    "glass": ("very rigid", "fragile", "non-elastic", "moderate"), "plastic": ("rigid", "normal", "non-elastic",
                                                                            "light"),
    "rubber": ("flexible", "sturdy", "stretchable", "light"), "cloth": ("soft", "normal", "non-elastic",
                                                                        "very light"),
    "leather": ("flexible", "sturdy", "non-elastic", "light"), "paper": ("flexible", "fragile", "non-elastic",
                                                                        "very light"),
    "stone": ("very rigid", "very sturdy", "non-elastic", "very heavy"),
    "ceramic": ("very rigid", "fragile", "non-elastic", "moderate"), "foam": ("soft", "normal", "springy",
                                                                           "very light"),
    "wax": ("semi-rigid", "fragile", "non-elastic", "light"),
}
SHAPE_NOUNS = frozenset("""tube pipe hose disk disc plate bar rod stick ring sheet layer strip cylinder wheel knob panel
flap fold loop hook frame box case compartment chamber cover covering lid cap handle grip blade spring pin peg chain
cord rope wire cable strap band belt bag pouch pocket tray shelf board lever pedal button switch screen grid net mesh
spike point edge tip projection protuberance coil opening hole slot groove channel bulb lens cushion pad""".split())
GLOSS_SHAPES = {"flattened": "flat", "vertical": "upright", "horizontal": "horizontal", "radial": "radial",
                "cylinder": "cylindrical", "disk": "disk-shaped", "ring": "ring-shaped", "tube": "tubular"}
GLOSS_RIGIDITY = {"stiff": "rigid", "rigid": "rigid", "flexible": "flexible", "pliable": "flexible",
                  "elastic": "elastic", "soft": "soft"}
MATERIAL_DEPTH = 4
"""Hypernym levels searched for a part's material when its own gloss names none."""
HIDDEN = re.compile(r"\b(inside|interior|internal|inner|within|enclosed|housing|concealed)\b")
PARTLY = re.compile(r"\b(underneath|beneath|under|behind|recessed)\b")
PURPOSE = re.compile(r"\b(?:used (?:to|for)|designed to|intended to|serves to) ([^;()]+)")
STOP_PHRASE = {"the", "a", "an", "their", "his", "her", "my", "your", "its", "it", "them", "this", "that", "some",
               "on", "out", "up", "off", "in", "around", "onto", "over", "down", "away", "with", "into", "at",
               "from", "for", "to", "of", "and", "or", "by", "inside", "outside", "together", "back", "apart"}
PREPOSITIONS = {"on", "in", "with", "into", "at", "from", "for", "to", "of", "while", "when", "so", "and", "or",
                "by", "as", "without", "under", "over", "around"}


def stem(word: str) -> str:
    """A crude suffix strip (``holding`` -> ``hold``, ``covers`` -> ``cover``), enough to match gloss words."""
    for suffix in ("ation", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    return {stem(w) for w in content_words(text.replace("_", " ").replace("-", " "))}


def pretty(name: str) -> str:
    return name.replace("_", " ")


# --------------------------------------------------------------------------------------------- sources


@dataclass
class Sources:
    """Everything the build reads from ../shared/data."""

    wn: sources.WordNet
    atomic: dict[str, dict[str, list[str]]]
    forbes: dict[str, dict[str, str]]
    kmi: dict[str, dict]
    prost: dict[str, list[str]]
    verbphysics: dict[str, dict[str, int]]
    rooms: dict[str, list[str]]
    parts: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, shared: Path) -> Sources:
        wn = sources.WordNet(shared)
        atomic: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        with (shared / "atomic2020_sample" / "physical_triples.tsv").open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                atomic[row["head"].strip().lower()][row["relation"]].append(row["tail"].strip())
        forbes = {r["objectUID"]: r for r in sources.forbes_rows(shared)}
        kmi = json.loads((shared / "kmi_size_catalogue" / "KMi_obj_catalogue.json").read_text(encoding="utf-8"))
        prost = {"break_obj": sorted({f.node1 for f in sources.prost(shared)
                                      if f.node2 == "break" and f.relation == "CapableOf"})}
        verbphysics: dict[str, dict[str, int]] = defaultdict(dict)
        for name in ("train.csv", "dev.csv", "test.csv"):
            with (shared / "verbphysics" / name).open(encoding="utf-8", newline="") as handle:
                for row in csv.DictReader(handle):
                    for person, other, sign in ((row["obj1"], row["obj2"], 1), (row["obj2"], row["obj1"], -1)):
                        if person == "person":
                            for dim in ("size", "weight", "rigidness"):
                                value = int(row[f"{dim}-maj"])
                                if value in (1, -1):
                                    verbphysics[other].setdefault(dim, value * sign)
        types = json.loads((shared / "ai2thor_object_types" / "object_types_data.json").read_text(encoding="utf-8"))
        rooms: dict[str, list[str]] = defaultdict(list)
        for kind, info in sorted(types.items()):
            for scenario, room in ROOMS.items():
                if f"{room} (All)" in info.get("scenes", ""):
                    rooms[scenario].append(pretty(sources.snake(kind)))
        parts: dict[str, list[str]] = defaultdict(list)
        for whole, rows in sorted(wn.parts.items()):
            for relation, target in sorted(rows):   # parts that are artifacts (with a gloss in the extract)
                if relation == "part_meronym" and target in wn.gloss and target not in parts[whole]:
                    parts[whole].append(target)
        return cls(wn, atomic, forbes, kmi, prost, dict(verbphysics), dict(rooms), dict(parts))


# --------------------------------------------------------------------------------------------- senses and uses


def lineage(wn: sources.WordNet, synset: str, depth: int = MAX_DEPTH) -> dict[str, int]:
    """``synset -> hypernym distance`` from ``synset`` (0) up to ``depth`` levels."""
    out = {synset: 0}
    level = [synset]
    for d in range(1, depth + 1):
        level = sorted({h for s in level for h in wn.hypernyms.get(s, [])} - set(out))
        for s in level:
            out[s] = d
    return out


def sense_words(wn: sources.WordNet, synset: str) -> set[str]:
    """The words a sense is described by: its gloss, its hypernyms' names and glosses."""
    found = words(wn.gloss.get(synset, ""))
    for hyper in wn.hypernyms.get(synset, []):
        found |= words(wn.gloss.get(hyper, "")) | words(hyper.split(".")[0])
    return found


def disambiguate(wn: sources.WordNet, word: str, context: Iterable[str]) -> tuple[str | None, list[str]]:
    """The artifact sense of ``word`` that ``context`` (what a source says about the word) is about, with the
    shared words; None when no sense shares a word or two share as many."""
    senses = sorted(wn.by_lemma.get(word.replace(" ", "_"), []))
    own = words(word)
    said = set().union(*(words(t) for t in context)) - own if context else set()
    shared = {s: sorted(said & (sense_words(wn, s) - own)) for s in senses}
    if not shared:
        return None, []
    best = max(len(v) for v in shared.values())
    winners = [s for s, v in shared.items() if len(v) == best]
    return (winners[0], shared[winners[0]]) if best and len(winners) == 1 else (None, [])


@dataclass(frozen=True)
class Use:
    """One use of a sense: its text, where it comes from and kari's affordance id for it (None: none fits)."""

    sense: str
    word: str
    text: str
    source: str
    evidence: tuple[str, ...]
    affordance: str | None


def clean_use(text: str) -> str | None:
    """An ATOMIC tail as a request verb phrase (``To spray`` -> ``spray``); None for a tail about people, one
    word long, ending in a preposition, opening with a gerund or a light verb, or naming nothing it acts on."""
    text = re.sub(r"^to\s+", "", text.strip().rstrip("."), flags=re.IGNORECASE)
    tokens = text.lower().split()
    if PEOPLE.search(text) or len(tokens) < 2 or tokens[-1] in PREPOSITIONS or tokens[0].endswith("ing") \
            or tokens[0] in BAD_STARTS or not recipient(text):
        return None
    return text[0].lower() + text[1:]


def supported(src: Sources, part: str, affordance: str | None) -> bool:
    """Whether the part has what a use of ``affordance`` needs (:data:`SUPPORT`; no entry: nothing more)."""
    need = SUPPORT.get(affordance or "")
    if need is None:
        return True
    kind, wanted = need
    if kind == "kind":
        return bool((src.wn.ancestors(part) | {part}) & wanted)
    mats, _ = materials_of(src, part)
    return bool({material_class(m) for m in mats} & wanted)


def use_affordance(text: str) -> str | None:
    return next((aff for aff, pattern in USE_AFFORDANCES if re.search(pattern, text.lower())), None)


def uses_by_sense(src: Sources) -> dict[str, list[Use]]:
    """Every use the sources give, under the WordNet sense it belongs to (module docstring)."""
    out: dict[str, list[Use]] = defaultdict(list)
    for head in sorted(src.atomic):
        relations = src.atomic[head]
        if "ObjectUse" not in relations:
            continue
        sense, evidence = disambiguate(src.wn, head, [t for tails in relations.values() for t in tails])
        if sense is None:
            continue
        seen: set[str] = set()
        for tail in sorted(dict.fromkeys(relations["ObjectUse"])):
            text = clean_use(tail)
            key = " ".join(w for w in (text or "").split() if w not in ("a", "an", "the"))
            if text and key not in seen:
                seen.add(key)
                out[sense].append(Use(sense, head, text, "ATOMIC-2020 ObjectUse", tuple(evidence),
                                      use_affordance(text)))
    for word in sorted(src.forbes):
        row = src.forbes[word]
        senses = src.wn.by_lemma.get(word, [])
        if row["an_animal"] != "0" or senses != [f"{word}.n.01"]:
            continue
        for column, affordance in sorted(sources.FORBES_AFFORDANCES.items()):
            if row[column] == "1" and affordance in AFFORDANCE_REQUESTS:
                out[senses[0]].append(Use(senses[0], word, AFFORDANCE_REQUESTS[affordance],
                                          f"Forbes et al. {column}=1", (), affordance))
    return dict(out)


def is_object(wn: sources.WordNet, synset: str) -> bool:
    return not wn.excluded(synset) and not (wn.ancestors(synset) & set(NOT_OBJECTS))


@dataclass(frozen=True)
class Gold:
    entity: str
    part: str
    sense: str
    depth: int


def find_golds(src: Sources, uses: Mapping[str, list[Use]]) -> list[Gold]:
    """Every (entity, part, use sense) meeting the gold rules (module docstring)."""
    out = []
    for entity, parts in sorted(src.parts.items()):
        if len(parts) < MIN_PARTS or not is_object(src.wn, entity):
            continue
        lines = {p: lineage(src.wn, p) for p in parts}
        for part in parts:
            for sense, depth in sorted(lines[part].items(), key=lambda kv: (kv[1], kv[0])):
                if sense not in uses:
                    continue
                rivals = [q for q in parts if q != part and lines[q].get(sense, MAX_DEPTH + 1) <= depth]
                if not rivals:
                    out.append(Gold(entity, part, sense, depth))
    return out


def gold_problems(src: Sources, uses: Mapping[str, list[Use]], task: Mapping) -> list[str]:
    """Why a bundled task's gold breaks the gold rules ([] when it does not): the part sense must be a part
    meronym of the entity sense, the use's sense the part's own or a hypernym within MAX_DEPTH, and the use
    word's sense the one its source's context picks."""
    gold = task["golds"][0]
    origin = gold["gold_affordance"].get("kari") or {}
    entity, part, sense, word = (origin.get(k) for k in ("entity_synset", "part_synset", "use_sense", "use_word"))
    problems = []
    if part not in src.parts.get(entity, []):
        problems.append(f"{part} is not a part meronym of {entity}")
    if sense not in lineage(src.wn, part or ""):
        problems.append(f"{sense} is not {part} or a hypernym within {MAX_DEPTH} levels")
    if not any(u.word == word and u.text == gold["gold_affordance"]["affordance"] for u in uses.get(sense, [])):
        problems.append(f"the use '{gold['gold_affordance']['affordance']}' of '{word}' is not a use of {sense}")
    if not supported(src, part or "", gold["gold_affordance"].get("kari_affordance")):
        problems.append(f"{part} lacks what a use of {gold['gold_affordance']['kari_affordance']} needs")
    if gold["gold_part"] != part_name(part or ""):
        problems.append(f"gold part {gold['gold_part']!r} is not the name of {part}")
    return problems


# --------------------------------------------------------------------------------------------- attributes


def part_name(synset: str) -> str:
    return synset.split(".")[0].replace("-", "_").replace("'", "")


def entity_name(synset: str) -> str:
    return pretty(part_name(synset))


def material_class(word: str) -> str | None:
    return next((c for c, members in MATERIAL_CLASSES.items() if word in members), None)


def materials_of(src: Sources, synset: str) -> tuple[list[str], str]:
    """The materials a sense's gloss names, else the nearest hypernym's (up to MATERIAL_DEPTH levels), and
    where they were read."""
    own = glosses.materials(src.wn.gloss.get(synset, ""))
    if own:
        return own, f"WordNet {synset}"
    level = [synset]
    for _ in range(MATERIAL_DEPTH):
        level = sorted({h for s in level for h in src.wn.hypernyms.get(s, [])})
        for hyper in level:
            found = glosses.materials(src.wn.gloss.get(hyper, ""))
            if found:
                return found, f"WordNet hypernym {hyper}"
    return [], ""


def physical(src: Sources, synset: str, entity: str = "") -> tuple[dict[str, str], dict[str, str]]:
    """CreativityBench's twelve physical attributes of a part sense (of ``entity``), and each one's source; a
    part whose sense names no material takes its entity's."""
    wn = src.wn
    gloss = wn.gloss.get(synset, "").strip(" ,;")
    lemma = part_name(synset)
    adjectives = glosses.adjectives(gloss)
    mats, mat_source = materials_of(src, synset)
    if not mats and entity:
        mats, whole = materials_of(src, entity)
        mat_source = f"its entity {entity} ({whole})" if mats else ""
    forbes = src.forbes.get(lemma) if synset.endswith(".n.01") else None
    props = {p for p in sources.FORBES_PROPERTIES if forbes and forbes.get(p) == "1"}
    kmi = src.kmi.get(pretty(lemma)) if synset.endswith(".n.01") else None
    versus = src.verbphysics.get(lemma, {}) if synset.endswith(".n.01") else {}
    where: dict[str, str] = {}
    out: dict[str, str] = {}

    def put(key: str, values: Iterable[str], source: str) -> None:
        values = [v for v in dict.fromkeys(values) if v]
        if values:
            out[key] = ", ".join(values)
            where[key] = source

    cues = set(re.findall(r"[a-z]+", gloss.lower()))
    shape = [a.replace("_", "-") for a in adjectives if a in glosses.SHAPE_WORDS]
    shape += [GLOSS_SHAPES[w] for w in sorted(cues & set(GLOSS_SHAPES))]
    kind = [w for h in [synset, *wn.hypernyms.get(synset, [])] for w in re.findall(r"[a-z]+", h.split(".")[0])
            if w in SHAPE_NOUNS][-1:]
    put("shape", shape or [f"a kind of {w}" for w in kind], f"WordNet {synset}")
    size = [a for a in adjectives if a in glosses.SIZE_WORDS and a not in ("thin", "thick", "heavy",
                                                                           "lightweight")]
    if "large" in props:
        size.append("large")
    if "hand_held" in props:
        size.append("hand-held")
    if kmi and isinstance(kmi.get("has_size"), str):
        size.append(f"{kmi['has_size']} (KMi catalogue)")
    if versus.get("size"):
        size.append("smaller than a person" if versus["size"] > 0 else "larger than a person")
    put("size", size, "WordNet gloss, Forbes et al., KMi, verbphysics")
    thickness = [a for a in adjectives if a in ("thin", "thick")]
    if kmi and kmi.get("thinness") in ("thin", "thick", "flat"):
        thickness.append(str(kmi["thinness"]))
    put("thickness", thickness, "WordNet gloss, KMi")
    subparts = [pretty(part_name(p)) for p in src.parts.get(synset, [])][:4]
    features = [a.replace("_", "-") for a in adjectives if a in ("hooked", "serrated", "pointed", "forked", "ridged",
                                                                 "grooved", "hollow")]
    put("local_features", [*features, *(f"has a {s}" for s in subparts)], "WordNet meronyms and gloss")
    put("material", mats, mat_source)
    classes = [c for c in (material_class(m) for m in mats) if c]
    traits = MATERIAL_TRAITS.get(classes[0]) if classes else None
    if traits:
        put("rigidity", [traits[0]], f"kari material traits ({classes[0]})")
        durability = traits[1]
        if "fragile" in props or lemma in src.prost.get("break_obj", []):
            durability = "fragile"
        put("durability", [durability], f"kari material traits ({classes[0]}), Forbes et al., PROST")
        put("elasticity", [traits[2]], f"kari material traits ({classes[0]})")
    elif "hard" in props or "squishy" in props:
        put("rigidity", ["rigid" if "hard" in props else "soft"], "Forbes et al.")
    elif cues & set(GLOSS_RIGIDITY):
        put("rigidity", [GLOSS_RIGIDITY[w] for w in sorted(cues & set(GLOSS_RIGIDITY))], f"WordNet {synset}")
    if versus.get("rigidness"):
        out["rigidity"] = ", ".join(filter(None, [out.get("rigidity"), "less rigid than a person"
                                                  if versus["rigidness"] > 0 else "more rigid than a person"]))
    surface = [a for a in adjectives if a in glosses.SURFACE_WORDS]
    surface += [p.replace("_", " ") for p in ("smooth", "shiny", "sharp", "slimy", "wet") if p in props]
    put("surface", surface, "WordNet gloss, Forbes et al.")
    weight = [a for a in adjectives if a in ("heavy", "lightweight")]
    weight += ["heavy"] if "heavy" in props else ["light"] if "light_weight" in props else []
    if versus.get("weight"):
        weight.append("lighter than a person" if versus["weight"] > 0 else "heavier than a person")
    if not weight and traits:
        weight = [traits[3]]
    put("weight", weight, "WordNet gloss, Forbes et al., verbphysics, kari material traits")
    out["others"] = f"WordNet: {gloss}" if gloss else "NA"
    where["others"] = f"WordNet {synset}"
    fields = ("shape", "size", "thickness", "local_features", "material", "rigidity", "durability", "elasticity",
              "surface", "weight", "others")
    full = {k: out.get(k, "NA") for k in fields}
    labels = {"material": "made of {}", "weight": "{} in weight", "surface": "{} surface"}
    said = [labels.get(k, "{}").format(out[k]) for k in ("material", "shape", "size", "thickness", "rigidity",
                                                           "durability", "surface", "weight") if k in out]
    full["summary"] = (gloss[:1].upper() + gloss[1:] if gloss else pretty(lemma)) + \
        (f"; {'; '.join(said)}." if said else ".")
    return full, where


def state(src: Sources, synset: str) -> dict[str, str]:
    """CreativityBench's state attributes, read from the gloss (where it says the part is inside or under
    something) and the sense (a container is empty); no source gives moisture or temperature."""
    gloss = src.wn.gloss.get(synset, "").lower()
    if HIDDEN.search(gloss):
        visibility, availability = "hidden", "blocked"
    elif PARTLY.search(gloss):
        visibility, availability = "partially visible", "partially blocked"
    else:
        visibility, availability = "visible", "free"
    container = "container.n.01" in src.wn.ancestors(synset)
    internal = "empty" if container else "NA"
    access = {"visible": "Visible and free to handle", "partially visible": "Partially visible and partially "
              "blocked, but it can be freed by hand", "hidden": "Hidden inside the entity and blocked"}[visibility]
    summary = f"{access}; dry, at room temperature" + ("; empty" if container else "") + "."
    return {"visibility": visibility, "availability": availability, "moisture": "dry", "temperature": "NA",
            "internal": internal, "others": "NA", "summary": summary}


MODALITY = {"material": ("visual", "the material shows in an image"),
            "shape": ("visual", "the shape shows in an image"),
            "size": ("visual", "the size shows beside other things"),
            "thickness": ("visual", "the thickness shows at the edge"),
            "local_features": ("visual", "the features show in an image"),
            "surface": ("text", "the feel of a surface needs words"),
            "rigidity": ("text", "stiffness does not show in an image"),
            "durability": ("text", "how easily it breaks does not show in an image"),
            "elasticity": ("text", "springiness does not show in an image"),
            "weight": ("text", "weight does not show in an image")}


def enabling(phys: Mapping[str, str], st: Mapping[str, str]) -> list[list[str]]:
    """The part's known attributes as CreativityBench's enabling-attribute lists."""
    out = [[f"{k}: {phys[k]}", "physical", *MODALITY[k]] for k in MODALITY if phys.get(k, "NA") != "NA"]
    out.append([f"visibility: {st['visibility']}; availability: {st['availability']}", "state", "visual",
                "whether it is in view shows in an image"])
    return out


def level(depth: int) -> str:
    return (f"Emergency {4 - depth} (kari's reading of the WordNet distance: the part's sense is "
            + ("itself" if depth == 0 else f"{depth} hypernym level{'s' if depth > 1 else ''} below")
            + " the sense this use belongs to, and the use is not what the part does in its entity)")


def recipient(use: str) -> str:
    """The thing a use acts on (``lock the bike`` -> ``bike``), '' when the text names none."""
    tokens = use.lower().split()[1:]
    while tokens and tokens[0] in STOP_PHRASE:
        tokens = tokens[1:]
    phrase = []
    for token in tokens:
        if token in PREPOSITIONS:
            break
        phrase.append(token)
    return " ".join(w for w in phrase if w not in STOP_PHRASE)


def use_condition(st: Mapping[str, str], part: str) -> str:
    if st["visibility"] == "hidden":
        return f"Open or take apart what encloses the {pretty(part)} to get at it."
    if st["visibility"] == "partially visible":
        return f"Free the {pretty(part)} by hand before use."
    return "NA"


def affordance_record(use: Use, depth: int, part: str, phys: Mapping[str, str], st: Mapping[str, str],
                      examples: list[str]) -> dict:
    thing = recipient(use.text)
    return {"use_condition": use_condition(st, part), "environment_condition": "NA",
            "attribute": enabling(phys, st), "affordance": use.text, "level": level(depth),
            "recipient_condition": f"the {thing}, within reach of the {pretty(part)}" if thing else "NA",
            "example_recipient": "; ".join(examples) if examples else "NA",
            "failure_case": "not annotated (no source gives failure cases)"}


def normal_use(src: Sources, synset: str, phys: Mapping[str, str], st: Mapping[str, str]) -> dict | None:
    """The purpose the part's gloss names, as its Normal 0 affordance."""
    match = PURPOSE.search(src.wn.gloss.get(synset, ""))
    if not match:
        return None
    return {"use_condition": "NA", "environment_condition": "NA", "attribute": enabling(phys, st),
            "affordance": match.group(1).strip().rstrip("."),
            "level": f"Normal 0 (the purpose WordNet's gloss of {synset} names)", "recipient_condition": "NA",
            "example_recipient": "NA", "failure_case": "not annotated (no source gives failure cases)"}


# --------------------------------------------------------------------------------------------- records


class Builder:
    """Entities, golds and tasks from the sources."""

    def __init__(self, src: Sources) -> None:
        self.src = src
        self.uses = uses_by_sense(src)
        self.golds = find_golds(src, self.uses)
        self.lines = {p: lineage(src.wn, p) for ps in src.parts.values() for p in ps}
        named: dict[str, str] = {}
        for e in sorted(src.parts, key=lambda x: (int(x.split(".")[-1]), x)):   # one sense per name: the first
            if len(src.parts[e]) >= MIN_PARTS and is_object(src.wn, e):
                named.setdefault(entity_name(e), e)
        self.pool = sorted(named.values())
        self.golds = [g for g in self.golds if named.get(entity_name(g.entity)) == g.entity]
        self._phys: dict[tuple[str, str], tuple[dict[str, str], dict[str, str]]] = {}

    def phys(self, synset: str, entity: str = "") -> tuple[dict[str, str], dict[str, str]]:
        if (synset, entity) not in self._phys:
            self._phys[(synset, entity)] = physical(self.src, synset, entity)
        return self._phys[(synset, entity)]

    def scenario(self, entity: str) -> str:
        ancestors = self.src.wn.ancestors(entity)
        return next((name for name, anchors in SCENARIOS if ancestors & set(anchors)), DEFAULT_SCENARIO)

    def parts(self, entity: str) -> list[str]:
        """The entity's parts, one per name."""
        seen: dict[str, str] = {}
        for p in self.src.parts.get(entity, []):
            seen.setdefault(part_name(p), p)
        return list(seen.values())

    def entity_record(self, entity: str) -> dict:
        parts = []
        names = [part_name(p) for p in self.parts(entity)]
        for p in self.parts(entity):
            phys, where = self.phys(p, entity)
            st = state(self.src, p)
            affordances = [a for a in [normal_use(self.src, p, phys, st)] if a]
            for sense, depth in sorted(self.lines.get(p, {}).items(), key=lambda kv: (kv[1], kv[0])):
                for use in self.uses.get(sense, [])[:USES_PER_GOLD]:
                    affordances.append(affordance_record(use, depth, part_name(p), phys, st,
                                                         self.examples(sense, use)))
            parts.append({"part_name": part_name(p), "connected_to": [n for n in names if n != part_name(p)],
                          "connection": f"a part of the {entity_name(entity)} (WordNet part meronym {entity} -> {p})",
                          "physical_attributes": phys, "state_attributes": st,
                          "functional_affordances": affordances, "kari_sources": where})
        return {"entity_name": entity_name(entity), "scenario": self.scenario(entity), "parts": parts}

    def examples(self, sense: str, use: Use) -> list[str]:
        return [r for r in dict.fromkeys(recipient(u.text) for u in self.uses.get(sense, []) if u != use) if r][:4]

    def closeness(self, entity: str, sense: str) -> int | None:
        """The smallest hypernym distance from one of the entity's parts to ``sense`` (None: no part is one)."""
        found = [self.lines[p][sense] for p in self.parts(entity) if sense in self.lines.get(p, {})]
        return min(found) if found else None

    def judge_entry(self, entity: str, part: str, gold: Gold, use: Use) -> dict:
        line = self.lines.get(part, {})
        name = pretty(part_name(part))
        if gold.sense not in line:
            reason = (f"No. Nothing in WordNet makes the {name} ({part}) a kind of {pretty(use.word)} "
                      f"({gold.sense}), the thing the request needs.")
            return {"similar_affordance_reason": reason, "similar_affordance": "No", "affordance": "NA",
                    "gold_change_reason": reason, "gold_change": "No", "decision_making_difficulty": "NA"}
        phys, _ = self.phys(part, entity)
        st = state(self.src, part)
        depth = line[gold.sense]
        return {"similar_affordance_reason": f"Yes. The {name} ({part}) is a kind of {pretty(use.word)} "
                                             f"({depth} hypernym level{'s' if depth != 1 else ''} from it), so it "
                                             f"can {use.text} in a way.",
                "similar_affordance": "Yes",
                "affordance": affordance_record(use, depth, part_name(part), phys, st, []),
                "gold_change_reason": f"The gold part is a closer kind of {pretty(use.word)} ({gold.depth} level"
                                      f"{'s' if gold.depth != 1 else ''} against {depth}): keep the gold.",
                "gold_change": "No", "decision_making_difficulty": "2" if depth == gold.depth + 1 else "1"}

    def description(self, entity: str, gold_part: str | None) -> str:
        segments = []
        for p in self.parts(entity):
            phys, _ = self.phys(p, entity)
            mark = " [gold part]" if p == gold_part else ""
            segments.append(f"{part_name(p)}{mark}: physical — {phys['summary']}; state — "
                            f"{state(self.src, p)['summary']}.")
        return " ".join(segments)

    def scene(self, gold: Gold, count: int, rng: random.Random) -> tuple[list[str], str]:
        """The scene's entities (the gold's at a random position) and its difficulty."""
        scenario = self.scenario(gold.entity)
        gold_words = {part_name(p) for p in self.parts(gold.entity)}
        ok = [e for e in self.pool if e != gold.entity and entity_name(e) != entity_name(gold.entity)
              and (self.closeness(e, gold.sense) is None or self.closeness(e, gold.sense) > gold.depth)
              and {part_name(p) for p in self.parts(e)} != gold_words]
        similar = [e for e in ok if self.closeness(e, gold.sense) is not None]
        local = [e for e in ok if self.scenario(e) == scenario]
        pool = local if len(local) >= count - 1 else ok
        chosen = rng.sample(sorted(set(similar) & set(pool)), min(len(set(similar) & set(pool)), (count - 1) // 2))
        rest = [e for e in pool if e not in chosen and e not in similar]
        chosen += rng.sample(rest, count - 1 - len(chosen))
        difficulty = "low" if not any(e in similar for e in chosen) else "medium"
        scene = sorted(chosen)
        rng.shuffle(scene)
        scene.insert(rng.randrange(count), gold.entity)
        return scene, difficulty

    def task(self, gold: Gold, use: Use, count: int, sample: int, template: int) -> tuple[dict, list[str]]:
        """One task in CreativityBench's format, and its scene's entity senses."""
        rng = random.Random(f"{SEED}|{gold.entity}|{gold.part}|{use.text}|{count}|{sample}")
        scene, difficulty = self.scene(gold, count, rng)
        scenario = self.scenario(gold.entity)
        phys, _ = self.phys(gold.part, gold.entity)
        st = state(self.src, gold.part)
        affordance = affordance_record(use, gold.depth, part_name(gold.part), phys, st, self.examples(gold.sense, use))
        affordance["kari"] = {"entity_synset": gold.entity, "part_synset": gold.part, "use_sense": gold.sense,
                              "use_word": use.word, "use_source": use.source, "depth": gold.depth,
                              "sense_evidence": list(use.evidence)}
        affordance["kari_affordance"] = use.affordance   # None: no affordance of kari's fits (an open goal)
        thing = recipient(use.text)
        names = [entity_name(e) for e in scene]
        items = ([{"name": thing, "description": f"The {thing} the request is about.", "interactable": "Yes"}]
                 if thing else [])
        noise = sorted(n for n in self.src.rooms.get(scenario, sorted(set().union(*self.src.rooms.values())))
                       if n not in thing)
        items += [{"name": n, "description": f"A {n} that belongs to the room and is not needed here.",
                   "interactable": "No"} for n in rng.sample(noise, min(2, len(noise)))]
        where = scenario.replace("_", " ")
        environment = (f"I am in the {where}. Around me there is the " + ", the ".join(names[:-1]) +
                       f" and the {names[-1]}." + (f" The {thing} is here too." if thing else "") +
                       (" There is also " + " and ".join(f"a {it['name']}" for it in items if
                                                         it["interactable"] == "No") + "." if noise else ""))
        part, entity = pretty(part_name(gold.part)), entity_name(gold.entity)
        said = "; ".join(f"{k} {phys[k]}" for k in ("material", "shape", "size", "surface", "weight")
                         if phys[k] != "NA")
        return ({
            "task_id": f"kari-{sources.snake(entity)}-{part_name(gold.part)}-{sources.snake(use.text)[:40]}-"
                       f"{count}entity-sample{sample}".replace("_", "-"),
            "scenario": scenario,
            "setting": {"difficulty": difficulty, "entity_count": count, "sample_index": sample,
                        "entity_counts_macro": list(ENTITY_COUNTS), "scenario": scenario,
                        "level": 4 - gold.depth, "seed": SEED,
                        "source": "kari data/build/creativity.py from WordNet 3.0, ATOMIC-2020, Forbes et al., "
                                  "KMi, verbphysics, PROST"},
            "sampled_entity_count": count,
            "golds": [{"gold_entity": entity, "gold_part": part_name(gold.part), "gold_affordance": affordance}],
            "entities": [{"name": entity_name(e),
                          "description": self.description(e, gold.part if e == gold.entity else None),
                          "judge_output": {part_name(p): self.judge_entry(e, p, gold, use) for p in self.parts(e)
                                           if p != gold.part}} for e in scene],
            "items": items,
            "environment": environment,
            "task": REQUESTS[template % len(REQUESTS)].format(use=use.text),
            "solution": {
                "prepare_recipient": (f"Have the {thing} at hand. (Note: the recipient is the {thing}.)" if thing
                                      else "Nothing to prepare on the receiving side. (Note: NA)"),
                "prepare_use_condition": (f"{affordance['use_condition']} (Note: the {part} is {st['visibility']} "
                                          f"and {st['availability']}.)" if affordance["use_condition"] != "NA" else
                                          f"Take the {part} of the {entity}; it is {st['visibility']} and "
                                          f"{st['availability']}. (Note: NA)"),
                "prepare_environment_condition": "Nothing to set up. (Note: NA)",
                "apply_affordance": f"Use the {part} of the {entity} to {use.text}: it is a kind of "
                                    f"{pretty(use.word)}, and {pretty(use.word)} is used to {use.text}. (Note: "
                                    f"{said or 'its WordNet gloss'}; WordNet: {self.src.wn.gloss.get(gold.part, '')})"}},
                scene)

    def build(self) -> tuple[list[dict], list[dict], dict]:
        tasks, used, golds = [], set(), []
        cycle = 0
        for gold in self.golds:
            uses = [u for u in self.uses[gold.sense] if supported(self.src, gold.part, u.affordance)]
            rng = random.Random(f"{SEED}|{gold.entity}|{gold.part}|uses")
            chosen = sorted(rng.sample(uses, min(USES_PER_GOLD, len(uses))), key=lambda u: u.text)
            samples = [(use, 1) for use in chosen] if len(chosen) > 1 else [(u, k) for u in chosen for k in (1, 2)]
            for use, sample in samples:      # a gold with one use gets two tasks, with two request texts
                count = ENTITY_COUNTS[cycle % len(ENTITY_COUNTS)]
                cycle += 1
                task, scene = self.task(gold, use, count, sample, cycle)
                tasks.append(task)
                golds.append(gold)
                used.update(scene)
        entities = [self.entity_record(e) for e in sorted(used, key=entity_name)]
        heldout = {"gold_entities": sorted({sources.snake(entity_name(g.entity)) for g in golds}),
                   "gold_part_nodes": sorted({part_name(g.part) for g in golds})}
        return tasks, entities, heldout


def induce_rules(out: Path, heldout: dict) -> None:
    """``kari induce --db`` (offline, its defaults) on the bundled part-level KB (``entities.jsonl`` loaded with
    ``kari creativity load``) without any entity held out in ``heldout``: PART rules from the parts' functional
    affordances, none induced from a gold entity of the bundled tasks."""
    from kari.creativity.store import load_creativity
    from kari.induce.run import induce

    held = set(heldout["gold_entities"])
    lines = (out / "entities.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line.strip() and sources.snake(json.loads(line)["entity_name"]) not in held]
    with tempfile.TemporaryDirectory() as tmp:
        train = Path(tmp) / "entities.jsonl"
        train.write_text("\n".join(kept) + "\n", encoding="utf-8")
        load_creativity(Path(tmp) / "kb.duckdb", [train])
        induce(out=out / "rules.kari", db=Path(tmp) / "kb.duckdb", run_dir=Path(tmp) / "run", argv=[])
    for leftover in out.glob("rules.run*"):
        shutil.rmtree(leftover, ignore_errors=True)


def default_shared() -> Path:
    """``../shared/data`` next to the project (or next to the folder of worktrees holding it)."""
    candidates = [ROOT.parent / "shared" / "data", ROOT.parent.parent / "shared" / "data"]
    return next((c for c in candidates if c.is_dir()), candidates[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=default_shared(), help="the public data sets")
    parser.add_argument("--root", type=Path, default=ROOT, help="project root (writes data/creativity)")
    parser.add_argument("--no-rules", action="store_true", help="do not run rule induction")
    parser.add_argument("--rules-only", action="store_true", help="only induce the rules again, from the "
                        "entities.jsonl and heldout.json already in data/creativity (no public data needed)")
    args = parser.parse_args(argv)
    out = args.root / "data" / "creativity"
    if args.rules_only:
        induce_rules(out, json.loads((out / "heldout.json").read_text(encoding="utf-8")))
        print(f"rules -> {out / 'rules.kari'}")
        return 0
    tasks, entities, heldout = Builder(Sources.read(args.shared)).build()
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "tasks.json", json.dumps(tasks, indent=1, ensure_ascii=False) + "\n")
    atomic_write_jsonl(out / "entities.jsonl", entities)
    atomic_write_text(out / "heldout.json", json.dumps(heldout, indent=1) + "\n")
    if not args.no_rules:
        induce_rules(out, heldout)
    print(f"{len(tasks)} tasks, {len(entities)} entities, {len(heldout['gold_entities'])} held-out gold entities "
          f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
