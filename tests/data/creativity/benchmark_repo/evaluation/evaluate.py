"""Stand-in runner: every task at every temperature, one output file."""
import json
import os
from concurrent.futures import ThreadPoolExecutor

from models import call_model
from utils import SYS_COT, SYS_STATIC, build_cot_prompt, build_static_prompt, parse_response, run_interactive

TASK_FILE = os.environ.get("TASK_FILE", os.path.join(os.path.dirname(__file__), "../dataset/sample_tasks.json"))
OUTPUT_DIR = os.environ.get("OUTPUT_DIR", os.path.join(os.path.dirname(__file__), "outputs"))
MODEL = os.environ.get("MODEL", "stand-in-model")
MODE = os.environ.get("MODE", "static").lower()
MAX_WORKERS = int(os.environ.get("MAX_WORKERS", "4"))
TEMPERATURES = [float(t) for t in os.environ.get("TEMPERATURES", "0.0,0.5").split(",")]


def _run_static(task, temp):
    text = call_model(MODEL, [{"role": "system", "content": SYS_STATIC},
                              {"role": "user", "content": build_static_prompt(task)}], temperature=temp)
    reasoning, parsed = parse_response(text)
    return {"temperature": temp, "reasoning": reasoning, "gold_entity": parsed.get("gold_entity", ""),
            "gold_part": parsed.get("gold_part", ""), "how_to_use": parsed.get("how_to_use", "")}


def _run_cot(task, temp):
    text = call_model(MODEL, [{"role": "system", "content": SYS_COT},
                              {"role": "user", "content": build_cot_prompt(task)}], temperature=temp)
    reasoning, parsed = parse_response(text)
    thought = parsed.get("reasoning") if isinstance(parsed.get("reasoning"), dict) else {"raw_reasoning": reasoning}
    return {"temperature": temp, "reasoning": thought, "gold_entity": parsed.get("gold_entity", ""),
            "gold_part": parsed.get("gold_part", ""), "how_to_use": parsed.get("how_to_use", "")}


def _run_one(args):
    task, idx, temperature = args
    runner = {"static": _run_static, "cot": _run_cot}.get(MODE)
    result = runner(task, temperature) if runner else run_interactive(MODEL, task, temperature=temperature)
    answer = result.get("answer", result)
    if not any(str(answer.get(k, "")).strip() for k in ("gold_entity", "gold_part", "how_to_use")):
        return task["task_id"], idx, None
    result["temperature"] = temperature
    result["sample_idx"] = idx
    return task["task_id"], idx, result


def main():
    os.makedirs(OUTPUT_DIR, exist_ok=True)
    with open(TASK_FILE) as f:
        tasks = json.load(f)
    jobs = [(task, idx, t) for task in tasks for idx, t in enumerate(TEMPERATURES)]
    results = {}
    with ThreadPoolExecutor(max_workers=MAX_WORKERS) as pool:
        for tid, idx, answer in pool.map(_run_one, jobs):
            if answer is not None:
                results.setdefault(tid, []).append(answer)
    src = os.path.splitext(os.path.basename(TASK_FILE))[0]
    with open(os.path.join(OUTPUT_DIR, f"{src}__{MODEL.replace('/', '_')}__{MODE}.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
