"""Benchmark: the affordances ``kari induce`` ends without a rule, and why, on benchmarks kari did not build.

    python benchmarks/bench_no_rule.py [--bench DIR ...] [--db KB.duckdb ...] [--min-positives 10]

Runs ``kari induce --bench DIR`` (offline, defaults) on each benchmark (default: the bundled one,
``tests/data/outside_bench``, ``tests/data/raw_mini`` and ``tests/data/part_words``) and ``kari induce --db`` on
each KB database given, then reads every finished affordance of the run directory and prints, per input: the
affordances, those without a rule, those of them with at least ``--min-positives`` positives, and how many
ended so because their proposals were refused (every round dropped: each attempt rejected by a guard) and how
many of those proposed a value or branch already refused again. Goal (issue 25): no affordance with 10 or more
positives ends without a rule because a guard refused the same branch again.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BENCHES = ("data/bench", "tests/data/outside_bench", "tests/data/raw_mini", "tests/data/part_words")


def _refused(result: dict[str, Any]) -> bool:
    """Did every proposal of some round end refused (the affordance's rounds dropped)?"""
    return any(r.get("outcome") == "dropped" for r in result.get("rounds", ()))


def _repeated(result: dict[str, Any]) -> int:
    """Attempts that proposed again what an earlier attempt had proposed and had refused: a proposal identical to
    a refused one (whatever the kari version recorded), or one marked ``repeated``."""
    seen: set[str] = set()
    again = 0
    for drop in result.get("dropped", ()):
        key = json.dumps([drop.get("round"), drop.get("problems")], sort_keys=True)
        again += key in seen or bool(drop.get("repeated"))
        seen.add(key)
    return again


def summarise(run_dir: Path, min_positives: int) -> dict[str, Any]:
    """The counts of one run directory's finished affordances (module docstring)."""
    results = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((run_dir / "affordances").glob("*.json"))]
    missing = [r for r in results if r.get("rule") is None]
    enough = [r for r in missing if r.get("positives", 0) >= min_positives]
    return {
        "affordances": len(results), "without_rule": len(missing), f"without_rule_ge{min_positives}": len(enough),
        "refused": sum(_refused(r) for r in missing),
        "refused_repeating": sum(_refused(r) and _repeated(r) > 0 for r in missing),
        f"refused_repeating_ge{min_positives}": sum(_refused(r) and _repeated(r) > 0 for r in enough),
        "listed": {r["affordance"]: {"positives": r["positives"], "why": r.get("no_rule")} for r in enough},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", action="append", default=None, help="Benchmark directory (repeatable).")
    parser.add_argument("--db", action="append", default=[], help="KB database to induce from (repeatable).")
    parser.add_argument("--min-positives", type=int, default=10)
    args = parser.parse_args(argv)
    from kari.induce.run import induce

    inputs = [("bench", Path(b) if Path(b).is_absolute() else ROOT / b) for b in (args.bench or DEFAULT_BENCHES)]
    inputs += [("db", Path(d)) for d in args.db]
    with tempfile.TemporaryDirectory(prefix="kari-bench-no-rule-") as tmp:
        for n, (kind, path) in enumerate(inputs):
            out = Path(tmp) / f"run{n}" / "rules.kari"
            outcome = induce(out=out, **{kind: path}, fresh=True, argv=[])  # type: ignore[arg-type]
            row = summarise(outcome.run_dir, args.min_positives)
            print(json.dumps({"input": f"--{kind} {path}", **row}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
