"""Benchmark ``kari induce --db`` at KB scale: a CSKG-shaped synthetic KB with 2,000 distinct affordance verbs.

    python benchmarks/bench_induce_kb.py [--verbs 2000] [--objects 3000] [--groupings none,lemma] [--kb FILE]
                                         [--min-kb-objects N]

Generates the KB (``benchmarks/synthetic_kb.py``, deterministic), loads it, and runs ``kari induce --db`` offline
with its defaults (the settings search included) once per grouping, each in its own process, printing wall time,
CPU time (the forked workers' included), peak RSS, rules and the run's timers. ``--min-kb-objects 1`` induces
every verb group, the thin ones too (kari's default leaves out groups resting on one object with no KB kin: on
the synthetic KB about 600 of the 2,000 verbs, so the default run is not the 2,000-verb workload). ``--kb FILE`` times a real KB instead (e.g. data/kb/kari_kb.tsv).
Goal (issue 18): 2,000 verbs in under 2 minutes on 2 cores, the settings search a few seconds at most.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

INDUCE = """
import json, resource, sys, time
start = time.perf_counter()
from kari.core.induce_config import InduceConfig
from kari.induce.run import induce
settings = {"min_kb_objects": int(sys.argv[4])} if len(sys.argv) > 4 else {}
outcome = induce(out=sys.argv[2], db=sys.argv[1], config=InduceConfig(grouping=sys.argv[3], **settings), fresh=True,
                 argv=[])
usage, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime + workers.ru_utime + workers.ru_stime  # the forked workers' CPU too
print(json.dumps({"seconds": time.perf_counter() - start, "cpu_seconds": cpu,
                  "peak_rss_mib": usage.ru_maxrss / 1024, "rules": len(outcome.rules), "groups": len(outcome.results),
                  "timers": outcome.timers.rows()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--verbs", type=int, default=2000)
    parser.add_argument("--objects", type=int, default=3000)
    parser.add_argument("--groupings", default="none,lemma")
    parser.add_argument("--kb", type=Path, default=None, help="a KB file to time instead of the synthetic one")
    parser.add_argument("--min-kb-objects", type=int, default=None,
                        help="induce's --min-kb-objects (default: kari's; 1 induces every verb group)")
    args = parser.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="kari-induce-kb-") as tmp:
        work = Path(tmp)
        kb = args.kb
        if kb is None:
            from synthetic_kb import generate

            kb = work / "synthetic.tsv"
            counts = generate(kb, args.verbs, args.objects)
            print(f"synthetic KB: {counts}")
        db = work / "kb.duckdb"
        subprocess.run([sys.executable, "-m", "kari", "kb", "load", str(kb), "--db", str(db)], check=True, env=env,
                       capture_output=True)
        print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
        for grouping in args.groupings.split(","):
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", INDUCE, str(db), str(work / f"{grouping}.kari"), grouping,
                                   *([str(args.min_kb_objects)] if args.min_kb_objects is not None else [])],
                                  check=True, capture_output=True, text=True, env=env)
            result = json.loads(done.stdout.strip().splitlines()[-1])
            timers = {t["operation"]: round(t["total_s"], 1) for t in result["timers"]}
            print(f"--group {grouping}: {result['groups']} verb groups, {result['rules']} rules in "
                  f"{result['seconds']:.1f} s wall ({result['cpu_seconds']:.1f} s CPU, process "
                  f"{time.perf_counter() - started:.1f} s), peak RSS {result['peak_rss_mib']:.0f} MiB; timers {timers}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
