"""Stand-in prompts and parsers (wording of its own)."""
import json
import os
import random
import re

from models import call_model

MAX_TURNS = int(os.environ.get("MAX_TURNS", "6"))

SYS_STATIC = "Stand-in system text: pick one part of one thing in the scene for the job."
SYS_COT = "Stand-in system text: think about the parts step by step, then pick one."
SYS_INTERACTIVE = f"Stand-in system text: look at one thing per turn; {MAX_TURNS} turns in all."

ANSWER = '{"gold_entity": "...", "gold_part": "...", "how_to_use": "..."}'


def parse_json(text):
    try:
        return json.loads(text.strip())
    except Exception:
        found = re.search(r"\{.*\}", text, re.DOTALL)
        try:
            return json.loads(found.group()) if found else None
        except Exception:
            return None


def parse_response(text):
    text = text.strip()
    found = re.search(r"\{.*\}", text, re.DOTALL)
    if found:
        try:
            return text[:found.start()].strip(), json.loads(found.group())
        except Exception:
            pass
    return text, {}


def _scene(task):
    lines = [f"JOB: {task['task']}", f"WHERE: {task['environment']}", "THINGS:"]
    for entity in task["entities"]:
        lines.append(f"* {entity['name']}: {entity['description'].replace(' [gold part]', '')}")
    for item in task["items"]:
        if item["interactable"] == "Yes":
            lines.append(f"- also here: {item['name']} ({item['description']})")
    return "\n".join(lines)


def build_static_prompt(task):
    return _scene(task) + "\nReason, then answer with " + ANSWER


def build_cot_prompt(task):
    return _scene(task) + '\nFill {"reasoning": {...}} and the answer fields: ' + ANSWER


def run_interactive(model_name, task, temperature=0.0):
    names = [e["name"] for e in task["entities"]] + [i["name"] for i in task["items"] if i["interactable"] == "Yes"]
    random.shuffle(names)
    messages = [{"role": "system", "content": SYS_INTERACTIVE},
                {"role": "user", "content": f"JOB: {task['task']}\nNAMES: {', '.join(names)}"}]
    log, last = [], None
    for turn in range(MAX_TURNS):
        reply = call_model(model_name, messages, temperature=temperature)
        messages.append({"role": "assistant", "content": reply})
        reasoning, parsed = parse_response(reply)
        entry = {"round": turn + 1, "model_reasoning": reasoning, "model_action": parsed or None}
        if parsed.get("action") == "answer":
            log.append(entry)
            return {"answer": {"reasoning": reasoning, "gold_entity": parsed.get("gold_entity", ""),
                               "gold_part": parsed.get("gold_part", ""), "how_to_use": parsed.get("how_to_use", "")},
                    "turns": turn + 1, "conversation_log": log}
        last = parsed or last
        target = parsed.get("target", "")
        found = next((e["description"] for e in task["entities"] if e["name"].lower() == target.lower()), None)
        feedback = f"ABOUT {target}: {found}" if found else f"nothing called {target!r}"
        messages.append({"role": "user", "content": feedback + f" ({MAX_TURNS - turn - 1} left)"})
        entry["feedback"] = feedback
        log.append(entry)
    last = last or {}
    return {"answer": {"reasoning": "", "gold_entity": last.get("gold_entity", ""), "gold_part": last.get("gold_part", ""),
                       "how_to_use": last.get("how_to_use", "")}, "turns": MAX_TURNS, "conversation_log": log}
