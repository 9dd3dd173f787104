"""CreativityBench figures: the symbolic solver on the bundled tasks and on a hand-built task file shaped like the
benchmark's published sample, against random choice; the relation distribution; the LLM solver's three modes and
the LLM judge through a local server (protocol only); the time to solve 1,000 tasks.

    python benchmarks/bench_creativity.py [--tasks 1000] [--llm-local | --llm-base-url URL --llm-model NAME]
                                          [--llm-tasks 4] [--llm-max-tokens 256] [--judge-tasks 30]

The symbolic solver uses the shipped rules (``data/creativity/rules.kari``, induced without the bundled tasks' gold
entities) with ``--goal rules`` (and its variants ``--goal-top-k 1``, ``--goal-text words``, paired), ``lexical``
and ``oracle``; the same matcher over rules induced from the whole KB,
gold entities included, is printed as the in-sample comparison. The 1,000 tasks are the bundled ones repeated under new ids (each solved from scratch: one clingo query per task).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kari.creativity.run import SolveConfig, solve_tasks  # noqa: E402
from kari.resources import asset_path  # noqa: E402

BUNDLED = asset_path("data", "creativity")
SAMPLE = ROOT / "tests" / "data" / "creativity"


def _rate(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def line(name: str, s: dict) -> str:
    oracle = s.get("oracle_affordance") or {}
    return (f"{name:<44} tasks {s['tasks']:>5}  answered {s['answered']:>4} ({_rate(s['answered_share'])})  "
            f"entity {_rate(s['entity_correct_rate'])}  part {_rate(s['part_correct_rate'])}  gold "
            f"{_rate(s['gold_correct_rate'])}  gold|answered {_rate(s['gold_rate_when_answered'])}  random "
            f"{_rate(s['random_entity_rate'])}/{_rate(s['random_gold_rate'])}  goal-map "
            f"{_rate(s['goal_mapped_correctly'])}"
            + (f"  oracle gold {_rate(oracle['gold_correct_rate'])}" if oracle else "")
            + (f"  goals above threshold {s['goal_rules']['above_threshold']}, fallbacks "
               f"{s['goal_rules']['fallback']}, rank {json.dumps(s['goal_rules'].get('rank'))}"
               if s.get("goal_rules") else "")
            + f"\n{'':<44} relations {json.dumps(s['relations'])}")


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


def in_sample_rules(root: Path, kb: Path) -> Path:
    """Rules induced from the whole bundled KB, the gold entities included (the in-sample comparison only)."""
    from kari.induce.run import induce

    out = root / "in-sample" / "rules.kari"
    out.parent.mkdir()
    induce(out=out, db=kb, run_dir=out.with_suffix(".run"), argv=[])
    return out


def gold_flags(folder: Path) -> list[bool]:
    """Each task's headline gold_correct, in task order."""
    records = [json.loads(x) for x in (folder / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    return [next((s for s in r["samples"] if s["temperature"] == 0), r["samples"][0])["score"]["gold_correct"]
            for r in sorted(records, key=lambda r: r["task_id"])]


def paired_delta(a: list[bool], b: list[bool], draws: int = 10_000, names: tuple[str, str] = ("lexical", "rules")
                 ) -> str:
    """Gold rate of ``b`` minus ``a`` on the same tasks, with a 95% paired-bootstrap interval and McNemar's p."""
    import numpy as np

    from kari.stats import mcnemar_exact

    diff = np.array(b, dtype=float) - np.array(a, dtype=float)
    rng = np.random.default_rng(0)
    means = diff[rng.integers(0, len(diff), (draws, len(diff)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    only_a, only_b = sum(x and not y for x, y in zip(a, b)), sum(y and not x for x, y in zip(a, b))
    return (f"{diff.mean():+.3f} [{low:+.3f}, {high:+.3f}], McNemar p = {mcnemar_exact(only_a, only_b):.3g} "
            f"({only_b} tasks gold only with {names[1]}, {only_a} only with {names[0]})")


def symbolic_figures(root: Path) -> None:
    from kari.creativity.store import load_creativity

    rules = str(BUNDLED / "rules.kari")
    kb = root / "kb.duckdb"
    load_creativity(kb, [BUNDLED / "entities.jsonl", BUNDLED / "tasks.json"])
    sample_kb = root / "sample.duckdb"
    load_creativity(sample_kb, [SAMPLE / "1_entity_lookup.json"])
    runs = {}
    for label, tasks, db in (("bundled", BUNDLED / "tasks.json", kb), ("sample-shaped", SAMPLE / "sample_tasks.json",
                                                                       sample_kb)):
        for goal in ("rules", "lexical", "oracle"):
            for with_db in (True, False):
                name = f"{label} symbolic goal={goal} parts={'kb' if with_db else 'descriptions'}"
                folder = root / name.replace(" ", "_")
                summary = solve_tasks(SolveConfig(tasks=str(tasks), rules=rules, goal=goal,
                                                  db=str(db) if with_db else None), folder, progress=False)
                runs[name] = folder
                print(line(name, summary))
    for parts in ("kb", "descriptions"):
        print(f"bundled, parts={parts}: gold rate, --goal rules minus --goal lexical: "
              + paired_delta(gold_flags(runs[f"bundled symbolic goal=lexical parts={parts}"]),
                             gold_flags(runs[f"bundled symbolic goal=rules parts={parts}"])))
    variants(root, runs, rules, {"bundled": (BUNDLED / "tasks.json", kb),
                                 "sample-shaped": (SAMPLE / "sample_tasks.json", sample_kb)})
    inside = in_sample_rules(root, kb)
    for with_db in (True, False):
        name = f"bundled symbolic goal=rules IN-SAMPLE rules parts={'kb' if with_db else 'descriptions'}"
        summary = solve_tasks(SolveConfig(tasks=str(BUNDLED / "tasks.json"), rules=str(inside), goal="rules",
                                          db=str(kb) if with_db else None), root / name.replace(" ", "_"),
                              progress=False)
        print(line(name, summary))
    from kari.creativity.scoring import score_file

    scored = score_file(SAMPLE / "outputs" / "sample_tasks__demo-model__static.json", SAMPLE / "sample_tasks.json")
    judged = score_file(SAMPLE / "judged_outputs" / "sample_tasks__demo-model__static.json",
                        SAMPLE / "sample_tasks.json")
    print(f"sample-shaped runner output scored: headline {json.dumps(scored['headline'])}")
    print(f"sample-shaped judge output: agreement {json.dumps(judged['judge']['agree'])} of "
          f"{judged['judge']['samples']}")


def variants(root: Path, runs: dict[str, Path], rules: str, files: dict[str, tuple[Path, Path]]) -> None:
    """``--goal rules``, KB parts, against its variants on the same tasks: the nearest rule only
    (``--goal-top-k 1``) and the request's content words matched (``--goal-text words``), each as a paired delta."""
    for label, (tasks, db) in files.items():
        base = runs[f"{label} symbolic goal=rules parts=kb"]
        for option, value, config in (("--goal-top-k", "1", {"goal_top_k": 1}),
                                      ("--goal-text", "words", {"goal_text": "words"})):
            name = f"{label} symbolic goal=rules {option} {value} parts=kb"
            folder = root / name.replace(" ", "_")
            summary = solve_tasks(SolveConfig(tasks=str(tasks), rules=rules, goal="rules", db=str(db), **config),
                                  folder, progress=False)
            print(line(name, summary))
            print(f"{label}, parts=kb: gold rate, {option} {value} minus the default: "
                  + paired_delta(gold_flags(base), gold_flags(folder), names=("default", f"{option} {value}")))


def timing(root: Path, count: int) -> None:
    path = many_tasks(count, root)
    for goal in ("lexical", "rules"):
        started = time.perf_counter()
        cpu = time.process_time()
        summary = solve_tasks(SolveConfig(tasks=str(path), rules=str(BUNDLED / "rules.kari"), goal=goal),
                              root / f"many-{goal}", progress=False)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(line(f"symbolic goal={goal} x{count}", summary))
        print(f"solved {summary['tasks']} tasks in {wall:.1f} s wall ({cpu:.1f} s CPU), "
              f"{1000 * wall / summary['tasks']:.1f} ms/task; goal < 60 s: {'met' if wall < 60 else 'NOT met'}")


def llm_figures(args: argparse.Namespace, root: Path) -> None:
    from contextlib import nullcontext

    from kari.creativity.judge import JudgeConfig, judge_run
    from kari.llm import LLMConfig

    if args.llm_local:
        from kari.llm.localserver import ServerSpec, running_server, smollm2_gguf

        context = running_server(ServerSpec(smollm2_gguf(), "smollm2-135m-instruct", port=8093, n_ctx=8192))
        model = "smollm2-135m-instruct"
    else:
        context, model = nullcontext(args.llm_base_url), args.llm_model
    rules = str(BUNDLED / "rules.kari")
    with context as base_url:
        config = LLMConfig(base_url=base_url, model=model, cache_dir=root / "cache")
        runs = [("static", "llm", (0.0, 0.3, 0.7)), ("cot", "llm", (0.0,)), ("interactive", "llm", (0.0,)),
                ("static", "llm+rules", (0.0,))]
        for tasks_name, tasks in (("bundled", BUNDLED / "tasks.json"), ("sample-shaped", SAMPLE / "sample_tasks.json")):
            for mode, solver, temperatures in runs:
                started = time.perf_counter()
                out = root / f"{tasks_name}-{solver}-{mode}".replace("+", "_")
                summary = solve_tasks(SolveConfig(tasks=str(tasks), rules=rules, solver=solver, mode=mode,
                                                  temperatures=temperatures, limit=args.llm_tasks,
                                                  max_tokens=args.llm_max_tokens, max_turns=3, model=model,
                                                  base_url=base_url), out, llm_config=config, progress=False)
                usage = summary["llm_usage"]
                print(line(f"{tasks_name} {solver} {mode} T={list(temperatures)} ({model})", summary)
                      + f"\n{'':<44} {time.perf_counter() - started:.1f} s, {usage['calls']} calls, "
                        f"{usage.get('total_tokens', '?')} tokens" + (f", mean turns {summary['mean_turns']}"
                                                                      if "mean_turns" in summary else ""))
            for solved in ("llm-static", "symbolic_goal=lexical_parts=kb"):   # the LLM's answers, then kari's
                run_dir = root / (f"{tasks_name}-{solved}" if solved.startswith("llm") else
                                  f"{tasks_name}_{solved}")
                started = time.perf_counter()
                judged = judge_run(run_dir, JudgeConfig(model=model, base_url=base_url,
                                                        max_tokens=args.llm_max_tokens, limit=args.judge_tasks),
                                   llm_config=config, progress=False)
                print(f"{tasks_name} {solved} judged by {model}: {judged['judged']} of {judged['tasks']} judged, how "
                      f"{json.dumps(judged['how'])}, reasonability {json.dumps(judged['reasonability_levels'])}, "
                      f"other answers' rubric means "
                      f"{json.dumps({k: v['mean'] for k, v in judged['other'].items()})}, "
                      f"{time.perf_counter() - started:.1f} s, {judged['llm_usage']['calls']} calls")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--llm-base-url")
    parser.add_argument("--llm-model")
    parser.add_argument("--llm-local", action="store_true", help="start the local llama.cpp test server")
    parser.add_argument("--llm-tasks", type=int, default=4)
    parser.add_argument("--llm-max-tokens", type=int, default=256)
    parser.add_argument("--judge-tasks", type=int, default=30, help="tasks of each run the LLM judge reads")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        symbolic_figures(root)
        timing(root, args.tasks)
        if args.llm_local or args.llm_base_url:
            llm_figures(args, root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
