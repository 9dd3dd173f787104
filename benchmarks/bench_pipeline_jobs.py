"""``kari pipeline`` with its players one after the other (``--jobs 1``) and side by side (``--jobs N``, default
the cores): wall and CPU time of the whole job and of its play step, and whether the two give the same files.

The two runs are whole pipelines: each induces its rules anew (the same rules unless a solver time limit is hit
under load: ``same_rules`` says). The play step's time is read from the pipeline's own step lines (stamped as they arrive on stdout): from the
KB-gap ledger line (the last step before the games) to the last ``play`` line. The files compared are every
``.json``, ``.jsonl``, ``.md`` and ``.csv`` under ``play/`` and ``report/``, timings (``time_s``, ``latency_s``)
blanked and the output folder's path replaced.

Run (minutes, under nice): python benchmarks/bench_pipeline_jobs.py [--jobs N] [--games N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kari.io.jobs import without_timings


def _files(root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for folder in ("play", "report"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in (".json", ".jsonl", ".md", ".csv") and ".shards" not in str(path):
                text = path.read_text().replace(str(root), "ROOT")
                key = str(path.relative_to(root))
                if path.suffix == ".json":
                    out[key] = without_timings(json.loads(text))
                elif path.suffix == ".jsonl":
                    out[key] = [without_timings(json.loads(line)) for line in text.splitlines()]
                else:
                    out[key] = text
    return out


def _rules(root: Path) -> dict[str, str]:
    """The rule files the play step reads (the KB rules and the cross-fitted sets), by content hash: two runs
    whose induction differed (a solver time limit hit under load) play different inputs."""
    import hashlib

    paths = [root / "rules.jsonl", *sorted((root / "bench_rules.cv").glob("*"))]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


def run(out: Path, jobs: int, games: int | None) -> dict[str, Any]:
    """One pipeline run into ``out``: wall and CPU seconds, the play step's wall seconds."""
    argv = [sys.executable, "-m", "kari", "pipeline", "--out", str(out), "--jobs", str(jobs)]
    if games is not None:
        argv += ["--games", str(games)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    stamps: list[tuple[float, str]] = []
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            stamps.append((time.perf_counter() - start, line.strip()))
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"kari pipeline failed ({proc.returncode})")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ledger = next(t for t, line in stamps if line.startswith("KB-gap ledger"))
    played = max(t for t, line in stamps if line.startswith("play "))
    return {"jobs": jobs, "wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
            "play_wall_s": round(played - ledger, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="the side-by-side run's jobs")
    parser.add_argument("--games", type=int, default=None, help="only the first N games (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kari-bench-jobs-") as scratch:
        target = Path(scratch) / "run"
        one = run(target, 1, args.games)
        first, rules = _files(target), _rules(target)
        target.rename(Path(scratch) / "sequential")
        many = run(target, args.jobs, args.games)
        second = _files(target)
        same_rules = _rules(target) == rules
        differ = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
        same = not differ
    result = {"sequential": one, "parallel": many, "identical_outputs": same, "files": len(first), "differ": differ,
              "same_rules": same_rules,
              "cores": len(os.sched_getaffinity(0)), "load_average": os.getloadavg()}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for row in (one, many):
        print(f"--jobs {row['jobs']}: wall {row['wall_s']} s, CPU {row['cpu_s']} s, play step {row['play_wall_s']} s")
    print(f"identical outputs ({len(first)} files): {same}{'' if same else ': ' + ', '.join(differ)}; load average "
          f"{result['load_average']}")


if __name__ == "__main__":
    main()
