"""Build kari's bundled CreativityBench-format tasks from its bundled data (data/bench, data/kb).

    python data/build/creativity.py [--root .] [--rules-only | --no-rules]

Writes, under ``data/creativity/`` (sorted, seeded: the same inputs give byte-identical files):

- ``entities.jsonl``: every entity of the tasks in CreativityBench's assembled-entity form: its WordNet /
  ConceptNet parts with their part-level properties from data/bench (state attributes and functional affordances
  are not annotated in these sources and stay empty);
- ``tasks.json``: the tasks (a JSON array in CreativityBench's task format);
- ``heldout.json``: the gold entities and gold-part nodes held out of rule induction;
- ``rules.kari`` / ``rules.jsonl``: ``kari induce`` (offline) on data/bench with every label of the held-out
  objects removed, for the tasks' affordances only: no rule used on a task was induced from its gold entity.

Gold (entity, part, affordance), all from source evidence: the entity has the part (a HasA edge of
data/kb/kari_kb.tsv: WordNet meronym or ConceptNet HasA/PartOf), and the part's own node is labelled as
affording A by the benchmark's label sources (data/bench/label_sources.tsv: Forbes et al., AI2-THOR), the
ConceptNet-style reading of part nodes. A WordNet meronym is kept only when its part synset is the sense the
part node's own WordNet property evidence uses (when that node has any), so a gown's train is not read as the
vehicle of another synset. The entity itself may be labelled positive (the part's normal use) or not (a
creative use of one of its parts).

Distractors: objects with at least two parts that are labelled NOT affording A and none of whose parts has
positive evidence for A. Each gold gives scenes of 4, 6 and 8 entities, two samples each, the entities in a
seeded order (never gold first).
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kari.io.atomic import atomic_write_jsonl, atomic_write_text  # noqa: E402

ENTITY_COUNTS = (4, 6, 8)
SAMPLES = 2
SEED = 14
SCENARIO = "home"
GOALS = {
    "make_noise": "I need to make a loud noise so that someone in the next room notices me, but nothing here is "
                  "meant for that. What can I use?",
    "make_music": "I want to play a short tune for a friend's birthday, but there is no musical instrument here. "
                  "What can I use?",
    "transport": "I have to carry something heavy from one place to another, but I have no cart or vehicle meant "
                 "for it. What can I use?",
    "hold_things": "I need something to keep a few small loose things in so that they do not get lost, but I have "
                   "no box or bag. What can I use?",
    "break": "I need something that breaks easily to show how fragile things shatter, but I have nothing meant for "
             "it. What can I use?",
    "decorate": "I want to decorate the room for a party, but I have no decorations. What can I use?",
}
_SENSE = re.compile(r"WordNet (?:part meronym |hypernym \S+ of )?([a-z0-9_'.-]+\.n\.\d+)")
_TARGET = re.compile(r"-> ([a-z0-9_'.-]+\.n\.\d+)")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def load(root: Path) -> tuple[dict, dict, dict, list, dict]:
    """Objects, affordances, labels, the KB's edges and the positive labels' provenance (object -> affordance ->
    the sentence of the first source that states it, from data/bench/label_sources.tsv)."""
    objects = {o["id"]: o for o in read_jsonl(root / "data/bench/objects.jsonl")}
    affordances = {a["id"]: a["description"] for a in read_jsonl(root / "data/bench/affordances.jsonl")}
    labels: dict[str, dict[str, bool]] = defaultdict(dict)
    for rec in read_jsonl(root / "data/bench/labels.jsonl"):
        labels[rec["object"]][rec["affordance"]] = rec["label"]
    edges = read_tsv(root / "data/kb/kari_kb.tsv")
    evidence: dict[str, dict[str, str]] = defaultdict(dict)
    for row in read_tsv(root / "data/bench/label_sources.tsv"):  # sorted: the first source's sentence is kept
        if row["label"] == "true":
            evidence[row["object"]].setdefault(row["affordance"], row["sentence"])
    return objects, affordances, labels, edges, evidence


PROPERTY_RELATIONS = ("MadeOf", "HasProperty", "HasA")


def golds(objects: dict, labels: dict, edges: list, evidence: dict[str, dict[str, str]]) -> list[dict]:
    """Every (entity, part, affordance) with evidence for the part node (module docstring)."""
    senses: dict[str, set[str]] = defaultdict(set)
    has_part: dict[tuple[str, str], str] = {}
    for e in edges:
        if e["relation"] not in PROPERTY_RELATIONS:
            continue
        if "WordNet" in e["source"]:
            match = _SENSE.search(e["sentence"])
            if match and e["relation"] != "HasA":
                senses[e["node1"]].add(match.group(1))
            elif match and e["relation"] == "HasA":
                senses[e["node1"]].add(match.group(1))
        if e["relation"] == "HasA":
            has_part[(e["node1"], e["node2"])] = e["sentence"]
    out = []
    for obj in sorted(objects):
        for part in objects[obj]["parts"]:
            if part == obj:
                continue
            sentence = has_part.get((obj, part), "")
            target = _TARGET.search(sentence)
            if target and senses.get(part) and target.group(1) not in senses[part]:
                continue                      # another sense of the part's name
            for aff, why in sorted(evidence.get(part, {}).items()):
                if aff in GOALS:
                    out.append({"entity": obj, "part": part, "affordance": aff, "part_evidence": why,
                                "part_edge": sentence, "entity_label": labels[obj].get(aff)})
    return out


def distractors(objects: dict, labels: dict, aff: str, evidence_parts: set[str], gold: str) -> list[str]:
    return sorted(o for o, rec in objects.items()
                  if o != gold and labels[o].get(aff) is False and len(rec["parts"]) >= 2
                  and not set(rec["parts"]) & evidence_parts and set(rec["parts"]) != set(objects[gold]["parts"]))


def part_properties(obj: dict) -> dict[str, list[tuple[str, str]]]:
    props: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for p in obj["properties"]:
        if p["part"] != "whole":
            props[p["part"]].append((p["predicate"], p.get("raw") or p["value"]))
    return props


def physical(props: list[tuple[str, str]]) -> dict[str, str]:
    by = defaultdict(list)
    for predicate, value in props:
        by[predicate].append(value.replace("_", " "))
    fields = {"shape": ", ".join(by["SHAPE"]) or "NA", "size": ", ".join(by["SIZE"]) or "NA",
              "material": ", ".join(by["MADE_OF"]) or "NA", "surface": ", ".join(by["SURFACE"]) or "NA"}
    values = [fields[k] for k in ("material", "shape", "size", "surface") if fields[k] != "NA"]
    fields["summary"] = ("; ".join(values) if values else "no physical attributes recorded") + "."
    return fields


def entity_record(obj: dict) -> dict:
    props = part_properties(obj)
    parts = []
    for part in obj["parts"]:
        parts.append({"part_name": part, "connected_to": [], "connection": f"a part of the {obj['id']}",
                      "physical_attributes": physical(props.get(part, [])), "state_attributes": {},
                      "functional_affordances": []})
    return {"entity_name": obj["id"], "scenario": SCENARIO, "parts": parts}


def description(record: dict, gold_part: str | None) -> str:
    segments = []
    for part in record["parts"]:
        mark = " [gold part]" if part["part_name"] == gold_part else ""
        segments.append(f"{part['part_name']}{mark}: physical — {part['physical_attributes']['summary']}; "
                        f"state — not annotated..")
    return " ".join(segments)


def judge(record: dict, aff: str, evidence: dict[str, str]) -> dict:
    out = {}
    for part in record["parts"]:
        name = part["part_name"]
        why = evidence.get(name)
        out[name] = {"similar_affordance": "Yes" if why else "No",
                     "similar_affordance_reason": f"KB evidence: {why}" if why else
                     f"no KB evidence that the {name.replace('_', ' ')} can {aff.replace('_', ' ')}",
                     "affordance": "NA", "gold_change": "No", "decision_making_difficulty": "NA"}
    return out


def build_tasks(objects: dict, affordances: dict, labels: dict, edges: list,
                evidence: dict[str, dict[str, str]]) -> tuple[list[dict], list[dict], dict]:
    found = golds(objects, labels, edges, evidence)
    evidence_by_aff: dict[str, dict[str, str]] = defaultdict(dict)
    for node, by_aff in evidence.items():
        for aff, sentence in by_aff.items():
            evidence_by_aff[aff][node] = sentence
    tasks, used = [], set()
    for gold in found:
        aff = gold["affordance"]
        pool = distractors(objects, labels, aff, set(evidence_by_aff[aff]), gold["entity"])
        for count in ENTITY_COUNTS:
            if len(pool) < count - 1:
                continue
            for sample in range(1, SAMPLES + 1):
                rng = random.Random(f"{SEED}-{gold['entity']}-{gold['part']}-{aff}-{count}-{sample}")
                scene = [gold["entity"], *rng.sample(pool, count - 1)]
                rng.shuffle(scene)
                if scene[0] == gold["entity"]:
                    scene.append(scene.pop(0))    # never first: CreativityBench's files list the gold first
                used.update(scene)
                tasks.append(task_record(gold, scene, count, sample, objects, affordances, evidence_by_aff[aff]))
    heldout = {"gold_entities": sorted({g["entity"] for g in found}), "gold_part_nodes": sorted({g["part"] for g in found})}
    entities = [entity_record(objects[o]) for o in sorted(used)]
    return tasks, entities, heldout


def task_record(gold: dict, scene: list[str], count: int, sample: int, objects: dict, affordances: dict,
                evidence: dict[str, str]) -> dict:
    aff, part, entity = gold["affordance"], gold["part"], gold["entity"]
    records = {o: entity_record(objects[o]) for o in scene}
    attributes = [[f"{k}: {v}", "physical"] for k, v in records[entity]["parts"][objects[entity]["parts"].index(part)]
                  ["physical_attributes"].items() if k != "summary" and v != "NA"]
    normal = gold["entity_label"] is True
    names = [o.replace("_", " ") for o in scene]
    return {
        "task_id": f"kari-{entity}-{part}-{aff}-{count}entity-sample{sample}".replace("_", "-"),
        "scenario": SCENARIO,
        "setting": {"difficulty": "kb-evidence", "entity_count": count, "sample_index": sample,
                    "entity_counts_macro": list(ENTITY_COUNTS), "scenario": SCENARIO, "seed": SEED,
                    "source": "kari data/bench + data/kb (data/build/creativity.py)"},
        "sampled_entity_count": count,
        "golds": [{"gold_entity": entity, "gold_part": part, "gold_affordance": {
            "use_condition": "NA", "environment_condition": "NA", "attribute": attributes,
            "affordance": affordances[aff], "kari_affordance": aff,
            "level": ("Normal 0 (the entity as a whole is labelled as affording it)" if normal else
                      "Emergency (the entity as a whole is not labelled as affording it; level not annotated)"),
            "recipient_condition": "NA", "example_recipient": "NA",
            "evidence": {"part": gold["part_evidence"], "part_edge": gold["part_edge"],
                         "entity_label": gold["entity_label"]}}}],
        "entities": [{"name": o, "description": description(records[o], part if o == entity else None),
                      "judge_output": judge(records[o], aff, evidence)} for o in scene],
        "items": [],
        "environment": f"I am at {SCENARIO}. Around me there is the " + ", the ".join(names[:-1]) +
                       f", and the {names[-1]}.",
        "task": GOALS[aff],
        "solution": {"apply_affordance": f"Use the {part.replace('_', ' ')} of the {entity.replace('_', ' ')} to "
                                         f"{aff.replace('_', ' ')}. (Note: KB evidence: {gold['part_evidence']})"},
    }


def induce_rules(root: Path, out: Path, heldout: dict, affordances: list[str]) -> None:
    """``kari induce`` offline on data/bench without any label of a held-out object."""
    from kari.induce.config import InduceConfig
    from kari.induce.run import induce

    drop = set(heldout["gold_entities"]) | set(heldout["gold_part_nodes"])
    with tempfile.TemporaryDirectory() as tmp:
        bench = Path(tmp) / "bench"
        bench.mkdir()
        for name in ("objects.jsonl", "affordances.jsonl"):
            shutil.copy(root / "data/bench" / name, bench / name)
        kept = [line for line in (root / "data/bench/labels.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip() and json.loads(line)["object"] not in drop]
        (bench / "labels.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
        induce(out=out / "rules.kari", bench=bench, run_dir=Path(tmp) / "run",
               config=InduceConfig(affordances=tuple(affordances)))
    for leftover in out.glob("rules.run*"):
        shutil.rmtree(leftover, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="project root (reads data/bench, data/kb)")
    parser.add_argument("--no-rules", action="store_true", help="do not run rule induction")
    args = parser.parse_args(argv)
    objects, affordances, labels, edges, evidence = load(args.root)
    tasks, entities, heldout = build_tasks(objects, affordances, labels, edges, evidence)
    out = args.root / "data" / "creativity"
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "tasks.json", json.dumps(tasks, indent=1, ensure_ascii=False) + "\n")
    atomic_write_jsonl(out / "entities.jsonl", entities)
    atomic_write_text(out / "heldout.json", json.dumps(heldout, indent=1) + "\n")
    if not args.no_rules:
        induce_rules(args.root, out, heldout, sorted({t["golds"][0]["gold_affordance"]["kari_affordance"]
                                                     for t in tasks}))
    print(f"{len(tasks)} tasks, {len(entities)} entities, {len(heldout['gold_entities'])} held-out gold entities "
          f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
