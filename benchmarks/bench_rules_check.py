"""Benchmark ``kari rules check`` on one valid rule with 5,000 OR branches, beside ``fmt``, ``stats`` and
``compile`` of the same file, each timed as a user runs it (process start to exit).

The rule is valid (warnings only: see :func:`make_rule`), so every check runs in full: the duplicate and
subsumed branch checks compare the branches with each other, and every warning is located (FILE:LINE:COL).
Goal: ``rules check`` under 1 s.

    python benchmarks/bench_rules_check.py [--branches 5000] [--limit 120]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_rule(branches: int, seed: int = 0) -> str:
    """``big := OR(...)`` with ``branches`` distinct branches, within the language's 65,536-character limit: four
    in five a single atom, the rest an AND of two, over values the vocabulary does not know (each is an
    ``unknown-value`` warning: every branch gets a located diagnostic). Single atoms and pairs use different
    values, and pairs share values only with other pairs, so no branch repeats or subsumes another."""
    rng = random.Random(seed)
    singles = branches * 4 // 5
    pairs = branches - singles
    texts = [f"SIZE:a{i:x}" for i in range(singles)]
    texts += [f"AND(SIZE:b{i:x},SIZE:c{rng.randrange(pairs):x})" for i in range(pairs)]
    rng.shuffle(texts)
    return "big := OR(" + ",".join(texts) + ")\n"


def timed(argv: list[str], limit: float) -> tuple[float | None, int | None]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=limit, env=env)
    except subprocess.TimeoutExpired:
        return None, None
    return time.perf_counter() - start, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--branches", type=int, default=5000)
    parser.add_argument("--limit", type=float, default=120.0, help="seconds allowed per command")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="kari-bench-rules-") as tmp:
        path = Path(tmp) / "big.kari"
        path.write_text(make_rule(args.branches), encoding="utf-8")
        print(f"one rule, {args.branches:,} branches, {path.stat().st_size / 1024:.0f} KiB")
        kari = [sys.executable, "-m", "kari"]
        results = {}
        for name in ("check", "fmt", "stats", "compile"):
            seconds, code = timed([*kari, "rules", name, str(path)], args.limit)
            results[name] = seconds
            shown = f"> {args.limit:g} s" if seconds is None else f"{seconds:6.2f} s"
            print(f"kari rules {name:8s} {shown}  (exit {code})")
    check = results["check"]
    print(f"goal: rules check under 1 s -> {'met' if check is not None and check < 1 else 'NOT met'}; "
          f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
