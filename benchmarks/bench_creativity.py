"""CreativityBench figures: the symbolic solver on the bundled tasks against random choice and the entity-only rate,
the LLM solver with and without rules through a local server (protocol only), and the time to solve 1,000 tasks.

    python benchmarks/bench_creativity.py [--tasks 1000] [--llm-base-url URL --llm-model NAME] [--llm-tasks 12]

The 1,000 tasks are the bundled ones repeated under new ids (each solved from scratch: one clingo query per task).
Goal: 1,000 tasks symbolically in under a minute. With ``--llm-local`` it starts kari's local llama.cpp server
(SmolLM2-135M, as ``kari llm serve`` does): that model's answers are not a quality figure.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kari.creativity.run import SolveConfig, solve_tasks  # noqa: E402
from kari.resources import asset_path  # noqa: E402

BUNDLED = asset_path("data", "creativity")


def _line(name: str, s: dict) -> str:
    oracle = s.get("oracle_affordance") or {}
    return (f"{name:<34} tasks {s['tasks']:>5}  answered {s['answered']:>5}  entity {s['entity_correct_rate']:.3f}  "
            f"gold {s['gold_correct_rate']:.3f}  random entity {s['random_entity_rate']:.3f}  random gold "
            f"{s['random_gold_rate']:.3f}" + (f"  oracle-affordance gold {oracle['gold_correct_rate']:.3f}"
                                              if oracle else ""))


def many_tasks(count: int, out: Path) -> Path:
    tasks = json.loads((BUNDLED / "tasks.json").read_text(encoding="utf-8"))
    copies = []
    for i in range(count):
        task = dict(tasks[i % len(tasks)])
        task["task_id"] = f"{task['task_id']}-copy{i}"
        copies.append(task)
    path = out / "tasks-many.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in copies), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--llm-base-url")
    parser.add_argument("--llm-model")
    parser.add_argument("--llm-local", action="store_true", help="start the local llama.cpp test server")
    parser.add_argument("--llm-tasks", type=int, default=12)
    args = parser.parse_args()
    rules = str(BUNDLED / "rules.kari")
    tasks = str(BUNDLED / "tasks.json")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        from kari.creativity.store import load_creativity

        db = root / "kb.duckdb"
        load_creativity(db, [BUNDLED / "entities.jsonl", BUNDLED / "tasks.json"])
        for goal in ("lexical", "oracle"):
            for with_db in (True, False):
                name = f"symbolic goal={goal} parts={'kb' if with_db else 'descriptions'}"
                summary = solve_tasks(SolveConfig(tasks=tasks, rules=rules, goal=goal, db=str(db) if with_db else None),
                                      root / name.replace(" ", "_"), progress=False)
                print(_line(name, summary))
        path = many_tasks(args.tasks, root)
        started = time.perf_counter()
        cpu = time.process_time()
        summary = solve_tasks(SolveConfig(tasks=str(path), rules=rules, db=str(db)), root / "many", progress=False)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(_line(f"symbolic x{args.tasks}", summary))
        print(f"solved {summary['tasks']} tasks in {wall:.1f} s wall ({cpu:.1f} s CPU), "
              f"{1000 * wall / summary['tasks']:.1f} ms/task; goal < 60 s: {'met' if wall < 60 else 'NOT met'}")
        if args.llm_local or args.llm_base_url:
            llm_figures(args, root, tasks, rules)
    return 0


def llm_figures(args: argparse.Namespace, root: Path, tasks: str, rules: str) -> None:
    from contextlib import nullcontext

    from kari.llm import LLMConfig

    if args.llm_local:
        from kari.llm.localserver import ServerSpec, running_server, smollm2_gguf

        context = running_server(ServerSpec(smollm2_gguf(), "smollm2-135m-instruct", port=8093))
        model = "smollm2-135m-instruct"
    else:
        context, model = nullcontext(args.llm_base_url), args.llm_model
    with context as base_url:
        config = LLMConfig(base_url=base_url, model=model, cache_dir=root / "cache")
        for solver in ("llm", "llm+rules"):
            started = time.perf_counter()
            summary = solve_tasks(SolveConfig(tasks=tasks, rules=rules, solver=solver, limit=args.llm_tasks,
                                              model=model, base_url=base_url), root / solver.replace("+", "_"),
                                  llm_config=config, progress=False)
            print(_line(f"{solver} ({model})", summary) + f"  {time.perf_counter() - started:.1f} s, "
                  f"{summary['llm_usage'].get('total_tokens', '?')} tokens")


if __name__ == "__main__":
    sys.exit(main())
