"""Stand-in judge: the answer snapped to the task's names, a rubric call, and for a non-gold answer a second call."""
import json
import os

from models import call_model
from utils import parse_json

OUTPUT_DIR = os.environ.get("OUTPUT_DIR", os.path.join(os.path.dirname(__file__), "outputs"))
JUDGED_OUTPUT_DIR = os.environ.get("JUDGED_OUTPUT_DIR", os.path.join(os.path.dirname(__file__), "judged_outputs"))
JUDGE_MODEL = os.environ.get("JUDGE_MODEL", os.environ.get("MODEL", "stand-in-judge"))
JUDGE_TEMPERATURE = float(os.environ.get("JUDGE_TEMPERATURE", "0.0"))
TASK_DIR_CANDIDATES = [os.path.join(os.path.dirname(__file__), "../dataset")]
ENTITY_LOOKUP_FILE = os.path.join(os.path.dirname(__file__), "../task_creation/outputs/1_entity_lookup.json")
FIELDS = ["environment_condition_covered", "use_condition_covered", "recipient_condition_covered",
          "attributes_grounding", "prediction_correctness", "action_feasibility"]
ENTITY_LOOKUP_CACHE = None


def _load_entity_lookup():
    global ENTITY_LOOKUP_CACHE
    if ENTITY_LOOKUP_CACHE is None:
        with open(ENTITY_LOOKUP_FILE) as f:
            raw = json.load(f)
        ENTITY_LOOKUP_CACHE = list(raw.values()) if isinstance(raw, dict) else raw
    return ENTITY_LOOKUP_CACHE


def _attrs(task, entity, part):
    for item in _load_entity_lookup():
        if item.get("scenario") == task.get("scenario") and item.get("entity_name", "").lower() == entity.lower():
            for p in item.get("parts", []):
                if p.get("part_name", "").lower() == part.lower():
                    return p.get("physical_attributes", {}), p.get("state_attributes", {})
    return {}, {}


def _call_judge_llm(prompt):
    parsed = parse_json(call_model(JUDGE_MODEL, [{"role": "user", "content": prompt}], temperature=JUDGE_TEMPERATURE))
    return parsed if isinstance(parsed, dict) else {}


def _closest(name, names):
    words = set(name.lower().replace("_", " ").split())
    return max(names, key=lambda n: len(words & set(n.lower().replace("_", " ").split()))) if names else ""


def _judge_one(task, sample):
    answer = sample.get("answer", sample)
    entity, part, how = answer.get("gold_entity", ""), answer.get("gold_part", ""), answer.get("how_to_use", "")
    gold = task["golds"][0]
    best_entity = _closest(entity, [e["name"] for e in task["entities"]])
    chosen = next(e for e in task["entities"] if e["name"] == best_entity)
    best_part = _closest(part, list(chosen.get("judge_output", {})) or [gold["gold_part"]])
    entity_ok, part_ok = best_entity == gold["gold_entity"], best_part == gold["gold_part"]
    entry = chosen.get("judge_output", {}).get(best_part)
    relation = "gold" if entity_ok and part_ok else ("hallucination" if entry is None else "not similar")
    detail = {k: 0 for k in FIELDS}
    reasonability = {}
    if how:
        if entity_ok and part_ok:
            reply = _call_judge_llm(f"GRADE (gold) {task['task']} / {json.dumps(gold['gold_affordance'])} / {how}")
        else:
            physical, state = _attrs(task, best_entity, best_part)
            reply = _call_judge_llm(f"GRADE (other) {task['task']} / {best_part} of {best_entity} / "
                                    f"{json.dumps(physical)} / {json.dumps(state)} / {how}")
            second = _call_judge_llm(f"WEIGH {best_part} of {best_entity} / {json.dumps(entry)} / {how}")
            reasonability = {"prediction_reasonable_reason": second.get("prediction_reasonable_reason", ""),
                             "prediction_reasonable_level": second.get("prediction_reasonable_level", 0)}
        for k in FIELDS:
            detail[f"{k}_reason"] = reply.get(f"{k}_reason", "")
            detail[k] = reply.get(k, 0) if str(reply.get(k, 0)) in ("0", "1", "2", "NA") else 0
    judged = dict(sample)
    judged.update({"task_uid": task["task_id"], "setting": task.get("setting"), "best_matching_entity": best_entity,
                   "best_matching_part": best_part, "entity_correct": entity_ok, "part_correct": part_ok,
                   "prediction_relation": relation, "predicted_entity_part_judge_output": entry, "llm_judge": detail,
                   "prediction_reasonability_judge": reasonability})
    return judged


def main():
    os.makedirs(JUDGED_OUTPUT_DIR, exist_ok=True)
    for name in sorted(os.listdir(OUTPUT_DIR)):
        with open(os.path.join(TASK_DIR_CANDIDATES[0], name.split("__")[0] + ".json")) as f:
            tasks = {t["task_id"]: t for t in json.load(f)}
        with open(os.path.join(OUTPUT_DIR, name)) as f:
            outputs = json.load(f)
        judged = {}
        for task_id, samples in outputs.items():
            head = next((s for s in samples if float(s.get("temperature", 1)) == 0.0), samples[0])
            judged[task_id] = [_judge_one(tasks[task_id], head)]
        with open(os.path.join(JUDGED_OUTPUT_DIR, name), "w") as f:
            json.dump(judged, f, indent=2)


if __name__ == "__main__":
    main()
